package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/cmd/internal/buildbin"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
)

// binPath is the nsip-mcp binary TestMain builds once for every test here.
var binPath string

// Stamped as make build does, so that the tests see what a release reports.
func TestMain(m *testing.M) {
	buildbin.Main(m, &binPath, ".", "-ldflags", stampFlags(stampVersion, stampCommit, stampDate))
}

// buildBinary returns the path of the nsip-mcp binary built by TestMain.
func buildBinary() string { return binPath }

// Bounds for process start and stop. Generous: CI machines are shared.
const (
	readyTimeout = 15 * time.Second
	stopTimeout  = 20 * time.Second
	// outputDrain is how long Wait waits for a process's output pipes to
	// close after it exits (they stay open if it left a child behind). It
	// cannot cut short a Write that blocks; the writers given to exec never
	// block (see clientFeed).
	outputDrain = 5 * time.Second
)

// testLimit bounds one end-to-end test with its subtests; the slowest takes
// well under a minute.
const testLimit = 3 * time.Minute

// watch records the top-level tests under a watchdog and the processes the
// helpers started, by the test that started them.
var watch struct {
	sync.Mutex
	tests map[string]bool
	procs map[*process]string
}

// watchdog ends the run when t, subtests and cleanups included, outlives
// limit: it names the test, prints the stderr of the nsip-mcp processes it
// started, kills them (so that none outlives the run) and panics with every
// goroutine's stack, which shows where the test was stuck. go test's own
// -timeout would do the last part only after ten minutes. Every test that
// starts the binary through the helpers must call it first.
func watchdog(t *testing.T, limit time.Duration) {
	t.Helper()
	name := t.Name()
	watch.Lock()
	if watch.tests == nil {
		watch.tests, watch.procs = map[string]bool{}, map[*process]string{}
	}
	watch.tests[name] = true
	watch.Unlock()
	timer := time.AfterFunc(limit, func() {
		var b strings.Builder
		fmt.Fprintf(&b, "e2e: %s still running after %v", name, limit)
		watch.Lock()
		for p, owner := range watch.procs {
			if owner == name || strings.HasPrefix(owner, name+"/") {
				_ = p.cmd.Process.Kill()
				log := p.stderr.String()
				fmt.Fprintf(&b, "\n--- nsip-mcp pid %d started by %s, stderr (last 4 KiB):\n%s", p.cmd.Process.Pid, owner, log[max(0, len(log)-4096):])
			}
		}
		watch.Unlock()
		debug.SetTraceback("all")
		panic(b.String())
	})
	// Registered first, so it runs after every other cleanup of t.
	t.Cleanup(func() {
		timer.Stop()
		watch.Lock()
		delete(watch.tests, name)
		watch.Unlock()
	})
}

// serverEnv is the environment the helpers give the binary: the chosen
// transport, loopback, the stand-in upstream and debug logs. Entries in extra
// come last and therefore win.
func serverEnv(transportKind, stubURL string, port int, extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"MCP_TRANSPORT=" + transportKind,
		"MCP_HOST=127.0.0.1",
		"MCP_PORT=" + strconv.Itoa(port),
		"NSIP_BASE_URL=" + stubURL,
		"LOG_LEVEL=debug",
	}
	return append(env, extra...)
}

// process is a started nsip-mcp binary.
type process struct {
	cmd      *exec.Cmd
	stderr   *logbuf.Buffer
	done     chan struct{}
	exitCode int
}

// startProcess starts the binary. With wantStdin it returns the write end
// of an OS pipe as its stdin (an io.Reader would make exec copy it in a
// goroutine that Wait waits for); otherwise stdin is empty.
func startProcess(t *testing.T, env []string, stdout io.Writer, wantStdin bool) (*process, io.WriteCloser) {
	t.Helper()
	top, _, _ := strings.Cut(t.Name(), "/")
	watch.Lock()
	watched := watch.tests[top]
	watch.Unlock()
	if !watched {
		t.Fatalf("%s starts nsip-mcp without a watchdog: call watchdog(t, testLimit) at its top", top)
	}
	p := &process{stderr: &logbuf.Buffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(buildBinary())
	p.cmd.Env = env
	p.cmd.WaitDelay = outputDrain
	p.cmd.Stdout, p.cmd.Stderr = stdout, p.stderr
	var stdin io.WriteCloser
	if wantStdin {
		var err error
		if stdin, err = p.cmd.StdinPipe(); err != nil {
			t.Fatalf("stdin pipe: %v", err)
		}
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting nsip-mcp: %v", err)
	}
	watch.Lock()
	watch.procs[p] = t.Name()
	watch.Unlock()
	go func() {
		err := p.cmd.Wait()
		p.exitCode = p.cmd.ProcessState.ExitCode()
		if err != nil && p.exitCode == 0 {
			p.exitCode = -1
		}
		if errors.Is(err, exec.ErrWaitDelay) {
			fmt.Fprintf(p.stderr, "\n(e2e: the test stopped reading the output; it was cut off %v after the exit)\n", outputDrain)
		}
		watch.Lock()
		delete(watch.procs, p)
		watch.Unlock()
		close(p.done)
	}()
	return p, stdin
}

// wait returns the exit code, or fails the test when the process outlives
// the timeout (it is then killed).
func (p *process) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.exitCode
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		select {
		case <-p.done:
		case <-time.After(2 * outputDrain):
			t.Fatalf("nsip-mcp still running %v after it was asked to stop, and its output still unread %v after SIGKILL; stderr:\n%s", timeout, 2*outputDrain, p.stderr.String())
		}
		t.Fatalf("nsip-mcp still running %v after it was asked to stop; stderr:\n%s", timeout, p.stderr.String())
		return -1
	}
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// runningServer is the binary serving a network transport on loopback.
type runningServer struct {
	BaseURL string           // http://127.0.0.1:port
	Stub    *nsiptest.Server // the stand-in upstream it talks to
	Stderr  func() string    // everything the process logged so far
	proc    *process
	stopped bool
}

// startServer starts a stand-in upstream and the binary with the given
// transport ("http-sse" or "websocket") on a free loopback port, and waits
// until /healthz answers. env entries ("NAME=value") override the defaults.
// At cleanup the process gets SIGTERM and must exit with status 0.
func startServer(t *testing.T, transportKind string, env ...string) *runningServer {
	t.Helper()
	stub := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
	port := freePort(t)
	p, _ := startProcess(t, serverEnv(transportKind, stub.URL(), port, env...), io.Discard, false)
	s := &runningServer{
		BaseURL: "http://127.0.0.1:" + strconv.Itoa(port),
		Stub:    stub,
		Stderr:  p.stderr.String,
		proc:    p,
	}
	t.Cleanup(func() {
		if s.stopped {
			return
		}
		if code := s.Stop(t); code != 0 {
			t.Errorf("nsip-mcp exited with status %d after SIGTERM, want 0; stderr:\n%s", code, s.Stderr())
		}
	})
	waitHealthy(t, s)
	return s
}

// Stop sends SIGTERM and returns the exit status.
func (s *runningServer) Stop(t *testing.T) int {
	t.Helper()
	s.stopped = true
	if !s.proc.exited() {
		_ = s.proc.cmd.Process.Signal(syscall.SIGTERM)
	}
	return s.proc.wait(t, stopTimeout)
}

// Signal sends sig to the process without waiting.
func (s *runningServer) Signal(sig os.Signal) error { return s.proc.cmd.Process.Signal(sig) }

// Wait waits for the process to exit and returns its status.
func (s *runningServer) Wait(t *testing.T) int {
	t.Helper()
	s.stopped = true
	return s.proc.wait(t, stopTimeout)
}

func waitHealthy(t *testing.T, s *runningServer) {
	t.Helper()
	deadline := time.Now().Add(readyTimeout)
	hc := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		if s.proc.exited() {
			t.Fatalf("nsip-mcp exited with status %d before serving; stderr:\n%s", s.proc.exitCode, s.Stderr())
		}
		resp, err := hc.Get(s.BaseURL + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("nsip-mcp did not answer %s/healthz within %v; stderr:\n%s", s.BaseURL, readyTimeout, s.Stderr())
}

// freePort asks the kernel for an unused loopback port.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// stdioServer is the binary in stdio mode with an mcp-go client attached to
// its standard input and output.
type stdioServer struct {
	Client *client.Client   // started, not yet initialized
	Stub   *nsiptest.Server // the stand-in upstream it talks to
	Stderr func() string    // everything the process logged so far
	Stdout func() string    // every byte the process wrote to stdout so far
	proc   *process
	stdin  io.WriteCloser
	out    *io.PipeReader // the client's end of stdout
	closed bool
}

// clientFeed passes the process's stdout on to the client. It never fails:
// once the client has stopped reading (its end of the pipe is closed), the
// output goes on draining into the record, and exec's copy, which Wait
// waits for even past WaitDelay, cannot block on a reader that is gone.
type clientFeed struct{ w *io.PipeWriter }

func (f clientFeed) Write(p []byte) (int, error) {
	_, _ = f.w.Write(p)
	return len(p), nil
}

// startStdioServer starts a stand-in upstream and the binary in stdio mode.
// At cleanup its stdin is closed and it must exit with status 0.
func startStdioServer(t *testing.T, env ...string) *stdioServer {
	t.Helper()
	stub := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
	outR, outW := io.Pipe()
	stdout := &logbuf.Buffer{}
	p, inW := startProcess(t, serverEnv("stdio", stub.URL(), 0, env...), io.MultiWriter(stdout, clientFeed{outW}), true)
	go func() {
		<-p.done
		outW.Close()
	}()
	s := &stdioServer{Stub: stub, Stderr: p.stderr.String, Stdout: stdout.String, proc: p, stdin: inW, out: outR}
	s.Client = client.NewClient(transport.NewIO(outR, inW, nil))
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	if err := s.Client.Start(ctx); err != nil {
		t.Fatalf("starting the stdio client: %v", err)
	}
	t.Cleanup(func() {
		if s.closed {
			return
		}
		if code := s.Close(t); code != 0 {
			t.Errorf("nsip-mcp exited with status %d after stdin closed, want 0; stderr:\n%s", code, s.Stderr())
		}
	})
	return s
}

// Close closes the client and the process's stdin and returns the exit status.
func (s *stdioServer) Close(t *testing.T) int {
	t.Helper()
	s.closed = true
	s.closeClient()
	_ = s.stdin.Close()
	return s.proc.wait(t, stopTimeout)
}

// closeClient closes the client and then its end of stdout: mcp-go's reader
// stops at the next line once closed, and nothing else reads after that.
func (s *stdioServer) closeClient() {
	_ = s.Client.Close()
	_ = s.out.Close()
}

// Signal sends sig to the process without waiting.
func (s *stdioServer) Signal(sig os.Signal) error { return s.proc.cmd.Process.Signal(sig) }

// Wait waits for the process to exit and returns its status.
func (s *stdioServer) Wait(t *testing.T) int {
	t.Helper()
	s.closed = true
	code := s.proc.wait(t, stopTimeout)
	s.closeClient()
	return code
}

// initialize runs the MCP handshake with the newest protocol revision that
// still has one (what desktop assistants speak) and fails the test on error.
func initialize(t *testing.T, c *client.Client) *mcp.InitializeResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "nsip-mcp-e2e", Version: "1"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return res
}
