// Package gateway serves NSIP to MCP clients: the nine lookup tools, the
// five analyses, and the features beside them, all through one call path.
// Anything a model can act on (bad arguments, not found, throttled, NSIP
// down) comes back as an error result with a JSON body naming the field or
// the wait, never as a protocol error.
//
// # Where a tool is
//
// Every tool is one toolDef (tools.go): a gateway/tooldef.Def (name from
// nsip/toolname, title, description, arguments derived from its argument
// struct, summarizer, not-found wording) and one run over the call's
// source of NSIP reads, registered once in tools/list order. A lookup
// tool is one file of gateway/lookup: its definition, argument struct and
// fields' descriptions, the fetch that asks NSIP with the typed
// arguments, and its run when it is more than one read passed through
// (the profile, the empty-search check, the trait-ranges wording,
// nsip_get_animal's choice of its percentile analysis). An analysis is its
// definition in gateway/analysis and its answer types beside it. What
// tells one tool from another is in its toolDef's fields, set when it is
// registered: the call path asks no tool what kind it is.
//
// # A call, step by step
//
// Every call enters at call (pipeline.go):
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
//     call's toolcall.Call: the arguments as sent, as validated (a
//     param.Valid, read by name or decoded whole into the tool's struct),
//     and the view (max_tokens, traits, skip) read once. The same text of
//     arguments sent again is not read again when its reading asked NSIP
//     nothing (no breed's name, no status): the gateway keeps the Call it
//     gave by its exact bytes (toolcall.Memo).
//  2. run: the tool's run, over the call's callSource (pipeline.go). A
//     lookup's run passes one read through (pass): its lookup.Read is the
//     tool, the arguments without the view's, and the key they make with
//     the tool's method (lookup.Def.Read). An analysis's run, or
//     nsip_get_animal's with percentiles: true, goes on at runAnalysis
//     (analysis.go): the analysis runs over a per-call source (lookups)
//     whose reads are gateway/source's, one typed method per NSIP
//     endpoint, each made with the lookup tool's typed arguments
//     (lookup.Def.Keyed, so a user's call of the same shares its cache
//     entry), counted against the analysis's ceilings of lookups and of
//     time, and taking steps 3 to 5 below; percentiles may come from one
//     pass over the breed (breedpass.go, kept by gateway/passes). Its
//     answer is written by gateway/finite and fitted to the budget like a
//     lookup's.
//  3. Obtain the answer (obtain, lookup) from the upstream pool in
//     gateway/upstream: from the cache; else from a fetch already under
//     way for the key; else from another replica's answer in Redis.
//  4. Still missing, the pool's fetch passes the circuit breaker and any
//     pause NSIP asked for, waits for the caller's turn at the upstream
//     and a rate-limit token, and asks NSIP with the fetch the tool's
//     definition bound (lookup.Def.Bind, over the Upstream interface that
//     nsip.Client satisfies); each retry takes a token and
//     a breaker admission of its own, and an answer in an unrecognized
//     shape is recorded as drift (drift.go).
//  5. Fit the answer into the token budget once, as it arrives (summarize),
//     then the pool caches it and shares it.
//  6. Fit again for the view the caller asked for (pass), then render what
//     the run answered (a toolcall.Outcome): _meta, resource links
//     (gateway/features, gateway/full) and the structured copy
//     (gateway/structured); log the call (finish, with the call ID and the
//     count of NSIP requests gateway/calllog kept for it) and answer. When
//     NSIP fails, a stale answer is served where it is safe, else the
//     failure is mapped to the error body the model reads (mapError, with
//     gateway/toolerr's Map).
//
// A call whose arguments were kept (step 1) and whose answer was read from
// one cached answer alone is answered again, while the cache still holds
// that answer, with the result it rendered: the same text, _meta and
// structured copy, counted as a cache hit and logged as one, without steps
// 2 to 6. An answer offering a link to its complete data is rendered for
// each call, since each call's link is its own. Such a call is answered by
// the outermost of the gateway's tool middlewares (answerKept), before the
// session's record of its running calls, the forms and the progress
// notes, none of which a call that ends at once needs.
//
// Resources, prompts and completions live in gateway/features and read
// through the same path (featuretools.go); the LPN IDs completions offer
// are those the session met, which gateway/session remembers, and a
// session's end ends its running calls there too. Health, readiness and
// what a metrics scrape reads are gateway/health's; which tools a
// deployment offers is gateway/toolsets'.
package gateway
