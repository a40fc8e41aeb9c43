package summarize

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// standIn is the stand-in upstream with a client pointed at it.
type standIn struct {
	srv *nsiptest.Server
	c   *nsip.Client
	ctx context.Context
}

func newStandIn(t testing.TB, f nsiptest.Format) *standIn {
	t.Helper()
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1, Format: f})
	c, err := nsip.NewClient(nsip.WithBaseURL(srv.URL()))
	if err != nil {
		t.Fatal(err)
	}
	return &standIn{srv: srv, c: c, ctx: context.Background()}
}

// search makes the client call that nsip_search_animals arguments ask for.
func (s *standIn) search(t testing.TB, args map[string]any) *nsip.SearchResults {
	t.Helper()
	p := nsip.SearchParams{Page: argInt(args, "page", 0), PageSize: argInt(args, "page_size", 15), BreedID: argInt(args, "breed_id", 0)}
	p.SortedTrait, _ = args["sorted_trait"].(string)
	p.Reverse, _ = args["reverse"].(bool)
	v, err := s.c.SearchAnimals(s.ctx, p)
	if err != nil {
		t.Fatalf("search %v: %v", args, err)
	}
	return v
}

func (s *standIn) progeny(t testing.TB, args map[string]any) *nsip.ProgenyPage {
	t.Helper()
	id, _ := args["lpn_id"].(string)
	v, err := s.c.Progeny(s.ctx, id, argInt(args, "page", 0), argInt(args, "page_size", 10))
	if err != nil {
		t.Fatalf("progeny %v: %v", args, err)
	}
	return v
}

// fetched adapts a client method that looks an animal up by LPN ID to a
// Request of the given kind.
func fetched[T any](kind Kind, get func(context.Context, string) (*T, error)) func(context.Context, string) (Request, error) {
	return func(ctx context.Context, id string) (Request, error) {
		v, err := get(ctx, id)
		if err != nil {
			return Request{}, err
		}
		return Request{Kind: kind, Value: v, Raw: modelRaw(v), Args: map[string]any{"lpn_id": id}}, nil
	}
}

// sample picks n IDs spread evenly over ids.
func sample(ids []string, n int) []string {
	var out []string
	for i := 0; i < len(ids) && len(out) < n; i += max(1, len(ids)/n) {
		out = append(out, ids[i])
	}
	return out
}

var formats = []struct {
	name string
	f    nsiptest.Format
}{{"current", nsiptest.FormatCurrent}, {"legacy", nsiptest.FormatLegacy}}

// reduction collects summary/original token ratios per kind.
type reduction map[Kind][]float64

func (r reduction) add(res Result) {
	if res.Summarized {
		r[res.Kind] = append(r[res.Kind], float64(res.Tokens)/float64(res.OriginalTokens))
	}
}

// TestStandInAnswers fits the stand-in's answers, fetched with the client,
// for every kind in both formats, and checks each summary against the
// model the client decoded.
func TestStandInAnswers(t *testing.T) {
	s, c := newTestSummarizer(t)
	red := reduction{}
	up := newStandIn(t, nsiptest.FormatCurrent)
	d := up.srv.Data()
	for _, fm := range formats {
		t.Run(fm.name, func(t *testing.T) {
			up.srv.SetFormat(fm.f)
			fit := func(t *testing.T, req Request) Result {
				t.Helper()
				r := s.Fit(req)
				checkResult(t, c, req, r)
				red.add(r)
				if r.Summarized && r.Kind != req.Kind {
					t.Fatalf("%s fell back to %s", req.Kind, r.Kind)
				}
				return r
			}
			t.Run("search", func(t *testing.T) {
				for _, args := range []map[string]any{
					{"page": 0, "page_size": 15},
					{"page": 0, "page_size": 100},
					{"page": 7, "page_size": 100, "breed_id": 640},
					{"page": 1, "page_size": 50, "sorted_trait": "WWT", "reverse": true},
					{"page": 3, "page_size": 30, "breed_id": 640, "sorted_trait": "BWT"},
				} {
					v := up.search(t, args)
					r := fit(t, Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: args})
					if !r.Summarized {
						t.Fatalf("a %d-row page of %d tokens passed through", len(v.Results), r.OriginalTokens)
					}
					checkSearch(t, r.Text, v)
				}
			})
			t.Run("progeny", func(t *testing.T) {
				parents := append(sample(d.AnimalIDs(), 6), d.MostProgeny(), d.Founder(), d.NoProgeny())
				for _, id := range parents {
					for _, size := range []int{10, 40, 100} {
						args := map[string]any{"lpn_id": id, "page": 0, "page_size": size}
						v := up.progeny(t, args)
						if r := fit(t, Request{Kind: KindProgeny, Value: v, Raw: v.Raw, Args: args}); r.Summarized {
							checkProgeny(t, r.Text, v, false)
						}
					}
				}
			})
			for _, tc := range []struct {
				name string
				ids  []string
				get  func(context.Context, string) (Request, error)
			}{
				{"details", sample(d.AnimalIDs(), 20), fetched(KindAnimal, up.c.AnimalDetails)},
				{"lineage", append(sample(d.AnimalIDs(), 12), d.DeepPedigree()), fetched(KindLineage, up.c.Lineage)},
				{"profile", append(sample(d.AnimalIDs(), 10), d.DeepPedigree(), d.MostProgeny()), fetched(KindProfile, up.c.ByLPN)},
			} {
				t.Run(tc.name, func(t *testing.T) {
					for _, id := range tc.ids {
						req, err := tc.get(up.ctx, id)
						if err != nil {
							t.Fatal(err)
						}
						if r := fit(t, req); r.Summarized {
							checkShape(t, req, r.Text)
						}
					}
				})
			}
			t.Run("generic", func(t *testing.T) {
				bg, err := up.c.BreedGroups(up.ctx)
				if err != nil {
					t.Fatal(err)
				}
				tr, err := up.c.TraitRanges(up.ctx, 640)
				if err != nil {
					t.Fatal(err)
				}
				st, err := up.c.Statuses(up.ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, raw := range []json.RawMessage{bg.Raw, tr.Raw, st.Raw} {
					if r := fit(t, Request{Kind: KindGeneric, Raw: raw}); r.Summarized {
						t.Errorf("a reference list of %d tokens was summarized", r.OriginalTokens)
					}
				}
			})
		})
	}
	for _, k := range []Kind{KindSearch, KindProgeny, KindLineage, KindProfile} {
		rs := red[k]
		if len(rs) == 0 {
			t.Errorf("no %s answer of the stand-in was summarized", k)
			continue
		}
		sort.Float64s(rs)
		t.Logf("%-15s %3d summarized: median %.1f%% of the original, worst %.1f%%", k, len(rs), 100*rs[len(rs)/2], 100*rs[len(rs)-1])
	}
}

// TestStandInHintsReachEveryRow follows the hints through the stand-in with
// the client, as an assistant would, and compares what it saw with what
// the stand-in holds.
func TestStandInHintsReachEveryRow(t *testing.T) {
	s, c := newTestSummarizer(t)
	up := newStandIn(t, nsiptest.FormatCurrent)
	d := up.srv.Data()
	parent := d.MostProgeny()
	for _, budget := range []int{300, 2000} {
		t.Run(fmt.Sprintf("progeny/budget %d", budget), func(t *testing.T) {
			want := d.Progeny(parent)
			start := map[string]any{"lpn_id": parent, "page": 0, "page_size": 100}
			seen := follow(t, s, c, budget, start, len(want), func(args map[string]any) (Request, []string) {
				if args["lpn_id"] != parent {
					t.Fatalf("the hint asks for the progeny of %v", args["lpn_id"])
				}
				v := up.progeny(t, args)
				var ids []string
				for _, a := range v.Animals {
					ids = append(ids, a.LPNID)
				}
				return Request{Kind: KindProgeny, Value: v, Raw: v.Raw, Args: args}, ids
			})
			checkReached(t, seen, want)
		})
		t.Run(fmt.Sprintf("search/budget %d", budget), func(t *testing.T) {
			// A breed small enough to page through: the smallest one.
			breed, count := 0, 0
			for _, id := range d.BreedIDs() {
				v := up.search(t, map[string]any{"page": 0, "page_size": 1, "breed_id": id})
				if v.TotalCount > 100 && (breed == 0 || v.TotalCount < count) {
					breed, count = id, v.TotalCount
				}
			}
			all := up.search(t, map[string]any{"page": 0, "page_size": 100, "breed_id": breed})
			var want []string
			for p := 0; p*100 < count; p++ {
				for _, r := range up.search(t, map[string]any{"page": p, "page_size": 100, "breed_id": breed}).Results {
					want = append(want, r.LPNID)
				}
			}
			if len(want) != count || all.TotalCount != count {
				t.Fatalf("breed %d: %d rows listed of %d", breed, len(want), count)
			}
			start := map[string]any{"page": 0, "page_size": 100, "breed_id": breed}
			seen := follow(t, s, c, budget, start, count, func(args map[string]any) (Request, []string) {
				if argInt(args, "breed_id", 0) != breed {
					t.Fatalf("the hint dropped the breed filter: %v", args)
				}
				v := up.search(t, args)
				var ids []string
				for _, r := range v.Results {
					ids = append(ids, r.LPNID)
				}
				return Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: args}, ids
			})
			checkReached(t, seen, want)
		})
	}
}
