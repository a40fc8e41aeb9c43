package gateway

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// planHerd is two rams and six ewes with WWT EBVs, related as the plan
// tests below work out by hand.
func planHerd() *herd {
	h := newHerd()
	h.pedigree(lpnLines([]string{
		"R1 P1 Q1", "R2 P2 Q2", "E1 R1 M1", "E2 R1 M2", "E5 R1 M5", "D7 R2 M7", "E7 R1 D7", "E3 X3 Y3", "E4 X4 Y4",
	})...)
	for name, v := range map[string]float64{"R1": 4, "R2": 2, "E1": 0, "E2": 1, "E3": 2, "E4": 3, "E5": 5, "E7": 1} {
		h.get(lpn(name)).ebv = map[string][2]float64{"WWT": {v, 0.6}}
	}
	return h
}

// R1 sired E1, E2, E5 and E7; R2 sired E7's dam. Lamb COIs worked by hand:
// R1 x his daughters 1/4, R2 x his granddaughter E7 1/8, both over the cap
// of 1/16; every other pair 0. With two ewes per ram the most ewes that can
// be mated is four: R1 may only take E3 and E4, R2 takes the two best of
// E1, E2, E5 by WWT (E5 5, E2 1). Lamb index = (ram WWT + ewe WWT)/2:
// R1-E3 (4+2)/2 = 3, R1-E4 3.5, R2-E2 1.5, R2-E5 3.5; total 11.5. E1 is
// left for lack of room, E7 because no ram is under the cap.
func TestPlanMatingsHandWorked(t *testing.T) {
	h := planHerd()
	e := herdEnv(t, h)
	ewes := []string{lpn("E1"), lpn("E2"), lpn("E3"), lpn("E4"), lpn("E5"), lpn("E7")}
	r := e.call("nsip_plan_matings", map[string]any{
		"ram_lpn_ids": []string{lpn("R1"), lpn("R2")}, "ewe_lpn_ids": ewes,
		"weights": map[string]any{"WWT": 1}, "max_ewes_per_ram": 2,
	}).mustOK(t)
	var a struct {
		Columns    []string            `json:"columns"`
		ByRam      map[string][][]any  `json:"by_ram"`
		Mated      int                 `json:"mated"`
		Total      float64             `json:"total_lamb_index"`
		Unassigned map[string][]string `json:"unassigned"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %s", err, r.text)
	}
	if a.Mated != 4 || a.Total != 11.5 {
		t.Errorf("mated %d worth %v, want 4 worth 11.5: %s", a.Mated, a.Total, r.text)
	}
	want := map[string]string{
		lpn("R1"): `[["640TE3",0,3,3],["640TE4",0,3.5,3.5]]`,
		lpn("R2"): `[["640TE2",0,1.5,1.5],["640TE5",0,3.5,3.5]]`,
	}
	for ram, rows := range want {
		if got := param.JSONText(a.ByRam[ram]); got != rows {
			t.Errorf("%s gets %s, want %s", ram, got, rows)
		}
	}
	if param.JSONText(a.Columns) != `["ewe","coi","lamb_index","lamb_WWT"]` {
		t.Errorf("columns %v", a.Columns)
	}
	if param.JSONText(a.Unassigned) != `{"every ram within max_coi already has max_ewes_per_ram ewes":["640TE1"],"every ram's lamb would exceed max_coi":["640TE7"]}` {
		t.Errorf("unassigned %v", a.Unassigned)
	}
}

// A ewe without the weighted EBV still gets a ram, but her lamb's index is
// unknown and stays out of the plan's total. Worked by hand: R1's WWT 4 and
// E3's 2 give a lamb index of (4+2)/2 = 3; E8 has no WWT, so the total is 3,
// not 3 plus R1's half (2) of a lamb whose index nobody knows.
func TestPlanMatingsTotalLeavesOutUnknownLambIndexes(t *testing.T) {
	h := newHerd()
	h.pedigree(lpnLines([]string{"R1 P1 Q1", "E3 X3 Y3", "E8 X8 Y8"})...)
	h.get(lpn("R1")).ebv = map[string][2]float64{"WWT": {4, 0.6}}
	h.get(lpn("E3")).ebv = map[string][2]float64{"WWT": {2, 0.6}}
	h.get(lpn("E8")).ebv = map[string][2]float64{"BWT": {0.1, 0.6}}
	e := herdEnv(t, h)
	r := e.call("nsip_plan_matings", map[string]any{
		"ram_lpn_ids": []string{lpn("R1")}, "ewe_lpn_ids": []string{lpn("E3"), lpn("E8")}, "weights": map[string]any{"WWT": 1},
	}).mustOK(t)
	var a struct {
		ByRam   map[string][][]any `json:"by_ram"`
		Mated   int                `json:"mated"`
		Total   float64            `json:"total_lamb_index"`
		NoIndex struct {
			LPNIDs []string `json:"lpn_ids"`
			Effect string   `json:"effect"`
		} `json:"ewes_without_index"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %s", err, r.text)
	}
	if a.Mated != 2 || a.Total != 3 {
		t.Errorf("mated %d worth %v, want 2 worth 3: %s", a.Mated, a.Total, r.text)
	}
	if got := param.JSONText(a.ByRam[lpn("R1")]); got != `[["640TE3",0,3,3],["640TE8",0,"unknown","unknown"]]` {
		t.Errorf("R1 gets %s", got)
	}
	if param.JSONText(a.NoIndex.LPNIDs) != `["640TE8"]` || !strings.Contains(a.NoIndex.Effect, "total_lamb_index") {
		t.Errorf("ewes without index: %+v", a.NoIndex)
	}
}

func TestPlanMatingsArguments(t *testing.T) {
	h := newHerd()
	h.pedigree(lpnLines([]string{"E1 R1 -"})...)
	e := herdEnv(t, h)
	te := e.call("nsip_plan_matings", map[string]any{"ram_lpn_ids": []string{lpn("R1")}, "ewe_lpn_ids": []string{lpn("E1")}, "weights": map[string]any{"WWT": 1}}).errorBody(t)
	if te.Field != "ram_lpn_ids[0]" || !strings.Contains(te.Problem, "no EBV for WWT") {
		t.Errorf("ram without the weighted trait: %+v", te)
	}
	te = e.call("nsip_plan_matings", map[string]any{"ram_lpn_ids": []string{lpn("R1")}, "ewe_lpn_ids": []string{lpn("E1")}, "weights": map[string]any{"WWT": 1}, "max_coi": 6.25}).errorBody(t)
	if te.Field != "max_coi" || !strings.Contains(te.Problem, "fraction") || exampleOf(te.Example)["max_coi"] != 0.0625 {
		t.Errorf("max_coi as a percent: %+v; want the example at the usual limit, 0.0625, not the refused 6.25", te)
	}
	te = e.call("nsip_plan_matings", map[string]any{"ram_lpn_ids": []string{lpn("R1")}, "ewe_lpn_ids": []string{lpn("E1")}}).errorBody(t)
	if te.Field != "weights" || exampleOf(te.Example)["weights"] == nil {
		t.Errorf("no weights: %+v", te)
	}
}

// A full-size plan (2 rams, 100 ewes: 204 lookups) under a rate limit of
// 100 requests a second: had the analysis asked for every animal at once,
// some 200 fetches would queue at the upstream pool for two seconds and
// more, the last behind all the others, and a deadline short enough to
// refuse them would refuse one on a loaded machine too. So the deadlines
// are long, and the queue itself is watched: a few lookups at a time, it
// never holds more than those few.
func TestPlanMatingsPacesItsLookups(t *testing.T) {
	h := newHerd()
	rams := []string{lpn("R1"), lpn("R2")}
	var ewes []string
	for _, id := range rams {
		h.get(id).sex = "Male"
		h.get(id).ebv = map[string][2]float64{"WWT": {1, 0.5}, "BWT": {0.25, 0.5}, "YWT": {2, 0.5}}
	}
	for i := range 100 {
		id := fmt.Sprintf("640E%04d", i)
		h.get(id).ebv = map[string][2]float64{"WWT": {float64(i), 0.5}, "BWT": {float64(i) / 100, 0.5}, "YWT": {float64(i) * 1.5, 0.5}}
		ewes = append(ewes, id)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	e := newEnv(t, func(c *Config, o *[]nsip.Option) {
		c.RateLimit, c.RateBurst = 100, 1
		c.CallTimeout, c.AnalysisTimeout = 10*time.Minute, 10*time.Minute
		*o = append(*o, nsip.WithBaseURL(ts.URL+"/api"))
	})

	// The most fetches waiting for their turn at NSIP at any one time,
	// sampled until the plan is answered.
	peak := 0
	stop, stopped := make(chan struct{}), make(chan struct{})
	stopSampling := sync.OnceFunc(func() { close(stop); <-stopped })
	t.Cleanup(stopSampling)
	go func() {
		defer close(stopped)
		for {
			peak = max(peak, e.gw.pool.Queued())
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	r := e.call("nsip_plan_matings", map[string]any{"ram_lpn_ids": rams, "ewe_lpn_ids": ewes, "weights": map[string]any{"WWT": 1, "BWT": -1, "YWT": 0.5}}).mustOK(t)
	stopSampling()
	if most := e.gw.cfg.MaxConcurrentUpstream; peak > most {
		t.Errorf("%d fetches queued at once, want at most the %d lookups an analysis keeps under way", peak, most)
	}

	var a struct {
		Mated    int    `json:"mated"`
		LambEBVs string `json:"lamb_ebvs"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil || a.Mated != 100 {
		t.Errorf("mated %d (%v), want all 100", a.Mated, err)
	}
	// A hundred rows with three lamb EBVs each would pass the budget; they are
	// left out, and the answer says so, rather than summarized away.
	if r.meta["summarized"] != false || a.LambEBVs == "" {
		t.Errorf("summarized %v, lamb_ebvs %q (%v tokens)", r.meta["summarized"], a.LambEBVs, r.meta["tokens"])
	}
	if n := h.count("details/getAnimalDetails") + h.count("details/getLineage"); n != 204 {
		t.Errorf("%d lookups, want 102 details and 102 lineages", n)
	}
}

// max_tokens works on an analysis as on every tool: the plan is fitted to
// it (the rows it would leave out are tested in gateway/analysis with a
// fake budget) and _meta reports it. Above the server's cap it is refused,
// naming the argument.
func TestPlanMatingsMaxTokens(t *testing.T) {
	e := herdEnv(t, planHerd())
	ewes := []string{lpn("E1"), lpn("E2"), lpn("E3"), lpn("E4"), lpn("E5"), lpn("E7")}
	args := map[string]any{"ram_lpn_ids": []string{lpn("R1"), lpn("R2")}, "ewe_lpn_ids": ewes,
		"weights": map[string]any{"WWT": 1}, "max_ewes_per_ram": 2, "max_tokens": 1000}
	r := e.call("nsip_plan_matings", args).mustOK(t)
	var a struct {
		Mated int     `json:"mated"`
		Total float64 `json:"total_lamb_index"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %s", err, r.text)
	}
	if r.meta["summarized"] != false || r.meta["budget"] != 1000.0 || a.Mated != 4 || a.Total != 11.5 {
		t.Errorf("meta %v, answer %s; want the whole plan of 4 worth 11.5 within a budget of 1000", r.meta, r.text)
	}
	args["max_tokens"] = 1_000_000
	r = e.call("nsip_plan_matings", args)
	if !r.isError || !strings.Contains(r.text, "max_tokens") {
		t.Errorf("max_tokens over the cap: %s; want an error naming max_tokens", r.text)
	}
}
