package cache

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Defaults for RedisConfig's zero fields.
const (
	DefaultRedisPrefix     = "nsip-mcp:"
	DefaultRedisOpTimeout  = 250 * time.Millisecond
	DefaultRedisRetryEvery = time.Second
	// DefaultRedisSlowAfter is the slow mark: a round trip slower than
	// this, SlowRoundTrips of the last RedisWindow, marks Redis slow. A
	// miss makes three round trips, so a Redis at the mark adds 150 ms to
	// each.
	DefaultRedisSlowAfter = 50 * time.Millisecond
	// RedisWindow is how many of the latest round trips Redis is judged
	// on: one slow or unanswered reply among quick ones is a stray, not a
	// state.
	RedisWindow = 8
	// SlowRoundTrips is how many of the window's round trips, slower than
	// the slow mark, mark Redis slow: more than half.
	SlowRoundTrips = 5
	// TimeoutsToDown is how many of the window's commands, unanswered
	// within the command limit, mark Redis down. A stalled Redis costs two
	// waits of OpTimeout before the replica goes on alone; one late reply
	// followed by answers in time costs that call, not the shared state.
	TimeoutsToDown = 2

	// MinRedisSecret is the shortest secret NewRedis accepts, in bytes:
	// 32 random bytes, or the 64 hex digits of openssl rand -hex 32.
	MinRedisSecret = 32

	// MaxClockSkew is how far ahead of the reader's clock a record's store
	// time may be and still be served. Replicas' clocks differ a little;
	// beyond this a record would look fresh for longer than its TTL (with
	// a store time far ahead, forever in the local tier that takes it in),
	// so it is refused instead, and counted.
	MaxClockSkew = 10 * time.Second
)

// RedisConfig says where the shared tier lives and how patient to be with it.
type RedisConfig struct {
	URL        string        // redis:// or rediss://, with password and database as needed
	Prefix     string        // namespace of every key this process writes
	OpTimeout  time.Duration // limit for one command; a slower Redis counts as down
	RetryEvery time.Duration // while Redis is down, how often one call tries it again
	// SlowAfter is the slow mark (DefaultRedisSlowAfter when zero): Redis
	// answering slower than this is treated as down, since waiting on it
	// would slow every miss more than going on alone does.
	SlowAfter time.Duration
	Logger    *slog.Logger

	// Secret keys the MAC on every record, so that only a holder of it can
	// write a record a replica will serve. Every replica sharing the Redis
	// needs the same one; at least MinRedisSecret bytes.
	Secret []byte
}

// ErrRedisDown is returned, wrapped with the reason, by Do while Redis is
// considered down and not yet due for another try.
var ErrRedisDown = errors.New("redis unavailable")

// Redis is the connection replicas share, with the health bookkeeping every
// use of it goes through: a failed or slow command marks Redis down, after
// which commands are skipped (callers fall back to what they have locally)
// except for one try every RetryEvery, and the first success marks it up
// again. Each change of state is logged once.
type Redis struct {
	client     *redis.Client
	prefix     string
	opTimeout  time.Duration
	retryEvery time.Duration
	slowAfter  time.Duration
	log        *slog.Logger

	mu      sync.Mutex
	down    bool
	state   string // RedisUp, RedisSlow, RedisRefusingWrites or RedisDown
	reason  string
	since   time.Time
	nextTry time.Time

	roundTrips atomic.Uint64 // commands and pipelines sent, each one round trip
	lastRTT    atomic.Int64  // nanoseconds of the latest round trip
	window     window        // how the latest round trips went

	refusedMu sync.Mutex
	refused   map[string]string // control values refused, by key: why; cleared by the next good read
	nRefused  atomic.Int64      // len(refused), read without the lock on every good read
	bounds    atomic.Uint64     // control values past a local bound (a pause, the breaker's cooldown, the rate's period)

	secret []byte

	corrupt atomic.Uint64 // values not served, for any of the reasons below or a reader's
	unauth  atomic.Uint64 // values without a valid MAC: foreign, damaged, forged, other secret
	future  atomic.Uint64 // authentic records stamped more than MaxClockSkew ahead

	watchMu  sync.Mutex
	watchers []func(up bool)
}

// Watch calls f with the new state each time Redis goes down or comes back.
// f runs on the goroutine of the command that noticed, and must be quick.
func (r *Redis) Watch(f func(up bool)) {
	r.watchMu.Lock()
	defer r.watchMu.Unlock()
	r.watchers = append(r.watchers, f)
}

func (r *Redis) notify(up bool) {
	r.watchMu.Lock()
	defer r.watchMu.Unlock()
	for _, f := range r.watchers {
		f(up)
	}
}

// NewRedis parses cfg.URL and prepares a client; it does not connect, so a
// Redis that is down at start is just the first state change.
func NewRedis(cfg RedisConfig) (*Redis, error) {
	opts, err := parseRedisURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if len(cfg.Secret) < MinRedisSecret {
		// The length only: a secret is never printed.
		return nil, fmt.Errorf("cache: the Redis secret has %d bytes, want at least %d (e.g. the output of openssl rand -hex 32), the same on every replica",
			len(cfg.Secret), MinRedisSecret)
	}
	if cfg.Prefix == "" {
		cfg.Prefix = DefaultRedisPrefix
	}
	if cfg.OpTimeout <= 0 {
		cfg.OpTimeout = DefaultRedisOpTimeout
	}
	if cfg.RetryEvery <= 0 {
		cfg.RetryEvery = DefaultRedisRetryEvery
	}
	if cfg.SlowAfter <= 0 {
		cfg.SlowAfter = DefaultRedisSlowAfter
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	// One retry, for a pooled connection that died while Redis was away;
	// more retries and dials would only make a failing call slower, and the
	// caller has a local answer to fall back to.
	opts.MaxRetries = 1
	opts.DialerRetries = 1
	opts.DialTimeout = cfg.OpTimeout
	opts.ReadTimeout = cfg.OpTimeout
	opts.WriteTimeout = cfg.OpTimeout
	opts.PoolTimeout = cfg.OpTimeout
	opts.ContextTimeoutEnabled = true
	opts.DisableIdentity = true
	// go-redis logs its own dial failures; the state changes above say
	// what matters, so its lines go to the debug level.
	redis.SetLogger(redisLogger{cfg.Logger})
	r := &Redis{
		client: redis.NewClient(opts), prefix: cfg.Prefix,
		opTimeout: cfg.OpTimeout, retryEvery: cfg.RetryEvery, slowAfter: cfg.SlowAfter, log: cfg.Logger,
		state: RedisUp, since: time.Now(), secret: bytes.Clone(cfg.Secret),
	}
	r.client.AddHook(roundTripHook{r})
	return r, nil
}

// The states of RedisStatus.State. Every one but RedisUp has the replica
// go on alone, as Up false says.
const (
	RedisUp             = "up"
	RedisSlow           = "slow"            // answering, but slower than the slow mark
	RedisRefusingWrites = "refusing_writes" // reads answered, writes refused (out of memory, read-only, disk errors)
	RedisDown           = "down"            // errors or no answer
)

// AddHook adds a go-redis hook to the client, for instance to count the
// commands a test sends.
func (r *Redis) AddHook(h redis.Hook) { r.client.AddHook(h) }

// roundTripHook times every command and pipeline the client sends.
type roundTripHook struct{ r *Redis }

func (roundTripHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h roundTripHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmd)
		h.r.observe(time.Since(start), err)
		return err
	}
}

func (h roundTripHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmds)
		h.r.observe(time.Since(start), err)
		return err
	}
}

// observe counts one round trip of d that ended in err, and whether it
// was slow. A round trip cut by a deadline is left to do, which knows
// whether the command's limit or its caller's ended it.
func (r *Redis) observe(d time.Duration, err error) {
	r.roundTrips.Add(1)
	r.lastRTT.Store(int64(d))
	if isTimeout(err) {
		return
	}
	if d > r.slowAfter {
		r.window.add(outcomeSlow)
	} else {
		r.window.add(outcomeQuick)
	}
}

// isTimeout reports whether err is a command cut short by a deadline,
// the command's limit or its caller's.
func isTimeout(err error) bool {
	if err == nil {
		return false
	}
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// The outcomes a window records.
const (
	outcomeQuick uint8 = iota + 1
	outcomeSlow
	outcomeTimeout
)

// window holds the outcomes of the latest RedisWindow round trips.
type window struct {
	mu   sync.Mutex
	ring [RedisWindow]uint8
	next int
}

func (w *window) add(o uint8) {
	w.mu.Lock()
	w.ring[w.next] = o
	w.next = (w.next + 1) % RedisWindow
	w.mu.Unlock()
}

// counts are the window's slow round trips and timeouts.
func (w *window) counts() (slow, timeouts int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, o := range w.ring {
		switch o {
		case outcomeSlow:
			slow++
		case outcomeTimeout:
			timeouts++
		}
	}
	return slow, timeouts
}

// reset forgets the window, when Redis comes back: what it did before it
// went away is not held against it.
func (w *window) reset() {
	w.mu.Lock()
	w.ring = [RedisWindow]uint8{}
	w.mu.Unlock()
}

// CheckRedisURL reports whether u is a Redis URL NewRedis accepts:
// redis:// or rediss:// (TLS), with optional user, password and database,
// e.g. redis://:secret@redis:6379/0.
func CheckRedisURL(u string) error {
	_, err := parseRedisURL(u)
	return err
}

func parseRedisURL(u string) (*redis.Options, error) {
	if !strings.HasPrefix(u, "redis://") && !strings.HasPrefix(u, "rediss://") {
		return nil, errors.New("cache: the Redis URL must start with redis:// or rediss://")
	}
	opts, err := redis.ParseURL(u)
	if err != nil {
		return nil, fmt.Errorf("cache: Redis URL: %w", err)
	}
	return opts, nil
}

// Close closes the connections.
func (r *Redis) Close() error { return r.client.Close() }

// Key is name inside this process's namespace.
func (r *Redis) Key(name string) string { return r.prefix + name }

// Do runs op against Redis within OpTimeout, unless Redis is down and not
// due for a try, in which case it returns an error wrapping ErrRedisDown
// at once. redis.Nil is a success (Redis answered). An error caused by
// ctx ending does not change the state: the caller gave up, Redis did not.
//
// Redis is judged on its latest RedisWindow round trips, not on one:
// SlowRoundTrips of them slower than the slow mark mark it slow, and
// TimeoutsToDown commands unanswered within OpTimeout mark it down; a
// late reply among replies in time fails only its own command. A write
// refused (out of memory, read-only, a failing disk) marks it refusing
// writes, which only a write that succeeds (Write) clears: reads
// answering do not make it a place to share through. Any other error
// marks it down at once.
func (r *Redis) Do(ctx context.Context, op func(ctx context.Context, c *redis.Client) error) error {
	return r.do(ctx, false, false, op)
}

// Write is Do for an op that writes: its success shows Redis takes writes
// again.
func (r *Redis) Write(ctx context.Context, op func(ctx context.Context, c *redis.Client) error) error {
	return r.do(ctx, true, false, op)
}

// Limit is Write for the shared rate limit, NSIP's pauses and this
// replica's breaker news, which go on while Redis is slow: a slow answer
// keeps the replicas to one limit, where the local share would make each
// wait Replicas times as long. The cache (and the breaker news read with
// it) waits on Redis for no one while it is slow.
func (r *Redis) Limit(ctx context.Context, op func(ctx context.Context, c *redis.Client) error) error {
	return r.do(ctx, true, true, op)
}

func (r *Redis) do(ctx context.Context, write, limit bool, op func(ctx context.Context, c *redis.Client) error) error {
	if err := r.admit(limit); err != nil {
		return err
	}
	octx, cancel := context.WithTimeout(ctx, r.opTimeout)
	defer cancel()
	err := op(octx, r.client)
	answered := err == nil || errors.Is(err, redis.Nil)
	switch slow, _ := r.window.counts(); {
	case answered && slow >= SlowRoundTrips:
		r.markState(RedisSlow, fmt.Sprintf("%d of the last %d round trips over the %s slow mark, the latest %s",
			slow, RedisWindow, r.slowAfter, time.Duration(r.lastRTT.Load()).Round(time.Millisecond)))
	case answered:
		r.markUp(write)
	case ctx.Err() != nil:
	case isTimeout(err):
		r.window.add(outcomeTimeout)
		if _, timeouts := r.window.counts(); timeouts >= TimeoutsToDown {
			r.markState(RedisDown, fmt.Sprintf("%d of the last %d commands unanswered within %s: %v", timeouts, RedisWindow, r.opTimeout, err))
		}
	case refusesWrites(err):
		r.markState(RedisRefusingWrites, err.Error())
	default:
		r.markState(RedisDown, err.Error())
	}
	return err
}

// refusesWrites reports whether err is Redis refusing a write while it
// still answers: out of memory under noeviction, a read-only replica, a
// failing disk, too few replicas.
func refusesWrites(err error) bool {
	msg := err.Error()
	for _, p := range []string{"OOM ", "READONLY ", "MISCONF ", "NOREPLICAS "} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// admit lets a command through while Redis is up, a command of the
// shared limit while it is slow, and one command per RetryEvery while it
// is down.
func (r *Redis) admit(limit bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.down || limit && r.state == RedisSlow {
		return nil
	}
	now := time.Now()
	if now.Before(r.nextTry) {
		return fmt.Errorf("%w: %s", ErrRedisDown, r.reason)
	}
	r.nextTry = now.Add(r.retryEvery)
	return nil
}

func (r *Redis) markUp(write bool) {
	r.mu.Lock()
	if !r.down || (r.state == RedisRefusingWrites && !write) {
		r.mu.Unlock()
		return
	}
	wasSlow := r.state == RedisSlow
	r.down, r.state, r.reason, r.since = false, RedisUp, "", time.Now()
	r.mu.Unlock()
	if !wasSlow {
		r.window.reset()
	}
	r.log.Warn("redis reachable again: sharing cache, rate limit and breaker with other replicas")
	r.notify(true)
}

func (r *Redis) markState(state, reason string) {
	r.mu.Lock()
	r.nextTry = time.Now().Add(r.retryEvery)
	if r.down {
		was := r.state
		// Still down, perhaps for another reason: reported, not logged
		// again. Watchers hear of a change to or from slow, which keeps
		// the shared limit where the other states do not.
		r.state, r.reason = state, reason
		r.mu.Unlock()
		if was != state && (was == RedisSlow || state == RedisSlow) {
			r.notify(false)
		}
		return
	}
	r.down, r.state, r.reason, r.since = true, state, reason, time.Now()
	r.mu.Unlock()
	defer r.notify(false)
	msg := "redis unavailable: using the local cache and a local share of the rate limit until it answers again"
	if state == RedisSlow {
		msg = "redis unavailable for the cache, answering slowly: using the local cache until it is quick again; the rate limit stays shared"
	}
	r.log.Warn(msg, slog.String("state", state), slog.String("error", reason), slog.String("retry_every", r.retryEvery.String()))
}

// RedisStatus is the shared tier's state, for health reports.
type RedisStatus struct {
	Up    bool   `json:"up"`
	State string `json:"state"` // up, slow, refusing_writes or down
	// SharesLimit: the replicas' rate limit, NSIP's pauses and the
	// breaker's news still go through Redis (up, or slow but answering).
	SharesLimit   bool      `json:"shares_limit"`
	Reason        string    `json:"reason,omitempty"` // the error that marked it down
	RoundTrips    uint64    `json:"round_trips"`      // commands and pipelines sent
	LastRoundTrip float64   `json:"last_round_trip_ms"`
	Since         time.Time `json:"since"`          // when the state last changed
	IgnoredValues uint64    `json:"ignored_values"` // values not served, all reasons together
	// Of those, values without a valid MAC (not ours, damaged, forged, or
	// written with another secret) and records stamped in the future.
	UnauthenticatedValues uint64 `json:"unauthenticated_values"`
	FutureValues          uint64 `json:"future_values"`
	// OutOfBoundValues are authentic control values past a local bound
	// (NSIP_MAX_PAUSE, the breaker's cooldown, the rate's period), or a
	// rate state no replica could have written; Refused says which keys
	// hold a value refused at their latest read, and why.
	OutOfBoundValues uint64   `json:"out_of_bound_values"`
	Refused          []string `json:"refused,omitempty"`
}

// Status reports whether Redis is considered up.
func (r *Redis) Status() RedisStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return RedisStatus{
		Up: !r.down, State: r.state, SharesLimit: !r.down || r.state == RedisSlow,
		Reason: r.reason, Since: r.since.UTC(), IgnoredValues: r.corrupt.Load(),
		RoundTrips: r.roundTrips.Load(), LastRoundTrip: float64(time.Duration(r.lastRTT.Load()).Microseconds()) / 1000,
		UnauthenticatedValues: r.unauth.Load(), FutureValues: r.future.Load(),
		OutOfBoundValues: r.bounds.Load(), Refused: r.refusedNow(),
	}
}

// Ping asks Redis whether it is there and takes writes, even while it is
// considered down and not due for a try, and updates the state with the
// answer: it writes a short-lived key, as a PING would pass on a Redis
// that refuses every write.
func (r *Redis) Ping(ctx context.Context) error {
	r.mu.Lock()
	r.nextTry = time.Time{}
	r.mu.Unlock()
	return r.Write(ctx, func(ctx context.Context, c *redis.Client) error {
		return c.Set(ctx, r.prefix+"probe", "1", 10*time.Second).Err()
	})
}

// Stored values are framed as magic, store time (unix nanoseconds) and an
// HMAC-SHA256, keyed with the replicas' secret, over the Redis key, magic,
// store time and value. Anyone who can write to Redis can compute a
// checksum; only a replica can compute the MAC, so a value written by
// anything else, moved to another key, or damaged is recognised and
// ignored rather than served.
const (
	frameMagic  = "nsc2"
	frameMAC    = len(frameMagic) + 8 // where the MAC starts
	frameHeader = frameMAC + sha256.Size
)

// Load returns the value stored under key with when it was stored. A value
// that is missing, foreign, damaged or without a valid MAC, one stamped
// more than MaxClockSkew after now (the caller's clock, which judges the
// record's age too), or Redis being unavailable, are all a miss: the
// caller fetches and Store overwrites what was there.
func (r *Redis) Load(ctx context.Context, key string, now time.Time) (value []byte, stored time.Time, ok bool) {
	rkey := r.RecordKey(key)
	var b []byte
	err := r.Do(ctx, func(ctx context.Context, c *redis.Client) error {
		var err error
		b, err = c.Get(ctx, rkey).Bytes()
		if err != nil && strings.HasPrefix(err.Error(), "WRONGTYPE") {
			b, err = nil, redis.Nil // something else lives there; Store replaces it
			r.corrupt.Add(1)
		}
		return err
	})
	if err != nil {
		return nil, time.Time{}, false
	}
	return r.Open(key, b, now)
}

// RecordKey is the Redis key of the record Load and Store keep under key,
// for callers that read or write it in a script of their own.
func (r *Redis) RecordKey(key string) string { return r.prefix + "c:" + key }

// Open checks b, read from RecordKey(key), as Load does, and counts what
// it refuses.
func (r *Redis) Open(key string, b []byte, now time.Time) (value []byte, stored time.Time, ok bool) {
	return r.OpenAt(r.RecordKey(key), b, now)
}

// OpenAt is Open for a value read from the Redis key rkey itself, prefix
// included: a control value (a pause, the breaker's news) sealed with
// SealAt.
func (r *Redis) OpenAt(rkey string, b []byte, now time.Time) (value []byte, stored time.Time, ok bool) {
	value, stored, ok = r.unframe(rkey, b)
	switch {
	case !ok:
		r.unauth.Add(1)
	case stored.After(now.Add(MaxClockSkew)):
		r.future.Add(1)
	default:
		return value, stored, true
	}
	r.corrupt.Add(1)
	return nil, time.Time{}, false
}

// Ignored counts a value that unframed cleanly but that its reader could not
// use (for instance one written by a build with other data shapes).
func (r *Redis) Ignored() { r.corrupt.Add(1) }

// Store writes value under key, stamped with stored, to expire after ttl.
// Failures are only recorded in the state: the shared tier is best effort.
func (r *Redis) Store(ctx context.Context, key string, value []byte, stored time.Time, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	rkey, b := r.RecordKey(key), r.Seal(key, value, stored)
	_ = r.Write(ctx, func(ctx context.Context, c *redis.Client) error {
		return c.Set(ctx, rkey, b, ttl).Err()
	})
}

// Seal frames value for RecordKey(key), stamped with stored, as Store
// writes it.
func (r *Redis) Seal(key string, value []byte, stored time.Time) []byte {
	return r.SealAt(r.RecordKey(key), value, stored)
}

// SealAt frames value for the Redis key rkey itself, prefix included, as
// Seal does a record: control values carry the records' MAC, so that only
// a replica can pause the others or open their breakers.
func (r *Redis) SealAt(rkey string, value []byte, stored time.Time) []byte {
	b := make([]byte, frameHeader, frameHeader+len(value))
	copy(b, frameMagic)
	binary.BigEndian.PutUint64(b[len(frameMagic):], uint64(stored.UnixNano()))
	copy(b[frameMAC:], r.mac(rkey, b[:frameMAC], value).Sum(nil))
	return append(b, value...)
}

// Refuse records that the control value at rkey was not believed, and why
// (without the value, which may be anything): /readyz reports the replica
// degraded while the key holds it. outOfBound counts it among the
// authentic values past a local bound; OpenAt has counted the others.
func (r *Redis) Refuse(rkey, why string, outOfBound bool) {
	if outOfBound {
		r.bounds.Add(1)
		r.corrupt.Add(1)
	}
	r.refusedMu.Lock()
	defer r.refusedMu.Unlock()
	if r.refused == nil {
		r.refused = make(map[string]string)
	}
	if _, was := r.refused[rkey]; !was {
		r.log.Warn("redis holds a control value this replica does not believe; ignoring it",
			slog.String("key", rkey), slog.String("why", why))
	}
	r.refused[rkey] = why
	r.nRefused.Store(int64(len(r.refused)))
}

// Accept records that the latest read of rkey found nothing to refuse.
func (r *Redis) Accept(rkey string) {
	if r.nRefused.Load() == 0 {
		return
	}
	r.refusedMu.Lock()
	defer r.refusedMu.Unlock()
	delete(r.refused, rkey)
	r.nRefused.Store(int64(len(r.refused)))
}

// refusedNow lists the keys whose latest read was refused, with why.
func (r *Redis) refusedNow() []string {
	if r.nRefused.Load() == 0 {
		return nil
	}
	r.refusedMu.Lock()
	defer r.refusedMu.Unlock()
	out := make([]string, 0, len(r.refused))
	for k, why := range r.refused {
		out = append(out, strings.TrimPrefix(k, r.prefix)+": "+why)
	}
	slices.Sort(out)
	return out
}

// mac is the keyed hash of a record at rkey with header head, ready to Sum.
// The key goes first, length-prefixed, so that a record copied to another
// key does not verify there.
func (r *Redis) mac(rkey string, head, value []byte) hash.Hash {
	h := hmac.New(sha256.New, r.secret)
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(rkey)))
	h.Write(n[:])
	_, _ = io.WriteString(h, rkey)
	h.Write(head)
	h.Write(value)
	return h
}

// unframe checks b, read from rkey, and returns its value and store time.
func (r *Redis) unframe(rkey string, b []byte) ([]byte, time.Time, bool) {
	if len(b) < frameHeader || string(b[:len(frameMagic)]) != frameMagic {
		return nil, time.Time{}, false
	}
	value := b[frameHeader:]
	sum := r.mac(rkey, b[:frameMAC], value).Sum(make([]byte, 0, sha256.Size))
	if !hmac.Equal(sum, b[frameMAC:frameHeader]) {
		return nil, time.Time{}, false
	}
	return value, time.Unix(0, int64(binary.BigEndian.Uint64(b[len(frameMagic):]))), true
}

// redisLogger hands go-redis's internal log lines to slog.
type redisLogger struct{ log *slog.Logger }

func (l redisLogger) Printf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, "redis client: "+fmt.Sprintf(format, v...))
}
