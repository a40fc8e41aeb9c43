package percentile

import (
	"context"
	"math/bits"
	"sync"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/scan"
)

// Percentiles of different traits read different pages, so they are
// computed at once, up to the lookups the Source has under way at once;
// the values of one trait share its pages and are computed one after
// another, in the order asked. The answer is the one computed one value
// at a time: a value starts beside others only when the lookups it can
// take at most, with those the values under way can take, fit within the
// lookups left, so that none of them is refused a lookup it would have
// had one at a time; a value that might not fit waits until every value
// before it is done and then meets the limit exactly as it would have.

// Query is one value whose top_percent is asked.
type Query struct {
	Breed int
	Code  string
	Value float64
}

// pctSched admits values, in order, against the lookups left.
type pctSched struct {
	mu   sync.Mutex
	cond *sync.Cond
	// committed is the lookups taken by the values done, and at most
	// taken by those under way: their bounds.
	committed int
	running   int
	width     int
	// limit is the lookups the values may take in all: the percentiles'
	// own 150, or fewer when the call's ceiling leaves fewer.
	limit  int
	failed bool
	// alone is the value under way alone, if one is: it holds every
	// lookup left until its bound is known (refit).
	alone *pctSlot
}

// pctSlot is one value's hold on the lookups left.
type pctSlot struct {
	reserved int
	bound    func() (int, bool)
}

// searchPercents computes the top_percent of every value in qs by the
// binary search, answered in the order of qs.
func (pc *Finder) searchPercents(ctx context.Context, qs []Query) ([]pctResult, error) {
	out := make([]pctResult, len(qs))
	if len(qs) == 0 {
		return out, nil
	}
	if err := pc.openEvaluation(ctx); err != nil {
		return nil, err
	}
	errs := make([]error, len(qs))
	done := make([]chan struct{}, len(qs))
	prev := make([]int, len(qs)) // the value of the same trait before, or -1
	last := map[[2]any]int{}
	for k, q := range qs {
		key := [2]any{q.Breed, q.Code}
		prev[k] = -1
		if j, ok := last[key]; ok {
			prev[k] = j
		}
		last[key] = k
		done[k] = make(chan struct{})
	}
	pc.mu.Lock()
	limit := Lookups
	if u := pc.r.Src.Upstream(); u.Ceiling > 0 {
		// Values started at once against more lookups than the call has
		// left would each be cut short where, one at a time, the first
		// would have been whole.
		limit = min(limit, pc.Used+max(0, u.Ceiling-u.Lookups))
	}
	s := &pctSched{committed: pc.Used, width: pc.r.Parallel(), limit: limit}
	pc.sched = s
	pc.mu.Unlock()
	s.cond = sync.NewCond(&s.mu)
	defer func() {
		pc.mu.Lock()
		pc.sched = nil
		pc.mu.Unlock()
	}()
	var wg sync.WaitGroup
	for k, q := range qs {
		slot, ok := s.admit(pc.bound(q.Breed, prev[k] < 0))
		if !ok {
			break // a value failed: the call ends with its error
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[k])
			if p := prev[k]; p >= 0 {
				<-done[p]
			}
			r, cost, err := pc.topPercent(ctx, q.Breed, q.Code, q.Value)
			out[k], errs[k] = r, err
			s.finish(slot, cost, err)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// admit waits until the next value may start and returns its hold on
// the lookups left; false once a value has failed. bound is the most it
// can take, known once a page of its breed has been read.
func (s *pctSched) admit(bound func() (int, bool)) (*pctSlot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.failed {
			return nil, false
		}
		if s.running < s.width {
			if b, known := bound(); known && s.committed+b <= s.limit {
				s.committed += b
				s.running++
				return &pctSlot{reserved: b, bound: bound}, true
			}
			if s.running == 0 {
				// Every value before it is done: it meets the limit
				// alone, as it would one value at a time.
				slot := &pctSlot{reserved: max(0, s.limit-s.committed), bound: bound}
				s.committed += slot.reserved
				s.running++
				s.alone = slot
				s.refitLocked()
				return slot, true
			}
		}
		s.cond.Wait()
	}
}

// refit is called when a page shows a breed's size: a value under way
// alone whose bound is now known and fits holds only that, and the values
// after it may start beside it.
func (s *pctSched) refit() {
	s.mu.Lock()
	s.refitLocked()
	s.mu.Unlock()
	s.cond.Broadcast()
}

func (s *pctSched) refitLocked() {
	a := s.alone
	if a == nil {
		return
	}
	if b, known := a.bound(); known && s.committed-a.reserved+b <= s.limit {
		s.committed += b - a.reserved
		a.reserved = b
		s.alone = nil
	}
}

// finish settles a value's hold at what it took.
func (s *pctSched) finish(slot *pctSlot, cost int, err error) {
	s.mu.Lock()
	s.committed += cost - slot.reserved
	s.running--
	if s.alone == slot {
		s.alone = nil
	}
	if err != nil {
		s.failed = true
	}
	s.mu.Unlock()
	s.cond.Broadcast()
}

// bound is the most lookups one value of breed can take: the first of its
// trait reads both ends, searches for where the animals without the EBV
// begin, reads the first and last with it and searches for the value;
// a later value of the trait only searches; each reads the date after.
// A binary search over n pages reads at most bits.Len(n)+1 of them. The
// pages are counted from the largest count of the breed seen, doubled
// against a count that grows during the call.
func (pc *Finder) bound(breed int, first bool) func() (int, bool) {
	return func() (int, bool) {
		pc.mu.Lock()
		n, ok := pc.breedTotal[breed]
		pc.mu.Unlock()
		if !ok {
			return 0, false
		}
		search := bits.Len(uint(2*scan.PagesOf(n))) + 1
		if first {
			return 2 + search + 2 + search + 1, true
		}
		return search + 1, true
	}
}
