// Package health answers what monitoring asks of the gateway: a snapshot
// for /healthz ([Reporter.Health]: cache, breaker, rate limit, pauses,
// drift, calls and errors counted), whether to send it traffic for
// /readyz ([Reporter.Ready]), and the state a Prometheus scrape reads
// ([Reporter.MetricsState]).
//
// It reads the upstream pool and the cache as they are when asked, rather
// than copying their counters on each change; the counts only the call
// path sees (calls by tool, errors by code, summarized answers) are kept
// in a [Stats] the call path adds to.
package health
