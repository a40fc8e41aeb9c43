// Package upstream holds the policy primitives for obtaining NSIP's
// answers: the fair queue that shares upstream connections between callers
// turn by turn, the waiters that let a fetch nobody awaits leave that
// queue, the per-endpoint pauses a 429 imposes, the record of answers in
// shapes the client did not recognize (format drift), and the heap
// measure that charges cached answers by the memory they hold.
//
// It knows NSIP's errors and nothing of tools or MCP. The gateway's call
// path (cache, collapse, breaker, rate limit, shared tier) composes these.
package upstream
