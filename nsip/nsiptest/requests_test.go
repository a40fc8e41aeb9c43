package nsiptest_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

func TestBadRequestsAreRejected(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 5, Animals: 800})
	id := srv.Data().AnimalIDs()[0]
	search := nsiptest.EndpointSearch + "?page=0&pageSize=10"
	prog := nsiptest.EndpointProgeny + "?lpnId=" + id
	cases := []struct {
		name, method, path, body string
		status                   int
		mention                  string // the message must name what was wrong
	}{
		{"search page negative", "POST", nsiptest.EndpointSearch + "?page=-1&pageSize=10", "{}", 400, "page"},
		{"search pageSize zero", "POST", nsiptest.EndpointSearch + "?page=0&pageSize=0", "{}", 400, "pageSize"},
		{"search pageSize 101", "POST", nsiptest.EndpointSearch + "?page=0&pageSize=101", "{}", 400, "pageSize"},
		{"search page not integer", "POST", nsiptest.EndpointSearch + "?page=one&pageSize=10", "{}", 400, "page"},
		{"search page missing", "POST", nsiptest.EndpointSearch + "?pageSize=10", "{}", 400, "page"},
		{"search breedId negative", "POST", search + "&breedId=-4", "{}", 400, "breedId"},
		{"search reverse not bool", "POST", search + "&reverse=maybe", "{}", 400, "reverse"},
		{"search unknown sort trait", "POST", search + "&sortedBreedTrait=XYZ", "{}", 400, "sortedBreedTrait"},
		{"search empty body", "POST", search, "", 400, "body"},
		{"search body not JSON", "POST", search, "breedId=640", 400, "body"},
		{"search body an array", "POST", search, "[]", 400, "body"},
		{"search body truncated", "POST", search, `{"breedId":`, 400, "JSON"},
		{"criteria wrong type", "POST", search, `{"breedId":"640"}`, 400, "breedId"},
		{"criteria bad date", "POST", search, `{"bornAfter":"02/13/2024"}`, 400, "bornAfter"},
		{"criteria bad gender", "POST", search, `{"gender":"Ram"}`, 400, "gender"},
		{"criteria unknown trait", "POST", search, `{"traitRanges":{"XYZ":{"min":0,"max":1}}}`, 400, "XYZ"},
		{"criteria inverted range", "POST", search, `{"traitRanges":{"BWT":{"min":1,"max":0}}}`, 400, "BWT"},
		{"search with GET", "GET", search, "", 405, "POST"},
		{"details missing searchString", "GET", nsiptest.EndpointDetails, "", 400, "searchString"},
		{"details unknown animal", "GET", nsiptest.EndpointDetails + "?searchString=6409992024ZZZ999", "", 404, "6409992024ZZZ999"},
		{"lineage missing lpnId", "GET", nsiptest.EndpointLineage, "", 400, "lpnId"},
		{"lineage unknown animal", "GET", nsiptest.EndpointLineage + "?lpnId=NOPE12345", "", 404, "NOPE12345"},
		{"progeny unknown animal", "GET", nsiptest.EndpointProgeny + "?lpnId=NOPE12345&page=0&pageSize=5", "", 404, "NOPE12345"},
		{"progeny page missing", "GET", prog + "&pageSize=5", "", 400, "page"},
		{"progeny pageSize 500", "GET", prog + "&page=0&pageSize=500", "", 400, "pageSize"},
		{"progeny page not integer", "GET", prog + "&page=1.5&pageSize=5", "", 400, "page"},
		{"trait ranges missing breedId", "GET", nsiptest.EndpointTraitRanges, "", 400, "breedId"},
		{"trait ranges breedId zero", "GET", nsiptest.EndpointTraitRanges + "?breedId=0", "", 400, "breedId"},
		{"trait ranges breedId text", "GET", nsiptest.EndpointTraitRanges + "?breedId=katahdin", "", 400, "breedId"},
		{"trait ranges unknown breed", "GET", nsiptest.EndpointTraitRanges + "?breedId=999", "", 404, "999"},
		{"unknown endpoint", "GET", "search/getEverything", "", 404, "getEverything"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, srv, c.method, c.path, c.body)
			if r.status != c.status {
				t.Fatalf("status %d, want %d; body %s", r.status, c.status, r.body)
			}
			var e struct {
				Success *bool  `json:"success"`
				Message string `json:"message"`
			}
			if err := json.Unmarshal(r.body, &e); err != nil {
				t.Fatalf("error body is not JSON: %s", r.body)
			}
			if e.Success == nil || *e.Success || !strings.Contains(e.Message, c.mention) {
				t.Errorf("body %s: want success false and a message naming %q", r.body, c.mention)
			}
		})
	}
}

func TestLegacyErrorBody(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 5, Animals: 800, Format: nsiptest.FormatLegacy})
	r := get(t, srv, nsiptest.EndpointLineage+"?lpnId=NOPE12345")
	var e map[string]string
	if err := json.Unmarshal(r.body, &e); err != nil || r.status != http.StatusNotFound || !strings.Contains(e["Message"], "NOPE12345") {
		t.Errorf("got %d %s, want 404 with a Message naming the animal", r.status, r.body)
	}
}

func TestPagesPastTheEndAreEmpty(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 5, Animals: 800})
	d := srv.Data()
	id := d.MostProgeny()
	n := len(d.Progeny(id))
	var p struct {
		RecordCount int               `json:"recordCount"`
		Records     []json.RawMessage `json:"records"`
	}
	decode200(t, get(t, srv, nsiptest.EndpointProgeny+"?lpnId="+id+"&page=1000000&pageSize=100"), &p)
	if p.RecordCount != n || len(p.Records) != 0 {
		t.Errorf("far page: recordCount %d with %d records, want %d with none", p.RecordCount, len(p.Records), n)
	}
	// The last partial page holds the remainder.
	decode200(t, get(t, srv, nsiptest.EndpointProgeny+"?lpnId="+id+"&page=1&pageSize="+strconv.Itoa(n-1)), &p)
	if len(p.Records) != 1 {
		t.Errorf("page 1 of size %d: %d records, want 1", n-1, len(p.Records))
	}
}
