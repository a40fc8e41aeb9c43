// Package gateway serves NSIP to MCP clients: the nine lookup tools, the
// five analyses, and the features beside them, all through one call path.
// Anything a model can act on (bad arguments, not found, throttled, NSIP
// down) comes back as an error result with a JSON body naming the field or
// the wait, never as a protocol error.
//
// A lookup call goes through these steps (pipeline.go unless named):
//
//  1. Decode the arguments (param.Decode) and validate them against the
//     tool's argument struct (toolargs.go: its fields, with their
//     descriptions in argTable, give the schema and the validation through
//     gateway/param), trait codes against the breed's own (gateway/argcheck),
//     the view arguments (view.go); a choice only the user can make may be
//     asked for: the call ends with the form as an input request and runs
//     again from here with the user's answer (gateway/elicit, through
//     forms.go). nsip_get_animal with percentiles: true goes on as an
//     analysis (animalpct.go).
//  2. Key the call: the tool's method and its canonical arguments, without
//     the struct's view fields (toolDef.key, cache.Key).
//  3. Obtain the answer (obtain, lookup) from the upstream pool in
//     gateway/upstream (pool.go Obtain): from the cache; else from a
//     fetch already under way for the key (singleflight); else from
//     another replica's answer in Redis (shared.go, codec.go).
//  4. Still missing, the pool's fetch (pool.go) passes the circuit
//     breaker and any pause NSIP asked for, waits for the caller's turn
//     at the upstream (fair.go) and a rate-limit token, and asks NSIP
//     with the fetch the tool's definition bound (toolargs.go bindFetch;
//     the Upstream interface, nsip.Client); each retry takes a token and
//     a breaker admission of its own (retrygate.go), and an answer in an
//     unrecognized shape is recorded as drift (drift.go). The files of
//     steps 3 and 4 are gateway/upstream's unless named.
//  5. Fit the answer into the token budget once, as it arrives (lookup's
//     Prepare, summarize; drift.go notes criteria NSIP ignored), then the
//     pool caches it and shares it; an answer in an unrecognized shape is
//     passed on through the generic summarizer.
//  6. Fit again for the caller's view (view.go), add _meta, resource
//     links (gateway/features) and the structured copy (gateway/structured),
//     log the call (finish, with the call ID and the count of NSIP
//     requests gateway/calllog kept for it) and answer; when NSIP fails,
//     a stale answer is served where it is safe (gateway/toolerr's
//     ServesStale), else the failure is mapped to the error body the
//     model reads (errors.go, with gateway/toolerr's Map).
//
// An analysis (analysis.go) validates its arguments with its definition in
// gateway/analysis and runs there against a per-call Source whose every
// lookup takes steps 2 to 5, counted against the analysis's ceilings of
// lookups and of time; its answer is written by gateway/finite (absurd
// values NSIP sent named, overflowed numbers null) and fitted like a
// lookup's. Resources, prompts and completions live in gateway/features
// and read through the same path (featuretools.go); the LPN IDs
// completions offer are those the session met, which gateway/session
// remembers, and a session's end ends its running calls there too.
// Health, readiness and what a metrics scrape reads are gateway/health's.
package gateway
