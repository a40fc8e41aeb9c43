package main

import (
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/cmd/internal/buildbin"
)

// serverBin is an nsip-mcp binary built once for the runs below.
var serverBin string

func TestMain(m *testing.M) {
	// --versus-bare starts its own executable as the bare server, which
	// under test is this binary.
	if len(os.Args) > 1 && os.Args[1] == serveBareCommand {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		os.Exit(serveBare(ctx, os.Stderr))
	}
	buildbin.Main(m, &serverBin, "../nsip-mcp")
}

// runJSON runs nsip-load with args plus a spawned server, a small data set
// and JSON output, and decodes the summary.
func runJSON(t *testing.T, args ...string) (*Report, int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--spawn", "--server-bin", serverBin, "--animals", "600", "--seed", "5",
		"--latency", "5ms", "--json", "--progress", "0"}
	var out, errOut strings.Builder
	code := run(ctx, append(base, args...), &out, &errOut)
	var rep Report
	if code == 0 || code == 3 {
		if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
			t.Fatalf("summary is not JSON: %v\n%s\nstderr: %s", err, out.String(), errOut.String())
		}
	}
	return &rep, code, errOut.String()
}

// checkClean asserts what every healthy run shows.
func checkClean(t *testing.T, rep *Report, code int, stderr string, sessions int) {
	t.Helper()
	if code != 0 {
		t.Fatalf("exit status %d, stderr:\n%s", code, stderr)
	}
	if len(rep.Errors) != 0 {
		t.Errorf("errors %v, want none", rep.Errors)
	}
	if rep.SessionsOpen != sessions || rep.SessionsLost != 0 {
		t.Errorf("sessions opened %d, lost %d; want %d and 0", rep.SessionsOpen, rep.SessionsLost, sessions)
	}
	if rep.Calls == 0 || rep.OK != rep.Calls || int64(rep.Latency.N) != rep.Calls {
		t.Errorf("calls %d, ok %d, latency samples %d; want equal and positive", rep.Calls, rep.OK, rep.Latency.N)
	}
	var byTool int
	for _, l := range rep.ByTool {
		byTool += l.N
	}
	if int64(byTool) != rep.OK {
		t.Errorf("per-tool counts add up to %d, want %d", byTool, rep.OK)
	}
	if rep.Latency.P50 <= 0 || rep.Latency.P50 > rep.Latency.P99 || rep.Latency.P99 > rep.Latency.Max {
		t.Errorf("latency percentiles out of order: %+v", rep.Latency)
	}
	if rep.Upstream == nil || rep.Upstream.Source != "stand-in counter" {
		t.Fatalf("upstream %+v, want counts from the stand-in", rep.Upstream)
	}
	if rep.Server == nil || rep.Server.RSSAfterKB <= 0 || rep.Server.RSSPeakKB < rep.Server.RSSAfterKB {
		t.Errorf("server memory %+v, want RSS after > 0 and peak >= after", rep.Server)
	}
}

func TestRunMixOverEachTransport(t *testing.T) {
	for _, tr := range []string{transportWebSocket, transportStreamable, transportSSE, transportStdio} {
		t.Run(tr, func(t *testing.T) {
			sessions := 4
			if tr == transportStdio {
				sessions = 2 // a process each
			}
			// Every call on the one hot animal: 11 keys in all (4 without an
			// animal, 3 hot searches, 4 tools of the animal). With 16 calls a
			// session, at least one session makes 16 or more, so it repeats a
			// key it has itself fetched, which the cache then answers; the
			// first call of a run cannot be a hit. Counted, not timed.
			const keys, perSession = 11, 16
			rep, code, stderr := runJSON(t, "--transport", tr, "--sessions", strconv.Itoa(sessions),
				"--hot", "1", "--hot-keys", "1", "--calls", strconv.Itoa(perSession*sessions), "--duration", "100s")
			checkClean(t, rep, code, stderr, sessions)
			if rep.Calls != perSession*int64(sessions) || perSession <= keys {
				t.Fatalf("%d calls, want %d", rep.Calls, perSession*sessions)
			}
			if rep.ByCache["hit"].N == 0 || rep.ByCache["miss"].N == 0 {
				t.Errorf("by cache %v, want both hits and misses", rep.ByCache)
			}
			if u := rep.Upstream; u.Requests < 1 || u.Requests > 3*rep.Calls {
				t.Errorf("%d upstream requests for %d calls; want between 1 and 3 per call", u.Requests, rep.Calls)
			}
		})
	}
}

func TestRunStopsAtTheCallBudget(t *testing.T) {
	rep, code, stderr := runJSON(t, "--sessions", "3", "--calls", "25", "--duration", "1m")
	checkClean(t, rep, code, stderr, 3)
	if rep.Calls != 25 {
		t.Errorf("made %d calls, want exactly the budget of 25", rep.Calls)
	}
}

func TestRunCollapseSendsOneUpstreamRequestPerRound(t *testing.T) {
	// Eight sessions, five rounds: each round all eight ask for the same
	// animal nobody asked for before.
	rep, code, stderr := runJSON(t, "--scenario", "collapse", "--sessions", "8", "--calls", "40", "--duration", "1m")
	checkClean(t, rep, code, stderr, 8)
	if rep.Calls != 40 {
		t.Fatalf("made %d calls, want 40", rep.Calls)
	}
	if rep.Upstream.Requests != 5 {
		t.Errorf("%d upstream requests for 5 rounds of 8 identical calls, want 5", rep.Upstream.Requests)
	}
}

func TestRunBreederReplaysTheScriptOnce(t *testing.T) {
	rep, code, stderr := runJSON(t, "--scenario", "breeder", "--sessions", "3", "--hot-keys", "3", "--duration", "1m")
	checkClean(t, rep, code, stderr, 3)
	ks := newKeyspace(testData(t), 3)
	if want := int64(3 * len(breederScript(ks, 0))); rep.Calls != want {
		t.Errorf("made %d calls, want three sessions of %d", rep.Calls, want/3)
	}
	if rep.Upstream.Requests >= rep.Calls {
		t.Errorf("%d upstream requests for %d calls; replayed sessions should share answers", rep.Upstream.Requests, rep.Calls)
	}
}

func TestRunTextSummary(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut strings.Builder
	code := run(ctx, []string{"--spawn", "--server-bin", serverBin, "--animals", "600", "--latency", "0s",
		"--sessions", "2", "--calls", "30", "--progress", "10ms", "--duration", "50s"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, errOut.String())
	}
	for _, want := range []string{"calls      30 in", "errors     none", "upstream   ", "stand-in counter", "RSS idle"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errOut.String(), "nsip-load: ") || !strings.Contains(errOut.String(), "calls 30") {
		t.Errorf("no final progress line on stderr:\n%s", errOut.String())
	}
}

func TestRunWithoutAServerFails(t *testing.T) {
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut strings.Builder
	code := run(ctx, []string{"--url", "http://127.0.0.1:" + strconv.Itoa(port), "--sessions", "2",
		"--duration", "1s", "--animals", "600"}, &out, &errOut)
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if !strings.Contains(errOut.String(), "no session could be opened") || !strings.Contains(errOut.String(), "connection refused") {
		t.Errorf("stderr does not say why:\n%s", errOut.String())
	}
}

// TestRunBesideAnAttack: with an attack from 127.0.0.2 the honest sessions
// still open and run clean, and the report counts what the attackers got:
// init-flood sessions up to the server's per-address bound (sessions + 16)
// and the rest refused; slow-body connections answered and closed.
func TestRunBesideAnAttack(t *testing.T) {
	for _, kind := range []string{attackInitFlood, attackSlowBody} {
		t.Run(kind, func(t *testing.T) {
			rep, code, stderr := runJSON(t, "--transport", transportStreamable, "--sessions", "4", "--duration", "1s",
				"--attack", kind, "--attackers", "8")
			checkClean(t, rep, code, stderr, 4)
			a := rep.Attack
			if a == nil || a.Kind != kind || a.Attackers != 8 || a.Failed != 0 {
				t.Fatalf("attack %+v", a)
			}
			switch kind {
			case attackInitFlood:
				if a.Accepted != 20 || a.Refused == 0 || a.Accepted+a.Refused > a.Attempts {
					t.Errorf("init-flood: %d granted, %d refused of %d; want the 20 the address may hold and the rest refused", a.Accepted, a.Refused, a.Attempts)
				}
			case attackSlowBody:
				if a.Cut == 0 {
					t.Errorf("slow-body: %d of %d connections cut, want them answered and closed", a.Cut, a.Attempts)
				}
			}
		})
	}
}

// TestVersusBare runs both servers side by side: every call on both sides
// is answered from nsip-mcp's cache or with its cached answer, and each
// side's CPU per call is reported.
func TestVersusBare(t *testing.T) {
	for _, tr := range []string{transportWebSocket, transportStreamable} {
		t.Run(tr, func(t *testing.T) {
			rep, code, stderr := runJSON(t, "--transport", tr, "--sessions", "4", "--think", "20ms", "--duration", "2s", "--versus-bare", "2")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			v := rep.Versus
			if v == nil {
				t.Fatal("no versus_bare in the report")
			}
			for name, s := range map[string]VersusSide{"bare": v.Bare, "nsip-mcp": v.Subject} {
				if s.Calls == 0 || s.Errors != 0 || s.Hits != s.Calls || s.PID == 0 {
					t.Errorf("%s: %d calls, %d hits, %d errors, pid %d", name, s.Calls, s.Hits, s.Errors, s.PID)
				}
			}
			if v.Bare.PID == v.Subject.PID || v.Phases != 2 {
				t.Errorf("pids %d and %d, %d phases", v.Bare.PID, v.Subject.PID, v.Phases)
			}
			if rep.Calls != v.Subject.Calls {
				t.Errorf("report counts %d calls, nsip-mcp's side %d", rep.Calls, v.Subject.Calls)
			}
			if v.BareServer != bareOurs {
				t.Errorf("bare server %q, want %q by default", v.BareServer, bareOurs)
			}
		})
	}
}

// TestVersusBareOnMCPGo serves the bare server with mcp-go's own
// streamable HTTP server: the run starts only if that server answers the
// cached call with nsip-mcp's bytes, and every call on both sides is
// answered.
func TestVersusBareOnMCPGo(t *testing.T) {
	rep, code, stderr := runJSON(t, "--transport", transportStreamable, "--sessions", "4", "--think", "20ms", "--duration", "2s",
		"--versus-bare", "2", "--bare-server", bareMCPGo)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	v := rep.Versus
	if v == nil {
		t.Fatal("no versus_bare in the report")
	}
	if v.BareServer != bareMCPGo {
		t.Errorf("bare server %q, want %q", v.BareServer, bareMCPGo)
	}
	for name, s := range map[string]VersusSide{"bare": v.Bare, "nsip-mcp": v.Subject} {
		if s.Calls == 0 || s.Errors != 0 || s.Hits != s.Calls || s.PID == 0 {
			t.Errorf("%s: %d calls, %d hits, %d errors, pid %d", name, s.Calls, s.Hits, s.Errors, s.PID)
		}
	}
	if len(rep.Errors) != 0 {
		t.Errorf("errors %v, want none", rep.Errors)
	}
}

// TestVersusBareOpenLoop offers both servers the same calls: 40 a second
// for the one-second phase of each, whatever their answers do.
func TestVersusBareOpenLoop(t *testing.T) {
	rep, code, stderr := runJSON(t, "--transport", transportWebSocket, "--sessions", "4", "--rate", "40", "--duration", "2s", "--versus-bare", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	v := rep.Versus
	if v == nil || len(v.PerPhase) != 2 {
		t.Fatalf("versus_bare %+v, want two phases", v)
	}
	for i, s := range []VersusSide{v.Bare, v.Subject} {
		p := v.PerPhase[i]
		if s.Offered != 40 || p.Offered != 40 || s.Calls+s.Missed != 40 || p.Calls != s.Calls || p.Answered != s.Answered {
			t.Errorf("phase %d (%s): side %+v, phase %+v; want 40 offered, sent plus missed 40", i+1, p.Server, s, p)
		}
	}
	if v.PerPhase[0].Server != "bare" || v.PerPhase[1].Server != "nsip-mcp" || v.Rate != 40 || rep.Rate != 40 {
		t.Errorf("phases %q then %q at rate %g (report %g)", v.PerPhase[0].Server, v.PerPhase[1].Server, v.Rate, rep.Rate)
	}
	// Whether the loaded machine kept up decides between the two; either
	// way exactly one is there.
	if (v.Ratio > 0) == (v.Refused != "") {
		t.Errorf("ratio %.3f and refused %q: want one of them", v.Ratio, v.Refused)
	}
}

func TestProcCPUReadsThisProcess(t *testing.T) {
	before, err := procCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for i := range 200_000_000 { // a few hundred ms of CPU, at least one tick
		x ^= i
	}
	after, err := procCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if after <= before {
		t.Errorf("CPU time went from %.2f s to %.2f s over a busy loop (%d)", before, after, x)
	}
	if _, err := procCPU(1 << 30); err == nil || !strings.Contains(err.Error(), "CPU time of process") {
		t.Errorf("a missing process: %v", err)
	}
}
