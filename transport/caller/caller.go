// Package caller names who is calling: the one identity that owns tasks
// and full-answer links, and that fairness and session bounds are counted
// under.
//
// A call made inside a session belongs to that session. A call without
// one (stateless streamable HTTP, MCP 2026-07-28 clients) belongs to what
// the transport learned of the request: the bearer token's identity, else
// the client's address (X-Forwarded-For only when the peer is a trusted
// proxy). A call that came through no network transport (stdio's single
// client, in-process callers) belongs to Local.
package caller

import (
	"context"

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

// TokenAt is the caller presenting the token with this fingerprint from
// addr: a token shared by several clients names none of them alone.
func TokenAt(fingerprint, addr string) ID { return ID("token:" + fingerprint + "@" + addr) }
