package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves one client with mcp-go's stdio server: newline-delimited
// JSON-RPC on in and out, and nothing else on out. It returns nil when in
// ends. When ctx ends first it shuts down gracefully: requests read after
// that are refused with a JSON-RPC error, those already running get
// ShutdownTimeout to answer. A read blocked on in is not interrupted by the
// return; closing in releases it.
//
// mcp-go keeps a single stdio session per process, so only one ServeStdio
// may run at a time.
func ServeStdio(ctx context.Context, s *server.MCPServer, in io.Reader, out io.Writer, opts Options) error {
	o := opts.withDefaults()
	st := newSite(KindStdio, o)
	st.sessions.Store(1)

	healthDone := make(chan error, 1)
	healthCtx, stopHealth := context.WithCancel(context.WithoutCancel(ctx))
	defer stopHealth()
	if o.HealthAddr != "" {
		ln, err := net.Listen("tcp", o.HealthAddr)
		if err != nil {
			return fmt.Errorf("transport: health listener on %s: %w", o.HealthAddr, err)
		}
		mux := http.NewServeMux()
		st.addHealth(mux)
		go func() {
			healthDone <- st.serve(healthCtx, ln, mux, st.monitoring(), func(context.Context) {})
		}()
	} else {
		healthDone <- nil
	}

	w := &lineWriter{out: out, calls: st.calls, onGone: func(err error) {
		st.log.Info("stdout closed; the client has gone, so answers still to come are dropped", "error", err.Error(), "in_flight", st.calls.count())
	}}
	pr, pw := io.Pipe()
	stdio := server.NewStdioServer(s)
	stdio.SetErrorLogger(slog.NewLogLogger(st.log.Handler(), slog.LevelError))
	server.WithWorkerPoolSize(o.MaxInFlightPerSession)(stdio)
	listened := make(chan error, 1)
	// Listen never sees ctx end: it would cancel the calls in flight. It
	// stops when the pipe feeding it closes, after they have answered.
	go func() { listened <- stdio.Listen(context.WithoutCancel(ctx), pr, w) }()
	go st.pumpStdin(in, pw, w)
	st.log.Info("serving on stdin and stdout")

	var err error
	select {
	case err = <-listened:
	case <-ctx.Done():
		st.draining.Store(true)
		st.log.Info("shutting down", "in_flight", st.calls.count(), "grace", o.ShutdownTimeout.String())
		grace, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.ShutdownTimeout)
		if !st.calls.wait(grace.Done()) {
			st.log.Warn("shutdown grace period over; abandoning calls still in flight", "in_flight", st.calls.count())
		}
		cancel()
		_ = pw.Close()
		err = <-listened
	}
	_ = pr.Close() // releases the pump if it is mid-write
	w.close()
	st.sessions.Store(0)
	stopHealth()
	if herr := <-healthDone; err == nil {
		err = herr
	}
	if err != nil {
		return fmt.Errorf("transport: stdio: %w", err)
	}
	st.log.Info("stopped")
	return nil
}

// pumpStdin copies messages from in to mcp-go's reader one line at a time,
// noting each request so that shutdown can wait for its answer, and refusing
// requests itself once the server is draining.
func (st *site) pumpStdin(in io.Reader, pw *io.PipeWriter, w *lineWriter) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r, st.opts.MaxBodyBytes)
		switch {
		case tooLong:
			w.writeLine(errorResponse(nil, codeInvalidRequest,
				fmt.Sprintf("invalid request: message longer than %d bytes", st.opts.MaxBodyBytes)))
		case len(bytes.Trim(line, jsonSpace)) > 0:
			if !st.forward(line, pw, w) {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				st.log.Warn("reading stdin", "error", err)
			}
			// A client that writes its requests and closes stdin (a pipe,
			// a script) still expects the answers: closing mcp-go's input
			// now would cancel the calls in flight.
			grace, cancel := context.WithTimeout(context.Background(), st.opts.ShutdownTimeout)
			if !st.calls.wait(grace.Done()) {
				st.log.Warn("stdin closed; abandoning calls still in flight", "in_flight", st.calls.count())
			}
			cancel()
			_ = pw.Close()
			return
		}
	}
}

// forward hands one line to mcp-go; false means mcp-go has stopped reading.
func (st *site) forward(line []byte, pw *io.PipeWriter, w *lineWriter) bool {
	m := classify(line)
	if code, text, refused := m.refusal(); refused {
		if code != 0 {
			w.writeLine(errorResponse(m.id, code, text))
		}
		return true
	}
	if m.kind == msgRequest {
		if st.draining.Load() {
			w.writeLine(errorResponse(m.id, codeServerBusy, msgShuttingDown))
			return true
		}
		st.calls.begin(m.key)
	}
	if _, err := pw.Write(append(line, '\n')); err != nil {
		if m.kind == msgRequest {
			st.calls.end(m.key)
		}
		return false
	}
	return true
}

// readLine returns the next line without its newline. A line longer than
// limit is consumed and reported as tooLong instead.
func readLine(r *bufio.Reader, limit int64) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if int64(len(line)+len(chunk)) > limit+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// lineWriter is stdout as mcp-go sees it: writes are serialised with the
// transport's own, and every answer written ends its tracked call.
type lineWriter struct {
	mu     sync.Mutex
	out    io.Writer
	calls  *tracker
	onGone func(err error) // told once, when a write fails
	closed bool
	buf    []byte
}

var errWriterClosed = errors.New("transport: stdio output closed")

func (lw *lineWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.closed {
		lw.buf = answersIn(append(lw.buf, p...), "", lw.calls.end)
		return 0, errWriterClosed
	}
	n, err := lw.out.Write(p)
	if err != nil {
		// The client is gone (a closed pipe): its answers can never be
		// delivered, so the calls count as ended rather than hold up the
		// shutdown that follows, and later writes fail at once.
		n = len(p)
		lw.closed = true
		if lw.onGone != nil {
			lw.onGone(err)
		}
	}
	rest := answersIn(append(lw.buf, p[:n]...), "", lw.calls.end)
	lw.buf = append(lw.buf[:0], rest...)
	return n, err
}

func (lw *lineWriter) writeLine(b []byte) { _, _ = lw.Write(append(b, '\n')) }

// close makes later writes fail, so nothing reaches out after ServeStdio
// returns.
func (lw *lineWriter) close() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.closed = true
}
