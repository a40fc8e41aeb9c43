package summarize

import (
	"fmt"
	"slices"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// variants are the generator settings every shape is tried with.
var variants = []struct {
	name string
	set  func(*gen)
}{
	{"current", func(*gen) {}},
	{"old format", func(g *gen) { g.old = true }},
	{"unicode", func(g *gen) { g.unicode = true }},
	{"missing fields", func(g *gen) { g.sparse = true }},
	{"huge strings", func(g *gen) { g.huge = 3000 }},
}

// fitCase runs Fit with the checks every result gets. It reports whether
// the answer was summarized, by its own kind's summarizer; must says the
// answer is certainly over the budget.
func fitCase(t *testing.T, s *Summarizer, c *Counter, req Request, must bool) (Result, bool) {
	t.Helper()
	r := s.Fit(req)
	checkResult(t, c, req, r)
	if !r.Summarized {
		if must {
			t.Errorf("an answer of %d tokens passed through", r.OriginalTokens)
		}
		return r, false
	}
	if r.Kind != req.Kind {
		t.Fatalf("summarized as %s: %.300s", r.Kind, r.Text)
	}
	return r, true
}

func TestSearchSummaries(t *testing.T) {
	s, c := newTestSummarizer(t)
	for _, vr := range variants {
		for _, n := range []int{0, 1, 15, 100} {
			t.Run(fmt.Sprintf("%s/%d rows", vr.name, n), func(t *testing.T) {
				g := newGen(int64(n) + 7)
				vr.set(g)
				v := g.search(n, 1523, 2, max(n, 15))
				req := Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: map[string]any{"page": 2, "page_size": max(n, 15), "breed_id": 640}}
				r, ok := fitCase(t, s, c, req, n == 100)
				if !ok {
					return
				}
				p := checkSearch(t, r.Text, v)
				if p.Shown == 0 && n > 0 {
					t.Errorf("no row shown of %d", n)
				}
				if p.Next != nil && p.Next.Arguments["breed_id"] != float64(640) {
					t.Errorf("hint lost the breed filter: %v", p.Next.Arguments)
				}
			})
		}
	}
}

func TestProgenySummaries(t *testing.T) {
	s, c := newTestSummarizer(t)
	for _, vr := range variants {
		for _, n := range []int{0, 1, 10, 100} {
			t.Run(fmt.Sprintf("%s/%d rows", vr.name, n), func(t *testing.T) {
				g := newGen(int64(n) + 11)
				vr.set(g)
				v := g.progeny("6400012020ABC001", n, n+37, 0, max(n, 10))
				req := Request{Kind: KindProgeny, Value: v, Raw: v.Raw, Args: map[string]any{"lpn_id": v.LPNID, "page": 0, "page_size": max(n, 10)}}
				r, ok := fitCase(t, s, c, req, n == 100)
				if !ok {
					return
				}
				p := checkProgeny(t, r.Text, v, false)
				if p.Shown == 0 && n > 0 {
					t.Errorf("no row shown of %d", n)
				}
				if n == 100 && p.TraitStats == nil {
					t.Errorf("no trait statistics within the default budget")
				}
			})
		}
	}
}

// bigDetails is an animal whose details exceed the budget: many extra
// upstream fields, as a newer API version might add.
func bigDetails(g *gen, extra int) *nsip.AnimalDetails {
	v := g.details()
	v.Raw = g.detailsRaw(v)
	pad := map[string]any{}
	for i := range extra {
		pad[fmt.Sprintf("extraField%03d", i)] = fmt.Sprintf("value %d of an upstream field", i)
	}
	v.Raw = append(v.Raw[:len(v.Raw)-1], []byte(`,"more":`+string(mustJSON(pad))+`}`)...)
	return v
}

func TestAnimalSummaries(t *testing.T) {
	s, c := newTestSummarizer(t)
	for _, vr := range variants {
		for _, extra := range []int{0, 300} {
			t.Run(fmt.Sprintf("%s/%d extra fields", vr.name, extra), func(t *testing.T) {
				g := newGen(int64(extra) + 3)
				vr.set(g)
				v := bigDetails(g, extra)
				req := Request{Kind: KindAnimal, Value: v, Raw: v.Raw}
				r, ok := fitCase(t, s, c, req, extra > 0)
				if !ok {
					return
				}
				a := decode[animalOut](t, r.Text)
				if a.Kind != string(KindAnimal) {
					t.Errorf("kind %q", a.Kind)
				}
				checkAnimal(t, a, v)
			})
		}
	}
}

func TestLineageSummaries(t *testing.T) {
	s, c := newTestSummarizer(t)
	for _, vr := range variants {
		for _, depth := range []int{1, 3, 6, 7} {
			t.Run(fmt.Sprintf("%s/%d generations", vr.name, depth), func(t *testing.T) {
				g := newGen(int64(depth) + 5)
				vr.set(g)
				v := g.lineage(depth)
				req := Request{Kind: KindLineage, Value: v, Raw: v.Raw}
				r, ok := fitCase(t, s, c, req, depth >= 6)
				if !ok {
					return
				}
				l := decode[lineageOut](t, r.Text)
				checkLineage(t, l, v)
				if depth >= 6 && vr.name != "huge strings" && len(l.Ancestors) == 0 {
					t.Errorf("no ancestors kept of a %d-generation pedigree", depth)
				}
			})
		}
	}
}

// profileOut is a by-LPN summary as the client reads it.
type profileOut struct {
	Summary bool       `json:"summary"`
	Kind    string     `json:"kind"`
	Animal  *animalOut `json:"animal"`
	Sire    *nodeBlock `json:"sire"`
	Dam     *nodeBlock `json:"dam"`
	Progeny *pageOut   `json:"progeny"`
	EBVs    [][]any    `json:"ebvs"`
	Omitted []omission `json:"omitted"`
}

func checkProfile(t testing.TB, text string, v *nsip.AnimalProfile) profileOut {
	t.Helper()
	p := decode[profileOut](t, text)
	if p.Kind != string(KindProfile) || p.Animal == nil || p.Progeny == nil {
		t.Fatalf("profile summary lacks its parts: %.300s", text)
	}
	checkAnimal(t, *p.Animal, v.Details)
	parents := v.Lineage.Subject.Sire != nil || v.Lineage.Subject.Dam != nil
	if parents && p.Sire == nil && p.Dam == nil {
		// Their details may give way in a tight budget, but say so.
		if !slices.ContainsFunc(p.Omitted, func(o omission) bool {
			return o.Part == "sire and dam details" && o.Call.Tool == toolname.GetLineage
		}) {
			t.Errorf("parents left out without a word: %v", p.Omitted)
		}
	} else {
		checkNode(t, "sire", p.Sire, v.Lineage.Subject.Sire)
		checkNode(t, "dam", p.Dam, v.Lineage.Subject.Dam)
	}

	pr := *v.Progeny
	pr.LPNID = v.Details.LPNID
	checkProgenyPage(t, *p.Progeny, &pr, true)
	return p
}

func TestProfileSummaries(t *testing.T) {
	s, c := newTestSummarizer(t)
	for _, vr := range variants {
		for _, n := range []int{0, 5, 100} {
			t.Run(fmt.Sprintf("%s/%d progeny", vr.name, n), func(t *testing.T) {
				g := newGen(int64(n) + 13)
				vr.set(g)
				v := g.profile(n, 4)
				req := Request{Kind: KindProfile, Value: v, Raw: v.Raw, Args: map[string]any{"lpn_id": v.Details.LPNID}}
				r, ok := fitCase(t, s, c, req, n == 100)
				if !ok {
					return
				}
				p := checkProfile(t, r.Text, v)
				if n > 0 && vr.name != "huge strings" && p.Progeny.Shown == 0 {
					t.Errorf("no offspring shown of %d", n)
				}
			})
		}
	}
}
