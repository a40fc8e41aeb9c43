package summarize

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

func TestPassThroughIsTheCompactUpstreamJSON(t *testing.T) {
	s, c := newTestSummarizer(t)
	g := newGen(1)
	g.unicode = true
	d := g.details()
	for _, tc := range []struct {
		name string
		req  Request
	}{
		{"details with contact", Request{Kind: KindAnimal, Value: d, Raw: d.Raw}},
		{"indented", Request{Kind: KindGeneric, Raw: json.RawMessage("{\n  \"b\": [1, 2,\t3],\n  \"a\": {\"z\": null, \"y\": \"x y\"}\n}\n")}},
		{"HTML characters stay as sent", Request{Kind: KindGeneric, Raw: json.RawMessage(`{"farm":"Smith & Sons <Katahdins>","esc":"\u0026"}`)}},
		{"bare list", Request{Kind: KindGeneric, Raw: json.RawMessage(` ["CURRENT", "SOLD", "DEAD"] `)}},
		{"scalar", Request{Kind: KindGeneric, Raw: json.RawMessage(` 42 `)}},
		{"empty search page", Request{Kind: KindSearch, Value: &nsip.SearchResults{}, Raw: json.RawMessage(`{"recordCount":0,"records":[]}`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.Fit(tc.req)
			checkResult(t, c, tc.req, r)
			if r.Summarized || r.Text != compactOf(t, tc.req.Raw) {
				t.Fatalf("want the compact upstream JSON, got summarized=%v %.200s", r.Summarized, r.Text)
			}
			if r.OriginalTokens != r.Tokens || r.Kind != tc.req.Kind {
				t.Errorf("original %d tokens %d kind %s", r.OriginalTokens, r.Tokens, r.Kind)
			}
		})
	}
	// The contact block of FR-015 reaches the client untouched.
	r := s.Fit(Request{Kind: KindAnimal, Value: d, Raw: d.Raw})
	for _, f := range []string{d.Contact.FarmName, d.Contact.ContactName, d.Contact.Phone, d.Contact.Email, d.Contact.Address} {
		if f != "" && !strings.Contains(r.Text, f) {
			t.Errorf("contact field %q missing from the pass-through", f)
		}
	}
}

// sizedSearch returns a search page whose compact JSON has about tokens
// tokens (within one row's worth).
func sizedSearch(t testing.TB, c *Counter, g *gen, tokens int) *nsip.SearchResults {
	t.Helper()
	v := g.search(0, 1523, 0, 100)
	for c.Count(string(v.Raw)) < tokens {
		v.Results = append(v.Results, g.animalRow())
		v.Raw = g.searchRaw(v)
	}
	v.PageSize = len(v.Results)
	return v
}

func TestBudget(t *testing.T) {
	s, c := newTestSummarizer(t)
	v := sizedSearch(t, c, newGen(2), 2100)
	n := c.Count(string(v.Raw))
	for _, tc := range []struct {
		budget   int
		summary  bool
		describe string
	}{
		{0, true, "zero means the default of 2000"},
		{-5, true, "a negative budget means the default too"},
		{n, false, "an answer of exactly the budget passes"},
		{n - 1, true, "one token over is summarized"},
		{5000, false, "a larger budget passes more"},
	} {
		req := Request{Kind: KindSearch, Value: v, Raw: v.Raw, Budget: tc.budget}
		r := s.Fit(req)
		checkResult(t, c, req, r)
		if r.Summarized != tc.summary || r.OriginalTokens != n {
			t.Errorf("%s: budget %d on %d tokens: summarized=%v original=%d", tc.describe, tc.budget, n, r.Summarized, r.OriginalTokens)
		}
	}
}

func TestOriginalTokensFromTheCaller(t *testing.T) {
	s, c := newTestSummarizer(t)
	small := json.RawMessage(`{"date":"09/23/2025"}`)
	before := c.calls.Load()
	r := s.Fit(Request{Kind: KindGeneric, Raw: small, OriginalTokens: 9})
	if calls := c.calls.Load() - before; calls != 0 || r.OriginalTokens != 9 || r.Tokens != 9 || r.Summarized {
		t.Errorf("a known small count should pass through uncounted: %d encodings, %+v", calls, r)
	}
	v := sizedSearch(t, c, newGen(3), 6000)
	n := c.Count(string(v.Raw))
	r = s.Fit(Request{Kind: KindSearch, Value: v, Raw: v.Raw, OriginalTokens: n})
	if r.OriginalTokens != n || !r.Summarized {
		t.Errorf("original %d summarized %v, want %d and true", r.OriginalTokens, r.Summarized, n)
	}
}

// TestFitEncodesABoundedNumberOfTimes checks the fitting searches rather
// than counting once per row.
func TestFitEncodesABoundedNumberOfTimes(t *testing.T) {
	s, c := newTestSummarizer(t)
	g := newGen(4)
	for _, req := range []Request{
		{Kind: KindSearch, Value: g.search(100, 1523, 0, 100)},
		{Kind: KindProgeny, Value: g.progeny("6400012020ABC001", 100, 300, 0, 100)},
		{Kind: KindLineage, Value: g.lineage(7)},
		{Kind: KindProfile, Value: g.profile(100, 5)},
		{Kind: KindGeneric, Value: g.search(100, 1523, 0, 100)},
	} {
		req.Raw = modelRaw(req.Value)
		req.OriginalTokens = c.Count(string(req.Raw))
		before := c.calls.Load()
		r := s.Fit(req)
		checkResult(t, c, req, r)
		if calls := c.calls.Load() - before; calls > 16 || !r.Summarized {
			t.Errorf("%s: %d encodings (summarized %v)", req.Kind, calls, r.Summarized)
		}
	}
}

func TestNotJSONIsCarriedAsAString(t *testing.T) {
	s, c := newTestSummarizer(t)
	page := "<html><body>502 Bad Gateway</body></html>"
	r := s.Fit(Request{Kind: KindAnimal, Raw: json.RawMessage(page)})
	if got := decode[string](t, r.Text); got != page || r.Summarized {
		t.Errorf("short body: %+v", r)
	}
	long := strings.Repeat("<p>error page</p>", 2000)
	req := Request{Kind: KindAnimal, Raw: json.RawMessage(long)}
	r = s.Fit(req)
	if !r.Summarized || r.Tokens > DefaultBudget || c.Count(r.Text) != r.Tokens {
		t.Fatalf("long body: %d tokens, summarized %v", r.Tokens, r.Summarized)
	}
	got := decode[struct {
		Data string `json:"data"`
	}](t, r.Text)
	if cut := strings.SplitN(got.Data, "…", 2); len(cut) != 2 || !strings.HasPrefix(long, cut[0]) {
		t.Errorf("summary is not the start of the body with a clip note: %.100s", got.Data)
	}
}

func TestRawComesFromTheModelWhenMissing(t *testing.T) {
	s, c := newTestSummarizer(t)
	v := newGen(5).search(3, 3, 0, 3)
	a := s.Fit(Request{Kind: KindSearch, Value: v})
	b := s.Fit(Request{Kind: KindSearch, Value: v, Raw: v.Raw})
	if !reflect.DeepEqual(a, b) {
		t.Errorf("Raw from the model differs from Raw given:\n%+v\n%+v", a, b)
	}
	noRaw := &nsip.Statuses{Values: []string{"CURRENT", "SOLD"}}
	r := s.Fit(Request{Kind: KindGeneric, Value: noRaw})
	if r.Text != `{"values":["CURRENT","SOLD"]}` {
		t.Errorf("model without Raw: %s", r.Text)
	}
	if r := s.Fit(Request{}); r.Text != "null" || r.Summarized {
		t.Errorf("nothing at all: %+v", r)
	}
	_ = c
}

func TestFallbacks(t *testing.T) {
	s, c := newTestSummarizer(t)
	g := newGen(6)
	big := g.search(60, 1523, 0, 60)
	nan := g.search(60, 1523, 0, 60)
	nan.Results[0].Traits[0] = nsip.Trait{Code: "BWT", Value: math.NaN(), Accuracy: 99, HasAccuracy: true}
	cyclic := g.lineage(6)
	cyclic.Subject.Sire.Sire = cyclic.Subject.Sire // a loop: must not hang
	for _, tc := range []struct {
		name string
		req  Request
		kind Kind
	}{
		{"no model", Request{Kind: KindSearch, Raw: big.Raw}, KindGeneric},
		{"wrong model", Request{Kind: KindSearch, Value: g.lineage(2), Raw: big.Raw}, KindGeneric},
		{"model by value", Request{Kind: KindSearch, Value: *big, Raw: big.Raw}, KindSearch},
		{"typed nil", Request{Kind: KindProgeny, Value: (*nsip.ProgenyPage)(nil), Raw: big.Raw}, KindGeneric},
		{"unknown kind", Request{Kind: "breeds", Value: big, Raw: big.Raw}, KindGeneric},
		{"model that cannot be encoded", Request{Kind: KindSearch, Value: nan, Raw: big.Raw}, KindGeneric},
		{"pedigree with a loop", Request{Kind: KindLineage, Value: cyclic, Raw: g.lineage(6).Raw}, KindLineage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.Fit(tc.req)
			checkResult(t, c, tc.req, r)
			if !r.Summarized || r.Kind != tc.kind {
				t.Fatalf("summarized %v as %s, want %s: %.200s", r.Summarized, r.Kind, tc.kind, r.Text)
			}
			if tc.kind == KindGeneric {
				head := decode[struct {
					Kind string `json:"kind"`
					Of   string `json:"of"`
				}](t, r.Text)
				if head.Kind != "generic" || (kindOf(tc.req.Kind) != KindGeneric && head.Of != string(tc.req.Kind)) {
					t.Errorf("generic summary says kind %q of %q", head.Kind, head.Of)
				}
			}
		})
	}
}

func TestTinyBudgetsStillHold(t *testing.T) {
	s, c := newTestSummarizer(t)
	g := newGen(7)
	v := g.search(100, 1523, 0, 100)
	n := c.Count(string(v.Raw))
	for budget := 1; budget <= 120; budget += 11 {
		for _, kind := range []Kind{KindSearch, KindGeneric} {
			req := Request{Kind: kind, Value: v, Raw: v.Raw, Budget: budget, OriginalTokens: n}
			r := s.Fit(req)
			if !json.Valid([]byte(r.Text)) || r.Tokens > budget || c.Count(r.Text) != r.Tokens {
				t.Errorf("budget %d (%s): %d tokens: %s", budget, kind, r.Tokens, r.Text)
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	s, _ := newTestSummarizer(t)
	g := newGen(8)
	reqs := []Request{
		{Kind: KindSearch, Value: g.search(40, 1523, 0, 40), Args: map[string]any{"breed_id": 640, "search_criteria": map[string]any{"gender": "Male", "status": "CURRENT"}}},
		{Kind: KindProgeny, Value: g.progeny("6400012020ABC001", 40, 300, 0, 40)},
		{Kind: KindLineage, Value: g.lineage(5)},
		{Kind: KindProfile, Value: g.profile(30, 4)},
		{Kind: KindGeneric, Value: g.profile(30, 4)},
	}
	for i := range reqs {
		reqs[i].Raw = modelRaw(reqs[i].Value)
	}
	want := make([]Result, len(reqs))
	for i, req := range reqs {
		want[i] = s.Fit(req)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(reqs))
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, req := range reqs {
				if got := s.Fit(req); !reflect.DeepEqual(got, want[i]) {
					errs <- fmt.Sprintf("%s: a second run differs", req.Kind)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestGuardTurnsAPanicIntoAnError(t *testing.T) {
	out, err := guard(func() ([]byte, error) { panic("index out of range") })
	if out != nil || err == nil || !strings.Contains(err.Error(), "index out of range") {
		t.Errorf("guard gave %q, %v", out, err)
	}
}

// TestTraitsBeyondTheThirteen checks that trait codes the model does not
// list are summarized too, after the known ones in alphabetical order.
func TestTraitsBeyondTheThirteen(t *testing.T) {
	s, _ := newTestSummarizer(t)
	g := newGen(9)
	v := g.progeny("6400012020ABC001", 30, 30, 0, 30)
	for i := range v.Animals {
		v.Animals[i].Traits = append(v.Animals[i].Traits,
			nsip.Trait{Code: "ZZZ", Value: float64(i), Accuracy: 99.5, HasAccuracy: true},
			nsip.Trait{Code: "ABC", Value: -float64(i)})
	}
	v.Raw = g.progenyRaw(v)
	r := s.Fit(Request{Kind: KindProgeny, Value: v, Raw: v.Raw})
	p := checkProgeny(t, r.Text, v, false)
	if p.TraitStats == nil {
		t.Fatalf("no statistics: %.300s", r.Text)
	}
	var codes []string
	for _, row := range p.TraitStats.Rows {
		codes = append(codes, row[0].(string))
	}
	if want := append(append([]string{}, nsip.TraitCodes...), "ABC", "ZZZ"); strings.Join(codes, ",") != strings.Join(want, ",") {
		t.Errorf("trait order %v, want %v", codes, want)
	}
	// ZZZ is the most accurate trait of the page, so it is the last to
	// give way; ABC, without accuracy, the first.
	if !slices.Contains(p.Columns, "ZZZ") || (slices.Contains(p.Columns, "ABC") && len(p.Columns) < 3+15) {
		t.Errorf("trait columns %v keep ABC or lose ZZZ", p.Columns)
	}
}
