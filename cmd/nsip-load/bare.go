package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	clienttransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/cmd/internal/bare"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/transport"
)

// --versus-bare puts nsip-mcp beside a bare mcp-go server
// (cmd/internal/bare): the nine tool names, each answering at once with the
// result nsip-mcp gave for a cached nsip_get_animal, byte for byte (text,
// _meta and structuredContent), served by this project's own transport
// package. Both are separate processes driven by the same sessions, think
// time and plan, in alternating phases, so that the ratio of their CPU per
// call is what nsip-mcp adds to a cached call, measured under the same
// machine load.

// --bare-server mcp-go serves the same bare server with mcp-go's own
// streamable HTTP server instead (server.NewStreamableHTTPServer with its
// defaults, on /mcp, beside a /healthz for startup): nothing of this
// project's transport between the socket and mcp-go, so the ratio charges
// nsip-mcp for its transport as well as its gateway.

// Values of --bare-server.
const (
	bareOurs  = "transport"
	bareMCPGo = "mcp-go"
)

// serveBareCommand is the hidden first argument under which nsip-load runs
// the bare server itself (nsip-load starts itself with it).
const serveBareCommand = "serve-bare"

// bareAnswerEnv carries the answer the bare server gives, as the JSON of a
// tool result ({"_meta":...,"content":[...],"structuredContent":...}).
const bareAnswerEnv = "NSIP_LOAD_BARE_ANSWER"

// bareServerEnv carries --bare-server to the bare server's process.
const bareServerEnv = "NSIP_LOAD_BARE_SERVER"

// serveBare runs the bare server on the transport, host and port nsip-mcp
// would read from the same variables, until ctx ends.
func serveBare(ctx context.Context, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "nsip-load %s: %s\n", serveBareCommand, fmt.Sprintf(format, a...))
		return 2
	}
	s, err := bare.New(json.RawMessage(os.Getenv(bareAnswerEnv)), toolNames[:])
	if err != nil {
		return fail("%s must hold a tool result's JSON: %v", bareAnswerEnv, err)
	}
	port, err := strconv.Atoi(os.Getenv("MCP_PORT"))
	if err != nil || port <= 0 || port > 65535 {
		return fail("MCP_PORT=%q is not a port number 1..65535", os.Getenv("MCP_PORT"))
	}
	host := os.Getenv("MCP_HOST")
	if !isLoopbackHost(host) {
		return fail("MCP_HOST=%q: the bare server listens on loopback only, e.g. 127.0.0.1", host)
	}
	perClient, _ := strconv.Atoi(os.Getenv("MCP_MAX_SESSIONS_PER_CLIENT"))
	kind := os.Getenv("MCP_TRANSPORT")
	if kind != "websocket" && kind != "http-sse" {
		return fail("MCP_TRANSPORT=%q: use websocket or http-sse", kind)
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	switch os.Getenv(bareServerEnv) {
	case "", bareOurs:
		err = transport.Serve(ctx, kind, s, transport.Options{
			Host: host, Port: port, Logger: log, MaxSessionsPerClient: perClient,
		})
	case bareMCPGo:
		if kind != "http-sse" {
			return fail("%s=%s serves streamable HTTP: MCP_TRANSPORT=%q must be http-sse", bareServerEnv, bareMCPGo, kind)
		}
		err = serveMCPGo(ctx, net.JoinHostPort(host, strconv.Itoa(port)), s, log)
	default:
		return fail("%s=%q: use %s or %s", bareServerEnv, os.Getenv(bareServerEnv), bareOurs, bareMCPGo)
	}
	if err != nil {
		fmt.Fprintf(stderr, "nsip-load %s: %v\n", serveBareCommand, err)
		return 1
	}
	return 0
}

// serveMCPGo serves s at addr with mcp-go's own streamable HTTP server on
// /mcp, and a /healthz that answers {"status":"ok"} for nsip-load to wait
// on, until ctx ends.
func serveMCPGo(ctx context.Context, addr string, s *server.MCPServer, log *slog.Logger) error {
	streamable := server.NewStreamableHTTPServer(s, server.WithStreamableHTTPLogger(log))
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamable)
	mux.HandleFunc("GET /healthz", bareHealthz)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	streamable.CloseSessions(stop)
	if err := hs.Shutdown(stop); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func bareHealthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"status":"ok"}`)
}

// Versus is the side-by-side result of --versus-bare.
type Versus struct {
	Phases int `json:"phases"`
	// BareServer is --bare-server: what served the bare server.
	BareServer string     `json:"bare_server"`
	Bare       VersusSide `json:"bare"`
	Subject    VersusSide `json:"nsip_mcp"`
	// Rate is --rate: both servers were offered the same calls per phase.
	Rate float64 `json:"rate_per_s,omitempty"`
	// Ratio is the subject's CPU per call over the bare server's; absent
	// when Refused says why there is none.
	Ratio float64 `json:"cpu_per_call_ratio,omitempty"`
	// NetRatio is the same with each process's idle CPU rate, times its
	// phases' length, taken off first: what the calls themselves cost.
	NetRatio float64       `json:"net_cpu_per_call_ratio,omitempty"`
	Refused  string        `json:"refused,omitempty"`
	PerPhase []VersusPhase `json:"per_phase"`
}

// VersusSide is one server's share of a --versus-bare run.
type VersusSide struct {
	PID          int     `json:"pid"`
	Offered      int64   `json:"offered,omitempty"` // --rate: calls due in its phases
	Calls        int64   `json:"calls"`
	Answered     int64   `json:"answered"` // calls without error
	Missed       int64   `json:"missed,omitempty"`
	Hits         int64   `json:"cache_hits"` // answers whose _meta.cache was "hit"
	Errors       int64   `json:"errors"`
	Seconds      float64 `json:"seconds"`
	CallsPerS    float64 `json:"calls_per_s"`
	CPUSeconds   float64 `json:"cpu_s"`
	CPUPerCallUS float64 `json:"cpu_per_call_us"`
	P50          float64 `json:"p50_ms"`
	// IdleCPUMSPerS is the process's CPU, in ms per second, over a window
	// before each of its phases with the sessions open and no calls: its
	// fixed background. IdleShare is that rate over its phases' length as
	// a share of its CPU in them.
	IdleCPUMSPerS float64 `json:"idle_cpu_ms_per_s"`
	IdleShare     float64 `json:"idle_share"`
	NetPerCallUS  float64 `json:"net_cpu_per_call_us"`
	idleCPU       float64
	idleTime      time.Duration
}

// VersusPhase is one phase of a --versus-bare run.
type VersusPhase struct {
	Server        string  `json:"server"` // bare or nsip-mcp
	Offered       int64   `json:"offered,omitempty"`
	Calls         int64   `json:"calls"`
	Answered      int64   `json:"answered"`
	Missed        int64   `json:"missed,omitempty"`
	Seconds       float64 `json:"seconds"`
	CPUSeconds    float64 `json:"cpu_s"`
	IdleCPUMSPerS float64 `json:"idle_cpu_ms_per_s"`
}

// minAnswered is the share of offered calls each server must answer for
// an open-loop round to give a ratio. Below it the machine (or the server)
// did not keep up with the schedule, the two were no longer offered the
// same work in effect, and a ratio would mislead.
const minAnswered = 0.98

// idleWindow is how long each process's idle CPU is read before its phase.
// /proc counts in ticks of 10 ms, so over the three windows of a six-phase
// run a side's idle rate resolves 1.7 ms of CPU a second.
const idleWindow = 2 * time.Second

// versusBare runs the comparison: nsip-mcp is started and warmed, its
// answer to a hot nsip_get_animal becomes the bare server's, and then the
// phases alternate, bare first.
func versusBare(ctx context.Context, cfg config, progress io.Writer) (*Report, error) {
	subject, err := setup(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer subject.close()
	ks := newKeyspace(subject.stub.Data(), cfg.hotKeys)
	rep := &Report{
		Scenario: cfg.scenario, Transport: cfg.transport, Target: subject.describe(),
		ServerEnv: subject.shownEnv, Sessions: cfg.sessions, ThinkMS: ms(cfg.think),
		Rate: cfg.rate, Errors: map[string]int64{},
	}
	subjects, connect, err := connectAll(ctx, cfg, subject, rep.Errors)
	defer closeAll(subjects)
	if err != nil {
		return rep, fmt.Errorf("opening sessions to nsip-mcp: %w", err)
	}
	rep.Connect, rep.SessionsOpen = latencyOf(connect), len(subjects)
	assignPlans(cfg, ks, subjects)
	// Warm-up: every hot key is fetched once, so that what follows is
	// answered from the cache.
	warm := cfg
	warm.duration, warm.progress = 2*time.Second, 0
	drive(ctx, warm, subjects, progress)
	for _, w := range subjects {
		w.samples, w.offered, w.missed = w.samples[:0], 0, 0
	}

	answer, err := cachedAnswer(ctx, cfg, subject.base, ks)
	if err != nil {
		return rep, fmt.Errorf("reading nsip-mcp's cached "+toolname.GetAnimal+": %w", err)
	}
	bareSrv, err := startBare(ctx, cfg, answer)
	if err != nil {
		return rep, err
	}
	defer bareSrv.close()
	if err := sameAnswer(ctx, cfg, bareSrv.base, ks, answer); err != nil {
		return rep, err
	}
	bares, _, err := connectAll(ctx, cfg, bareSrv, rep.Errors)
	defer closeAll(bares)
	if err != nil {
		return rep, fmt.Errorf("opening sessions to the bare server: %w", err)
	}
	assignPlans(cfg, ks, bares)

	v := &Versus{Phases: cfg.versusPhases, BareServer: cfg.bareServer, Rate: cfg.rate}
	v.Bare.PID, v.Subject.PID = bareSrv.pids[0], subject.pids[0]
	phase := cfg
	phase.duration = cfg.duration / time.Duration(cfg.versusPhases)
	var subjectTime time.Duration
	for i := range cfg.versusPhases {
		workers, side, name := bares, &v.Bare, "bare"
		if i%2 == 1 {
			workers, side, name = subjects, &v.Subject, "nsip-mcp"
		}
		p, took, err := versusPhase(ctx, phase, workers, side, progress)
		if err != nil {
			return rep, err
		}
		p.Server = name
		if side == &v.Subject {
			subjectTime += took
		}
		v.PerPhase = append(v.PerPhase, p)
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
	}
	for _, s := range []struct {
		side    *VersusSide
		workers []*worker
	}{{&v.Bare, bares}, {&v.Subject, subjects}} {
		s.side.fill(s.workers)
	}
	v.judge()
	rep.fill(subjects, subjectTime)
	for _, w := range bares {
		for k, n := range w.errs {
			rep.Errors["bare:"+k] += n
		}
	}
	rep.Versus = v
	return rep, nil
}

// versusPhase drives workers for one phase against side's server,
// charging it the CPU its process spent and noting what it spends idle.
func versusPhase(ctx context.Context, phase config, workers []*worker, side *VersusSide, progress io.Writer) (VersusPhase, time.Duration, error) {
	idle, idleFor, err := idleCPU(ctx, side.PID)
	if err != nil {
		return VersusPhase{}, 0, err
	}
	side.idleCPU += idle
	side.idleTime += idleFor
	before, err := procCPU(side.PID)
	if err != nil {
		return VersusPhase{}, 0, err
	}
	mark := countsOf(workers)
	took := drive(ctx, phase, workers, progress)
	after, err := procCPU(side.PID)
	if err != nil {
		return VersusPhase{}, 0, err
	}
	side.CPUSeconds += after - before
	side.Seconds += took.Seconds()
	p := countsOf(workers).minus(mark)
	return VersusPhase{
		Offered: p.offered, Calls: p.calls, Answered: p.answered, Missed: p.missed,
		Seconds: round3(took.Seconds()), CPUSeconds: round3(after - before),
		IdleCPUMSPerS: round1(idle * 1000 / idleFor.Seconds()),
	}, took, nil
}

// judge sets the ratios, or Refused when an open-loop round does not give
// one: a server that answered fewer than minAnswered of the calls offered
// was not keeping up, and its CPU per call would be divided by calls that
// did not happen.
func (v *Versus) judge() {
	v.Ratio, v.NetRatio, v.Refused = 0, 0, ""
	if v.Rate > 0 {
		for _, s := range []struct {
			name string
			side *VersusSide
		}{{"the bare server", &v.Bare}, {"nsip-mcp", &v.Subject}} {
			if s.side.Offered == 0 || float64(s.side.Answered) < minAnswered*float64(s.side.Offered) {
				v.Refused = fmt.Sprintf("no ratio: %s answered %d of the %d calls offered, under %.0f%%; the machine or the server did not keep up with --rate %g, so the two were not driven alike (lower --rate, or run on a quieter machine)",
					s.name, s.side.Answered, s.side.Offered, 100*minAnswered, v.Rate)
				return
			}
		}
	}
	if v.Bare.CPUPerCallUS > 0 {
		v.Ratio = round3(v.Subject.CPUPerCallUS / v.Bare.CPUPerCallUS)
	}
	if v.Bare.NetPerCallUS > 0 && v.Subject.NetPerCallUS > 0 {
		v.NetRatio = round3(v.Subject.NetPerCallUS / v.Bare.NetPerCallUS)
	}
}

// phaseCounts are the running totals of a set of sessions, read before and
// after a phase.
type phaseCounts struct{ offered, calls, answered, missed int64 }

func countsOf(workers []*worker) phaseCounts {
	var c phaseCounts
	for _, w := range workers {
		c.offered += w.offered
		c.missed += w.missed
		for _, s := range w.samples {
			c.calls++
			if !s.err {
				c.answered++
			}
		}
	}
	return c
}

func (c phaseCounts) minus(o phaseCounts) phaseCounts {
	return phaseCounts{c.offered - o.offered, c.calls - o.calls, c.answered - o.answered, c.missed - o.missed}
}

// idleCPU reads process pid's CPU over idleWindow while its sessions are
// open and no calls are made.
func idleCPU(ctx context.Context, pid int) (float64, time.Duration, error) {
	before, err := procCPU(pid)
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	if !pause(ctx, idleWindow) {
		return 0, 0, ctx.Err()
	}
	took := time.Since(start)
	after, err := procCPU(pid)
	if err != nil {
		return 0, 0, err
	}
	return after - before, took, nil
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// fill totals one side's calls, hits and latency from its sessions.
func (s *VersusSide) fill(workers []*worker) {
	var lat []time.Duration
	for _, w := range workers {
		s.Offered += w.offered
		s.Missed += w.missed
		for _, smp := range w.samples {
			s.Calls++
			switch {
			case smp.err:
				s.Errors++
			case smp.cache == cacheHit:
				s.Hits++
			}
			lat = append(lat, smp.lat)
		}
	}
	s.Answered = s.Calls - s.Errors
	if s.idleTime > 0 {
		rate := s.idleCPU / s.idleTime.Seconds()
		s.IdleCPUMSPerS = round1(rate * 1000)
		background := rate * s.Seconds
		if s.CPUSeconds > 0 {
			s.IdleShare = round3(background / s.CPUSeconds)
		}
		if s.Calls > 0 && s.CPUSeconds > background {
			s.NetPerCallUS = math.Round((s.CPUSeconds-background)/float64(s.Calls)*1e7) / 10
		}
	}
	s.P50 = latencyOf(lat).P50
	s.CPUSeconds = round3(s.CPUSeconds)
	if s.Seconds > 0 {
		s.CallsPerS = math.Round(float64(s.Calls) / s.Seconds)
	}
	s.Seconds = round3(s.Seconds)
	if s.Calls > 0 {
		s.CPUPerCallUS = math.Round(s.CPUSeconds/float64(s.Calls)*1e7) / 10
	}
}

func closeAll(ws []*worker) {
	for _, w := range ws {
		w.s.close()
	}
}

// cachedAnswer asks nsip-mcp for every hot animal, then for the first one
// again, and returns that last result, which the cache served.
func cachedAnswer(ctx context.Context, cfg config, base string, ks *keyspace) ([]byte, error) {
	// Every hot key once, then the first again: a timed warm-up on a busy
	// machine may not have reached them all, and a key first fetched while
	// measuring would count as a miss.
	raw, err := askAnimals(ctx, cfg, base, append(slices.Clone(ks.hot), ks.hot[0]))
	if err != nil {
		return nil, err
	}
	var r struct {
		Meta map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("not a tool result: %.200s", raw)
	}
	if r.Meta["cache"] != "hit" {
		return nil, fmt.Errorf("the repeated call for %s was not a cache hit (_meta.cache %v)", ks.hot[0], r.Meta["cache"])
	}
	return raw, nil
}

// sameAnswer checks that the bare server at base answers the hot call with
// the very bytes nsip-mcp answered it with: a result it wrote shorter
// (without structuredContent, say) would cost it less to write and flatter
// nsip-mcp's ratio nothing, but skew it.
func sameAnswer(ctx context.Context, cfg config, base string, ks *keyspace, want []byte) error {
	got, err := askAnimals(ctx, cfg, base, ks.hot[:1])
	if err != nil {
		return fmt.Errorf("asking the bare server: %w", err)
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("the bare server's result differs from nsip-mcp's:\n  nsip-mcp %.300s\n  bare     %.300s", want, got)
	}
	return nil
}

// askAnimals calls nsip_get_animal for each key in turn on one new session
// and returns the JSON of the last result as the server wrote it.
func askAnimals(ctx context.Context, cfg config, base string, keys []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.callTimeout)
	defer cancel()
	var raw []byte
	switch cfg.transport {
	case transportWebSocket:
		s, err := dialWS(ctx, base, cfg.protocol)
		if err != nil {
			return nil, err
		}
		defer s.close()
		for _, k := range keys {
			args := map[string]any{"search_string": k}
			env, err := s.roundTrip(ctx, "tools/call", map[string]any{"name": toolNames[toolAnimal], "arguments": args})
			if err != nil {
				return nil, err
			}
			if env.Error != nil {
				return nil, fmt.Errorf("%d %s", env.Error.Code, env.Error.Message)
			}
			raw = env.Result
		}
	default:
		s, err := dialStreamable(ctx, base, cfg.protocol, sharedHTTP(1))
		if err != nil {
			return nil, err
		}
		defer s.close()
		// The transport's own request, for the result as sent rather than
		// as mcp-go's client decodes it.
		for i, k := range keys {
			args := map[string]any{"search_string": k}
			resp, err := s.c.GetTransport().SendRequest(ctx, clienttransport.JSONRPCRequest{
				JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(1<<40 + i)), Method: string(mcp.MethodToolsCall),
				Params: map[string]any{"name": toolNames[toolAnimal], "arguments": args},
			})
			if err != nil {
				return nil, err
			}
			if resp.Error != nil {
				return nil, fmt.Errorf("%d %s", resp.Error.Code, resp.Error.Message)
			}
			raw = resp.Result
		}
	}
	return raw, nil
}

// startBare starts this executable as the bare server, on the transport of
// the run, and waits for its /healthz.
func startBare(ctx context.Context, cfg config, answer []byte) (*target, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding nsip-load's own binary for the bare server: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	kind := "http-sse"
	if cfg.transport == transportWebSocket {
		kind = "websocket"
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	t := &target{cfg: cfg, bin: self, args: []string{serveBareCommand}, logs: newTail(64 << 10), base: base, bases: []string{base}}
	t.hc = &http.Client{Timeout: 5 * time.Second}
	env := mergeEnv(cleanEnviron(), []string{
		"MCP_TRANSPORT=" + kind, "MCP_HOST=127.0.0.1", "MCP_PORT=" + strconv.Itoa(port),
		"MCP_MAX_SESSIONS_PER_CLIENT=" + strconv.Itoa(cfg.sessions+16),
		bareAnswerEnv + "=" + string(answer), bareServerEnv + "=" + cfg.bareServer,
	})
	if err := t.startServer(ctx, env, base+"/healthz"); err != nil {
		t.close()
		return nil, fmt.Errorf("bare server: %w", err)
	}
	return t, nil
}

// procCPU is the user and system CPU time, in seconds, that process pid
// has used, from /proc/<pid>/stat (fields 14 and 15, in clock ticks of
// 1/100 s, USER_HZ on every Linux architecture Go supports).
func procCPU(pid int) (float64, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, fmt.Errorf("reading the CPU time of process %d: %w", pid, err)
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected layout", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return float64(utime+stime) / 100, nil
}

// writeText prints the side-by-side lines of a --versus-bare run.
func (v *Versus) writeText(w io.Writer) {
	loop := "closed loop"
	if v.Rate > 0 {
		loop = fmt.Sprintf("open loop at %g calls/s", v.Rate)
	}
	served := "this project's transport"
	if v.BareServer == bareMCPGo {
		served = "mcp-go's own streamable HTTP server"
	}
	fmt.Fprintf(w, "versus     %d alternating phases, bare first (served by %s), %s; CPU per call from /proc/<pid>/stat\n", v.Phases, served, loop)
	for i, p := range v.PerPhase {
		fmt.Fprintf(w, "  phase %-2d %-9s", i+1, p.Server)
		if v.Rate > 0 {
			fmt.Fprintf(w, " %d offered, %d missed,", p.Offered, p.Missed)
		}
		fmt.Fprintf(w, " %d answered of %d calls in %.1f s, CPU %.2f s; idle before %.1f ms/s\n",
			p.Answered, p.Calls, p.Seconds, p.CPUSeconds, p.IdleCPUMSPerS)
	}
	for _, s := range []struct {
		name string
		side VersusSide
	}{{"bare", v.Bare}, {"nsip-mcp", v.Subject}} {
		fmt.Fprintf(w, "  %-9s pid %d: %d calls (%d hits, %d errors) in %.1f s, %.0f calls/s, p50 %.3f ms, CPU %.2f s = %.1f µs per call\n",
			s.name, s.side.PID, s.side.Calls, s.side.Hits, s.side.Errors, s.side.Seconds, s.side.CallsPerS, s.side.P50, s.side.CPUSeconds, s.side.CPUPerCallUS)
		fmt.Fprintf(w, "  %-9s idle %.1f ms CPU/s with the sessions open = %.0f%% of its CPU in the phases; %.1f µs per call without it\n",
			"", s.side.IdleCPUMSPerS, 100*s.side.IdleShare, s.side.NetPerCallUS)
	}
	if v.Refused != "" {
		fmt.Fprintf(w, "  ratio     %s\n", v.Refused)
		return
	}
	fmt.Fprintf(w, "  ratio     nsip-mcp / bare CPU per call: %.2f (%.2f without the idle rate)\n", v.Ratio, v.NetRatio)
}
