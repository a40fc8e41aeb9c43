package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// Report is the summary of a run, as --json prints it.
type Report struct {
	Scenario     string   `json:"scenario"`
	Transport    string   `json:"transport"`
	Target       string   `json:"target"`
	ServerEnv    []string `json:"server_env,omitempty"`
	Sessions     int      `json:"sessions"`
	SessionsOpen int      `json:"sessions_open"`
	SessionsLost int      `json:"sessions_lost"`
	Connect      Latency  `json:"connect"`
	// FirstConnectError is the first reason a session could not be opened.
	FirstConnectError string  `json:"first_connect_error,omitempty"`
	ThinkMS           float64 `json:"think_ms"`
	// Rate is --rate: calls per second due at fixed times (open loop);
	// Offered counts the calls due before the end and Missed those a
	// session skipped because its previous call was still outstanding.
	Rate      float64            `json:"rate_per_s,omitempty"`
	Offered   int64              `json:"offered,omitempty"`
	Missed    int64              `json:"missed,omitempty"`
	DurationS float64            `json:"duration_s"`
	Calls     int64              `json:"calls"`
	OK        int64              `json:"ok"`
	CallsPerS float64            `json:"calls_per_s"`
	Latency   Latency            `json:"latency_ok"`
	ByCache   map[string]Latency `json:"latency_ok_by_cache"`
	ByTool    map[string]Latency `json:"latency_ok_by_tool"`
	Errors    map[string]int64   `json:"errors"`
	Upstream  *Upstream          `json:"upstream,omitempty"`
	Server    *ServerStats       `json:"server,omitempty"`
	// Attack is what ran beside the honest sessions, whose figures are the
	// rest of the report.
	Attack *AttackStats `json:"attack,omitempty"`
	// Versus is the side-by-side with a bare server (--versus-bare); the
	// rest of the report is then nsip-mcp's phases.
	Versus *Versus `json:"versus_bare,omitempty"`
}

// Upstream compares tool calls with the requests that reached NSIP.
type Upstream struct {
	Source   string  `json:"source"`
	Requests int64   `json:"requests"`
	PerCall  float64 `json:"per_call"`
	Saved    float64 `json:"saved"` // 1 - requests/calls
}

// ServerStats is the server's memory, in KiB, and its cache as /healthz
// reports it.
type ServerStats struct {
	PIDs        []int           `json:"pids"`
	RSSIdleKB   int64           `json:"rss_idle_kb,omitempty"` // before any session opened
	RSSOpenKB   int64           `json:"rss_open_kb"`           // sessions open, before the first call
	RSSAfterKB  int64           `json:"rss_after_kb"`          // after the last call
	RSSPeakKB   int64           `json:"rss_peak_kb"`           // VmHWM
	HealthCache json.RawMessage `json:"cache,omitempty"`
	// Shared is each replica's /healthz "shared" block (Redis state, hits
	// from Redis, collapsed fetches) when --replicas runs several.
	Shared []json.RawMessage `json:"shared,omitempty"`
}

// runState is shared by the sessions while a run is under way.
type runState struct {
	calls  atomic.Int64
	errors atomic.Int64
	live   atomic.Int64
	budget atomic.Int64 // calls not yet started
	missed atomic.Int64 // --rate: calls due while the session's previous one was outstanding
	hist   histogram
}

// worker is one session's loop and record.
type worker struct {
	s       session
	p       plan
	rng     *rand.Rand
	samples []sample
	errs    map[string]int64
	lost    bool
	// --rate: calls the schedule offered (sent or missed) and missed.
	offered, missed int64
}

// execute carries out the run cfg describes, printing progress to progress.
func execute(ctx context.Context, cfg config, progress io.Writer) (*Report, error) {
	if cfg.versusPhases > 0 {
		return versusBare(ctx, cfg, progress)
	}
	t, err := setup(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer t.close()
	var ds *nsiptest.Dataset
	if t.stub != nil {
		ds = t.stub.Data()
	} else {
		ds = nsiptest.NewDataset(cfg.seed, cfg.animals)
	}
	ks := newKeyspace(ds, cfg.hotKeys)

	rep := &Report{
		Scenario: cfg.scenario, Transport: cfg.transport, Target: t.describe(),
		ServerEnv: t.shownEnv, Sessions: cfg.sessions, ThinkMS: ms(cfg.think),
		Rate: cfg.rate, Errors: map[string]int64{},
	}
	srv := &ServerStats{}
	idle, _, haveRSS := t.rss()
	srv.RSSIdleKB = idle

	// An attack starts first and has a head start, so that the honest
	// sessions must open while it is under way.
	actx, stopAttack := context.WithCancel(ctx)
	defer stopAttack()
	attacked := attack(actx, cfg, t.base)
	if cfg.attack != attackNone {
		_ = pause(ctx, attackHeadStart)
	}
	workers, connect, connErr := connectAll(ctx, cfg, t, rep.Errors)
	rep.Connect = latencyOf(connect)
	if connErr != nil {
		rep.FirstConnectError = truncate(connErr.Error(), 300)
	}
	rep.SessionsOpen = len(workers)
	defer func() {
		for _, w := range workers {
			w.s.close()
		}
	}()
	if len(workers) == 0 {
		return rep, fmt.Errorf("no session could be opened: %v; server output: %s", connErr, t.logs.lastLines(5))
	}
	if cfg.transport == transportStdio {
		t.pids = t.pids[:0]
		for _, w := range workers {
			if p := w.s.pid(); p > 0 {
				t.pids = append(t.pids, p)
			}
		}
		_, _, haveRSS = t.rss()
	}
	srv.PIDs = t.pids
	srv.RSSOpenKB, _, _ = t.rss()
	assignPlans(cfg, ks, workers)

	upBefore, _, upOK := t.upstreamRequests(ctx)
	elapsed := drive(ctx, cfg, workers, progress)
	stopAttack()
	rep.Attack = attacked()
	upAfter, upSource, upOK2 := t.upstreamRequests(ctx)

	if haveRSS {
		srv.RSSAfterKB, srv.RSSPeakKB, _ = t.rss()
		rep.Server = srv
	}
	if h, err := t.health(ctx); err == nil {
		if rep.Server == nil {
			rep.Server = srv
		}
		rep.Server.HealthCache = h["cache"]
	}
	if len(t.bases) > 1 && rep.Server != nil {
		for _, b := range t.bases {
			if h, err := t.healthAt(ctx, b+"/healthz"); err == nil && len(h["shared"]) > 0 {
				rep.Server.Shared = append(rep.Server.Shared, h["shared"])
			}
		}
	}
	rep.fill(workers, elapsed)
	if upOK && upOK2 {
		up := &Upstream{Source: upSource, Requests: upAfter - upBefore}
		if rep.Calls > 0 {
			up.PerCall = round3(float64(up.Requests) / float64(rep.Calls))
			up.Saved = round3(1 - up.PerCall)
		}
		rep.Upstream = up
	}
	return rep, nil
}

func (t *target) describe() string {
	switch {
	case t.stub != nil && t.cfg.transport == transportStdio:
		return fmt.Sprintf("%s per session over stdio; stand-in upstream in nsip-load (seed %d, %d animals, latency %s)", t.bin, t.cfg.seed, t.cfg.animals, t.cfg.latency)
	case t.stub != nil:
		return fmt.Sprintf("%s at %s; stand-in upstream in nsip-load (seed %d, %d animals, latency %s)", t.bin, strings.Join(t.bases, " "), t.cfg.seed, t.cfg.animals, t.cfg.latency)
	case t.cfg.transport == transportStdio:
		return fmt.Sprintf("%s per session over stdio; upstream %s", t.bin, t.cfg.upstream)
	}
	return "running server at " + t.base
}

// connectAll opens the sessions, a few at a time, and returns the ones that
// opened with their connect times. Failures are counted in errs.
func connectAll(ctx context.Context, cfg config, t *target, errs map[string]int64) ([]*worker, []time.Duration, error) {
	var hc *http.Client
	if cfg.transport == transportSSE || cfg.transport == transportStreamable {
		hc = sharedHTTP(cfg.sessions)
	}
	var mu sync.Mutex
	var workers []*worker
	var times []time.Duration
	var firstErr error
	sem := make(chan struct{}, cfg.connectPar)
	var wg sync.WaitGroup
	for i := 0; i < cfg.sessions; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			cctx, cancel := context.WithTimeout(ctx, cfg.callTimeout)
			defer cancel()
			start := time.Now()
			s, err := dial(cctx, cfg, t, hc)
			took := time.Since(start)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs[errConnect]++
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			workers = append(workers, &worker{s: s, errs: map[string]int64{}})
			times = append(times, took)
		}()
	}
	wg.Wait()
	return workers, times, firstErr
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func dial(ctx context.Context, cfg config, t *target, hc *http.Client) (session, error) {
	switch cfg.transport {
	case transportWebSocket:
		return dialWS(ctx, t.nextBase(), cfg.protocol)
	case transportSSE:
		return dialSSE(ctx, t.nextBase(), cfg.protocol, hc)
	case transportStreamable:
		return dialStreamable(ctx, t.nextBase(), cfg.protocol, hc)
	}
	return dialStdio(ctx, t.bin, t.env, cfg.protocol, mcp.ClientCapabilities{}, t.logs)
}

// assignPlans gives every session its calls and its own random source,
// seeded from --seed so that runs repeat.
func assignPlans(cfg config, ks *keyspace, workers []*worker) {
	var bar *barrier
	if cfg.scenario == scenarioCollapse {
		bar = newBarrier(len(workers))
	}
	mix := newMixPlan(ks, cfg.hot, cfg.tools...)
	for i, w := range workers {
		w.rng = rand.New(rand.NewPCG(uint64(cfg.seed), uint64(i)))
		switch cfg.scenario {
		case scenarioBreeder:
			w.p = &scriptPlan{calls: breederScript(ks, i)}
		case scenarioCollapse:
			w.p = &collapsePlan{ks: ks, bar: bar}
		default:
			w.p = mix
		}
	}
}

// drive runs the sessions until the duration is up, the call budget is
// spent, or every plan has ended; calls in flight at the end are finished.
func drive(ctx context.Context, cfg config, workers []*worker, progress io.Writer) time.Duration {
	st := &runState{}
	st.budget.Store(int64(cfg.calls))
	st.live.Store(int64(len(workers)))
	runCtx, cancel := context.WithTimeout(ctx, cfg.duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	clk := wallClock{start: start}
	for i, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer st.live.Add(-1)
			if cfg.rate > 0 {
				w.openLoop(ctx, runCtx, cfg, st, scheduleFor(i, len(workers), cfg.rate, cfg.duration), clk)
				return
			}
			w.loop(ctx, runCtx, cfg, st)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	if cfg.progress > 0 {
		report := newProgress(progress, st, len(workers), start)
		tick := time.NewTicker(cfg.progress)
	loop:
		for {
			select {
			case <-tick.C:
				report.line()
			case <-done:
				break loop
			}
		}
		tick.Stop()
		report.line()
	} else {
		<-done
	}
	return time.Since(start)
}

// loop makes calls until the plan, the budget, the run or the session ends.
func (w *worker) loop(ctx, runCtx context.Context, cfg config, st *runState) {
	if cb, ok := w.p.(*collapsePlan); ok {
		defer cb.bar.leave()
	}
	for runCtx.Err() == nil {
		if cfg.think > 0 && !pause(runCtx, time.Duration(w.rng.ExpFloat64()*float64(cfg.think))) {
			return
		}
		if _, more := w.once(ctx, runCtx, cfg, st); !more {
			return
		}
	}
}

// openLoop makes the session's calls at the times its schedule gives
// (--rate), counting those it had to miss.
func (w *worker) openLoop(ctx, runCtx context.Context, cfg config, st *runState, s openSchedule, clk runClock) {
	n := runOpen(runCtx, s, clk, func() (bool, bool) { return w.once(ctx, runCtx, cfg, st) })
	w.offered += n.offered
	w.missed += n.missed
	st.missed.Add(n.missed)
}

// once makes the plan's next call and records it; made is whether a call
// went out, more whether the session goes on.
func (w *worker) once(ctx, runCtx context.Context, cfg config, st *runState) (made, more bool) {
	c, ok := w.p.next(runCtx, w.rng)
	if !ok || st.budget.Add(-1) < 0 {
		return false, false
	}
	cctx, cancel := context.WithTimeout(ctx, cfg.callTimeout)
	start := time.Now()
	o := w.s.call(cctx, c)
	lat := time.Since(start)
	cancel()
	st.calls.Add(1)
	st.hist.add(lat)
	w.samples = append(w.samples, sample{lat: lat, tool: uint8(c.tool), cache: o.cache, err: o.kind != ""})
	if o.kind != "" {
		st.errors.Add(1)
		w.errs[o.kind]++
	}
	if o.fatal {
		w.lost = true
		return true, false
	}
	return true, true
}

// pause sleeps d unless ctx ends first.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// fill computes the totals and percentiles from the sessions' records.
func (r *Report) fill(workers []*worker, elapsed time.Duration) {
	r.DurationS = round3(elapsed.Seconds())
	var all []time.Duration
	byCache := map[string][]time.Duration{}
	byTool := map[string][]time.Duration{}
	for _, w := range workers {
		if w.lost {
			r.SessionsLost++
		}
		r.Offered += w.offered
		r.Missed += w.missed
		for k, n := range w.errs {
			r.Errors[k] += n
		}
		for _, s := range w.samples {
			r.Calls++
			if s.err {
				continue
			}
			r.OK++
			all = append(all, s.lat)
			c := cacheNames[s.cache]
			byCache[c] = append(byCache[c], s.lat)
			byTool[toolNames[s.tool]] = append(byTool[toolNames[s.tool]], s.lat)
		}
	}
	if elapsed > 0 {
		r.CallsPerS = math.Round(float64(r.Calls)/elapsed.Seconds()*10) / 10
	}
	r.Latency = latencyOf(all)
	r.ByCache = map[string]Latency{}
	for k, v := range byCache {
		r.ByCache[k] = latencyOf(v)
	}
	r.ByTool = map[string]Latency{}
	for k, v := range byTool {
		r.ByTool[k] = latencyOf(v)
	}
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// failed counts the errors of the run, connect failures included.
func (r *Report) failed() int64 {
	var n int64
	for _, v := range r.Errors {
		n += v
	}
	return n
}

// progress prints one line per interval: totals, the last interval's rate
// and percentiles, and the sessions still running.
type progressLine struct {
	w        io.Writer
	st       *runState
	sessions int
	start    time.Time
	last     time.Time
	lastN    int64
}

func newProgress(w io.Writer, st *runState, sessions int, start time.Time) *progressLine {
	return &progressLine{w: w, st: st, sessions: sessions, start: start, last: start}
}

func (p *progressLine) line() {
	now := time.Now()
	n := p.st.calls.Load()
	rate := float64(n-p.lastN) / max(now.Sub(p.last).Seconds(), 1e-9)
	h := p.st.hist.drain()
	fmt.Fprintf(p.w, "nsip-load: %6.1fs  calls %d (%.0f/s)  errors %d  p50 %s p99 %s  sessions %d/%d\n",
		now.Sub(p.start).Seconds(), n, rate, p.st.errors.Load(),
		fmtDur(histPercentile(h, 50)), fmtDur(histPercentile(h, 99)), p.st.live.Load(), p.sessions)
	p.last, p.lastN = now, n
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.0fµs", float64(d)/1e3)
}

// writeText prints the report for people.
func (r *Report) writeText(w io.Writer) {
	fmt.Fprintf(w, "scenario   %s over %s, %d sessions (%d opened, %d lost), think %.0f ms\n",
		r.Scenario, r.Transport, r.Sessions, r.SessionsOpen, r.SessionsLost, r.ThinkMS)
	fmt.Fprintf(w, "target     %s\n", r.Target)
	if len(r.ServerEnv) > 0 {
		fmt.Fprintf(w, "server env %v\n", r.ServerEnv)
	}
	fmt.Fprintf(w, "connect    %s\n", r.Connect.text())
	if r.FirstConnectError != "" {
		fmt.Fprintf(w, "           first failure: %s\n", r.FirstConnectError)
	}
	fmt.Fprintf(w, "calls      %d in %.2f s: %.1f calls/s, %d ok, %d failed\n", r.Calls, r.DurationS, r.CallsPerS, r.OK, r.Calls-r.OK)
	if r.Rate > 0 {
		fmt.Fprintf(w, "schedule   open loop at %g calls/s: %d due, %d sent, %d missed (due while the session's previous call was outstanding)\n",
			r.Rate, r.Offered, r.Offered-r.Missed, r.Missed)
	}
	fmt.Fprintf(w, "latency    %s\n", r.Latency.text())
	for _, k := range sortedKeys(r.ByCache) {
		fmt.Fprintf(w, "  %-8s %s\n", k, r.ByCache[k].text())
	}
	for _, k := range sortedKeys(r.ByTool) {
		fmt.Fprintf(w, "  %-22s %s\n", k, r.ByTool[k].text())
	}
	if len(r.Errors) == 0 {
		fmt.Fprintln(w, "errors     none")
	} else {
		fmt.Fprint(w, "errors    ")
		for _, k := range sortedKeys(r.Errors) {
			fmt.Fprintf(w, " %s %d", k, r.Errors[k])
		}
		fmt.Fprintln(w)
	}
	if a := r.Attack; a != nil {
		fmt.Fprintf(w, "attack     %s by %d attackers from %s: %d attempts, %d sessions granted, %d refused, %d connections cut, %d failed\n",
			a.Kind, a.Attackers, attackerAddr, a.Attempts, a.Accepted, a.Refused, a.Cut, a.Failed)
	}
	if r.Versus != nil {
		r.Versus.writeText(w)
	}
	if u := r.Upstream; u != nil {
		fmt.Fprintf(w, "upstream   %d requests for %d tool calls: %.3f per call, %.1f%% saved (%s)\n",
			u.Requests, r.Calls, u.PerCall, 100*u.Saved, u.Source)
	} else {
		fmt.Fprintln(w, "upstream   not counted (no stand-in in this process and no /healthz)")
	}
	if s := r.Server; s != nil {
		if s.RSSAfterKB > 0 {
			fmt.Fprintf(w, "server     pids %v  RSS idle %s, sessions open %s, after %s, peak %s\n",
				s.PIDs, kib(s.RSSIdleKB), kib(s.RSSOpenKB), kib(s.RSSAfterKB), kib(s.RSSPeakKB))
		}
		if len(s.HealthCache) > 0 {
			fmt.Fprintf(w, "cache      %s\n", s.HealthCache)
		}
		for i, sh := range s.Shared {
			fmt.Fprintf(w, "shared %d   %s\n", i, sh)
		}
	}
}

func (l Latency) text() string {
	if l.N == 0 {
		return "no samples"
	}
	return fmt.Sprintf("p50 %.3f ms  p95 %.3f ms  p99 %.3f ms  max %.3f ms  (n=%d)", l.P50, l.P95, l.P99, l.Max, l.N)
}

func kib(k int64) string {
	if k == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", float64(k)/1024)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
