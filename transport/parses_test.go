package transport

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// largeCall is a tools/call of block labelled label, padded past largeBody
// with argument names the tool does not know, as a flood of argument
// errors sends them.
func largeCall(label string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"block","arguments":{"label":%q`, label, label)
	for i := 0; b.Len() < largeBody+4096; i++ {
		fmt.Fprintf(&b, `,"unknown_%06d":"xxxxxxxxxxxxxxxx"`, i)
	}
	b.WriteString(`}}}`)
	return b.String()
}

// A client's large requests are parsed one at a time, while another
// client's go ahead: its second waits for its first (the wait is counted
// through onParseWait), and the other client's reaches its tool meanwhile
// without waiting. Before, every large request was parsed at once, so a
// flood of them (16 of 700 KB) shared the cores with everyone's calls.
func TestLargeRequestsWaitForTheirClientsTurn(t *testing.T) {
	g := newGate()
	waits := make(chan caller.ID, 10)
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(g), Options{Stateless: true, onParseWait: func(id caller.ID) { waits <- id }})
	flooder, other := dialFrom(t, "127.0.0.2"), dialFrom(t, "127.0.0.3")
	var wg sync.WaitGroup
	defer wg.Wait()
	defer g.open()
	answer := func(c *http.Client, label string) {
		wg.Go(func() {
			status, _, body := post(t, c, srv.base, nil, largeCall(label))
			if status != http.StatusOK || !strings.Contains(body, "released: "+label) {
				t.Errorf("%s: %d %.200s", label, status, body)
			}
		})
	}
	answer(flooder, "first")
	if got := g.waitEntered(t); got != "first" {
		t.Fatalf("%q reached the tool, want first", got)
	}
	answer(flooder, "second")
	select {
	case id := <-waits:
		if id != caller.Address("127.0.0.2") {
			t.Errorf("%s waited for its turn, want the flooder, addr:127.0.0.2", id)
		}
	case label := <-g.entered:
		t.Fatalf("%q reached the tool while the same client's first large call held its turn", label)
	case <-time.After(testTimeout):
		t.Fatal("the client's second large call neither waited nor ran")
	}
	answer(other, "other")
	if got := g.waitEntered(t); got != "other" {
		t.Fatalf("%q reached the tool, want the other client's call", got)
	}
	if n := len(waits); n != 0 {
		t.Errorf("%d more waits; the other client's call should not wait on the flooder", n)
	}
	g.open()
	if got := g.waitEntered(t); got != "second" {
		t.Errorf("%q reached the tool, want the flooder's second once its first was answered", got)
	}
}
