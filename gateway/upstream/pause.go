package upstream

import (
	"math"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultMaxUpstreamPause is the longest pause a 429's Retry-After may
// impose. NSIP's own pauses are seconds; a server asking for hours or a day
// is more likely broken or hostile than busy, and obeying it would stop
// every call to that endpoint while /healthz said ok.
const DefaultMaxUpstreamPause = 5 * time.Minute

// Pauses records, per upstream endpoint, until when NSIP asked us to send
// nothing more to it. An endpoint is a tool's upstream method, so a 429 from
// the details endpoint holds back nsip_get_animal but not a search.
type Pauses struct {
	mu sync.Mutex
	m  map[string]pause
}

type pause struct {
	until time.Time
	asked time.Duration // what the Retry-After said, before the cap
}

// Set starts a pause of min(asked, limit), at least a second, unless a
// longer one is already running.
func (p *Pauses) Set(method string, asked, limit time.Duration, now time.Time) time.Duration {
	wait := min(max(asked, time.Second), limit)
	p.Hold(method, now.Add(wait), asked)
	return wait
}

// Hold pauses method until until, unless a longer pause is already running.
func (p *Pauses) Hold(method string, until time.Time, asked time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = make(map[string]pause)
	}
	if cur, ok := p.m[method]; !ok || cur.until.Before(until) {
		p.m[method] = pause{until: until, asked: asked}
	}
}

// Left is how much of method's pause remains.
func (p *Pauses) Left(method string, now time.Time) time.Duration {
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

// Health lists the running pauses by method.
func (p *Pauses) Health(limit time.Duration, now time.Time) []PauseHealth {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := []PauseHealth{}
	for m, cur := range p.m {
		if now.Before(cur.until) {
			out = append(out, PauseHealth{
				Method: m, RetryInSeconds: Seconds(cur.until.Sub(now)),
				AskedSeconds: int64(cur.asked / time.Second), Capped: cur.asked > limit,
			})
		}
	}
	slices.SortFunc(out, func(a, b PauseHealth) int { return strings.Compare(a.Method, b.Method) })
	return out
}

// Seconds rounds d up to whole seconds, at least one.
func Seconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
