package full

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
	"github.com/nsip-tools/nsip-mcp/transport/rpctest"
)

// Served as a resource template, a link is listed by its template and
// read through resources/read by its owner, with the MIME type of its
// format; another caller reading the same URI gets not-found.
func TestResourceTemplateServesTheOwnerOnly(t *testing.T) {
	s := New(Config{})
	srv := server.NewMCPServer("test", "1", server.WithResourceCapabilities(false, false))
	srv.AddResourceTemplates(s.ResourceTemplate())

	list, problem := rpctest.Send(t, context.Background(), srv, "resources/templates/list", map[string]any{})
	if problem != "" {
		t.Fatal(problem)
	}
	tpls, _ := list["resourceTemplates"].([]any)
	if len(tpls) != 1 || tpls[0].(map[string]any)["uriTemplate"] != "nsip://full/{answer}" || tpls[0].(map[string]any)["name"] != "full-answer" {
		t.Fatalf("templates %v, want nsip://full/{answer} named full-answer", tpls)
	}

	owner := as("session:owner")
	l := s.Offer(owner, data(table(2)))
	for _, c := range []struct{ uri, mime, first string }{
		{l.JSON, "application/json", `{"columns":["lpn_id","sex","WWT","note"],"count":2,`},
		{l.CSV, "text/csv", "lpn_id,sex,WWT,note\n6402382024NCSA,female,0,"},
	} {
		res, problem := rpctest.Send(t, owner, srv, "resources/read", map[string]any{"uri": c.uri})
		if problem != "" {
			t.Fatalf("owner reading %s: %s", c.uri, problem)
		}
		contents, _ := res["contents"].([]any)
		if len(contents) != 1 {
			t.Fatalf("owner reading %s: %v", c.uri, res)
		}
		got := contents[0].(map[string]any)
		if got["uri"] != c.uri || got["mimeType"] != c.mime || !strings.HasPrefix(got["text"].(string), c.first) {
			t.Errorf("owner reading %s: %v, want %s starting %q", c.uri, got, c.mime, c.first)
		}
		_, problem = rpctest.Send(t, as("session:other"), srv, "resources/read", map[string]any{"uri": c.uri})
		if !strings.Contains(problem, "no full answer at this URI for this caller") || strings.Contains(problem, "6402382024NCSA") {
			t.Errorf("another caller reading %s: %q, want not-found without the data", c.uri, problem)
		}
	}
}

// Every failed read but a broken answer is the one not-found; a broken
// answer says what broke, naming the row and column, and data that cannot
// be built gets no links but a note.
func TestReadFailures(t *testing.T) {
	s := New(Config{TTL: 90 * time.Minute})
	ctx := as("token:a")
	if _, err := s.Read(ctx, "nsip://animals/6401492020FLE249"); !errors.Is(err, server.ErrResourceNotFound) || !strings.Contains(err.Error(), "links last 1h30m0s from the call") {
		t.Errorf("a URI outside the links: %v, want not-found naming the TTL", err)
	}
	broken := s.Offer(ctx, Data{Size: 1, Build: func() (*Table, error) { return nil, errors.New("cache offline") }})
	if broken.JSON != "" || broken.Note != "the complete data could not be built, so no link is given: cache offline" {
		t.Errorf("build failure: %+v, want no links and a note saying what broke", broken)
	}
	nan := &Table{Columns: []string{"lpn_id", "WWT"}, Rows: [][]any{{"A", 1.0}, {"B", math.NaN()}}}
	l := s.Offer(ctx, data(nan))
	if _, err := s.Read(ctx, l.JSON); err == nil || !strings.HasPrefix(err.Error(), "the full answer could not be encoded as JSON: row 1, column WWT:") {
		t.Errorf("unencodable cell: %v, want an encoding error naming row 1, column WWT", err)
	}
	// CSV writes what JSON cannot.
	if text, err := read(t, s, ctx, l.CSV); err != nil || text != "lpn_id,WWT\nA,1\nB,NaN\n" {
		t.Errorf("CSV of a NaN cell: %q, %v", text, err)
	}
}

// Data offered again under its Ref shares its links only while they
// live: once expired, the same Ref gets new ones, which read.
func TestRefLinksRenewAfterExpiry(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := New(Config{TTL: time.Hour, Now: func() time.Time { return now }})
	d := data(table(2))
	d.Ref = "progeny#6401492018FLE001"
	first := s.Offer(as("token:a"), d)
	now = now.Add(time.Hour)
	second := s.Offer(as("token:a"), d)
	if second == first || second.JSON == "" {
		t.Fatalf("links after expiry %v, want new ones (were %v)", second, first)
	}
	if n, _ := s.Len(); n != 1 {
		t.Errorf("%d links held, want the renewed one alone", n)
	}
	if _, err := read(t, s, as("token:a"), second.JSON); err != nil {
		t.Errorf("renewed link: %v", err)
	}
	if _, err := read(t, s, as("token:a"), first.JSON); !errors.Is(err, server.ErrResourceNotFound) {
		t.Errorf("expired link: %v, want not found", err)
	}
}

// The bound on one answer is said in the sizes the setting is written
// in, and the store never holds less than one answer's worth.
func TestBoundsInSettingUnits(t *testing.T) {
	for n, want := range map[int64]string{
		512: "512B", 10 << 10: "10KiB", 1536 << 10: "1.5MiB", 8 << 20: "8MiB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
	s := New(Config{MaxBytes: 3 << 19, StoreBytes: 1 << 10})
	l := s.Offer(as("token:a"), Data{Size: 2 << 20, Build: func() (*Table, error) { return table(1), nil }})
	if !strings.Contains(l.Note, "the complete data (2MiB) is over this server's limit of 1.5MiB per answer (NSIP_FULL_MAX_BYTES)") {
		t.Errorf("note %q", l.Note)
	}
	// A store bound below the answer bound is raised to hold one answer
	// at that bound in both formats: its links stay readable.
	s = New(Config{MaxBytes: 64 << 10, StoreBytes: 1 << 10})
	tab := table(300)
	l = s.Offer(as("token:a"), data(tab))
	for _, uri := range []string{l.JSON, l.CSV} {
		if text, err := read(t, s, as("token:a"), uri); err != nil || len(text) < 8<<10 {
			t.Errorf("an answer within the raised store bound: %d bytes, %v", len(text), err)
		}
	}
}

// An analysis answer encodes as its value alone; its table travels beside
// it, and Split hands both back (a plain value comes back without one).
func TestAnswerCarriesItsTableUnseen(t *testing.T) {
	tab := table(1)
	a := &Answer{Value: map[string]any{"ranked": 1}, Table: tab}
	b, err := json.Marshal(a)
	if err != nil || string(b) != `{"ranked":1}` {
		t.Errorf("encoded answer %s, %v; want the value alone", b, err)
	}
	v, got := Split(a)
	if got != tab || v.(map[string]any)["ranked"] != 1 {
		t.Errorf("Split(answer) = %v, %v", v, got)
	}
	if v, got := Split("plain"); v != "plain" || got != nil {
		t.Errorf("Split(plain) = %v, %v", v, got)
	}
}

// A caller identity with no session is still one caller: the local
// caller's links are its own.
func TestLocalCallerLinks(t *testing.T) {
	s := New(Config{})
	l := s.Offer(context.Background(), data(table(1)))
	if _, err := read(t, s, context.Background(), l.JSON); err != nil {
		t.Errorf("the local caller reading its own link: %v", err)
	}
	if _, err := read(t, s, as(caller.Address("192.0.2.1")), l.JSON); !errors.Is(err, server.ErrResourceNotFound) {
		t.Errorf("an addressed caller reading the local caller's link: %v", err)
	}
}
