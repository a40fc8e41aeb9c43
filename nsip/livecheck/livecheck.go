// Package livecheck asks the NSIP Search API each of its endpoints once and
// reads the first pages of one breed, then reports how every answer's shape
// compares with the contract in nsip/shape, how long each took, which
// failed or were rate limited, and how complete the breed's rows are (the
// share that carry a sire, a dam and each member).
//
// It is for an operator or a scheduled job, never for the tests' network
// use: its own tests run it against the stand-in on loopback. It is polite
// by construction: its requests go one at a time, at most at the rate it is
// given, each with a time limit, and it stops at the first sign that NSIP
// cannot be reached or wants fewer requests.
package livecheck

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"

	"golang.org/x/time/rate"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/shape"
)

// PageSize is how many rows each search page asks for: NSIP's largest.
const PageSize = 100

// MaxPages bounds Config.Pages, so that a check stays a handful of
// requests.
const MaxPages = 10

// Config says where and how politely to check.
type Config struct {
	BaseURL string // the API root, e.g. nsip.DefaultBaseURL
	// ShownURL is the base URL as the report and logs show it, e.g. with a
	// password in it hidden; "" shows BaseURL.
	ShownURL  string
	Timeout   time.Duration // one HTTP request; 0 means nsip.DefaultTimeout
	UserAgent string        // "" means the client's own
	Rate      float64       // requests per second, retries included; 0 means 5
	Breed     int           // the breed whose search pages are read, e.g. 640
	Pages     int           // search pages of PageSize rows to read, 1..MaxPages
	Logger    *slog.Logger  // nil means slog.Default()
}

// Run checks NSIP as cfg says and returns the report. Its error is for a
// configuration it cannot run with; everything NSIP does is in the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	switch {
	case cfg.Breed < 1:
		return nil, fmt.Errorf("livecheck: breed must be a positive breed ID, e.g. 640, got %d", cfg.Breed)
	case cfg.Pages < 1 || cfg.Pages > MaxPages:
		return nil, fmt.Errorf("livecheck: pages must be from 1 to %d, got %d", MaxPages, cfg.Pages)
	case cfg.Rate < 0:
		return nil, fmt.Errorf("livecheck: rate must not be negative, got %v", cfg.Rate)
	}
	if cfg.Rate == 0 {
		cfg.Rate = 5
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = nsip.DefaultTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ShownURL == "" {
		cfg.ShownURL = cfg.BaseURL
	}
	k := &checker{log: cfg.Logger, lim: rate.NewLimiter(rate.Limit(cfg.Rate), 1),
		rep: &Report{BaseURL: cfg.ShownURL, CheckedAt: time.Now().UTC().Truncate(time.Second)}}
	opts := []nsip.Option{nsip.WithBaseURL(cfg.BaseURL), nsip.WithTimeout(cfg.Timeout), nsip.WithRequestHook(k.observe)}
	if cfg.UserAgent != "" {
		opts = append(opts, nsip.WithUserAgent(cfg.UserAgent))
	}
	c, err := nsip.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	k.client = c
	k.run(ctx, cfg.Breed, cfg.Pages)
	k.rep.conclude()
	k.log.Info("check-nsip done", "outcome", string(k.rep.Outcome), "exit_code", k.rep.ExitCode,
		"requests", k.rep.Requests, "rate_limited", k.rep.RateLimited)
	return k.rep, nil
}

// checker asks the endpoints one after the other, recording each answer.
type checker struct {
	client *nsip.Client
	lim    *rate.Limiter
	log    *slog.Logger
	rep    *Report
	// stop, once set, is why the endpoints not yet asked are not asked.
	stop string
}

// run asks every endpoint once and the breed's first pages, then the first
// row's animal's details, lineage and progeny.
func (k *checker) run(ctx context.Context, breed, pages int) {
	c := k.client
	id := strconv.Itoa(breed)
	var last *nsip.LastUpdate
	k.ask(ctx, shape.PathDateLastUpdated, "", func(ctx context.Context) (b []byte, err error) {
		last, err = c.DateLastUpdated(ctx)
		return raw(last, err)
	})
	if last != nil {
		k.evaluationDate(last.Date)
	}
	k.ask(ctx, shape.PathBreedGroups, "", func(ctx context.Context) ([]byte, error) { return raw(c.BreedGroups(ctx)) })
	k.ask(ctx, shape.PathStatuses, "", func(ctx context.Context) ([]byte, error) { return raw(c.Statuses(ctx)) })
	k.ask(ctx, shape.PathTraitRanges, "breedId="+id, func(ctx context.Context) ([]byte, error) { return raw(c.TraitRanges(ctx, breed)) })
	rows := &rowStats{}
	for page := range pages {
		p := nsip.SearchParams{Page: page, PageSize: PageSize, BreedID: breed}
		body, ok := k.ask(ctx, shape.PathSearch, fmt.Sprintf("breedId=%d page=%d", breed, page),
			func(ctx context.Context) ([]byte, error) { return raw(c.SearchAnimals(ctx, p)) })
		if !ok {
			break
		}
		if n := rows.add(body); n < PageSize || rows.full() {
			break // the breed has no more rows
		}
	}
	k.rep.Breed = rows.breed(breed)
	lpn := rows.first
	asked := func(s string) string { return s }
	if lpn == "" {
		asked = func(string) string { return "" }
		if k.stop == "" {
			k.stop = "not asked: no search row to take an LPN ID from"
		}
	}
	k.ask(ctx, shape.PathDetails, asked("searchString="+lpn), func(ctx context.Context) ([]byte, error) { return raw(c.AnimalDetails(ctx, lpn)) })
	k.ask(ctx, shape.PathLineage, asked("lpnId="+lpn), func(ctx context.Context) ([]byte, error) { return raw(c.Lineage(ctx, lpn)) })
	k.ask(ctx, shape.PathProgeny, asked("lpnId="+lpn+" page=0"),
		func(ctx context.Context) ([]byte, error) { return raw(c.Progeny(ctx, lpn, 0, nsip.ProfilePageSize)) })
}

// evaluationDate records the date of NSIP's evaluation, and as drift one
// in no form the server reads: it reasons about dates (an evaluation newer
// than what it cached), so a new form is a change of contract even where
// the member is still a string.
func (k *checker) evaluationDate(date string) {
	k.rep.EvaluationDate = date
	if _, ok := nsip.ParseDate(date); ok {
		return
	}
	a := k.rep.Answers[len(k.rep.Answers)-1]
	a.Changed = append(a.Changed, fmt.Sprintf("date: %q is in no form the server reads (9/23/2025, 2025-02-16T00:00:00)", date))
	a.Drift = true
}

// rawModel is every model the check reads: each keeps its answer's bytes.
type rawModel interface {
	*nsip.LastUpdate | *nsip.BreedGroups | *nsip.Statuses | *nsip.TraitRanges |
		*nsip.SearchResults | *nsip.AnimalDetails | *nsip.Lineage | *nsip.ProgenyPage
}

// raw is the answer's bytes as NSIP sent them, or the call's error.
func raw[M rawModel](m M, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	switch v := any(m).(type) {
	case *nsip.LastUpdate:
		return v.Raw, nil
	case *nsip.BreedGroups:
		return v.Raw, nil
	case *nsip.Statuses:
		return v.Raw, nil
	case *nsip.TraitRanges:
		return v.Raw, nil
	case *nsip.SearchResults:
		return v.Raw, nil
	case *nsip.AnimalDetails:
		return v.Raw, nil
	case *nsip.Lineage:
		return v.Raw, nil
	case *nsip.ProgenyPage:
		return v.Raw, nil
	}
	return nil, nil
}

// answerKey carries the answer being asked for to the request hook.
type answerKey struct{}

// ask makes one call, after the rate limiter allows it, and records its
// answer. It returns the body NSIP sent, when one arrived, and whether the
// check may go on reading it.
func (k *checker) ask(ctx context.Context, path, asked string, call func(context.Context) ([]byte, error)) ([]byte, bool) {
	ep, _ := shape.For(path)
	a := &Answer{Endpoint: ep.Name(), Asked: asked, Diff: shape.Diff{Missing: []string{}, New: []string{}, Changed: []string{}}}
	k.rep.Answers = append(k.rep.Answers, a)
	if k.stop != "" {
		a.Skipped = k.stop
		return nil, false
	}
	if err := k.lim.Wait(ctx); err != nil {
		k.failed(a, ep, &nsip.Error{Kind: nsip.KindCanceled, Endpoint: path, Reason: "the check was stopped", Err: err})
		return nil, false
	}
	// Retries wait for the limiter too: the rate bounds every request.
	ctx = nsip.WithRetryGate(context.WithValue(ctx, answerKey{}, a), func(ctx context.Context, _ int, _ *nsip.Error) error {
		return k.lim.Wait(ctx)
	})
	start := time.Now()
	body, err := call(ctx)
	a.LatencyMS = float64(time.Since(start).Microseconds()/100) / 10
	if err != nil {
		body = k.failed(a, ep, err)
		return body, body != nil
	}
	k.compare(a, ep, body)
	return body, true
}

// compare records how body differs from the endpoint's contract.
func (k *checker) compare(a *Answer, ep shape.Endpoint, body []byte) {
	d, err := shape.Compare(ep.Answer, body)
	if err != nil {
		a.Changed = []string{err.Error()}
	} else {
		d.Matched = nil
		a.Diff = d
	}
	a.Drift = a.Diff.Drift()
	if a.Drift {
		k.log.Warn("check-nsip: answer differs from the contract", "endpoint", ep.Path,
			"missing", a.Missing, "new", a.New, "changed", a.Changed)
	}
}

// failed records a call that brought no model and returns the body NSIP
// sent, when there was one to compare: a format the client cannot read
// is drift, a failure to reach NSIP stops the check.
func (k *checker) failed(a *Answer, ep shape.Endpoint, err error) []byte {
	a.Error = err.Error()
	var e *nsip.Error
	if !errors.As(err, &e) {
		return nil
	}
	a.ErrorKind = e.Kind.String()
	switch {
	case e.Kind == nsip.KindFormatChanged:
		a.Error, a.ErrorKind = "", ""
		k.compare(a, ep, e.Body)
		return e.Body
	case e.Kind == nsip.KindUnexpectedResponse && e.Status == 200:
		// A 200 that is not the endpoint's answer at all: an HTML page,
		// a success:false, a body cut short.
		a.Changed, a.Drift = []string{"the answer: " + e.Reason}, true
	case e.Kind == nsip.KindConnection, e.Kind == nsip.KindTimeout, e.Kind == nsip.KindMisconfigured, e.Kind == nsip.KindCanceled:
		a.Unreachable = true
		k.stop = "not asked: NSIP could not be reached"
		if k.rep.CouldNotReach == "" {
			k.rep.CouldNotReach = fmt.Sprintf("could not reach NSIP at %s asking %s: %s", k.rep.BaseURL, ep.Name(), reachReason(e))
		}
		k.log.Warn("check-nsip: "+k.rep.CouldNotReach, "error", err.Error())
	case e.Kind == nsip.KindRateLimited:
		k.stop = "not asked: NSIP asked for fewer requests (429)"
		k.log.Warn("check-nsip: NSIP asked for fewer requests; stopping", "endpoint", ep.Path)
	default:
		k.log.Warn("check-nsip: NSIP answered with an error", "endpoint", ep.Path, "error", err.Error())
	}
	return nil
}

// reachReason says why NSIP could not be reached, in the client's words
// and, where the network said more, the network's (the address dialled,
// the name looked up) without the URL the client's own words already
// place.
func reachReason(e *nsip.Error) string {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.As(e.Err, &dns):
		return e.Reason + " (" + dns.Error() + ")"
	case errors.As(e.Err, &op):
		return e.Reason + " (" + op.Error() + ")"
	}
	return e.Reason
}

// observe is the client's request hook: it counts every request, and each
// attempt, status and 429 of the answer being asked for.
func (k *checker) observe(ctx context.Context, r nsip.RequestInfo) {
	k.rep.Requests++
	if r.Status == 429 {
		k.rep.RateLimited++
	}
	k.log.Debug("check-nsip: request", "endpoint", r.Endpoint, "attempt", r.Attempt, "status", r.Status,
		"latency_ms", r.Latency.Milliseconds(), "probe", r.Probe)
	a, ok := ctx.Value(answerKey{}).(*Answer)
	if !ok {
		return
	}
	if !r.Probe {
		a.Attempts = r.Attempt
		a.Status = r.Status
	}
	if r.Status == 429 {
		a.RateLimited++
	}
}
