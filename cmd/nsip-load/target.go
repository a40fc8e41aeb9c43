package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// target is what a run drives: where sessions connect, where upstream
// requests are counted and which server processes are measured.
type target struct {
	cfg      config
	base     string   // network transports: http://127.0.0.1:port
	bin      string   // the server binary nsip-load starts, if any
	args     []string // its arguments
	env      []string // environment of the servers nsip-load starts
	shownEnv []string // the part of env nsip-load chose, for the summary
	stub     *nsiptest.Server
	servers  []*exec.Cmd
	exited   []chan struct{} // each closed when its server has exited
	pids     []int
	healthz  string
	logs     *tail
	hc       *http.Client

	bases []string      // with --replicas, every server's base; base is the first
	next  atomic.Uint64 // round-robin over bases for new sessions
}

// nextBase is the server the next session connects to.
func (t *target) nextBase() string {
	if len(t.bases) == 0 {
		return t.base
	}
	return t.bases[(t.next.Add(1)-1)%uint64(len(t.bases))]
}

// serverDefaults lift the gateway's politeness limits, which protect the
// real NSIP API but would turn a load run into a test of the rate limiter,
// and keep per-call logging out of the measurement. --server-env overrides
// them.
var serverDefaults = []string{
	"NSIP_RATE_LIMIT=1000",
	"NSIP_RATE_BURST=1000",
	"NSIP_MAX_CONCURRENT=256",
	"LOG_LEVEL=warn",
}

// setup prepares the target: with --spawn it starts the stand-in and, for
// the network transports, the server; for stdio the servers start with
// their sessions.
func setup(ctx context.Context, cfg config) (*target, error) {
	t := &target{cfg: cfg, logs: newTail(64 << 10), hc: &http.Client{Timeout: 5 * time.Second}}
	if !cfg.spawn && cfg.transport != transportStdio {
		t.base, t.healthz = cfg.url, cfg.url+"/healthz"
		if cfg.serverPID > 0 {
			t.pids = []int{cfg.serverPID}
		}
		return t, nil
	}
	bin, err := findServer(cfg.serverBin)
	if err != nil {
		return nil, err
	}
	t.bin = bin
	upstream := cfg.upstream
	if cfg.spawn {
		t.stub = nsiptest.Start(nsiptest.Options{Seed: cfg.seed, Animals: cfg.animals, Latency: cfg.latency})
		upstream = t.stub.URL()
	}
	t.shownEnv = append([]string{"NSIP_BASE_URL=" + upstream}, serverDefaults...)
	var ports []int
	if cfg.transport != transportStdio {
		for range max(cfg.replicas, 1) {
			port, err := freePort()
			if err != nil {
				t.close()
				return nil, err
			}
			ports = append(ports, port)
			t.bases = append(t.bases, "http://127.0.0.1:"+strconv.Itoa(port))
		}
		kind := "http-sse"
		if cfg.transport == transportWebSocket {
			kind = "websocket"
		}
		t.shownEnv = append(t.shownEnv, "MCP_TRANSPORT="+kind, "MCP_HOST=127.0.0.1", "MCP_PORT="+strconv.Itoa(ports[0]),
			// Every session of a load run comes from 127.0.0.1.
			"MCP_MAX_SESSIONS_PER_CLIENT="+strconv.Itoa(cfg.sessions+16))
		if len(ports) > 1 {
			t.shownEnv = append(t.shownEnv, "NSIP_REPLICAS="+strconv.Itoa(len(ports)))
		}
		t.base = t.bases[0]
		t.healthz = t.base + "/healthz"
	} else {
		t.shownEnv = append(t.shownEnv, "MCP_TRANSPORT=stdio")
	}
	t.shownEnv = mergeEnv(t.shownEnv, cfg.serverEnv)
	t.env = mergeEnv(cleanEnviron(), t.shownEnv)
	if cfg.transport == transportStdio {
		return t, nil
	}
	for i, port := range ports {
		if err := t.startServer(ctx, mergeEnv(t.env, []string{"MCP_PORT=" + strconv.Itoa(port)}), t.bases[i]+"/healthz"); err != nil {
			t.close()
			return nil, err
		}
	}
	return t, nil
}

// startServer runs one network server and waits until its /healthz answers.
func (t *target) startServer(ctx context.Context, env []string, healthz string) error {
	cmd := exec.Command(t.bin, t.args...)
	cmd.Env = env
	cmd.Stdout = t.logs
	cmd.Stderr = t.logs
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", t.bin, err)
	}
	exited := make(chan struct{})
	t.servers, t.exited = append(t.servers, cmd), append(t.exited, exited)
	t.pids = append(t.pids, cmd.Process.Pid)
	go func() { _ = cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if _, err := t.healthAt(ctx, healthz); err == nil {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("%s exited during startup: %s", t.bin, t.logs.lastLines(5))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer %s within 15 s: %s", t.bin, healthz, t.logs.lastLines(5))
		}
	}
}

// health fetches /healthz of the (first) server.
func (t *target) health(ctx context.Context) (map[string]json.RawMessage, error) {
	return t.healthAt(ctx, t.healthz)
}

func (t *target) healthAt(ctx context.Context, healthz string) (map[string]json.RawMessage, error) {
	if healthz == "" {
		return nil, errors.New("no health endpoint")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, healthz, nil)
	if err != nil {
		return nil, err
	}
	resp, err := t.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", healthz, resp.Status)
	}
	var body map[string]json.RawMessage
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&body); err != nil {
		return nil, fmt.Errorf("%s: %w", healthz, err)
	}
	return body, nil
}

// upstreamRequests is how many requests NSIP (the stand-in) has received:
// counted by the stand-in itself when nsip-load runs it, otherwise as the
// server reports in /healthz.
func (t *target) upstreamRequests(ctx context.Context) (n int64, source string, ok bool) {
	if t.stub != nil {
		return int64(t.stub.TotalRequests()), "stand-in counter", true
	}
	h, err := t.health(ctx)
	if err != nil {
		return 0, "", false
	}
	if json.Unmarshal(h["upstream_requests"], &n) != nil {
		return 0, "", false
	}
	return n, "server /healthz upstream_requests", true
}

// rss sums VmRSS and VmHWM (peak) in KiB over the measured processes; ok is
// false when there are none or /proc cannot be read.
func (t *target) rss() (cur, peak int64, ok bool) {
	if len(t.pids) == 0 {
		return 0, 0, false
	}
	for _, pid := range t.pids {
		c, p, err := readRSS(pid)
		if err != nil {
			return 0, 0, false
		}
		cur += c
		peak += p
	}
	return cur, peak, true
}

// readRSS reads VmRSS and VmHWM, in KiB, from /proc/<pid>/status.
func readRSS(pid int) (rss, hwm int64, err error) {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	found := 0
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/%d/status: %s: %w", pid, k, err)
		}
		if k == "VmRSS" {
			rss = n
		} else {
			hwm = n
		}
		found++
	}
	if found < 2 {
		return 0, 0, fmt.Errorf("/proc/%d/status has no VmRSS and VmHWM", pid)
	}
	return rss, hwm, sc.Err()
}

// close stops the servers (SIGTERM, then SIGKILL after 10 s) and the
// stand-in.
func (t *target) close() {
	for _, s := range t.servers {
		_ = s.Process.Signal(syscall.SIGTERM)
	}
	for i, s := range t.servers {
		select {
		case <-t.exited[i]:
		case <-time.After(10 * time.Second):
			_ = s.Process.Kill()
			<-t.exited[i]
		}
	}
	if t.stub != nil {
		t.stub.Close()
	}
}

// findServer resolves the nsip-mcp binary: the flag, else next to this
// executable, else on PATH.
func findServer(flagValue string) (string, error) {
	if flagValue != "" {
		if _, err := os.Stat(flagValue); err != nil {
			return "", fmt.Errorf("--server-bin %s: %w", flagValue, err)
		}
		return flagValue, nil
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "nsip-mcp")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath("nsip-mcp"); err == nil {
		return p, nil
	}
	return "", errors.New("cannot find the nsip-mcp binary: run make build, or pass --server-bin")
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// cleanEnviron is this process's environment without the server's own
// settings, so that nothing in the caller's shell (an NSIP_BASE_URL
// pointing at the real API, say) reaches the servers nsip-load starts.
func cleanEnviron() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "MCP_") || strings.HasPrefix(k, "NSIP_") || k == "LOG_LEVEL" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// mergeEnv returns base with each KEY=VALUE of over replacing base's KEY.
func mergeEnv(base, over []string) []string {
	out := append([]string(nil), base...)
	for _, kv := range over {
		k, _, _ := strings.Cut(kv, "=")
		replaced := false
		for i, b := range out {
			if bk, _, _ := strings.Cut(b, "="); bk == k {
				out[i], replaced = kv, true
			}
		}
		if !replaced {
			out = append(out, kv)
		}
	}
	return out
}

// tail keeps the last bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func newTail(n int) *tail { return &tail{max: n} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// lastLines returns up to n of the last lines written, joined by " | ".
func (t *tail) lastLines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return "(no output)"
	}
	return strings.Join(lines, " | ")
}
