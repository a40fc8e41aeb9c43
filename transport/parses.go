package transport

import (
	"context"
	"errors"
	"sync"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// largeBody is the size from which a request's parsing is held to its
// client's share: mcp-go decodes a message whole, and a flood of bodies
// near MaxBodyBytes (with thousands of argument names, each a map entry)
// keeps the cores and the garbage collector busy for everyone. Honest
// calls to this server's tools are a few hundred bytes.
const largeBody = 64 << 10

// parseTurns lets each client have one large request parsed and handled
// at a time; its others wait their turn, so that a client sending many
// large requests delays itself, not other clients.
type parseTurns struct {
	mu sync.Mutex
	m  map[caller.ID]*parseTurn
}

type parseTurn struct {
	held  chan struct{} // holds a value while a large request of the client is parsed
	users int           // requests holding or waiting for the turn
}

// errParseBusy refuses a large request when its client already has as
// many waiting as a session may run calls: each waiting body is held in
// memory.
var errParseBusy = errors.New("server busy: this client already has its most large requests (over 64 KiB) waiting to be read; wait for them to be answered")

// takeParse waits for client's turn to parse a body of size bytes: at once
// for a small body. Deciding on the size alone, before any parsing, is the
// point. It returns the release, or errParseBusy, or ctx's error when ctx
// ended first.
func (st *site) takeParse(ctx context.Context, client caller.ID, size int) (release func(), err error) {
	if size < largeBody {
		return func() {}, nil
	}
	t, leave, err := st.parses.join(client, st.opts.MaxInFlightPerSession)
	if err != nil {
		return nil, err
	}
	select {
	case t.held <- struct{}{}:
	default:
		if st.opts.onParseWait != nil {
			st.opts.onParseWait(client)
		}
		select {
		case t.held <- struct{}{}:
		case <-ctx.Done():
			leave()
			return nil, ctx.Err()
		}
	}
	return func() {
		<-t.held
		leave()
	}, nil
}

// join counts one more request holding or waiting for client's turn, up to
// limit; leave undoes it.
func (p *parseTurns) join(client caller.ID, limit int) (t *parseTurn, leave func(), err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[caller.ID]*parseTurn{}
	}
	t = p.m[client]
	if t == nil {
		t = &parseTurn{held: make(chan struct{}, 1)}
		p.m[client] = t
	}
	if t.users > limit {
		return nil, nil, errParseBusy
	}
	t.users++
	return t, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if t.users--; t.users == 0 && p.m[client] == t {
			delete(p.m, client)
		}
	}, nil
}
