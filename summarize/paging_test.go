package summarize

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// pagedSource is a fake upstream serving slices of one generated list, the
// way the API pages: rows [page*size, page*size+size).
type pagedSource struct {
	g    *gen
	rows []nsip.AnimalRow
	kids []nsip.ProgenyRow
}

func (p *pagedSource) search(page, size int) *nsip.SearchResults {
	lo, hi := min(page*size, len(p.rows)), min(page*size+size, len(p.rows))
	v := &nsip.SearchResults{TotalCount: len(p.rows), Page: page, PageSize: size, Results: p.rows[lo:hi]}
	v.Raw = p.g.searchRaw(v)
	return v
}

func (p *pagedSource) progeny(page, size int) *nsip.ProgenyPage {
	lo, hi := min(page*size, len(p.kids)), min(page*size+size, len(p.kids))
	v := &nsip.ProgenyPage{LPNID: "6400012020ABC001", TotalCount: len(p.kids), Page: page, PageSize: size, Animals: p.kids[lo:hi]}
	v.Raw = p.g.progenyRaw(v)
	return v
}

// follow pages through a result set as an assistant would: from page 0,
// each time the hint's call when there is one, otherwise the next page
// after a pass-through. It returns the LPN IDs seen, in order.
func follow(t *testing.T, s *Summarizer, c *Counter, budget int, args map[string]any, total int, fetch func(args map[string]any) (Request, []string)) []string {
	t.Helper()
	var seen []string
	for calls := 0; ; calls++ {
		if calls > total+5 {
			t.Fatalf("no end after %d calls (%d rows seen of %d)", calls, len(seen), total)
		}
		req, ids := fetch(args)
		req.Budget = budget
		req.Skip = argInt(args, "skip", 0)
		r := s.Fit(req)
		checkResult(t, c, req, r)
		if !r.Summarized {
			seen = append(seen, ids...)
			page, sz := argInt(args, "page", 0), argInt(args, "page_size", 0)
			if len(ids) == 0 || (page+1)*sz >= total {
				return seen
			}
			args = maps.Clone(args)
			args["page"] = page + 1
			continue
		}
		p := decode[pageOut](t, r.Text)
		for _, row := range p.Rows {
			seen = append(seen, str(t, row[0]))
		}
		if p.Next == nil {
			return seen
		}
		// The hint travels as JSON, as the assistant would send it back.
		args = nil
		if err := json.Unmarshal(mustJSON(p.Next.Arguments), &args); err != nil {
			t.Fatal(err)
		}
		if sz := argInt(args, "page_size", 0); sz < 1 || sz > 100 || argInt(args, "page", -1) < 0 {
			t.Fatalf("hint asks for page %v size %v, which the tool refuses", args["page"], args["page_size"])
		}
	}
}

func checkReached(t *testing.T, seen, want []string) {
	t.Helper()
	if len(seen) != len(want) {
		t.Fatalf("saw %d rows, want %d", len(seen), len(want))
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("row %d is %s, want %s (each row once, in order)", i, seen[i], want[i])
		}
	}
}

// TestHintsReachEveryRow pages through generated result sets of random
// sizes under random budgets and page sizes, following only the hints.
// Budgets start at 300: below the token size of a single upstream row, a
// page of one row cannot both pass through and be summarized in 30% of it.
func TestHintsReachEveryRow(t *testing.T) {
	s, c := newTestSummarizer(t)
	r := rand.New(rand.NewSource(99))
	for i := range 6 {
		total, size, budget := r.Intn(300), 1+r.Intn(100), 300+r.Intn(3700)
		t.Run(fmt.Sprintf("search/%d rows, page size %d, budget %d", total, size, budget), func(t *testing.T) {
			src := &pagedSource{g: newGen(int64(i))}
			src.g.sparse = i%3 == 0
			var want []string
			for range total {
				row := src.g.animalRow()
				src.rows = append(src.rows, row)
				want = append(want, row.LPNID)
			}
			start := map[string]any{"page": 0, "page_size": size, "breed_id": 640}
			seen := follow(t, s, c, budget, start, total, func(args map[string]any) (Request, []string) {
				v := src.search(argInt(args, "page", 0), argInt(args, "page_size", 0))
				if args["breed_id"] != 640 && args["breed_id"] != float64(640) {
					t.Fatalf("the hint dropped the breed filter: %v", args)
				}
				var ids []string
				for _, row := range v.Results {
					ids = append(ids, row.LPNID)
				}
				return Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: args}, ids
			})
			checkReached(t, seen, want)
		})
		t.Run(fmt.Sprintf("progeny/%d rows, page size %d, budget %d", total, size, budget), func(t *testing.T) {
			src := &pagedSource{g: newGen(int64(i))}
			v := src.g.progeny("6400012020ABC001", total, total, 0, max(total, 1))
			src.kids = v.Animals
			var want []string
			for _, k := range src.kids {
				want = append(want, k.LPNID)
			}
			start := map[string]any{"lpn_id": "6400012020ABC001", "page": 0, "page_size": size}
			seen := follow(t, s, c, budget, start, total, func(args map[string]any) (Request, []string) {
				v := src.progeny(argInt(args, "page", 0), argInt(args, "page_size", 0))
				var ids []string
				for _, row := range v.Animals {
					ids = append(ids, row.LPNID)
				}
				return Request{Kind: KindProgeny, Value: v, Raw: v.Raw, Args: args}, ids
			})
			checkReached(t, seen, want)
		})
	}
}
