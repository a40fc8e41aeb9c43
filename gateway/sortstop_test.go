package gateway

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// TestSortedBoundedSearchWithholdsNext: NSIP ignores a WWT bound on a
// search sorted by WWT. Once a page's rows, in the order they show, pass
// the bound, _meta offers no next call and says why; the same search
// without the bound still offers the next page.
func TestSortedBoundedSearchWithholdsNext(t *testing.T) {
	e, _, wwtOf := unfilteredWWT(t)
	wwt := func(i int) float64 { v, _ := wwtOf(i); return v }
	// The 30th row's WWT as the bound on the side the order runs to.
	bound := map[string]any{"min": wwt(29)}
	if wwt(0) < wwt(99) {
		bound = map[string]any{"max": wwt(29)}
	}
	args := map[string]any{"breed_id": 640, "sorted_trait": "WWT", "page_size": 100,
		"search_criteria": map[string]any{"trait_ranges": map[string]any{"WWT": bound}}}
	// Follow the next calls, which finish the first page (skip) and stop.
	call, calls := args, 0
	for {
		if calls++; calls > 10 {
			t.Fatal("next calls never stopped")
		}
		r := e.call("nsip_search_animals", call).mustOK(t)
		next, _ := r.meta["next"].(map[string]any)
		if next == nil {
			why, _ := r.meta["next_withheld"].(string)
			if !strings.Contains(why, "no next call: this page shows NSIP's rows sorted by WWT") {
				t.Errorf("_meta next_withheld %q: want why there is no next call", why)
			}
			if strings.Contains(r.text, `"summary":true`) && !strings.Contains(r.text, `"next_withheld"`) {
				t.Errorf("the summary does not say why it offers no next call: %.300s", r.text)
			}
			break
		}
		call, _ = next["arguments"].(map[string]any)
		if p, _ := call["page"].(float64); p != 0 {
			t.Fatalf("next call %v asks for a later page, though page 0 passed the bound", call)
		}
	}
	delete(args, "search_criteria")
	r := e.call("nsip_search_animals", args).mustOK(t)
	if r.meta["next"] == nil || r.meta["next_withheld"] != nil {
		t.Errorf("without the bound: _meta next %v, next_withheld %v; want the next page", r.meta["next"], r.meta["next_withheld"])
	}
}

// A sorted, bounded search that NSIP does not filter gives, from its
// first answer on, the count its pages prove rather than NSIP's count of
// every Katahdin: at least the rows through the first page, labelled so,
// then, on the page holding the first row past the bound, the count
// itself, worked here from the stand-in's data. Before, the first
// answers said total_count 327 (every Katahdin) where 114 matched, and
// the 114 appeared only in the last answer's next_withheld.
func TestSortedBoundedSearchGivesTheCountItProves(t *testing.T) {
	e, ids, wwt := unfilteredWWT(t)
	first, _ := wwt(0)
	bound, _ := wwt(113)
	if last, _ := wwt(150); first < last {
		t.Fatal("the stand-in sorts WWT lowest first; the test bounds a highest-first order")
	}
	want := 0 // the Katahdins of WWT at least the bound, by brute force
	for i := range ids {
		if v, ok := wwt(i); ok && v >= bound {
			want++
		}
	}
	args := map[string]any{"breed_id": 640, "sorted_trait": "WWT", "page_size": 100,
		"search_criteria": map[string]any{"trait_ranges": map[string]any{"WWT": map[string]any{"min": bound}}}}
	call := args
	for calls := 1; ; calls++ {
		if calls > 10 {
			t.Fatal("next calls never stopped")
		}
		r := e.call("nsip_search_animals", call).mustOK(t)
		total, note := r.metaInt(t, "total_count"), r.meta["total_count_note"]
		page := 0
		if p, ok := call["page"].(float64); ok {
			page = int(p)
		}
		if total == len(ids) {
			t.Fatalf("call %d: total_count %d, every Katahdin, where %d match", calls, total, want)
		}
		if page == 0 && (total != 100 || !strings.HasPrefix(fmt.Sprint(note), "at least")) {
			t.Errorf("call %d (page 0): total_count %d, note %v; want at least 100, said so", calls, total, note)
		}
		if page == 1 && (total != want || !strings.HasPrefix(fmt.Sprint(note), "the rows that meet")) {
			t.Errorf("call %d (page 1): total_count %d, note %v; want %d, proven", calls, total, note, want)
		}
		if strings.Contains(r.text, `"summary":true`) && !strings.Contains(r.text, fmt.Sprintf(`"total_count":%d,"total_count_note"`, total)) {
			t.Errorf("call %d: the summary's total_count is not _meta's %d: %.300s", calls, total, r.text)
		}
		next, _ := r.meta["next"].(map[string]any)
		if next == nil {
			if page != 1 {
				t.Errorf("the next calls stopped on page %d, want 1", page)
			}
			return
		}
		call, _ = next["arguments"].(map[string]any)
	}
}

// unfilteredWWT is a stand-in that ignores trait_ranges, its Katahdins in
// its order by WWT, and the WWT of the i-th (false where it has none).
func unfilteredWWT(t *testing.T) (*env, []string, func(i int) (float64, bool)) {
	e := newEnv(t)
	e.up.SetIrregular(nsiptest.Irregular{IgnoreCriteria: []string{"traitRanges"}})
	ids, err := e.up.Data().Search(640, nsiptest.Criteria{}, "WWT", false)
	if err != nil || len(ids) < 200 {
		t.Fatalf("%d Katahdins sorted by WWT (%v); the test needs two pages", len(ids), err)
	}
	return e, ids, func(i int) (float64, bool) {
		a, _ := e.up.Data().Animal(ids[i])
		tr, ok := a.Trait("WWT")
		return tr.Value, ok
	}
}
