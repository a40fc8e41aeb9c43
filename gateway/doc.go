// Package gateway serves NSIP to MCP clients: the nine lookup tools, the
// five analyses, and the features beside them, all through one call path.
// Anything a model can act on (bad arguments, not found, throttled, NSIP
// down) comes back as an error result with a JSON body naming the field or
// the wait, never as a protocol error.
//
// # Where a tool is
//
// Every tool is a gateway/tooldef.Def (name from nsip/toolname, title,
// description, arguments derived from its argument struct, summarizer,
// not-found wording), embedded in what answers it. A lookup tool is one
// file of gateway/lookup: its definition, its argument struct and its
// fields' descriptions, and the fetch that asks NSIP with the typed
// arguments. An analysis tool is one file of gateway/analysis in the same
// shape (definition, argument struct, answer types, run over a typed NSIP
// source). This package holds the call path they share: registry
// (tools.go) lists every tool once, in tools/list order, and serves each
// as an MCP tool; a view that shows a tool's answer is named in
// gateway/views.
//
// # A call, step by step
//
// Every call, lookup or analysis, enters at call (pipeline.go):
//
//  1. arguments: decode the JSON (param.Decode, a param.Sent) and
//     validate it once against the tool's argument struct
//     (param.Args.Validate: types,
//     bounds, enums, did-you-mean for unknown names), trait codes against
//     the breed's own (gateway/argcheck), the view arguments (view.go).
//     A choice only the user can make may be asked for: the call ends
//     with the form as an input request and runs again from here with the
//     user's answer (gateway/elicit, through forms.go). A problem becomes
//     the error body (errors.go, gateway/toolerr). What passes is the
//     call's toolCall: the arguments as sent, as validated (a
//     param.Valid, read by name or decoded whole into the tool's struct),
//     and the view (max_tokens, traits, skip) read once.
//  2. An analysis tool, or nsip_get_animal with percentiles: true
//     (animalpct.go), goes on at runAnalysis (analysis.go): the analysis
//     runs in gateway/analysis over a per-call Source (lookups), one
//     method per NSIP endpoint with the client's own types, each read
//     made with the lookup tool's typed arguments (lookup.Def.Keyed, so a
//     user's call of the same shares its cache entry), counted against
//     the analysis's ceilings of lookups and of time and taking steps 3
//     to 6 below; percentiles may come from one pass over
//     the breed (breedpass.go, kept by gateway/passes). Its answer is
//     written by gateway/finite and fitted to the budget like a lookup's.
//  3. A lookup goes on at lookupCall: its lookup.Read is the tool, the
//     arguments without the view's, and the key they make with the
//     tool's method (lookup.Def.Read); an analysis's reads are
//     lookup.Reads too (lookup.Def.Keyed).
//  4. Obtain the answer (obtain, lookup) from the upstream pool in
//     gateway/upstream: from the cache; else from a fetch already under
//     way for the key; else from another replica's answer in Redis.
//  5. Still missing, the pool's fetch passes the circuit breaker and any
//     pause NSIP asked for, waits for the caller's turn at the upstream
//     and a rate-limit token, and asks NSIP with the fetch the tool's
//     definition bound (lookup.Def.Bind, over the Upstream interface that
//     nsip.Client satisfies); each retry takes a token and
//     a breaker admission of its own, and an answer in an unrecognized
//     shape is recorded as drift (drift.go).
//  6. Fit the answer into the token budget once, as it arrives (summarize),
//     then the pool caches it and shares it.
//  7. Fit again for the view the caller asked for (read once, view.go;
//     fitted in runKeyed), add _meta, resource links
//     (gateway/features, gateway/full) and the structured copy
//     (gateway/structured), log the call (finish, with the call ID and the
//     count of NSIP requests gateway/calllog kept for it) and answer. When
//     NSIP fails, a stale answer is served where it is safe, else the
//     failure is mapped to the error body the model reads (mapError, with
//     gateway/toolerr's Map).
//
// Resources, prompts and completions live in gateway/features and read
// through the same path (featuretools.go); the LPN IDs completions offer
// are those the session met, which gateway/session remembers, and a
// session's end ends its running calls there too. Health, readiness and
// what a metrics scrape reads are gateway/health's; which tools a
// deployment offers is gateway/toolsets'.
package gateway
