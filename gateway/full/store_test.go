package full

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

func as(id caller.ID) context.Context { return caller.WithRequest(context.Background(), id) }

func table(rows int) *Table {
	t := &Table{Columns: []string{"lpn_id", "sex", "WWT", "note"}}
	for i := range rows {
		t.Rows = append(t.Rows, []any{"6402382024NCS" + string(rune('A'+i%26)), "female", float64(i) / 4, "a, \"quoted\"\nline"})
	}
	return t
}

func data(t *Table) Data {
	return Data{Size: t.Size(), Build: func() (*Table, error) { return t, nil }}
}

func read(t *testing.T, s *Store, ctx context.Context, uri string) (string, error) {
	t.Helper()
	cs, err := s.Read(ctx, uri)
	if err != nil {
		return "", err
	}
	return cs[0].(mcp.TextResourceContents).Text, nil
}

// Reading a link gives every row: the CSV a header and one line per row
// (as encoding/csv reads it back), the JSON the same rows by column name.
func TestLinksReadEveryRow(t *testing.T) {
	s := New(Config{})
	tab := table(250)
	l := s.Offer(as("token:a"), data(tab))
	if !regexp.MustCompile(`^nsip://full/[0-9a-f]{32}\.json$`).MatchString(l.JSON) || l.CSV != strings.TrimSuffix(l.JSON, ".json")+".csv" {
		t.Fatalf("links %+v, want nsip://full/<32 hex>.json and .csv", l)
	}
	if m := l.Meta(); m != (Meta{JSON: l.JSON, CSV: l.CSV}) || len(l.Content()) != 2 {
		t.Errorf("meta %v, content %v", m, l.Content())
	}
	text, err := read(t, s, as("token:a"), l.CSV)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 251 || !slices.Equal(recs[0], tab.Columns) || recs[250][0] != "6402382024NCSP" || recs[250][2] != "62.25" || recs[1][3] != "a, \"quoted\"\nline" {
		t.Errorf("CSV: %d records, header %v, last %v, first %v", len(recs), recs[0], recs[len(recs)-1], recs[1])
	}
	text, err = read(t, s, as("token:a"), l.JSON)
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Columns []string         `json:"columns"`
		Count   int              `json:"count"`
		Rows    []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(text), &j); err != nil {
		t.Fatal(err)
	}
	if j.Count != 250 || len(j.Rows) != 250 || j.Rows[249]["WWT"] != 62.25 || !slices.Equal(j.Columns, tab.Columns) {
		t.Errorf("JSON: count %d, %d rows, last %v", j.Count, len(j.Rows), j.Rows[len(j.Rows)-1])
	}
}

// Only the caller that made the call reads its links; anyone else gets
// the same not-found as a URI never issued, and never the data.
func TestLinksAreTheCallersOwn(t *testing.T) {
	s := New(Config{})
	l := s.Offer(as("session:one"), data(table(3)))
	_, theirs := read(t, s, as("session:two"), l.JSON)
	_, never := read(t, s, as("session:two"), "nsip://full/00000000000000000000000000000000.json")
	if theirs == nil || !errors.Is(theirs, server.ErrResourceNotFound) || theirs.Error() != never.Error() {
		t.Errorf("another caller: %v; a URI never issued: %v; want the same not-found", theirs, never)
	}
	if _, err := read(t, s, as(caller.Local), l.CSV); err == nil {
		t.Error("the local caller read a session's link")
	}
	if _, err := read(t, s, as("session:one"), strings.TrimSuffix(l.JSON, ".json")+".xml"); err == nil {
		t.Error("a format other than json and csv was served")
	}
	if _, err := read(t, s, as("session:one"), l.CSV); err != nil {
		t.Errorf("the owner: %v", err)
	}
	// The same data offered again to its owner keeps its links; to
	// another caller, it gets links of its own.
	d := data(table(3))
	d.Ref = "search#7"
	a, b, c := s.Offer(as("session:one"), d), s.Offer(as("session:one"), d), s.Offer(as("session:two"), d)
	if a != b || a == c {
		t.Errorf("same ref: %v, %v; other caller %v", a, b, c)
	}
}

// A link lives for the TTL from the call; past it, a not-found.
func TestLinksExpire(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := New(Config{TTL: time.Hour, Now: func() time.Time { return now }})
	l := s.Offer(as("token:a"), data(table(1)))
	now = now.Add(time.Hour - time.Second)
	if _, err := read(t, s, as("token:a"), l.JSON); err != nil {
		t.Errorf("before the hour: %v", err)
	}
	now = now.Add(time.Second)
	if _, err := read(t, s, as("token:a"), l.JSON); !errors.Is(err, server.ErrResourceNotFound) {
		t.Errorf("at the hour: %v, want not found", err)
	}
	if n, b := s.Len(); n != 0 || b != 0 {
		t.Errorf("expired links still held: %d, %d bytes", n, b)
	}
	// Data already gone when the links would be given (the cached answer
	// was replaced meanwhile) gets no links, and a note saying so.
	gone := s.Offer(as("token:a"), Data{Size: 1, Build: func() (*Table, error) { return nil, ErrGone }})
	if gone.JSON != "" || !strings.Contains(gone.Note, "replaced in the cache") {
		t.Errorf("data gone: %+v, want no links and a note", gone)
	}
}

// Data over the per-answer bound gets no links and a note saying why;
// past the store's bound the oldest links are dropped.
func TestLinksAreBounded(t *testing.T) {
	s := New(Config{MaxBytes: 10 << 10, StoreBytes: 40 << 10})
	big := table(400)
	l := s.Offer(as("token:a"), data(big))
	if l.JSON != "" || !strings.Contains(l.Note, "10KiB per answer (NSIP_FULL_MAX_BYTES)") || l.Content() != nil || l.Meta() != (Meta{Note: l.Note}) {
		t.Errorf("over the bound: %+v, want no link and a note naming the setting", l)
	}
	var first Links
	for i := range 20 {
		l := s.Offer(as("token:a"), data(table(40)))
		if i == 0 {
			first = l
		}
	}
	if _, b := s.Len(); b > 40<<10 {
		t.Errorf("store holds %d bytes, over its bound", b)
	}
	if _, err := read(t, s, as("token:a"), first.JSON); err == nil {
		t.Error("the oldest link survived the store's bound")
	}
}

func TestCSVOfCells(t *testing.T) {
	// A nil pointer is an unknown value too: an empty field, not "null".
	var unknown *float64
	acc := 70.5
	tab := &Table{Columns: []string{"a", "b", "c", "d"}, Rows: [][]any{{nil, 3, true, 1e-7}, {"x"}, {unknown, &acc}}}
	b, err := tab.CSV()
	if err != nil {
		t.Fatal(err)
	}
	if want := "a,b,c,d\n,3,true,0.0000001\nx,,,\n,70.5,,\n"; !bytes.Equal(b, []byte(want)) {
		t.Errorf("CSV %q, want %q", b, want)
	}
}
