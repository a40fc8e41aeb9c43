// Package redistest runs a real redis-server for tests: on loopback, on a
// port of its own, with its own working directory and no persistence, so
// parallel test binaries never meet. It can be stopped and started again on
// the same port to test what happens while Redis is away.
//
// The tests that use it carry the e2e build tag, so plain go test ./...
// needs no Redis; with the tag, a missing redis-server fails the test.
// REDIS_SERVER names the binary if it is not on PATH or in /usr/bin.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// startTimeout bounds how long a fresh server may take to answer PING.
const startTimeout = 15 * time.Second

// Server is one redis-server process under a test's control.
type Server struct {
	tb   testing.TB
	bin  string
	dir  string
	port int

	mu     sync.Mutex
	cmd    *exec.Cmd
	waited chan struct{} // closed once cmd has exited
}

// Start runs redis-server for the rest of tb and stops it at cleanup.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin := binary()
	if bin == "" {
		// The tests that start Redis carry the e2e build tag: asked for,
		// they fail without it rather than pass by skipping.
		tb.Fatal("redis-server not found (looked at $REDIS_SERVER, PATH and /usr/bin): install it with " +
			"`apt-get install redis-server` (make test does, through .ci/e2e-deps) or set REDIS_SERVER")
	}
	s := &Server{tb: tb, bin: bin, dir: tb.TempDir()}
	// A port another process grabs between our probe and redis-server's
	// bind makes the start fail; a few fresh ports make that harmless.
	var err error
	for range 5 {
		if s.port, err = freePort(); err != nil {
			continue
		}
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		tb.Fatalf("redistest: %v", err)
	}
	tb.Cleanup(s.Stop)
	return s
}

func binary() string {
	for _, p := range []string{os.Getenv("REDIS_SERVER"), "redis-server", "/usr/bin/redis-server"} {
		if p == "" {
			continue
		}
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	return ""
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// URL is a redis:// URL for the server's database 0.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Stop ends the server and waits for it to exit. The port and directory are
// kept for Restart. Stopping a stopped server does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.waited
	s.cmd = nil
}

// Restart starts the server again on the same port, empty.
func (s *Server) Restart() {
	s.tb.Helper()
	if err := s.start(); err != nil {
		s.tb.Fatalf("redistest: restarting: %v", err)
	}
}

func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return nil
	}
	cmd := exec.Command(s.bin,
		"--bind", "127.0.0.1", "--port", strconv.Itoa(s.port), "--dir", s.dir,
		"--save", "", "--appendonly", "no", "--protected-mode", "yes", "--loglevel", "warning",
		// DEBUG SLEEP lets a test make Redis slow.
		"--enable-debug-command", "local")
	log, err := os.Create(s.dir + "/redis.log")
	if err != nil {
		return err
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", s.bin, err)
	}
	waited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(waited)
	}()
	deadline := time.Now().Add(startTimeout)
	for {
		err := ping(s.Addr())
		if err == nil {
			s.cmd, s.waited = cmd, waited
			return nil
		}
		select {
		case <-waited:
			out, _ := os.ReadFile(s.dir + "/redis.log")
			return fmt.Errorf("redis-server on port %d exited at start: %s", s.port, strings.TrimSpace(string(out)))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-waited
			out, _ := os.ReadFile(s.dir + "/redis.log")
			return fmt.Errorf("redis-server on port %d did not answer PING within %s: %v; its log: %s", s.port, startTimeout, err, strings.TrimSpace(string(out)))
		}
	}
}

// ping sends one PING in the inline protocol and expects +PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}
