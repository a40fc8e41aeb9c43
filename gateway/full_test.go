package gateway

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// readFull reads a full-answer link as client c.
func readFull(c *client.Client, uri string) (string, error) {
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := c.ReadResource(context.Background(), req)
	if err != nil {
		return "", err
	}
	return res.Contents[0].(mcp.TextResourceContents).Text, nil
}

// fullOf is _meta.full of a reply, checked to match its resource links.
func fullOf(t *testing.T, r reply) (jsonURI, csvURI string) {
	t.Helper()
	m, _ := r.meta["full"].(map[string]any)
	jsonURI, _ = m["json"].(string)
	csvURI, _ = m["csv"].(string)
	if !strings.HasPrefix(jsonURI, "nsip://full/") || !strings.HasPrefix(csvURI, "nsip://full/") {
		t.Fatalf("_meta.full = %v, want json and csv links", r.meta["full"])
	}
	var linked []string
	for _, l := range r.links {
		linked = append(linked, l.URI)
	}
	if !slices.Contains(linked, jsonURI) || !slices.Contains(linked, csvURI) {
		t.Errorf("resource links %v, want both of _meta.full", linked)
	}
	return jsonURI, csvURI
}

// A summarized progeny page links its every row: the CSV has the header
// and one line per offspring on the page, with the summary's column names;
// only the session that made the call can read it, and only while the
// answer is cached.
func TestSummaryLinksItsEveryRow(t *testing.T) {
	e := newEnv(t)
	d := e.up.Data()
	lpn := d.MostProgeny()
	r := e.call("nsip_get_progeny", map[string]any{"lpn_id": lpn, "page_size": 100}).mustOK(t)
	if r.meta["summarized"] != true {
		t.Fatalf("want a summarized page: %v", r.meta)
	}
	jsonURI, csvURI := fullOf(t, r)
	text, err := readFull(e.client, csvURI)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	kids := d.Progeny(lpn)
	want := min(100, len(kids))
	if len(recs) != want+1 || !slices.Equal(recs[0][:3], []string{"lpn_id", "sex", "dob"}) {
		t.Fatalf("CSV: %d records, header %v; want %d rows under lpn_id, sex, dob", len(recs), recs[0], want)
	}
	seen := map[string]bool{}
	for _, rec := range recs[1:] {
		if !slices.Contains(kids, rec[0]) || seen[rec[0]] {
			t.Errorf("row %v is not a distinct offspring of %s", rec, lpn)
		}
		seen[rec[0]] = true
	}
	text, err = readFull(e.client, jsonURI)
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Count int              `json:"count"`
		Rows  []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(text), &j); err != nil || j.Count != want || len(j.Rows) != want || j.Rows[0]["lpn_id"] != recs[1][0] {
		t.Errorf("JSON: %v, count %d, %d rows; want %d in the CSV's order", err, j.Count, len(j.Rows), want)
	}

	// Another session gets a not-found, never the data.
	other := connect(t, e.srv)
	if text, err := readFull(other, csvURI); err == nil || strings.Contains(err.Error(), lpn) {
		t.Errorf("another session read the link: %q, %v", text, err)
	}
	// The same call again, from the cache, links the same data.
	again := e.call("nsip_get_progeny", map[string]any{"lpn_id": lpn, "page_size": 100}).mustOK(t)
	if j2, _ := fullOf(t, again); j2 != jsonURI {
		t.Errorf("the cached answer linked %s, then %s", jsonURI, j2)
	}
	// An answer that fits needs no link.
	if small := e.call("nsip_get_progeny", map[string]any{"lpn_id": lpn, "page_size": 2}).mustOK(t); small.meta["full"] != nil {
		t.Errorf("an unsummarized answer links %v", small.meta["full"])
	}
	// Past the cache's lifetime the link is gone.
	e.clock.Advance(DefaultConfig().CacheTTL + time.Second)
	if _, err := readFull(e.client, csvURI); err == nil {
		t.Error("the link outlived the cached answer")
	}
}

// A group summary links every animal it read, and its counts agree with
// the rows.
func TestGroupSummaryLinksEveryAnimal(t *testing.T) {
	e := newEnv(t)
	d := e.up.Data()
	lpn := d.MostProgeny()
	r := e.call("nsip_flock_summary", map[string]any{"progeny_of": lpn}).mustOK(t)
	var a struct {
		Animals int            `json:"animals"`
		BySex   map[string]int `json:"by_sex"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatal(err)
	}
	kids := d.Progeny(lpn)
	if a.Animals != len(kids) {
		t.Errorf("%d offspring counted, the stand-in has %d", a.Animals, len(kids))
	}
	_, csvURI := fullOf(t, r)
	text, err := readFull(e.client, csvURI)
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := csv.NewReader(strings.NewReader(text)).ReadAll()
	females := 0
	for _, rec := range recs[1:] {
		if rec[1] == "female" {
			females++
		}
	}
	if len(recs) != len(kids)+1 || females != a.BySex["female"] {
		t.Errorf("CSV has %d rows and %d females; the answer says %d animals and %d females", len(recs)-1, females, a.Animals, a.BySex["female"])
	}
}

// Past the per-answer bound there is no link, and the answer says why.
func TestFullAnswerBoundIsSaid(t *testing.T) {
	e := newEnv(t, withConfig(func(c *Config) { c.FullMaxBytes = 1 << 10 }))
	r := e.call("nsip_get_progeny", map[string]any{"lpn_id": e.up.Data().MostProgeny(), "page_size": 100}).mustOK(t)
	m, _ := r.meta["full"].(map[string]any)
	note, _ := m["note"].(string)
	if m["json"] != nil || !strings.Contains(note, "NSIP_FULL_MAX_BYTES") || len(r.links) != 1 {
		t.Errorf("_meta.full %v, links %v; want a note naming the setting and no full links", m, r.links)
	}
}

// An analysis answer the budget had to summarize links its complete data:
// a comparison that left animals out, every animal, one row each; a
// mating check, the whole answer, one row per value. One that fits,
// without rows of its own, links nothing.
func TestSummarizedAnalysisLinksItsWholeAnswer(t *testing.T) {
	e := newEnv(t)
	ids := e.up.Data().AnimalIDs()[:20]
	args := map[string]any{"lpn_ids": ids, "max_tokens": 256}
	r := e.call("nsip_compare_animals", args).mustOK(t)
	if r.meta["summarized"] != true {
		t.Fatalf("twenty animals fitted 256 tokens, so nothing tests the link: %v", r.meta)
	}
	_, csvURI := fullOf(t, r)
	text, err := readFull(e.client, csvURI)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil || len(recs) != len(ids)+1 || recs[0][0] != "lpn_id" {
		t.Fatalf("CSV %v: %d records, header %v, want lpn_id first and %d animals", err, len(recs), recs[0], len(ids))
	}
	for i, id := range ids {
		if recs[i+1][0] != id {
			t.Errorf("CSV row %d is %s, want %s", i+1, recs[i+1][0], id)
		}
	}
	r = e.call("nsip_check_mating", map[string]any{"sire_lpn_id": ids[0], "dam_lpn_id": ids[1], "max_tokens": 256}).mustOK(t)
	if r.meta["summarized"] != true {
		t.Fatalf("a mating check fitted 256 tokens, so nothing tests the link: %v", r.meta)
	}
	_, csvURI = fullOf(t, r)
	if text, err = readFull(e.client, csvURI); err != nil {
		t.Fatal(err)
	}
	recs, err = csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil || !slices.Equal(recs[0], []string{"path", "value"}) || !strings.Contains(text, ids[1]) {
		t.Fatalf("CSV %v: header %v, want path,value and the dam %s", err, recs[0], ids[1])
	}
	if small := e.call("nsip_compare_animals", map[string]any{"lpn_ids": ids[:2]}).mustOK(t); small.meta["full"] != nil {
		t.Errorf("an answer that fits links %v", small.meta["full"])
	}
}
