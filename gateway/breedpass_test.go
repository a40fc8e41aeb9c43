package gateway

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/nsip-tools/nsip-mcp/gateway/metrics"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

type passReply struct {
	Traits  []string `json:"traits"`
	Animals []struct {
		LPNID      string     `json:"lpn_id"`
		TopPercent []*float64 `json:"top_percent"`
	} `json:"animals"`
	Percentiles struct {
		Lookups   int               `json:"lookups"`
		Via       string            `json:"via"`
		BreedPass map[string]string `json:"breed_pass"`
		Unproven  map[string]string `json:"unproven"`
	} `json:"percentiles"`
}

// breedAnimals are the stand-in's animals of breed, in its order.
func breedAnimals(d *nsiptest.Dataset, breed, n int) []string {
	var ids []string
	for _, id := range d.AnimalIDs() {
		if an := standIn(d, id); an.BreedID == breed && len(ids) < n {
			ids = append(ids, id)
		}
	}
	return ids
}

// countedTopPercent is a value's top_percent counted by brute force over
// the stand-in's breed: the share of its animals with the trait that are
// as good or better by the trait's direction (lower first for none).
func countedTopPercent(d *nsiptest.Dataset, breed int, code string, v float64) float64 {
	info, _ := nsip.LookupTrait(code)
	n, good := 0, 0
	for _, id := range d.AnimalIDs() {
		o := standIn(d, id)
		if x, ok := o.Trait(code); o.BreedID == breed && ok {
			n++
			if x.Value == v || info.Direction == "higher" && x.Value > v || info.Direction != "higher" && x.Value < v {
				good++
			}
		}
	}
	return math.Round(10000*float64(good)/float64(n)) / 100
}

// comparePass compares ids by every trait with percentiles and holds each
// top_percent to the count over the stand-in's breed.
func comparePass(t *testing.T, call func(string, any) reply, d *nsiptest.Dataset, ids []string) passReply {
	t.Helper()
	r := call("nsip_compare_animals", map[string]any{"lpn_ids": ids, "traits": []string{"BWT", "WWT", "PWWT", "YWT", "NLB"}, "percentiles": true}).mustOK(t)
	var a passReply
	if err := json.Unmarshal([]byte(r.text), &a); err != nil || len(a.Animals) != len(ids) {
		t.Fatalf("%v: %.400s", err, r.text)
	}
	for i, id := range ids {
		an := standIn(d, id)
		for k, code := range a.Traits {
			v, ok := an.Trait(code)
			if !ok {
				continue
			}
			want := countedTopPercent(d, 640, code, v.Value)
			if got := a.Animals[i].TopPercent[k]; got == nil || *got != want {
				t.Errorf("%s %s: top_percent %v, counted %v (%v)", id, code, got, want, a.Percentiles.Unproven)
			}
		}
	}
	return a
}

// Five animals compared with percentiles read the breed once; five others
// then read no search page and take one lookup (the date), and the kept
// pass's size is in /metrics.
func TestBreedPassServesTheNextCompare(t *testing.T) {
	reg := prometheus.NewRegistry()
	e := newEnv(t, func(c *Config, _ *[]nsip.Option) { c.Metrics = metrics.New(reg) })
	d := e.up.Data()
	ids := breedAnimals(d, 640, 10)
	call := func(name string, args any) reply { return e.call(name, args) }
	first := comparePass(t, call, d, ids[:5])
	if first.Percentiles.Via != "breed pass" || !strings.HasPrefix(first.Percentiles.BreedPass["640"], "read now") {
		t.Fatalf("first compare: via %q, breed_pass %v", first.Percentiles.Via, first.Percentiles.BreedPass)
	}
	e.up.ResetCounts()
	second := comparePass(t, call, d, ids[5:])
	if n := e.up.Requests(nsiptest.EndpointSearch); n != 0 {
		t.Errorf("the second compare sent %d search requests, want none", n)
	}
	if second.Percentiles.Lookups != 1 || second.Percentiles.Via != "breed pass" || !strings.HasPrefix(second.Percentiles.BreedPass["640"], "kept") {
		t.Errorf("second compare: %d lookups, via %q, breed_pass %v; want 1 (the date) from the kept pass", second.Percentiles.Lookups, second.Percentiles.Via, second.Percentiles.BreedPass)
	}
	bytes, n := e.gw.passes.Size()
	if n != 1 || bytes <= 0 {
		t.Fatalf("%d passes of %d bytes kept, want one", n, bytes)
	}
	if got := gathered(t, reg, "nsip_mcp_breed_pass_bytes", nil); got != float64(bytes) {
		t.Errorf("nsip_mcp_breed_pass_bytes = %g, want %d", got, bytes)
	}
	if got := gathered(t, reg, "nsip_mcp_breed_passes", nil); got != 1 {
		t.Errorf("nsip_mcp_breed_passes = %g, want 1", got)
	}
}

// A pass read in the background is kept for the next call.
func TestBreedPassFilledInTheBackground(t *testing.T) {
	e := newEnv(t)
	done := make(chan string, 2)
	e.gw.passFilled = func(key string) { done <- key }
	e.gw.fillPass(t.Context(), 640, "")
	key := <-done
	if key != breedpass.PassKey(640, "") {
		t.Errorf("filled %q", key)
	}
	if n := e.up.Requests(nsiptest.EndpointLastUpdated); n != 2 {
		t.Errorf("%d date reads, want 2 (before and after the pages of one read)", n)
	}
	_, n := e.gw.passes.Size()
	d := e.up.Data()
	want := len(breedAnimals(d, 640, 1<<20))
	p := e.gw.passes.Load(t.Context(), 640, d.LastUpdated())
	if n != 1 || p == nil || p.Animals() != want || p.Breed != 640 {
		t.Fatalf("%d passes kept (%v), want one of breed 640's %d animals", n, p, want)
	}
}

// Closing the gateway ends a pass read in the background: by the time Close
// returns, the read has ended and said so, though NSIP never answers.
func TestBreedPassFillEndsWhenTheGatewayCloses(t *testing.T) {
	e := newEnv(t)
	e.up.SetFault(nsiptest.EndpointSearch, nsiptest.Fault{Kind: nsiptest.FaultHang})
	done := make(chan string, 2)
	e.gw.passFilled = func(key string) { done <- key }
	e.gw.fillPass(t.Context(), 640, "")
	e.gw.Close()
	select {
	case key := <-done:
		if key != breedpass.PassKey(640, "") {
			t.Errorf("ended %q", key)
		}
	default:
		t.Fatal("Close returned with the background pass still being read")
	}
	if _, n := e.gw.passes.Size(); n != 0 {
		t.Errorf("%d passes kept from a read that never got its pages", n)
	}
	e.gw.fillPass(t.Context(), 641, "")
	e.gw.Close()
	if len(done) != 0 {
		t.Error("a pass was read in the background after the gateway closed")
	}
}
