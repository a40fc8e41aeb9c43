package full

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// fakeBacklog is a client's account as a transport keeps it.
type fakeBacklog struct {
	others, held int64 // other calls' unread bytes; this call's hold
	asked        int
}

func (b *fakeBacklog) Unread() int64 { return b.others + b.held }

func (b *fakeBacklog) Hold(n, limit int64) (int64, bool) {
	b.asked++
	if b.others > 0 && b.others+n > limit {
		return b.others, false
	}
	b.held = n
	return b.others, true
}

// A read asks the client's account for the bytes its response will hold,
// and is refused, saying what to do, while the client's earlier answers lie
// unread past the bound; a client with nothing unread is always served.
func TestReadsWaitForTheClientsUnreadAnswers(t *testing.T) {
	s := New(Config{UnreadBytes: 2 << 20})
	tab := table(8000) // about 1 MB as JSON
	l := s.Offer(as("addr:a"), Data{Size: tab.Size(), Build: func() (*Table, error) { return tab, nil }})

	idle := &fakeBacklog{}
	text, err := read(t, s, withBacklog(as("addr:a"), idle), l.JSON)
	if err != nil {
		t.Fatal(err)
	}
	wire, _ := json.Marshal(text)
	if idle.asked != 1 || idle.held < int64(len(wire)) || idle.held > int64(len(wire))+1024 {
		t.Errorf("a read held %d bytes (asked %d times) for a response whose text is %d bytes as JSON", idle.held, idle.asked, len(wire))
	}

	busy := &fakeBacklog{others: 3 << 19}
	_, err = read(t, s, withBacklog(as("addr:a"), busy), l.JSON)
	if err == nil {
		t.Fatal("a read past the bound of unread answers was served")
	}
	for _, want := range []string{l.JSON, "1572864 bytes", "still unread", "NSIP_FULL_UNREAD_MAX_BYTES", "2MiB", "retry"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}

	// Within the bound, it is served.
	small := &fakeBacklog{others: 64 << 10}
	if _, err := read(t, s, withBacklog(as("addr:a"), small), l.CSV); err != nil {
		t.Errorf("a read within the bound: %v", err)
	}
}

// The size a read holds is its text's length as encoding/json writes it.
func TestJSONStringSizeIsTheEncodedLength(t *testing.T) {
	for _, s := range []string{"", "plain", `"quoted" \ back`, "tab\tnl\nret\rbs\bff\f", "\x00\x1f\x7f", "<a href='x'>&amp;</a>", "ewe ＝ 羊 🐑", "\u2028\u2029", "bad \xff\xfe utf-8", strings.Repeat(`{"lpn":"6400"},`, 100)} {
		b, _ := json.Marshal(s)
		if got := jsonStringSize([]byte(s)); got != int64(len(b)) {
			t.Errorf("jsonStringSize(%q) = %d, encoding/json writes %d bytes", s, got, len(b))
		}
	}
}

func withBacklog(ctx context.Context, b caller.Backlog) context.Context {
	return caller.WithBacklog(ctx, b)
}
