// Package upstream obtains NSIP's answers for the gateway. Its Pool takes
// a lookup (the NSIP method, the cache key, who is calling, the bound
// fetch and the fit of its answer) through the cache, the collapse of
// identical fetches (singleflight), the replicas' shared tier in Redis
// (Shared: cache records, fetch leases, the shared rate limit, pause and
// breaker news), the circuit breaker, NSIP's per-endpoint pauses (429),
// the caller's fair turn at the connections, the rate limit, and the
// fetch itself, whose retries take tokens and breaker admissions too.
//
// Beside the pool: the fair queue that shares upstream connections between
// callers turn by turn, the waiters that let a fetch nobody awaits leave
// that queue, the record of answers in shapes the client did not recognize
// (format drift), the cached Answer and the codec of its shared record,
// and the heap measure that charges cached answers by the memory they
// hold.
//
// It knows NSIP's errors and nothing of tools or MCP, and never imports
// the gateway: the gateway binds each tool's fetch and fits its answers,
// and maps the refusals raised here (ErrBreakerOpen, RateLimited) to what
// a model sees.
package upstream
