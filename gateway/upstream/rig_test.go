package upstream

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// The methods the rig's lookups name, as the gateway names NSIP's
// endpoints.
const (
	methodDetails = "get_animal_details"
	methodLineage = "get_lineage"
)

// rig is one replica's pool in front of the stand-in NSIP, through the
// real client, logging JSON to logs. Its lookups are the details and the
// lineage of an animal, fitted by copying NSIP's JSON.
type rig struct {
	t    testing.TB
	up   *nsiptest.Server
	nc   *nsip.Client
	pool *Pool
	logs *logbuf.Buffer
	// fits counts Prepare runs: one per answer fetched.
	fits atomic.Int64
}

// rigCodec knows the models the rig's lookups produce.
var rigCodec = NewCodec(reflect.TypeFor[nsip.AnimalDetails](), reflect.TypeFor[nsip.Lineage]())

// newRig is a pool over a cache of its own with the gateway's defaults
// for what cfg leaves unset, asking up with one attempt per request
// unless attempts says more.
func newRig(t testing.TB, up *nsiptest.Server, attempts int, cfg Config) *rig {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	setDur := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	setDur(&cfg.CacheTTL, time.Hour)
	setDur(&cfg.StaleTTL, 24*time.Hour)
	setDur(&cfg.CallTimeout, 30*time.Second)
	setDur(&cfg.BreakerCooldown, time.Minute)
	setDur(&cfg.CollapseWait, 30*time.Second)
	setDur(&cfg.MaxUpstreamPause, DefaultMaxUpstreamPause)
	if cfg.RateLimit == 0 {
		cfg.RateLimit, cfg.RateBurst = 1000, 1000
	}
	if cfg.MaxConcurrent == 0 {
		cfg.MaxConcurrent = 8
	}
	if cfg.BreakerFailures == 0 {
		cfg.BreakerFailures = 5
	}
	c, err := cache.New(cache.Config{TTL: cfg.CacheTTL, StaleTTL: cfg.StaleTTL, MaxEntries: 1000, MaxBytes: 64 << 20, Now: cfg.Now})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Cache, cfg.Codec = c, rigCodec
	r := &rig{t: t, up: up, logs: &logbuf.Buffer{}}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewJSONHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	r.nc, err = nsip.NewClient(nsip.WithBaseURL(up.URL()),
		nsip.WithRetryPolicy(nsip.RetryPolicy{MaxAttempts: max(attempts, 1), MaxRetryAfter: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	r.pool = NewPool(cfg)
	return r
}

// request is the lookup of lpn's details (or, with method
// methodLineage, its lineage) for who, cached under its own key.
func (r *rig) request(method, lpn, who string) Request {
	return Request{
		Method: method, Key: method + ":" + lpn, Caller: who,
		Bind: func() (Fetch, error) {
			return func(ctx context.Context) (any, json.RawMessage, error) {
				if method == methodLineage {
					l, err := r.nc.Lineage(ctx, lpn)
					if err != nil {
						return nil, nil, err
					}
					return l, l.Raw, nil
				}
				d, err := r.nc.AnimalDetails(ctx, lpn)
				if err != nil {
					return nil, nil, err
				}
				return d, d.Raw, nil
			}, nil
		},
		Prepare: func(_ context.Context, a *Answer) error {
			r.fits.Add(1)
			a.Res = summarize.Result{Text: string(a.Raw), Tokens: len(a.Raw) / 4, OriginalTokens: len(a.Raw) / 4}
			return nil
		},
	}
}

// obtain asks the pool for lpn's details as client "c".
func (r *rig) obtain(ctx context.Context, lpn string) (*Answer, string, error) {
	req := r.request(methodDetails, lpn, "c")
	return r.pool.Obtain(ctx, req.Key, func() Request { return req })
}

// lpnOf is the LPN ID of a details answer.
func lpnOf(t testing.TB, a *Answer) string {
	t.Helper()
	d, ok := a.Value.(*nsip.AnimalDetails)
	if !ok {
		t.Fatalf("answer holds %T, want *nsip.AnimalDetails", a.Value)
	}
	return d.LPNID
}

// waitFor polls cond, for what a goroutine of the code under test does
// in the background with no hook to wait on; it fails t after a minute.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}
