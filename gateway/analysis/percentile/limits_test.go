package percentile_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/compare"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

type limitedAnswer struct {
	Cut *struct {
		Effect string `json:"effect"`
		Next   struct {
			Tool string `json:"tool"`
		} `json:"next"`
	} `json:"time_limit_reached"`
	EBVs        [][]any `json:"ebvs"`
	Percentiles struct {
		Lookups     int               `json:"lookups"`
		NotComputed string            `json:"not_computed"`
		Unproven    map[string]string `json:"unproven"`
	} `json:"percentiles"`
}

// runLimited is nsip_get_animal with percentiles for one animal of f,
// one value at a time: the limits here are met after a count of lookups,
// and values computed at once would share that count in whatever order
// they were scheduled, where these tests are about how the answer names
// the limit.
func runLimited(t *testing.T, f *analysistest.FakeSource) (limitedAnswer, int) {
	t.Helper()
	f.Limit.Parallel = 1
	id := analysistest.Pick(f, 7, 1)[0]
	v, err := analysis.Run(t.Context(), percentile.AnimalPercentiles, f, analysistest.Discard(), param.SentOf(map[string]any{"search_string": id}), analysistest.Valid(t, percentile.AnimalPercentiles, map[string]any{"search_string": id}))
	if err != nil {
		t.Fatal(err)
	}
	var a limitedAnswer
	analysistest.Decode(t, v, &a)
	computed := 0
	for _, row := range a.EBVs {
		if row[3] != nil {
			computed++
		}
	}
	return a, computed
}

// The call's time limit passing (the gateway refusing lookups from then
// on) stops the percentiles part way: the answer says it was the time
// limit, not the lookups, names the setting that raises it, and advises
// what nsip_get_animal can do, not a list of traits it does not take.
func TestAnimalPercentilesNameTheTimeLimit(t *testing.T) {
	f := analysistest.Population(7, 700)
	f.TimeLimitAt = 12
	a, computed := runLimited(t, f)
	if computed == 0 || computed == len(a.EBVs) {
		t.Fatalf("%d of %d values computed; want the time limit to stop it part way", computed, len(a.EBVs))
	}
	nc := a.Percentiles.NotComputed
	for _, want := range []string{fmt.Sprintf("%d values", len(a.EBVs)-computed), "time limit of 30 s", "NSIP_CALL_TIMEOUT", "call again"} {
		if !strings.Contains(nc, want) {
			t.Errorf("not_computed %q; want it to say %q", nc, want)
		}
	}
	if strings.Contains(nc, "ran out") || strings.Contains(nc, "fewer") {
		t.Errorf("not_computed %q blames the lookups or advises what nsip_get_animal cannot do", nc)
	}
	for code, why := range a.Percentiles.Unproven {
		if !strings.Contains(why, "time limit") || strings.Contains(why, "ran out") {
			t.Errorf("%s: %q; want the time limit named", code, why)
		}
	}
	// And the answer leads with it, and the call that goes on.
	if a.Cut == nil || !strings.Contains(a.Cut.Effect, "percentiles.not_computed") || a.Cut.Next.Tool != percentile.AnimalPercentiles.Name {
		t.Errorf("time_limit_reached %+v; want the lead naming not_computed and the same call", a.Cut)
	}
}

// The lookup ceiling stopping it instead: the answer names that ceiling
// and its size, and sends nsip_get_animal's caller to the tool that takes
// a list of traits.
func TestAnimalPercentilesNameTheLookupCeiling(t *testing.T) {
	f := analysistest.Population(7, 700)
	f.Ceiling = 12
	a, computed := runLimited(t, f)
	if computed == 0 || computed == len(a.EBVs) {
		t.Fatalf("%d of %d values computed; want the ceiling to stop it part way", computed, len(a.EBVs))
	}
	nc := a.Percentiles.NotComputed
	var missing []string
	for _, row := range a.EBVs {
		if row[3] == nil {
			missing = append(missing, fmt.Sprintf("%q", row[0]))
		}
	}
	for _, want := range []string{fmt.Sprintf("ceiling of %d lookups", percentile.AnimalPercentiles.Ceiling), "nsip_compare_animals", "traits [" + strings.Join(missing, ",") + "]"} {
		if !strings.Contains(nc, want) {
			t.Errorf("not_computed %q; want it to say %q", nc, want)
		}
	}
	if strings.Contains(nc, "time limit") || strings.Contains(nc, "fewer animals") {
		t.Errorf("not_computed %q names the wrong limit or advice nsip_get_animal cannot follow", nc)
	}

	// nsip_compare_animals takes animals and traits: its advice is to ask
	// about fewer of them.
	g := analysistest.Population(7, 700)
	g.Ceiling, g.Limit.Parallel = 12, 1
	var c struct {
		Percentiles struct {
			NotComputed string `json:"not_computed"`
		} `json:"percentiles"`
	}
	analysistest.MustRun(t, compare.Compare, g, map[string]any{"lpn_ids": analysistest.Pick(g, 7, 4), "percentiles": true}, &c)
	if nc := c.Percentiles.NotComputed; !strings.Contains(nc, fmt.Sprintf("ceiling of %d lookups", compare.Compare.Ceiling)) || !strings.Contains(nc, "fewer animals or traits") {
		t.Errorf("compare's not_computed %q; want the ceiling named and fewer animals or traits advised", nc)
	}
}
