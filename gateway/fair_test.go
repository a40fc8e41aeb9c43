package gateway

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// gatedUpstream holds every details and lineage request until the test lets
// one through, and reports each as it arrives.
type gatedUpstream struct {
	Upstream
	arrived chan string   // "details:<id>" or "lineage:<id>"
	proceed chan struct{} // one value lets one held request go on
}

func newGate(up Upstream) *gatedUpstream {
	return &gatedUpstream{Upstream: up, arrived: make(chan string, 1000), proceed: make(chan struct{})}
}

func (g *gatedUpstream) hold(ctx context.Context, what string) error {
	g.arrived <- what
	select {
	case <-g.proceed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gatedUpstream) AnimalDetails(ctx context.Context, s string) (*nsip.AnimalDetails, error) {
	if err := g.hold(ctx, "details:"+s); err != nil {
		return nil, err
	}
	return g.Upstream.AnimalDetails(ctx, s)
}

func (g *gatedUpstream) Lineage(ctx context.Context, id string) (*nsip.Lineage, error) {
	if err := g.hold(ctx, "lineage:"+id); err != nil {
		return nil, err
	}
	return g.Upstream.Lineage(ctx, id)
}

// testSession is a client session as the transports create them.
type testSession struct{ id string }

func (s testSession) Initialize()                                         {}
func (s testSession) Initialized() bool                                   { return true }
func (s testSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return nil }
func (s testSession) SessionID() string                                   { return s.id }

// callIn calls tool directly through the gateway's handler in ctx, which
// says who is calling.
func callIn(ctx context.Context, e *env, d *toolDef, args map[string]any) *mcp.CallToolResult {
	req := mcp.CallToolRequest{}
	req.Params.Name = d.Name
	req.Params.Arguments = args
	res, _ := e.gw.handler(d)(ctx, req)
	return res
}

// callAs calls tool directly through the gateway's handler as session.
func callAs(ctx context.Context, e *env, session string, d *toolDef, args map[string]any) *mcp.CallToolResult {
	return callIn(e.srv.WithContext(ctx, testSession{session}), e, d, args)
}

// floodThenHonest queues 30 unique calls of the caller named flooder for
// the one upstream connection, then one call of the caller named honest
// (in makes the context a named caller calls in, once per call), and checks that the
// honest call's request goes out 2nd or 3rd, behind at most one fetch of
// the flood, not 31st (where a first-come queue puts it), and answers; the
// upstream is healthy throughout, so the breaker counts no failure. who
// is what failures call the honest caller.
func floodThenHonest(t *testing.T, in func(e *env, name string) context.Context, flooder, honest, who string) {
	t.Helper()
	e := newEnv(t, withConfig(func(c *Config) { c.MaxConcurrentUpstream = 1 }))
	gate := newGate(e.gw.up)
	e.gw.up = gate
	ids := e.up.Data().AnimalIDs()
	const n = 30

	var wg sync.WaitGroup
	defer wg.Wait()
	for i := range n {
		wg.Go(func() {
			callIn(in(e, flooder), e, toolOf(lookup.Animal), map[string]any{"search_string": ids[i]})
		})
	}
	first := <-gate.arrived // one holds the connection, the rest queue
	waitFor(t, "the flood to queue", func() bool { return e.gw.pool.Queued() == n-1 })

	answered := make(chan *mcp.CallToolResult, 1)
	go func() {
		answered <- callIn(in(e, honest), e, toolOf(lookup.Lineage), map[string]any{"lpn_id": ids[n]})
	}()
	waitFor(t, "the honest call to queue", func() bool { return e.gw.pool.Queued() == n })

	order := []string{first}
	for len(order) <= n {
		gate.proceed <- struct{}{}
		order = append(order, <-gate.arrived)
	}
	at := slices.Index(order, "lineage:"+ids[n])
	if at < 1 || at > 2 {
		t.Errorf("the honest %s's request went out %d-th of %d (order %s); want 2nd or 3rd", who, at+1, len(order), strings.Join(order[:min(len(order), 5)], ", "))
	}
	gate.proceed <- struct{}{} // the last one held
	if res := <-answered; res.IsError {
		t.Errorf("honest call failed: %v", res.Content)
	}
	if h := e.gw.Health(); h.Breaker.ConsecutiveFailures != 0 {
		t.Errorf("breaker counted %d failures on a healthy upstream", h.Breaker.ConsecutiveFailures)
	}
}

// TestOneSessionCannotStarveAnother: a session with 30 unique calls queued
// for the one upstream connection delays another session's call by at most
// one of its fetches, not by its whole backlog (which is where a first-come
// queue puts it: 31st).
func TestOneSessionCannotStarveAnother(t *testing.T) {
	session := func(e *env, id string) context.Context {
		return e.srv.WithContext(context.Background(), testSession{id})
	}
	floodThenHonest(t, session, "flood", "honest", "session")
}

// TestSessionlessFloodCannotStarveAnotherClient: without sessions the
// queue is shared per client (token or address), so one address's 30
// queued calls delay another address's call by at most one of its fetches.
// Before, every sessionless call had the same empty name, and the honest
// call went out 31st, behind the whole flood.
func TestSessionlessFloodCannotStarveAnotherClient(t *testing.T) {
	// Without a session, as a stateless or 2026-07-28 call arrives.
	address := func(_ *env, addr string) context.Context {
		return caller.WithRequest(context.Background(), caller.Address(addr))
	}
	floodThenHonest(t, address, "198.51.100.7", "192.0.2.40", "address")
}

// TestManySessionsOfOneClientShareItsTurn: a client that spreads its
// calls over sessions (30 calls, each in a session of its own, as a client
// that opens a session, calls and ends it does) still has one client's
// share of the upstream: another client's call goes out 2nd or 3rd. When
// the queue was shared per session, each of the flood's sessions had a
// turn of its own and the honest call went out 31st.
func TestManySessionsOfOneClientShareItsTurn(t *testing.T) {
	var sessions atomic.Int64
	sessionAt := func(e *env, addr string) context.Context {
		ctx := caller.WithRequest(context.Background(), caller.Address(addr))
		return e.srv.WithContext(ctx, testSession{fmt.Sprintf("%s-%d", addr, sessions.Add(1))})
	}
	floodThenHonest(t, sessionAt, "198.51.100.7", "192.0.2.40", "client")
}

// TestAnEndedSessionsCallsEndWithIt: when a session ends (a DELETE, a
// closed stream), its calls still running end too: those queued for NSIP
// leave the queue without a request, and each answers. Before, they ran on
// after their session had gone, each holding its place in the queue while
// the client's next session queued more.
func TestAnEndedSessionsCallsEndWithIt(t *testing.T) {
	e := newEnv(t, withConfig(func(c *Config) { c.MaxConcurrentUpstream = 1 }))
	gate := newGate(e.gw.up)
	e.gw.up = gate
	ids := e.up.Data().AnimalIDs()
	ctx, session := taskSessionAt(t, e, "198.51.100.7")
	const n = 10
	answers := make(chan string, n)
	for i := range n {
		go func() {
			_, problem := send(t, e, ctx, "tools/call", map[string]any{"name": lookup.Animal.Name, "arguments": map[string]any{"search_string": ids[i]}})
			answers <- problem
		}()
	}
	first := <-gate.arrived // one holds the connection, the rest queue
	waitFor(t, "the calls to queue", func() bool { return e.gw.pool.Queued() == n-1 })

	e.srv.UnregisterSession(context.Background(), session)
	waitFor(t, "the ended session's calls to leave the queue", func() bool { return e.gw.pool.Queued() == 0 })
	for range n - 1 {
		<-answers // the queued calls answer; the one sent goes on to its end
	}
	gate.proceed <- struct{}{}
	<-answers
	honest := make(chan *mcp.CallToolResult, 1)
	go func() {
		honest <- callAs(context.Background(), e, "honest", toolOf(lookup.Lineage), map[string]any{"lpn_id": ids[n]})
	}()
	if got := <-gate.arrived; got != "lineage:"+ids[n] {
		t.Errorf("after %s, NSIP was asked for %s; want the next session's call, nothing of the ended one's", first, got)
	}
	gate.proceed <- struct{}{}
	if res := <-honest; res.IsError {
		t.Errorf("the next call failed: %v", res.Content)
	}
}
