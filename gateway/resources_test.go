package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	appviews "github.com/nsip-tools/nsip-mcp/gateway/views"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

func (e *env) read(uri string) (*mcp.ReadResourceResult, error) {
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	return e.client.ReadResource(context.Background(), req)
}

// mustRead reads uri and returns its single JSON text and _meta.
func (e *env) mustRead(t *testing.T, uri string) (string, map[string]any) {
	t.Helper()
	res, err := e.read(uri)
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("read %s: %d contents, want 1", uri, len(res.Contents))
	}
	tc, ok := res.Contents[0].(mcp.TextResourceContents)
	if !ok {
		t.Fatalf("read %s: contents %T, want text", uri, res.Contents[0])
	}
	if tc.URI != uri || tc.MIMEType != "application/json" {
		t.Errorf("read %s: uri %q mime %q", uri, tc.URI, tc.MIMEType)
	}
	if !json.Valid([]byte(tc.Text)) {
		t.Errorf("read %s: text is not JSON: %.200s", uri, tc.Text)
	}
	return tc.Text, tc.Meta
}

func TestResourcesAndTemplatesAreListed(t *testing.T) {
	e := newEnv(t)
	rs, err := e.client.ListResources(context.Background(), mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range rs.Resources {
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	want := []string{"nsip://breeds", "nsip://traits"}
	for _, v := range appviews.All {
		want = append(want, v.URI())
	}
	slices.Sort(want)
	if !slices.Equal(uris, want) {
		t.Errorf("resources %v, want %v", uris, want)
	}
	ts, err := e.client.ListResourceTemplates(context.Background(), mcp.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var tpls []string
	for _, tp := range ts.ResourceTemplates {
		tpls = append(tpls, tp.URITemplate.Raw())
	}
	slices.Sort(tpls)
	want = []string{"nsip://animals/{lpn_id}", "nsip://animals/{lpn_id}/lineage",
		"nsip://animals/{lpn_id}/progeny{?page,page_size,skip}", "nsip://breeds/{breed_id}/trait-ranges", "nsip://full/{answer}"}
	if !slices.Equal(tpls, want) {
		t.Errorf("templates %v, want %v", tpls, want)
	}
}

// A resource reads exactly what its tool answers, from the same cache entry.
func TestResourceReadsMatchTheirTools(t *testing.T) {
	e := newEnv(t)
	d := e.up.Data()
	lpn := d.MostProgeny()
	breed := d.BreedIDs()[0]
	cases := []struct {
		uri, tool string
		args      map[string]any
	}{
		{"nsip://breeds", "nsip_list_breeds", map[string]any{}},
		{fmt.Sprintf("nsip://breeds/%d/trait-ranges", breed), "nsip_get_trait_ranges", map[string]any{"breed_id": breed}},
		{"nsip://animals/" + lpn, "nsip_get_animal", map[string]any{"search_string": lpn}},
		{"nsip://animals/" + lpn + "/lineage", "nsip_get_lineage", map[string]any{"lpn_id": lpn}},
		{"nsip://animals/" + lpn + "/progeny", "nsip_get_progeny", map[string]any{"lpn_id": lpn}},
		{"nsip://animals/" + lpn + "/progeny?page=1&page_size=3", "nsip_get_progeny", map[string]any{"lpn_id": lpn, "page": 1, "page_size": 3}},
	}
	for _, tc := range cases {
		t.Run(tc.uri, func(t *testing.T) {
			e.up.ResetCounts()
			text, meta := e.mustRead(t, tc.uri)
			if meta["cache"] != "miss" || meta["budget"] == nil {
				t.Errorf("_meta %v, want a cache miss and the budget", meta)
			}
			if n := e.up.TotalRequests(); n != 1 {
				t.Errorf("reading took %d upstream requests, want 1", n)
			}
			r := e.call(tc.tool, tc.args).mustOK(t)
			if r.text != text {
				t.Errorf("resource and tool differ:\nresource %.300s\ntool     %.300s", text, r.text)
			}
			if r.meta["cache"] != "hit" || e.up.TotalRequests() != 1 {
				t.Errorf("the tool after the resource: cache %v, upstream %d; want a hit and no new request", r.meta["cache"], e.up.TotalRequests())
			}
		})
	}
	// The page arguments reached NSIP: page 1 of 3 is the 4th to 6th child.
	text, _ := e.mustRead(t, "nsip://animals/"+lpn+"/progeny?page=1&page_size=3")
	kids := d.Progeny(lpn)
	for _, id := range kids[3:6] {
		if !strings.Contains(text, id) {
			t.Errorf("progeny page 1 lacks child %s", id)
		}
	}
	if strings.Contains(text, kids[0]) {
		t.Errorf("progeny page 1 holds page 0's first child %s", kids[0])
	}
}

func TestTraitGlossaryResource(t *testing.T) {
	e := newEnv(t)
	text, _ := e.mustRead(t, "nsip://traits")
	var doc struct {
		Traits []nsip.TraitInfo `json:"traits"`
	}
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(doc.Traits, nsip.Glossary()) {
		t.Errorf("glossary resource differs from nsip.Glossary()")
	}
	bwt, _ := nsip.LookupTrait("BWT")
	if doc.Traits[0] != bwt || bwt.Direction != "lower" || bwt.Unit != "kg" {
		t.Errorf("first trait %+v, want BWT in kg, lower is better", doc.Traits[0])
	}
	if n := e.up.TotalRequests(); n != 0 {
		t.Errorf("the glossary asked NSIP %d times", n)
	}
}

func TestResourceReadErrorsNameTheFieldToFix(t *testing.T) {
	e := newEnv(t)
	cases := []struct{ uri, want string }{
		{"nsip://breeds/0/trait-ranges", `"field":"breed_id"`},
		{"nsip://breeds/xyzzy/trait-ranges", `"field":"breed_id"`},
		{"nsip://animals/NOSUCH00000/lineage", `"code":"not_found"`},
		// Digits alone are still an LPN ID (text), not a number.
		{"nsip://animals/1234567", `"code":"not_found"`},
		{"nsip://animals/6402382024NCS310/progeny?page=1&page_size=500", `"field":"page_size"`},
	}
	for _, tc := range cases {
		_, err := e.read(tc.uri)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("read %s: error %v, want it to contain %s", tc.uri, err, tc.want)
		}
	}
	if _, err := e.read("nsip://flocks/1"); err == nil {
		t.Error("an unknown URI was read")
	}
}

// A summary that leaves rows out links the resource holding them, and that
// resource reads what the summary's next call answers.
func TestSummariesLinkTheResourceOfWhatTheyLeftOut(t *testing.T) {
	e := newEnv(t)
	lpn := e.up.Data().MostProgeny()
	r := e.call("nsip_get_progeny", map[string]any{"lpn_id": lpn, "page_size": 100}).mustOK(t)
	var sum struct {
		Summary bool `json:"summary"`
		Next    struct {
			Tool      string         `json:"tool"`
			Arguments map[string]any `json:"arguments"`
		} `json:"next"`
	}
	if err := json.Unmarshal([]byte(r.text), &sum); err != nil || !sum.Summary || sum.Next.Tool != "nsip_get_progeny" {
		t.Fatalf("want a summarized page with a next call: %v %.300s", err, r.text)
	}
	a := sum.Next.Arguments
	want := fmt.Sprintf("nsip://animals/%s/progeny?page=%v&page_size=%v", lpn, a["page"], a["page_size"])
	if skip, ok := a["skip"]; ok {
		want += fmt.Sprintf("&skip=%v", skip)
	}
	// The next page's link comes first, then the page's complete data.
	if len(r.links) != 3 || r.links[0].URI != want || r.links[0].MIMEType != "application/json" || !strings.HasPrefix(r.links[1].URI, "nsip://full/") {
		t.Fatalf("links %+v, want one to %s, then the full answer's two", r.links, want)
	}
	text, _ := e.mustRead(t, want)
	next := e.call("nsip_get_progeny", a).mustOK(t)
	if text != next.text {
		t.Errorf("the linked resource differs from the next call:\n%.300s\n%.300s", text, next.text)
	}
	// Answers that fit carry no link.
	if small := e.call("nsip_get_progeny", map[string]any{"lpn_id": lpn, "page_size": 2}).mustOK(t); len(small.links) != 0 {
		t.Errorf("an unsummarized page links %+v", small.links)
	}
}
