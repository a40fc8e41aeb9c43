package percentile_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/compare"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/rank"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// overCounted is NSIP counting more animals than its listing holds.
type overCounted struct {
	*analysistest.FakeSource
	more int
}

func (f overCounted) Search(ctx context.Context, q analysis.Query) (*nsip.SearchResults, error) {
	res, err := f.FakeSource.Search(ctx, q)
	if err == nil {
		res.TotalCount += f.more
	}
	return res, err
}

// wwtBreed is a breed of animals of WWT 1..listed, one each, which NSIP
// counts one more of than it lists; the animal of WWT v is wwtID(v).
func wwtBreed(listed int) overCounted {
	f := analysistest.NewFake()
	for v := 1; v <= listed; v++ {
		f.Add(&analysistest.FakeAnimal{ID: wwtID(v), Sex: "Female", Status: "CURRENT", EBV: map[string]float64{"WWT": float64(v)}})
	}
	return overCounted{f, 1}
}

func wwtID(v int) string { return fmt.Sprintf("6400001TST%05d", v) }

// overCountedWWT is nsip_get_animal with percentiles for the animal of
// WWT at in wwtBreed(listed).
func overCountedWWT(t *testing.T, listed, at int) limitedAnswer {
	t.Helper()
	var a limitedAnswer
	analysistest.Decode(t, runOn(t, percentile.AnimalPercentiles, wwtBreed(listed), map[string]any{"search_string": wwtID(at)}), &a)
	return a
}

// runOn runs d over src with args.
func runOn(t *testing.T, d *analysis.Def, src analysis.Source, args map[string]any) any {
	t.Helper()
	v, err := analysis.Run(t.Context(), d, src, analysistest.Discard(), param.SentOf(args), analysistest.Valid(t, d, args))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// unprovenOf is an answer's percentiles.unproven.
func unprovenOf(t *testing.T, v any) map[string]string {
	t.Helper()
	var a struct {
		Percentiles struct {
			Unproven map[string]string `json:"unproven"`
		} `json:"percentiles"`
	}
	analysistest.Decode(t, v, &a)
	return a.Percentiles.Unproven
}

// NSIP's count (318) one more than its listing (317): the share is not
// exact, and the answer gives the range the listing proves. Worked by
// hand: WWT 1..317, one each; the animal of WWT 277 has 41 listed as good
// or better (277..317). The one animal not listed may be as good or not,
// and may have WWT or not: the share is at least 41/318 = 12.893 %
// (rounded down, 12.89) and at most 42/318 = 13.208 % (rounded up, 13.21).
func TestAnimalPercentileRangeWhereCountAndListingDisagree(t *testing.T) {
	a := overCountedWWT(t, 317, 277)
	why := a.Percentiles.Unproven["WWT"]
	if len(a.EBVs) != 1 || a.EBVs[0][3] != nil || !strings.Contains(why, "between 12.89 and 13.21 %") || !strings.Contains(why, "(318) and its listing (317)") {
		t.Errorf("WWT row %v, unproven %q; want no exact share and the range 12.89 to 13.21 %% from the count 318 and the listing 317", a.EBVs, why)
	}
}

// A listing that ends a whole page before NSIP's count (300 listed, 301
// counted: page 3 empty) is read from its own last page. Worked by hand:
// WWT 1..300; the animal of WWT 271 has 30 as good or better, so the
// share is between 30/301 = 9.967 % (9.96) and 31/301 = 10.299 % (10.30).
func TestAnimalPercentileRangeWhereTheLastPageIsMissing(t *testing.T) {
	a := overCountedWWT(t, 300, 271)
	if why := a.Percentiles.Unproven["WWT"]; a.EBVs[0][3] != nil || !strings.Contains(why, "between 9.96 and 10.30 %") {
		t.Errorf("WWT row %v, unproven %q; want the range 9.96 to 10.30 %%", a.EBVs, why)
	}
}

// A comparison says the breed's reason once and each animal's range: in
// the breed of TestAnimalPercentileRangeWhereCountAndListingDisagree, the
// animal of WWT 300 has 18 listed as good or better (300..317), so its
// share is between 18/318 = 5.660 % (5.66) and 19/318 = 5.975 % (5.98);
// the animal of WWT 277, as there, 12.89 to 13.21 %.
func TestComparePercentileRangesWhereCountAndListingDisagree(t *testing.T) {
	args := map[string]any{"lpn_ids": []any{wwtID(277), wwtID(300)}, "percentiles": true}
	why := unprovenOf(t, runOn(t, compare.Compare, wwtBreed(317), args))["WWT (breed 640)"]
	for _, want := range []string{"(318) and its listing (317)", "6400001TST00277's share is between 12.89 and 13.21 %", "6400001TST00300's share is between 5.66 and 5.98 %"} {
		if !strings.Contains(why, want) || strings.Count(why, "disagree") != 1 {
			t.Errorf("unproven WWT %q; want %q, the reason once", why, want)
		}
	}
}

// A ranking's percentiles likewise: the two best of the same breed by
// WWT, 317 and 316, have 1 and 2 listed as good or better, so shares
// between 1/318 = 0.314 % (0.31) and 2/318 = 0.629 % (0.63), and between
// 2/318 (0.62) and 3/318 = 0.943 % (0.95).
func TestRankPercentileRangesWhereCountAndListingDisagree(t *testing.T) {
	args := map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1}, "top_n": 2, "percentiles": true}
	why := unprovenOf(t, runOn(t, rank.Rank, wwtBreed(317), args))["WWT"]
	for _, want := range []string{"6400001TST00317's share is between 0.31 and 0.63 %", "6400001TST00316's share is between 0.62 and 0.95 %"} {
		if !strings.Contains(why, want) || strings.Count(why, "disagree") != 1 {
			t.Errorf("unproven WWT %q; want %q, the reason once", why, want)
		}
	}
}
