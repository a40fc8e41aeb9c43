// Package upstream obtains NSIP's answers for the gateway.
//
// Make a [Pool] with [NewPool] from a [Config] (a [cache.Cache] and a
// [Codec] at least) and ask it with [Pool.Obtain]: a key, and a function
// giving the [Request] behind it (the NSIP method, who is calling, the
// bound [Fetch] and the Prepare that fits the answer), which runs only on
// a miss. The answer is an [*Answer] and where it came from: [SourceHit],
// [SourceShared] or [SourceMiss]. [Pool.Fresh] reads past every cache.
//
//	a, src, err := pool.Obtain(ctx, key, func() upstream.Request { return req })
//
// On its way to NSIP a miss passes the collapse of identical fetches
// (one request however many callers wait, [Pool.Waiting]), the replicas'
// shared tier in Redis ([Shared]: records, fetch leases, the shared rate
// limit, pause and breaker news), the circuit breaker ([ErrBreakerOpen]),
// NSIP's per-endpoint pauses after a 429 ([Pauses]), the caller's fair
// turn at the connections ([fair]) and the rate limit ([RateLimited]);
// each retry the client makes takes a token and a breaker admission too.
// [Pool.Requests], [Pool.Tokens], [Pool.Breaker], [Pool.Pauses] and
// [Shared.Health] report what happened, for /healthz and tests.
//
// An answer in a shape the client cannot read is passed on as NSIP sent
// it ([Answer.Drift], [Answer.Note]) and recorded in [Drift].
// [heapSize] charges cached answers by the memory they hold.
//
// It knows NSIP's errors and nothing of tools or MCP, and never imports
// the gateway: the gateway binds each tool's fetch and fits its answers,
// and maps the refusals raised here to what a model sees.
//
// Its tests use the stand-in NSIP (nsip/nsiptest) through the real
// client, and, with the e2e build tag, a real Redis (cache/redistest) for
// the shared tier.
package upstream
