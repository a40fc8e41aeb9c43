package gateway

import (
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// DefaultMaxUpstreamPause is the longest pause a 429's Retry-After may
// impose. NSIP's own pauses are seconds; a server asking for hours or a day
// is more likely broken or hostile than busy, and obeying it would stop
// every call to that endpoint while /healthz said ok.
const DefaultMaxUpstreamPause = 5 * time.Minute

// pauses records, per upstream endpoint, until when NSIP asked us to send
// nothing more to it. An endpoint is a tool's upstream method, so a 429 from
// the details endpoint holds back nsip_get_animal but not a search.
type pauses struct {
	mu sync.Mutex
	m  map[string]pause
}

type pause struct {
	until time.Time
	asked time.Duration // what the Retry-After said, before the cap
}

// set starts a pause of min(asked, limit), at least a second, unless a
// longer one is already running.
func (p *pauses) set(method string, asked, limit time.Duration, now time.Time) time.Duration {
	wait := min(max(asked, time.Second), limit)
	p.hold(method, now.Add(wait), asked)
	return wait
}

// hold pauses method until until, unless a longer pause is already running.
func (p *pauses) hold(method string, until time.Time, asked time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = make(map[string]pause)
	}
	if cur, ok := p.m[method]; !ok || cur.until.Before(until) {
		p.m[method] = pause{until: until, asked: asked}
	}
}

// left is how much of method's pause remains.
func (p *pauses) left(method string, now time.Time) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	cur, ok := p.m[method]
	if !ok {
		return 0
	}
	if !now.Before(cur.until) {
		delete(p.m, method)
		return 0
	}
	return cur.until.Sub(now)
}

// PauseHealth is one endpoint NSIP asked us to leave alone for a while.
type PauseHealth struct {
	Method         string `json:"method"`
	RetryInSeconds int    `json:"retry_in_seconds"`
	AskedSeconds   int64  `json:"asked_seconds"` // the Retry-After as sent, before the cap
	Capped         bool   `json:"capped,omitempty"`
}

// health lists the running pauses by method.
func (p *pauses) health(limit time.Duration, now time.Time) []PauseHealth {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := []PauseHealth{}
	for m, cur := range p.m {
		if now.Before(cur.until) {
			out = append(out, PauseHealth{
				Method: m, RetryInSeconds: seconds(cur.until.Sub(now)),
				AskedSeconds: int64(cur.asked / time.Second), Capped: cur.asked > limit,
			})
		}
	}
	slices.SortFunc(out, func(a, b PauseHealth) int { return strings.Compare(a.Method, b.Method) })
	return out
}

// noteThrottle makes calls to d's endpoint wait out a 429's Retry-After, up
// to MaxUpstreamPause, so that NSIP sees no further requests there until
// then. The error the caller gets is rewritten to the capped wait.
func (g *Gateway) noteThrottle(d *toolDef, err error) {
	var ne *nsip.Error
	if !errors.As(err, &ne) || ne.Kind != nsip.KindRateLimited {
		return
	}
	asked := ne.RetryAfter
	ne.RetryAfter = g.pauses.set(d.method, asked, g.cfg.MaxUpstreamPause, time.Now())
	g.shareThrottle(d.method, ne.RetryAfter, asked)
	if asked > g.cfg.MaxUpstreamPause {
		g.log.Warn("nsip asked for a pause longer than the limit; pausing for the limit",
			slog.String("method", d.method), slog.Duration("asked", asked), slog.Duration("limit", g.cfg.MaxUpstreamPause))
	}
}

// paused refuses a fetch for d while NSIP's pause on its endpoint lasts.
func (g *Gateway) paused(d *toolDef) error {
	if left := g.pauses.left(d.method, time.Now()); left > 0 {
		return &rateLimitError{retryAfter: left, reason: "NSIP asked us to wait"}
	}
	return nil
}
