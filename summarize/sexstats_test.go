package summarize

import (
	"encoding/json"
	"math"
	"testing"
)

// TestProgenyStatisticsPerSex: a summarized progeny page's trait_stats give
// n and mean over the daughters and over the sons beside the overall ones,
// so "the mean WWT of his ewe lambs" needs no other call; the figures are
// those counted directly from the page.
func TestProgenyStatisticsPerSex(t *testing.T) {
	s, c := newTestSummarizer(t)
	const parent = "6400012020ABC001"
	g := newGen(8)
	v := g.progeny(parent, 100, 100, 0, 100)
	req := Request{Kind: KindProgeny, Value: v, Raw: v.Raw, Args: map[string]any{"lpn_id": parent, "page": 0, "page_size": 100}, Budget: 4000, Requested: true}
	r := s.Fit(req)
	checkResult(t, c, req, r)
	var p struct {
		TraitStats *statsTable `json:"trait_stats"`
	}
	if err := json.Unmarshal([]byte(r.Text), &p); err != nil || p.TraitStats == nil {
		t.Fatalf("no trait_stats (%v): %.300s", err, r.Text)
	}
	col := map[string]int{}
	for i, name := range p.TraitStats.Columns {
		col[name] = i
	}
	for _, name := range []string{"n_f", "mean_f", "n_m", "mean_m"} {
		if _, ok := col[name]; !ok {
			t.Fatalf("trait_stats columns %v have no %s", p.TraitStats.Columns, name)
		}
	}
	checked := 0
	for _, row := range p.TraitStats.Rows {
		code := row[col["code"]].(string)
		for _, sx := range []struct{ sex, n, mean string }{{"F", "n_f", "mean_f"}, {"M", "n_m", "mean_m"}} {
			n, sum := 0, 0.0
			for _, a := range v.Animals {
				if tr, ok := findTrait(a.Traits, code); ok && sexCode(a.Sex) == sx.sex && !math.IsNaN(tr.Value) {
					n, sum = n+1, sum+tr.Value
				}
			}
			gotN, _ := row[col[sx.n]].(float64)
			gotMean, hasMean := row[col[sx.mean]].(float64)
			if int(gotN) != n || (n > 0) != hasMean || (n > 0 && math.Abs(gotMean-sum/float64(n)) > 0.0005+1e-9) {
				t.Errorf("%s %s: n %v mean %v; want n %d mean %g", code, sx.sex, row[col[sx.n]], row[col[sx.mean]], n, sum/float64(max(n, 1)))
			}
			if n > 0 {
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("no trait held by offspring of either sex: the per-sex statistics were not exercised")
	}
}
