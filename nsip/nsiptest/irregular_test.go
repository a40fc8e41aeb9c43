package nsiptest_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

type searchPage struct {
	RecordCount int `json:"recordCount"`
	Records     []struct {
		LpnID  string   `json:"lpnId"`
		Gender string   `json:"gender"`
		NLB    *float64 `json:"nlb"`
	} `json:"records"`
}

func searchIDs(t *testing.T, srv *nsiptest.Server, query, body string) (searchPage, []string) {
	t.Helper()
	var p searchPage
	decode200(t, do(t, srv, "POST", nsiptest.EndpointSearch+"?"+query, body), &p)
	var ids []string
	for _, r := range p.Records {
		ids = append(ids, r.LpnID)
	}
	return p, ids
}

// TestUnstableTiesRepeatAndSkipAcrossPages: with NLB served to one
// decimal, most of a breed ties; ordered anew on every request, paging
// through it repeats some animals and misses others, while one request's
// page is still sorted.
func TestUnstableTiesRepeatAndSkipAcrossPages(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 7, Animals: 1500})
	srv.SetIrregular(nsiptest.Irregular{UnstableTies: true, Round: map[string]int{"NLB": 1}})
	all, err := srv.Data().Search(640, nsiptest.Criteria{}, "", false)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for pg := 0; pg*100 < len(all); pg++ {
		p, ids := searchIDs(t, srv, fmt.Sprintf("page=%d&pageSize=100&breedId=640&sortedBreedTrait=NLB", pg), "{}")
		for i, r := range p.Records {
			if *r.NLB != math.Round(*r.NLB*10)/10 {
				t.Fatalf("NLB %v served unrounded", *r.NLB)
			}
			if i > 0 && *r.NLB > *p.Records[i-1].NLB {
				t.Fatalf("page %d not sorted by NLB at row %d", pg, i)
			}
		}
		for _, id := range ids {
			seen[id]++
		}
	}
	repeated := 0
	for _, n := range seen {
		repeated += n - 1
	}
	if repeated == 0 || len(seen) == len(all) {
		t.Errorf("%d unique of %d with %d repeats: want ties to repeat and skip animals", len(seen), len(all), repeated)
	}
	// Switched off, the same paging reads each animal once.
	srv.SetIrregular(nsiptest.Irregular{})
	clear(seen)
	for pg := 0; pg*100 < len(all); pg++ {
		_, ids := searchIDs(t, srv, fmt.Sprintf("page=%d&pageSize=100&breedId=640&sortedBreedTrait=NLB", pg), "{}")
		for _, id := range ids {
			seen[id]++
		}
	}
	if len(seen) != len(all) {
		t.Errorf("regular upstream: %d unique of %d", len(seen), len(all))
	}
}

// TestShortPagesMissRowsBeforeTheLast: every page but the last is short
// by the rows asked, the count unchanged, and the rows are gone rather
// than moved to the next page.
func TestShortPagesMissRowsBeforeTheLast(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 7, Animals: 1500})
	srv.SetIrregular(nsiptest.Irregular{ShortPages: 3})
	all, _ := srv.Data().Search(640, nsiptest.Criteria{}, "", false)
	last := (len(all) - 1) / 100
	for pg := 0; pg <= last; pg++ {
		p, ids := searchIDs(t, srv, fmt.Sprintf("page=%d&pageSize=100&breedId=640", pg), "{}")
		want := all[pg*100 : min(pg*100+100, len(all))]
		if pg < last {
			want = want[:97]
		}
		if p.RecordCount != len(all) || !slices.Equal(ids, want) {
			t.Errorf("page %d: %d rows of %d, want %d rows of %d", pg, len(ids), p.RecordCount, len(want), len(all))
		}
	}
	id := srv.Data().MostProgeny()
	var kids struct {
		Records []struct{} `json:"records"`
	}
	decode200(t, get(t, srv, nsiptest.EndpointProgeny+"?lpnId="+id+"&page=0&pageSize=10"), &kids)
	if len(kids.Records) != 7 {
		t.Errorf("progeny page 0: %d rows, want 7", len(kids.Records))
	}
}

// TestNarrowRangesPublishLessThanTheData: the published ranges are half
// as wide, so the breed's animals lie outside them.
func TestNarrowRangesPublishLessThanTheData(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 7, Animals: 1500})
	real, _ := srv.Data().TraitRanges(640)
	srv.SetIrregular(nsiptest.Irregular{NarrowRanges: 0.5})
	var got map[string]nsiptest.Range
	decode200(t, get(t, srv, nsiptest.EndpointTraitRanges+"?breedId=640"), &got)
	r, g := real["BWT"], got["BWT"]
	if math.Abs((g.Max-g.Min)-(r.Max-r.Min)/2) > 1e-9 || math.Abs((g.Min+g.Max)-(r.Min+r.Max)) > 1e-9 {
		t.Errorf("BWT published %+v, want half of %+v around its middle", g, r)
	}
}

// TestOneChildLineagesListTheDamAlone: a node with both parents lists only
// its dam.
func TestOneChildLineagesListTheDamAlone(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 7, Animals: 1500})
	srv.SetIrregular(nsiptest.Irregular{OneChildLineages: true})
	id := srv.Data().DeepPedigree()
	a := animal(t, srv.Data(), id)
	type node struct {
		LpnID    string `json:"lpnId"`
		Content  string `json:"content"`
		Children []node `json:"children"`
	}
	n := unwrap[node](t, get(t, srv, nsiptest.EndpointLineage+"?lpnId="+id))
	if len(n.Children) != 1 || n.Children[0].LpnID != a.Dam {
		t.Errorf("children %+v, want the dam %s alone", n.Children, a.Dam)
	}
}

// TestIgnoredCriteriaReturnRowsOutsideThem: with gender ignored a search
// for rams returns ewes and counts them, while the breed still filters;
// the request is checked whole, so a bad gender is still refused.
func TestIgnoredCriteriaReturnRowsOutsideThem(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 7, Animals: 1500})
	srv.SetIrregular(nsiptest.Irregular{IgnoreCriteria: []string{"gender"}})
	all, _ := srv.Data().Search(640, nsiptest.Criteria{}, "", false)
	p, _ := searchIDs(t, srv, "page=0&pageSize=100&breedId=640", `{"gender":"Male"}`)
	ewes := 0
	for _, r := range p.Records {
		// Live rows carry no sex: the dataset knows it.
		if a, _ := srv.Data().Animal(r.LpnID); a.Gender == "Female" {
			ewes++
		}
		if !strings.HasPrefix(r.LpnID, "640") {
			t.Errorf("row %s of another breed", r.LpnID)
		}
	}
	if p.RecordCount != len(all) || ewes == 0 {
		t.Errorf("%d ewes of %d rows, count %d; want ewes and the breed's %d", ewes, len(p.Records), p.RecordCount, len(all))
	}
	if r := do(t, srv, "POST", nsiptest.EndpointSearch+"?page=0&pageSize=10", `{"gender":"Ram"}`); r.status != 400 {
		t.Errorf("bad gender: status %d, want 400", r.status)
	}
	srv.SetIrregular(nsiptest.Irregular{IgnoreCriteria: []string{"breedId"}})
	if p, _ := searchIDs(t, srv, "page=0&pageSize=10&breedId=640", `{}`); p.RecordCount != srv.Data().Len() {
		t.Errorf("breedId ignored: count %d, want every animal (%d)", p.RecordCount, srv.Data().Len())
	}
}
