// Package calllog gives each tool call an ID and a record of what NSIP was
// asked for it, for the call's log line; it also logs sessions opening and
// closing.
//
// A call starts with [With]; the NSIP client's request hook
// ([UpstreamHook]) counts each request the call's fetches make, and logs
// it at debug under the call's ID; the call's log line adds [Attrs]. A
// fetch that outlives its call runs under [Detach], so that its requests
// are still counted against the call that started it.
package calllog

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// record is what one tool call's log line says of the requests sent to
// NSIP for it. It travels in the call's context, into the fetches the call
// starts, where the client's request hook (UpstreamHook) fills it in. A call
// that joins a fetch another call started sent nothing itself: its line
// shows no upstream requests.
type record struct {
	// n is the call's ID, written as 16 hex digits where a line carries
	// it: most calls log nothing below warn, so the text is made only
	// when a line needs it. It tells a call's lines apart from another's
	// and needs no secrecy, so it comes from the runtime's generator
	// rather than the operating system's.
	n uint64

	mu       sync.Mutex
	attempts int           // HTTP requests, retries included
	status   int           // HTTP status of the last one, 0 when none arrived
	upstream time.Duration // summed over the requests and probes of the base URL
}

type callKey struct{}

// With gives ctx a call ID and a record of the call's upstream requests.
// A context that has one keeps it: an analysis's lookups are counted
// against the analysis.
func With(ctx context.Context) context.Context {
	if r := of(ctx); r != nil {
		return ctx
	}
	return context.WithValue(ctx, callKey{}, &record{n: rand.Uint64()})
}

// id is the call's ID as its log lines carry it.
func (r *record) id() string { return fmt.Sprintf("%016x", r.n) }

func of(ctx context.Context) *record {
	r, _ := ctx.Value(callKey{}).(*record)
	return r
}

// ID is the ID that the log lines of the tool call running on ctx carry,
// or "" outside a call.
func ID(ctx context.Context) string {
	if r := of(ctx); r != nil {
		return r.id()
	}
	return ""
}

// Detach is a context without ctx's deadline, cancellation or values but
// for its call record: a fetch outlives the call that started it, and its
// requests are still that call's.
func Detach(ctx context.Context) context.Context {
	if r := of(ctx); r != nil {
		return context.WithValue(context.Background(), callKey{}, r)
	}
	return context.Background()
}

// UpstreamHook is the nsip.WithRequestHook that logs each request to NSIP at
// debug with the call ID it was made for, and counts it in that call's log
// line.
func UpstreamHook(log *slog.Logger) func(context.Context, nsip.RequestInfo) {
	return func(ctx context.Context, info nsip.RequestInfo) {
		r := of(ctx)
		if r != nil {
			r.mu.Lock()
			if !info.Probe { // a check of the base URL is not an attempt at the answer
				r.attempts++
				r.status = info.Status
			}
			r.upstream += info.Latency
			r.mu.Unlock()
		}
		if !log.Enabled(ctx, slog.LevelDebug) {
			return
		}
		attrs := []slog.Attr{
			slog.String("call_id", ID(ctx)),
			slog.String("method", info.Method),
			slog.String("endpoint", nsip.EndpointName(info.Endpoint)),
			slog.Int("status", info.Status),
			slog.Int("attempt", info.Attempt),
			slog.Float64("latency_ms", ms(info.Latency)),
		}
		if info.Probe {
			attrs = append(attrs, slog.Bool("probe", true))
		}
		if info.Err != nil {
			attrs = append(attrs, slog.String("error", info.Err.Error()))
		}
		log.LogAttrs(ctx, slog.LevelDebug, "nsip request", attrs...)
	}
}

// Reads are the answers an analysis read, as its _meta.upstream counts
// them: in all, fetched from NSIP, from the cache, and stale copies
// served while NSIP failed.
type Reads struct{ Lookups, Fetched, Cached, Stale int }

// Attrs are the attributes of a call's log line beside the tool's own:
// the call ID, who called (client: caller.Of, the session or else the
// token or address the transport recorded; session: the session's own ID,
// when there is one), what NSIP was asked for it and, for an analysis,
// the answers it read (lookups), as its _meta.upstream counts them
// (upstream, nil for a lookup).
func Attrs(ctx context.Context, upstream *Reads) []slog.Attr {
	var attrs []slog.Attr
	if u := upstream; u != nil {
		attrs = append(attrs, slog.Int("lookups", u.Lookups), slog.Int("fetched", u.Fetched), slog.Int("cached", u.Cached))
		if u.Stale > 0 {
			attrs = append(attrs, slog.Int("stale", u.Stale))
		}
	}
	attrs = append(attrs, slog.String("client", string(caller.Of(ctx))))
	if s := server.ClientSessionFromContext(ctx); s != nil && s.SessionID() != "" {
		attrs = append(attrs, slog.String("session", s.SessionID()))
	}
	r := of(ctx)
	if r == nil {
		return attrs
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	attrs = append(attrs,
		slog.String("call_id", r.id()),
		slog.Int("upstream_attempts", r.attempts),
	)
	if r.attempts > 0 {
		attrs = append(attrs,
			slog.Int("upstream_status", r.status),
			slog.Float64("upstream_ms", ms(r.upstream)),
		)
	}
	return attrs
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// SessionHooks log sessions opening and closing, on every transport that
// registers them with mcp-go.
func SessionHooks(h *server.Hooks, log *slog.Logger) {
	h.AddOnRegisterSession(func(ctx context.Context, s server.ClientSession) {
		attrs := []any{slog.String("session", s.SessionID())}
		if c := caller.Request(ctx); c != "" { // the client the session is counted under
			attrs = append(attrs, slog.String("client", string(c)))
		}
		log.Info("session opened", attrs...)
	})
	h.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) {
		log.Info("session closed", slog.String("session", s.SessionID()))
	})
}
