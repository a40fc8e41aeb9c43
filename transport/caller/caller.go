// Package caller names who is calling, in two ways.
//
// Of is the owner: what a call creates (tasks, full-answer links) belongs
// to it and is invisible to everyone else. A call made inside a session
// belongs to that session; a call without one (stateless streamable HTTP,
// MCP 2026-07-28 clients) to what the transport learned of the request.
//
// Client is the client: what fair shares and bounds (the fair queue for
// NSIP, the tasks one client holds) are counted under. It is what the
// transport learned of the request, whatever session the call came in:
// the bearer token's identity at the client's address, else the address
// (X-Forwarded-For only when the peer is a trusted proxy). A session is
// not a client, since a client opens and ends sessions at will; a client
// that ends one to begin another is still the same client.
//
// A call that came through no network transport (stdio's single client,
// in-process callers) is Local on both counts.
package caller

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/server"
)

// ID names a caller. Its prefix says what it was derived from
// ("session:", "token:", "addr:"), so two kinds never collide.
type ID string

// Local is the caller of a call that came through no network transport.
const Local ID = "local"

// Session, Token and Address build the three kinds of ID.
func Session(id string) ID        { return ID("session:" + id) }
func Token(fingerprint string) ID { return ID("token:" + fingerprint) }
func Address(addr string) ID      { return ID("addr:" + addr) }

type requestKey struct{}

// WithRequest records what a transport learned of a request's caller.
func WithRequest(ctx context.Context, id ID) context.Context {
	return context.WithValue(ctx, requestKey{}, id)
}

// Request is the caller a transport recorded for ctx's request, or "".
func Request(ctx context.Context) ID {
	id, _ := ctx.Value(requestKey{}).(ID)
	return id
}

// Of is who is calling: the session if there is one, else the request's
// recorded caller, else Local.
func Of(ctx context.Context) ID {
	if s := server.ClientSessionFromContext(ctx); s != nil && s.SessionID() != "" {
		return Session(s.SessionID())
	}
	if id := Request(ctx); id != "" {
		return id
	}
	return Local
}

// Client is who fair shares and bounds count a call under: the request's
// recorded caller, else the session (a transport that records none, as
// in tests), else Local.
func Client(ctx context.Context) ID {
	if id := Request(ctx); id != "" {
		return id
	}
	if s := server.ClientSessionFromContext(ctx); s != nil && s.SessionID() != "" {
		return Session(s.SessionID())
	}
	return Local
}

// Forwarded is the client of a request that names a client of its own
// (X-Forwarded-For, Forwarded) from a peer not trusted to say so: every
// client behind that peer arrives as peer, so peer cannot tell them apart.
// They share one bound, and, without a session, own nothing (Owns).
func Forwarded(peer ID) ID { return ID("fwd:" + peer) }

// Owns reports whether id names one client, so that what it creates
// without a session can be its own: not a Forwarded ID, which names every
// client behind one proxy.
func (id ID) Owns() bool { return id != "" && !strings.HasPrefix(string(id), "fwd:") }

// TokenAt is the caller presenting the token with this fingerprint from
// addr: a token shared by several clients names none of them alone.
func TokenAt(fingerprint, addr string) ID { return ID("token:" + fingerprint + "@" + addr) }

// Backlog is a client's account of the answers the server has made for it
// that it has not yet taken: a response still being written, a message
// queued for its connection. A transport that serves many clients gives
// each call one (WithBacklog), so that whoever makes a large answer can
// refuse it while the client's earlier answers lie unread: an answer the
// client does not read costs the server its memory until it is written
// out, and a client that never reads would otherwise hold as much as it
// asks for.
type Backlog interface {
	// Unread is the bytes of the client's answers not yet taken.
	Unread() int64
	// Hold counts about n bytes of the answer being made for this call
	// against the client, until the transport has written the answer
	// out, unless the client already has unread bytes and n more would
	// take it past limit. It reports the client's unread bytes before
	// this answer and whether n was counted. Holding again replaces the
	// call's earlier hold.
	Hold(n, limit int64) (unread int64, ok bool)
}

type backlogKey struct{}

// WithBacklog records the account of ctx's call.
func WithBacklog(ctx context.Context, b Backlog) context.Context {
	return context.WithValue(ctx, backlogKey{}, b)
}

// BacklogOf is the account a transport recorded for ctx's call, or nil:
// stdio's one client, and in-process callers, have no other client to
// slow, and nothing is counted for them.
func BacklogOf(ctx context.Context) Backlog {
	b, _ := ctx.Value(backlogKey{}).(Backlog)
	return b
}

type sessionBoundKey struct{}

// WithSessionBound marks ctx, a session's context, as one the transport
// cancels when the session ends: every call made in it ends with the
// session already, and nothing above the transport need watch for the
// session's end to end its calls.
func WithSessionBound(ctx context.Context) context.Context {
	return context.WithValue(ctx, sessionBoundKey{}, true)
}

// SessionBound reports whether ctx ends when its session does
// (WithSessionBound).
func SessionBound(ctx context.Context) bool {
	b, _ := ctx.Value(sessionBoundKey{}).(bool)
	return b
}
