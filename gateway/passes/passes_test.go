package passes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
)

const eval = "09/23/2025"

func pass(breed int) *breedpass.BreedPass {
	ids := make([]string, 50)
	for i := range ids {
		ids[i] = fmt.Sprintf("%d%012d", breed, i)
	}
	return &breedpass.BreedPass{Breed: breed, Evaluation: eval, IDs: ids, Sex: make([]uint8, 50), Sexes: []string{"Male"}, Status: make([]uint8, 50),
		Statuses: []string{"CURRENT"}, Born: make([]uint32, 50), Dates: []string{"2/13/2024"}, Geno: make([]uint8, 50), Genotypes: []string{""},
		Sire: make([]uint32, 50), Dam: make([]uint32, 50), Parents: []string{""}, Flock: make([]uint32, 50), Flocks: []string{"640238"},
		Codes: []string{"BWT"}, Values: [][]float64{make([]float64, 50)}}
}

// fakeShared is Redis as the store sees it: records by key, and a count of
// those read but not used.
type fakeShared struct {
	mu      sync.Mutex
	vals    map[string][]byte
	stored  map[string]time.Time
	ttls    map[string]time.Duration
	ignored int
}

func newShared() *fakeShared {
	return &fakeShared{vals: map[string][]byte{}, stored: map[string]time.Time{}, ttls: map[string]time.Duration{}}
}

func (f *fakeShared) Load(_ context.Context, key string, _ time.Time) ([]byte, time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.vals[key]
	return v, f.stored[key], ok
}

func (f *fakeShared) Store(_ context.Context, key string, v []byte, stored time.Time, ttl time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.vals[key], f.stored[key], f.ttls[key] = v, stored, ttl
}

func (f *fakeShared) Ignored() { f.mu.Lock(); f.ignored++; f.mu.Unlock() }

type env struct {
	s      *Store
	shared *fakeShared
	now    time.Time
	logs   *bytes.Buffer
}

func newStore(t *testing.T, maxBytes int64, shared bool) *env {
	e := &env{now: time.Unix(1_700_000_000, 0), logs: &bytes.Buffer{}}
	cfg := Config{MaxBytes: maxBytes, TTL: time.Hour, Now: func() time.Time { return e.now },
		Logger: slog.New(slog.NewTextHandler(e.logs, nil))}
	if shared {
		e.shared = newShared()
		cfg.Shared = e.shared
	}
	e.s = New(cfg)
	t.Cleanup(e.s.Close)
	return e
}

// The passes stay within their bound: the least recently used goes first,
// and one larger than the whole bound is not kept.
func TestStoreEvicts(t *testing.T) {
	size := pass(1).Bytes()
	s := newStore(t, 3*size, false).s
	now := time.Unix(1_700_000_000, 0)
	for b := 1; b <= 3; b++ {
		if !s.put(breedpass.PassKey(b, eval), pass(b), now) {
			t.Fatalf("pass %d not kept", b)
		}
	}
	s.get(breedpass.PassKey(1, eval), now, time.Hour) // 1 is now the most recently used
	s.put(breedpass.PassKey(4, eval), pass(4), now)
	if bytes, n := s.Size(); n != 3 || bytes != 3*size {
		t.Errorf("%d passes of %d bytes, want 3 of %d", n, bytes, 3*size)
	}
	if s.get(breedpass.PassKey(2, eval), now, time.Hour) != nil || s.get(breedpass.PassKey(1, eval), now, time.Hour) == nil {
		t.Error("the least recently used pass (2) was not the one dropped")
	}
	big := pass(5)
	big.Values[0] = make([]float64, 3*size/8) // its values alone take the bound
	if s.put(breedpass.PassKey(5, eval), big, now) {
		t.Error("a pass larger than the bound was kept")
	}
	if _, n := s.Size(); n != 3 {
		t.Errorf("%d passes after refusing one too large, want 3", n)
	}
	if s.Max() != 3*size {
		t.Errorf("Max = %d, want %d", s.Max(), 3*size)
	}
}

// A pass kept is loaded until its TTL passes, then forgotten.
func TestKeptPassExpires(t *testing.T) {
	e := newStore(t, 1<<20, false)
	p := pass(640)
	e.s.Keep(t.Context(), p)
	if got := e.s.Load(t.Context(), 640, eval); got != p {
		t.Fatalf("loaded %v, want the pass kept", got)
	}
	if e.s.Load(t.Context(), 640, "10/01/2025") != nil {
		t.Error("a pass was loaded under another evaluation")
	}
	e.now = e.now.Add(time.Hour + time.Second)
	if e.s.Load(t.Context(), 640, eval) != nil {
		t.Error("a pass older than its TTL was loaded")
	}
	if _, n := e.s.Size(); n != 0 {
		t.Errorf("%d passes kept after the only one expired", n)
	}
}

// A pass kept here is shared; another replica loads it and keeps it, and
// a record that is not the pass asked for is counted and not used.
func TestPassesSharedThroughRedis(t *testing.T) {
	a := newStore(t, 1<<20, true)
	p := pass(640)
	a.s.Keep(t.Context(), p)
	key := breedpass.PassKey(640, eval)
	if a.shared.ttls[key] != time.Hour || !a.shared.stored[key].Equal(a.now) {
		t.Fatalf("shared for %v at %v, want an hour from %v", a.shared.ttls[key], a.shared.stored[key], a.now)
	}
	b := newStore(t, 1<<20, false)
	b.s.cfg.Shared = a.shared
	got := b.s.Load(t.Context(), 640, eval)
	if got == nil || got.Animals() != p.Animals() || got.Breed != 640 {
		t.Fatalf("replica B loaded %v, want the pass A shared", got)
	}
	if _, n := b.s.Size(); n != 1 {
		t.Errorf("replica B keeps %d passes after loading one, want 1", n)
	}
	if b.s.Load(t.Context(), 641, eval) != nil {
		t.Error("a pass was loaded for a breed nobody shared")
	}
	// A record under the key of another pass, and a record that is not one.
	a.shared.vals[breedpass.PassKey(700, eval)] = a.shared.vals[key]
	a.shared.stored[breedpass.PassKey(700, eval)] = a.now
	a.shared.vals[breedpass.PassKey(701, eval)] = []byte("not a pass")
	a.shared.stored[breedpass.PassKey(701, eval)] = a.now
	if b.s.Load(t.Context(), 700, eval) != nil || b.s.Load(t.Context(), 701, eval) != nil {
		t.Error("a record that is not the pass asked for was used")
	}
	if a.shared.ignored != 2 {
		t.Errorf("%d records counted as ignored, want 2", a.shared.ignored)
	}
	// A shared record older than the TTL is not used.
	b2 := newStore(t, 1<<20, false)
	b2.s.cfg.Shared = a.shared
	b2.now = a.now.Add(2 * time.Hour)
	if b2.s.Load(t.Context(), 640, eval) != nil {
		t.Error("a shared pass older than its TTL was loaded")
	}
}

// A pass larger than the whole bound is named in the log, and neither kept
// nor shared.
func TestTooLargeIsLoggedNotShared(t *testing.T) {
	e := newStore(t, 10, true)
	e.s.Keep(t.Context(), pass(640))
	if len(e.shared.vals) != 0 {
		t.Error("a pass not kept was shared")
	}
	if log := e.logs.String(); !strings.Contains(log, "breed pass not kept: larger than the passes may hold") || !strings.Contains(log, "limit_bytes=10") {
		t.Errorf("log %q does not name the pass refused and the bound", log)
	}
}

// A pass is read once at a time; Close ends the reads under way, waits for
// them and starts no more.
func TestFillEndsOnClose(t *testing.T) {
	s := newStore(t, 1<<20, false).s
	started, ended := make(chan struct{}), make(chan error, 4)
	read := func(ctx context.Context, _ *Fill) (Summary, error) {
		started <- struct{}{}
		<-ctx.Done()
		ended <- ctx.Err()
		return Summary{}, ctx.Err()
	}
	if _, ok := s.Fill("a", read); !ok {
		t.Fatal("the first read of a was not started")
	}
	<-started
	if _, ok := s.Fill("a", read); ok {
		t.Error("a second read of a pass being read was started")
	}
	s.Close()
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the read ended with %v, want it cancelled", err)
		}
	default:
		t.Fatal("Close returned with a read still under way")
	}
	if _, ok := s.Fill("b", read); ok {
		t.Error("a read was started after Close")
	}
	if len(ended) != 0 {
		t.Errorf("%d more reads ended, want none", len(ended))
	}
}

// Once a read has ended it is no longer marked as under way, and its
// context had a deadline (FillTime).
func TestFillForgetsTheReadWhenItEnds(t *testing.T) {
	s := newStore(t, 1<<20, false).s
	done := make(chan struct{})
	var deadline bool
	if _, ok := s.Fill("a", func(ctx context.Context, _ *Fill) (Summary, error) {
		_, deadline = ctx.Deadline()
		close(done)
		return Summary{}, nil
	}); !ok {
		t.Fatal("read not started")
	}
	<-done
	if !deadline {
		t.Error("a background read has no deadline")
	}
	s.Close() // waits for the first read's goroutine to be done
	s.mu.Lock()
	filling := len(s.filling)
	s.mu.Unlock()
	if filling != 0 {
		t.Errorf("%d reads still marked as under way after they ended", filling)
	}
}

// A pass whose read was not kept is not read again for RefuseTime, and
// Why says so; only one pass is read at a time.
func TestFillRefusedAndOneAtATime(t *testing.T) {
	e := newStore(t, 1<<20, false)
	s := e.s
	s.Refuse("a", "NSIP's count changed between pages")
	if _, ok := s.Fill("a", func(context.Context, *Fill) (Summary, error) {
		t.Error("a refused pass was read")
		return Summary{}, nil
	}); ok {
		t.Fatal("a refused pass was started")
	}
	if why := s.Why("a"); why != "its last read was not kept (NSIP's count changed between pages)" {
		t.Errorf("Why = %q", why)
	}
	e.now = e.now.Add(RefuseTime + time.Second)
	if why := s.Why("a"); why != "" {
		t.Errorf("after RefuseTime, Why = %q, want none", why)
	}
	release := make(chan struct{})
	if _, ok := s.Fill("a", func(context.Context, *Fill) (Summary, error) { <-release; return Summary{}, nil }); !ok {
		t.Fatal("the pass was not read once its refusal had passed")
	}
	if _, ok := s.Fill("b", func(context.Context, *Fill) (Summary, error) {
		t.Error("a second pass was read at once")
		return Summary{}, nil
	}); ok {
		t.Error("a second pass's read started beside the first")
	}
	if why := s.Why("b"); !strings.Contains(why, "one at a time") {
		t.Errorf("Why(b) = %q", why)
	}
	if why := s.Why("a"); why != "" {
		t.Errorf("Why(a) while it is read = %q, want none", why)
	}
	close(release)
}

// Ended hears of a read's end once the store has recorded it: what the
// store says of the pass then (Why, Filling, the Fill's result) is how the
// read ended, not that it is under way; and Close returns after it.
func TestEndedHearsOfTheRecordedEnd(t *testing.T) {
	type heard struct {
		key, why string
		filling  bool
		err      error
	}
	var s *Store
	ends := make(chan heard, 2)
	fills := map[string]*Fill{}
	var mu sync.Mutex
	s = New(Config{MaxBytes: 1 << 20, TTL: time.Hour, Now: time.Now, Logger: slog.New(slog.DiscardHandler),
		Ended: func(key string) {
			mu.Lock()
			f := fills[key]
			mu.Unlock()
			_, err := f.Result()
			ends <- heard{key: key, why: s.Why(key), filling: s.Filling(key) != nil, err: err}
		}})
	tooBig := errors.New("the pages came to more than a pass may hold")
	mu.Lock()
	f, ok := s.Fill("a", func(context.Context, *Fill) (Summary, error) {
		s.Refuse("a", tooBig.Error())
		return Summary{}, tooBig
	})
	fills["a"] = f
	mu.Unlock()
	if !ok {
		t.Fatal("read not started")
	}
	h := <-ends
	if h.key != "a" || h.filling || !strings.Contains(h.why, tooBig.Error()) || !errors.Is(h.err, tooBig) {
		t.Errorf("heard %+v; want the read of a ended, refused for its size, and no longer under way", h)
	}
	release := make(chan struct{})
	mu.Lock()
	fills["b"], _ = s.Fill("b", func(ctx context.Context, _ *Fill) (Summary, error) {
		close(release)
		<-ctx.Done()
		return Summary{}, ctx.Err()
	})
	mu.Unlock()
	<-release
	s.Close()
	select {
	case h := <-ends:
		if h.key != "b" || h.filling || h.err == nil {
			t.Errorf("heard %+v at Close; want the read of b ended with an error", h)
		}
	default:
		t.Error("Close returned before Ended heard of the read it ended")
	}
}
