package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// testData is small enough to generate quickly and large enough for every
// key the plans draw.
func testData(t testing.TB) *nsiptest.Dataset {
	t.Helper()
	return nsiptest.NewDataset(3, 600)
}

func TestKeyspacePicksHotAnimalsWithParents(t *testing.T) {
	d := testData(t)
	ks := newKeyspace(d, 12)
	if len(ks.hot) != 12 {
		t.Fatalf("got %d hot animals, want 12", len(ks.hot))
	}
	breeds := map[int]bool{}
	for _, id := range ks.hot {
		a, ok := d.Animal(id)
		if !ok || a.Sire == "" || a.Dam == "" {
			t.Errorf("hot animal %s: found %v, sire %q, dam %q; want an animal with both parents", id, ok, a.Sire, a.Dam)
		}
		breeds[a.BreedID] = true
	}
	if len(breeds) < 2 {
		t.Errorf("hot animals come from %d breed(s); want them spread over several", len(breeds))
	}
	count := map[int]int{}
	for _, id := range d.AnimalIDs() {
		a, _ := d.Animal(id)
		count[a.BreedID]++
	}
	for b, n := range count {
		if n > count[ks.hotBreed] {
			t.Errorf("hot breed %d has %d animals but breed %d has %d", ks.hotBreed, count[ks.hotBreed], b, n)
		}
	}
}

func TestMixFollowsWeightsAndHotShare(t *testing.T) {
	ks := newKeyspace(testData(t), 8)
	p := newMixPlan(ks, 0.8)
	r := rand.New(rand.NewPCG(1, 1))
	const draws = 200_000
	var perTool [len(toolNames)]int
	hotWithArgs, withArgs := 0, 0
	for range draws {
		c, ok := p.next(context.Background(), r)
		if !ok {
			t.Fatal("the mix plan ended; it should never end")
		}
		perTool[c.tool]++
		if len(c.args) == 0 {
			continue
		}
		withArgs++
		if c.hot {
			hotWithArgs++
		}
	}
	total := 0
	for _, w := range mixWeights {
		total += w
	}
	for i, n := range perTool {
		want := float64(mixWeights[i]) / float64(total)
		if got := float64(n) / draws; math.Abs(got-want) > 0.01 {
			t.Errorf("%s: %.3f of calls, want %.3f ± 0.01", toolNames[i], got, want)
		}
	}
	if got := float64(hotWithArgs) / float64(withArgs); math.Abs(got-0.8) > 0.01 {
		t.Errorf("hot share of calls with arguments = %.3f, want 0.8 ± 0.01", got)
	}
}

func TestMixRestrictedToNamedTools(t *testing.T) {
	ks := newKeyspace(testData(t), 4)
	p := newMixPlan(ks, 0.5, "nsip_get_animal", "nsip_get_statuses")
	r := rand.New(rand.NewPCG(7, 7))
	n := map[int]int{}
	for range 20000 {
		c, _ := p.next(context.Background(), r)
		n[c.tool]++
	}
	if len(n) != 2 || n[toolAnimal] == 0 || n[toolStatuses] == 0 {
		t.Fatalf("drew %v, want only nsip_get_animal and nsip_get_statuses", n)
	}
	// Their weights, 24 and 5, keep their proportion.
	if got := float64(n[toolAnimal]) / 20000; math.Abs(got-24.0/29) > 0.015 {
		t.Errorf("nsip_get_animal share %.3f, want %.3f ± 0.015", got, 24.0/29)
	}
}

func TestMixHotCallsUseOnlyHotKeys(t *testing.T) {
	ks := newKeyspace(testData(t), 4)
	p := newMixPlan(ks, 1)
	r := rand.New(rand.NewPCG(2, 2))
	keys := map[string]bool{}
	for range 5000 {
		c, _ := p.next(context.Background(), r)
		if !c.hot {
			t.Fatalf("with --hot 1 drew a cold call: %s %v", c.name(), c.args)
		}
		for _, k := range []string{"search_string", "lpn_id"} {
			if id, ok := c.args[k].(string); ok && !slices.Contains(ks.hot, id) {
				t.Fatalf("hot call %s names %s, which is not a hot animal", c.name(), id)
			}
		}
		b, _ := json.Marshal(c.args)
		keys[c.name()+string(b)] = true
	}
	// 3 argument-free tools, 1 trait range, 3 searches, and 4 animals for
	// each of the four per-animal tools.
	if want := 3 + 1 + len(hotSearches) + 4*4; len(keys) != want {
		t.Errorf("hot calls used %d distinct keys, want %d", len(keys), want)
	}
}

func TestMixColdCallsSpreadOverTheData(t *testing.T) {
	ks := newKeyspace(testData(t), 4)
	p := newMixPlan(ks, 0)
	r := rand.New(rand.NewPCG(4, 4))
	animals := map[string]bool{}
	for range 5000 {
		c, _ := p.next(context.Background(), r)
		if id, ok := c.args["search_string"].(string); ok {
			animals[id] = true
		}
	}
	// About 1200 draws of nsip_get_animal over 600 animals reach most of them.
	if len(animals) < 400 {
		t.Errorf("cold nsip_get_animal calls named %d distinct animals, want at least 400 of 600", len(animals))
	}
}

// gatewayHarness runs tool calls in process: the real gateway, summarizer
// and client against a stand-in with the given data.
type gatewayHarness struct {
	tools map[string]server.ToolHandlerFunc
	stub  *nsiptest.Server
}

func newGatewayHarness(t *testing.T) *gatewayHarness {
	t.Helper()
	stub := nsiptest.NewServer(t, nsiptest.Options{Seed: 3, Animals: 600})
	c, err := nsip.NewClient(nsip.WithBaseURL(stub.URL()))
	if err != nil {
		t.Fatal(err)
	}
	counter, err := summarize.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	cfg := gateway.DefaultConfig()
	cfg.RateLimit, cfg.RateBurst, cfg.MaxConcurrentUpstream = 1000, 1000, 64
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	g, err := gateway.New(c, summarize.New(counter), cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &gatewayHarness{tools: map[string]server.ToolHandlerFunc{}, stub: stub}
	for _, st := range g.Tools() {
		h.tools[st.Tool.Name] = st.Handler
	}
	return h
}

// check makes the call and fails the test unless it succeeds.
func (h *gatewayHarness) check(t *testing.T, c call) {
	t.Helper()
	fn, ok := h.tools[c.name()]
	if !ok {
		t.Fatalf("the gateway has no tool %s", c.name())
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = c.name()
	req.Params.Arguments = c.args
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := fn(ctx, req)
	if err != nil {
		t.Fatalf("%s %v: %v", c.name(), c.args, err)
	}
	if res.IsError {
		t.Fatalf("%s %v: error result %v", c.name(), c.args, res.Content)
	}
}

func TestEveryPlannedCallSucceedsAgainstTheGateway(t *testing.T) {
	h := newGatewayHarness(t)
	ks := newKeyspace(h.stub.Data(), 6)
	r := rand.New(rand.NewPCG(9, 9))
	for _, hot := range []float64{0, 1} {
		p := newMixPlan(ks, hot)
		seen := map[int]bool{}
		for range 150 {
			c, _ := p.next(context.Background(), r)
			seen[c.tool] = true
			h.check(t, c)
		}
		if len(seen) != len(toolNames) {
			t.Errorf("hot=%g: 150 draws covered %d of the %d tools", hot, len(seen), len(toolNames))
		}
	}
	for i := range 2 {
		for _, c := range breederScript(ks, i) {
			h.check(t, c)
		}
	}
	cp := &collapsePlan{ks: ks, bar: newBarrier(1)}
	for range 5 {
		c, _ := cp.next(context.Background(), r)
		h.check(t, c)
	}
}

func TestBreederScriptOverlapsAcrossSessions(t *testing.T) {
	ks := newKeyspace(testData(t), 4)
	key := func(c call) string { b, _ := json.Marshal(c.args); return c.name() + string(b) }
	first := breederScript(ks, 0)
	p := &scriptPlan{calls: first}
	n := 0
	for {
		if _, ok := p.next(context.Background(), nil); !ok {
			break
		}
		n++
	}
	if n != len(first) {
		t.Errorf("scriptPlan yielded %d calls, want the script's %d", n, len(first))
	}
	unique := map[string]bool{}
	for _, c := range first {
		unique[key(c)] = true
	}
	if len(unique) >= len(first) {
		t.Errorf("a breeder session of %d calls has %d distinct keys; a real one comes back to earlier answers", len(first), len(unique))
	}
	// Session 4 studies the same animal as session 0 (four hot animals).
	if got, want := key(breederScript(ks, 4)[6]), key(first[6]); got != want {
		t.Errorf("sessions 0 and 4 open different animals: %s vs %s", want, got)
	}
}

func TestCollapseRoundsAskForFreshAnimals(t *testing.T) {
	ks := newKeyspace(testData(t), 4)
	seen := map[string]bool{}
	for r := range len(ks.animals) {
		id := collapseAnimal(ks, r)
		if seen[id] {
			t.Fatalf("round %d repeats %s", r, id)
		}
		seen[id] = true
	}
}

func TestBarrierReleasesTogetherAndWhenPartiesLeave(t *testing.T) {
	b := newBarrier(3)
	var wg sync.WaitGroup
	released := make(chan int, 3)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if b.wait(context.Background()) {
				released <- i
			}
		}()
	}
	select {
	case i := <-released:
		t.Fatalf("waiter %d released with 2 of 3 parties arrived", i)
	case <-time.After(50 * time.Millisecond):
	}
	b.leave() // the third party stops for good: the two waiting go
	wg.Wait()
	if len(released) != 2 {
		t.Fatalf("%d waiters released after the third party left, want 2", len(released))
	}
	// The next generation needs the two remaining parties.
	done := make(chan bool)
	go func() { done <- b.wait(context.Background()) }()
	if !b.wait(context.Background()) || !<-done {
		t.Fatal("second generation did not release both parties")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if b.wait(ctx) {
		t.Error("wait on a cancelled context with a party missing reported release")
	}
}
