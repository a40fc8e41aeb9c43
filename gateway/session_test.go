package gateway

import (
	"encoding/json"
	"testing"
)

// breeder replays what a breeder's assistant does while choosing ewes and a
// ram: orient, search, open animals, follow parents and offspring, go back to
// the results, compare, page on and back. IDs come from earlier answers, as
// they would for a model.
type breeder struct {
	t     *testing.T
	e     *env
	calls int
	cost  int // upstream requests the calls would make without a cache
}

func (b *breeder) do(tool string, args map[string]any) reply {
	b.t.Helper()
	b.calls++
	b.cost++
	if tool == "nsip_search_by_lpn" {
		b.cost += 2
	}
	return b.e.call(tool, args).mustOK(b.t)
}

// search runs a small, unsummarized search and returns its records' IDs,
// sires and dams.
func (b *breeder) search(args map[string]any) (ids, sires, dams []string) {
	b.t.Helper()
	r := b.do("nsip_search_animals", args)
	var page struct {
		Records []struct {
			LPN string `json:"lpnId"`
			Sre string `json:"lpnSre"`
			Dam string `json:"lpnDam"`
		} `json:"records"`
	}
	if err := json.Unmarshal([]byte(r.text), &page); err != nil || len(page.Records) == 0 {
		b.t.Fatalf("search %v: %v (%.200s)", args, err, r.text)
	}
	for _, rec := range page.Records {
		ids, sires, dams = append(ids, rec.LPN), append(sires, rec.Sre), append(dams, rec.Dam)
	}
	return ids, sires, dams
}

func TestBreederSessionCacheEconomy(t *testing.T) {
	e := newEnv(t)
	b := &breeder{t: t, e: e}
	animal := func(id string) { b.do("nsip_get_animal", map[string]any{"search_string": id}) }
	lineage := func(id string) { b.do("nsip_get_lineage", map[string]any{"lpn_id": id}) }
	progeny := func(id string, page int) { b.do("nsip_get_progeny", map[string]any{"lpn_id": id, "page": page}) }
	profile := func(id string) { b.do("nsip_search_by_lpn", map[string]any{"lpn_id": id}) }

	ewes := map[string]any{"breed_id": 640, "sorted_trait": "WWT", "page_size": 5,
		"search_criteria": map[string]any{"gender": "Female", "born_after": "2018-01-01"}}
	ewesPage2 := map[string]any{"breed_id": 640, "sorted_trait": "WWT", "page_size": 5, "page": 1,
		"search_criteria": map[string]any{"gender": "Female", "born_after": "2018-01-01"}}
	currentEwes := map[string]any{"breed_id": 640, "sorted_trait": "WWT", "page_size": 5,
		"search_criteria": map[string]any{"gender": "Female", "born_after": "2018-01-01", "status": "CURRENT"}}
	rams := map[string]any{"breed_id": 640, "sorted_trait": "WWT", "page_size": 5,
		"search_criteria": map[string]any{"gender": "Male", "status": "CURRENT"}}

	// Orient.
	b.do("nsip_get_last_update", nil)
	b.do("nsip_list_breeds", nil)
	b.do("nsip_get_trait_ranges", map[string]any{"breed_id": 640})
	// The best young Katahdin ewes by weaning weight.
	a, aSire, aDam := b.search(ewes)
	animal(a[0])
	lineage(a[0])
	animal(aSire[0])
	progeny(aSire[0], 0)
	b.search(ewes) // back to the results
	animal(a[1])
	animal(a[0]) // compare the top two
	lineage(a[1])
	p2, _, _ := b.search(ewesPage2)
	animal(p2[0])
	b.search(ewes) // back to page one
	animal(a[2])
	progeny(aDam[2], 0)
	animal(a[1])
	profile(a[0])
	// Only animals still in flocks.
	b.do("nsip_get_statuses", nil)
	c, _, _ := b.search(currentEwes)
	animal(c[0])
	animal(a[0])
	lineage(a[0])
	progeny(aSire[0], 1)
	progeny(aSire[0], 0)
	b.do("nsip_get_trait_ranges", map[string]any{"breed_id": 640})
	// A ram to go with them.
	r, _, _ := b.search(rams)
	animal(r[0])
	lineage(r[0])
	progeny(r[0], 0)
	animal(r[1])
	b.search(rams) // back
	animal(r[0])
	animal(a[0])
	profile(r[0])
	animal(r[2])
	lineage(r[2])
	animal(r[0])
	b.search(ewes)
	b.do("nsip_get_last_update", nil)

	requests := e.up.TotalRequests()
	h := e.gw.Health()
	reduction := 1 - float64(requests)/float64(b.cost)
	t.Logf("breeder session: %d tool calls, %d upstream requests without a cache, %d with it: %.1f%% fewer (cache hits %d, misses %d, hit rate %.1f%%)",
		b.calls, b.cost, requests, 100*reduction, h.Cache.Hits, h.Cache.Misses, 100*h.Cache.HitRate)
	if b.calls < 30 || b.calls > 50 {
		t.Errorf("session of %d calls; the scenario is meant to be 30-50", b.calls)
	}
	if int(h.UpstreamRequests) != requests {
		t.Errorf("gateway counted %d upstream requests, the stand-in saw %d", h.UpstreamRequests, requests)
	}
	if reduction < 0.40 {
		t.Errorf("the cache saved %.1f%% of upstream requests; SC-006 asks for at least 40%%", 100*reduction)
	}
}
