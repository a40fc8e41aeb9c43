package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// maxArgErrorBytes is the most an argument error may take, however many
// problems the call has.
const maxArgErrorBytes = 8 << 10

// hostileCall is a call of n unknown names beside a value of size bytes
// under a criterion the search takes.
func hostileCall(n, size int) map[string]any {
	args := make(map[string]any, n+1)
	for i := range n {
		args[fmt.Sprintf("not_an_argument_%06d", i)] = strings.Repeat("x", 8)
	}
	args["search_criteria"] = map[string]any{"gender": strings.Repeat("F", size)}
	return args
}

// TestManyArgumentProblemsGiveABoundedError: 50,000 unknown names and a
// 700 KB value once bought an error of megabytes and seconds of CPU, a
// did-you-mean per name; the error now lists the first few and counts the
// rest.
func TestManyArgumentProblemsGiveABoundedError(t *testing.T) {
	e := newEnv(t)
	const names, size = 50_000, 700_000
	search := hostileCall(names, size)
	rank := hostileCall(names, size)
	rank["search_criteria"] = map[string]any{"status": strings.Repeat("C", size)}
	weights := map[string]any{}
	for i := range 100_000 {
		weights[fmt.Sprintf("W%d", i)] = 1
	}
	rank["weights"] = weights
	rank["breed_id"] = 640
	tests := []struct {
		tool  string
		args  map[string]any
		first string // the first problem's field
		rest  int    // problems beyond those listed
	}{
		// the gender and each name
		{"nsip_search_animals", search, "search_criteria.gender", names + 1 - param.MaxProblems},
		// the status, the weights and each name
		{"nsip_rank_animals", rank, "search_criteria.status", names + 2 - param.MaxProblems},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			r := e.call(tt.tool, tt.args)
			if len(r.text) > maxArgErrorBytes {
				t.Errorf("error is %d bytes, want at most %d", len(r.text), maxArgErrorBytes)
			}
			b := r.errorBody(t)
			if b.Code != toolerr.CodeInvalidArgument || b.Field != tt.first {
				t.Errorf("code %s field %q, want invalid_argument about %s", b.Code, b.Field, tt.first)
			}
			if len(b.Also) != param.MaxProblems {
				t.Fatalf("also has %d entries, want %d: the next %d problems and the count of the rest", len(b.Also), param.MaxProblems, param.MaxProblems-1)
			}
			want := fmt.Sprintf("and %s more problems not listed", withCommas(tt.rest))
			if last := b.Also[len(b.Also)-1]; last.Problem != want {
				t.Errorf("last entry = %q, want %q", last.Problem, want)
			}
			if strings.Contains(r.text, strings.Repeat("F", param.MaxShown+1)) || strings.Contains(r.text, strings.Repeat("C", param.MaxShown+1)) {
				t.Errorf("the error repeats more than %d characters of a value", param.MaxShown)
			}
		})
	}
	if n := e.up.TotalRequests(); n != 0 {
		t.Errorf("upstream requests = %d, want 0", n)
	}
}

// TestValidationWorkIsBounded counts allocations, which grow with the
// did-you-mean work: a few per described problem, none per counted one.
func TestValidationWorkIsBounded(t *testing.T) {
	const names = 50_000
	args := hostileCall(names, 700_000)
	d := defByName(t, "nsip_search_animals")
	rank := analysisNamed(t, "nsip_rank_animals")
	checks := map[string]func(){
		"tool":     func() { param.ValidateObject("", d.Args.Specs, param.SentOf(args)) },
		"analysis": func() { rank.Validate(param.SentOf(args)) },
	}
	for name, f := range checks {
		// Listing and sorting the names takes a few dozen allocations;
		// describing each one took dozens apiece.
		if got := testing.AllocsPerRun(3, f); got > 2000 {
			t.Errorf("%s: %.0f allocations validating %d unknown names, want at most 2000", name, got, names)
		}
	}
}

func withCommas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// bodies records the bodies of the search requests sent upstream.
type bodies struct {
	mu   sync.Mutex
	sent []string
	next http.RoundTripper
}

func (b *bodies) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil && strings.Contains(r.URL.Path, nsiptest.EndpointSearch) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		b.mu.Lock()
		b.sent = append(b.sent, string(body))
		b.mu.Unlock()
	}
	return b.next.RoundTrip(r)
}

func (b *bodies) all() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.sent...)
}

func recordingEnv(t *testing.T) (*env, *bodies) {
	rec := &bodies{next: http.DefaultTransport}
	e := newEnv(t, func(_ *Config, o *[]nsip.Option) {
		*o = append(*o, nsip.WithHTTPClient(&http.Client{Transport: rec}))
	})
	return e, rec
}

// traitValue is the animal's EBV for code, if it has one.
func traitValue(a nsiptest.Animal, code string) (float64, bool) {
	for _, tr := range a.Traits {
		if tr.Code == code {
			return tr.Value, true
		}
	}
	return 0, false
}

// matching counts the animals of breed whose code EBV lies in [lo, hi].
func matching(data *nsiptest.Dataset, breed int, code string, lo, hi float64) (n int, inBreed int) {
	for _, id := range data.AnimalIDs() {
		a, _ := data.Animal(id)
		if a.BreedID != breed {
			continue
		}
		inBreed++
		if v, ok := traitValue(a, code); ok && v >= lo && v <= hi {
			n++
		}
	}
	return n, inBreed
}

func TestOneSidedTraitRanges(t *testing.T) {
	e, rec := recordingEnv(t)
	data := e.up.Data()
	rg, ok := data.TraitRanges(640)
	if !ok {
		t.Fatal("no trait ranges for breed 640 in the stand-in")
	}
	wwt, bwt := rg["WWT"], rg["BWT"]
	wwtMin := math.Round((wwt.Min+wwt.Max)/2*100) / 100 // about half the breed above
	bwtMax := math.Round((bwt.Min+bwt.Max)/2*100) / 100
	tests := []struct {
		name   string
		ranges map[string]any
		body   string
		code   string
		lo, hi float64
	}{
		{"min only", map[string]any{"WWT": map[string]any{"min": wwtMin}},
			fmt.Sprintf(`{"traitRanges":{"WWT":{"min":%v,"max":1000000}}}`, wwtMin), "WWT", wwtMin, math.Inf(1)},
		{"max only", map[string]any{"bwt": map[string]any{"max": bwtMax}},
			fmt.Sprintf(`{"traitRanges":{"BWT":{"min":-1000000,"max":%v}}}`, bwtMax), "BWT", math.Inf(-1), bwtMax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(rec.all())
			r := e.call("nsip_search_animals", map[string]any{
				"breed_id": 640, "page_size": 1, "search_criteria": map[string]any{"trait_ranges": tt.ranges},
			}).mustOK(t)
			sent := rec.all()[before:]
			if len(sent) != 1 || sent[0] != tt.body {
				t.Errorf("search bodies sent = %q, want [%s]", sent, tt.body)
			}
			want, inBreed := matching(data, 640, tt.code, tt.lo, tt.hi)
			if want == 0 || want == inBreed {
				t.Fatalf("%d of %d animals match: the bound filters nothing or everything", want, inBreed)
			}
			var page struct {
				RecordCount int `json:"recordCount"`
			}
			if err := json.Unmarshal([]byte(r.text), &page); err != nil || page.RecordCount != want {
				t.Errorf("recordCount = %d (%v), want %d of the breed's %d animals: %.200s", page.RecordCount, err, want, inBreed, r.text)
			}
		})
	}

	// The open side spelled out is the same request, so the same cache entry.
	e.up.ResetCounts()
	r := e.call("nsip_search_animals", map[string]any{
		"breed_id": 640, "page_size": 1,
		"search_criteria": map[string]any{"trait_ranges": map[string]any{"WWT": map[string]any{"min": wwtMin, "max": nsiparg.OpenBound}}},
	}).mustOK(t)
	if r.meta["cache"] != "hit" || e.up.TotalRequests() != 0 {
		t.Errorf("min with the open max spelled out: cache %v, %d upstream requests; want a hit of the min-only call", r.meta["cache"], e.up.TotalRequests())
	}
}

// TestRankingWithOneSidedCriteria: the ranking passes search_criteria to
// every page it reads, one-sided bounds included.
func TestRankingWithOneSidedCriteria(t *testing.T) {
	e, rec := recordingEnv(t)
	data := e.up.Data()
	r := e.call("nsip_rank_animals", map[string]any{
		"breed_id": 640, "weights": map[string]any{"WWT": 1}, "top_n": 5,
		"search_criteria": map[string]any{"trait_ranges": map[string]any{"BWT": map[string]any{"max": 0}}},
	}).mustOK(t)
	sent := rec.all()
	if len(sent) == 0 {
		t.Fatal("the ranking read no search pages")
	}
	for _, b := range sent {
		if b != `{"traitRanges":{"BWT":{"min":-1000000,"max":0}}}` {
			t.Errorf("ranking search body = %s, want BWT at most 0 with the open side filled", b)
		}
	}
	ranked := 0
	for _, id := range data.AnimalIDs() {
		a, _ := data.Animal(id)
		if a.BreedID != 640 || !strings.Contains(r.text, `"`+id+`"`) {
			continue
		}
		ranked++
		if v, ok := traitValue(a, "BWT"); !ok || v > 0 {
			t.Errorf("%s (BWT %v, known %v) ranked despite BWT at most 0", id, v, ok)
		}
	}
	if ranked == 0 {
		t.Errorf("no animal of breed 640 ranked: %.300s", r.text)
	}
}
