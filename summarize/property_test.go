package summarize

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestProperties fits generated answers of random kinds, sizes and shapes
// into random budgets and checks every invariant of the policy and, for
// each shape, every FR-005a field of every row shown.
func TestProperties(t *testing.T) {
	s, c := newTestSummarizer(t)
	r := rand.New(rand.NewSource(2026))
	kinds := []Kind{KindSearch, KindProgeny, KindLineage, KindAnimal, KindProfile, KindGeneric}
	fallbacks, summarized := 0, map[Kind]int{}
	for i := range 90 {
		g := newGen(r.Int63())
		g.old, g.unicode, g.sparse = r.Intn(2) == 0, r.Intn(3) == 0, r.Intn(3) == 0
		if r.Intn(8) == 0 {
			g.huge = 300 + r.Intn(3000)
		}
		kind := kinds[r.Intn(len(kinds))]
		budget := 200 + r.Intn(3801)
		n := []int{0, 1, r.Intn(120), 100}[r.Intn(4)]
		req := Request{Kind: kind, Budget: budget}
		switch kind {
		case KindSearch:
			req.Value = g.search(n, n+r.Intn(2000), r.Intn(5), max(n, 1))
			req.Args = map[string]any{"breed_id": 640, "sorted_trait": "BWT", "reverse": true}
		case KindProgeny:
			req.Value = g.progeny("6400012020ABC001", n, n+r.Intn(50), 0, max(n, 1))
		case KindLineage:
			req.Value = g.lineage(r.Intn(8))
		case KindAnimal:
			req.Value = bigDetails(g, r.Intn(400))
		case KindProfile:
			req.Value = g.profile(n, r.Intn(6))
		case KindGeneric:
			req.Value = g.search(n, n, 0, max(n, 1))
		}
		req.Raw = modelRaw(req.Value)
		t.Run(fmt.Sprintf("%d/%s/budget %d", i, kind, budget), func(t *testing.T) {
			res := s.Fit(req)
			checkResult(t, c, req, res)
			if !res.Summarized {
				return
			}
			summarized[kind]++
			if kind == KindGeneric {
				return
			}
			if res.Kind != kind {
				fallbacks++
				if budget >= 500 {
					t.Errorf("fell back to %s at budget %d: %.200s", res.Kind, budget, res.Text)
				}
				return
			}
			checkShape(t, req, res.Text)
		})
	}
	// The cases must exercise the summarizers, not only pass through.
	for _, k := range kinds {
		if summarized[k] < 3 {
			t.Errorf("only %d %s answers were summarized", summarized[k], k)
		}
	}
	t.Logf("summarized %v; %d fell back to the structural summary", summarized, fallbacks)
}
