package main

import (
	"context"
	"math"
	"time"
)

// Open loop (--rate): calls are due at fixed times, whatever the server's
// answers do. Closed-loop sessions send their next call only after the
// previous answer, so a slower server is offered fewer calls; with a fixed
// schedule two servers compared side by side are offered the same calls,
// and a server that cannot keep up shows as calls missed rather than as a
// lower rate that hides in the averages.
//
// Call k of the run is due at k/rate from its start and belongs to session
// k mod n, so session i's j-th call is due at (j*n + i)/rate: the sessions
// take turns and the calls are spread evenly over time. A session whose
// previous call is still outstanding when the next is due does not queue
// it (a queue would only move the wait into nsip-load and bunch the calls
// up afterwards): the call is counted as missed and the session waits for
// its next due time after the answer.

// openSchedule is one session's due times, as offsets from the run's start.
type openSchedule struct {
	session, sessions int64
	rate              float64       // calls per second across the sessions
	end               time.Duration // calls due at or after end are not offered
}

// scheduleFor is session i's schedule among n sharing rate calls per
// second over a run of length end.
func scheduleFor(i, n int, rate float64, end time.Duration) openSchedule {
	return openSchedule{session: int64(i), sessions: int64(n), rate: rate, end: end}
}

// at is when call j is due: the run's call j*n+i, computed from that index
// rather than by adding a rounded period, so that n sessions at rate R over
// D seconds offer R*D calls, not one more.
func (s openSchedule) at(j int64) time.Duration {
	return time.Duration(float64(j*s.sessions+s.session) / s.rate * float64(time.Second))
}

// from is the first call due at or after t.
func (s openSchedule) from(t time.Duration) int64 {
	j := max(int64(math.Ceil((t.Seconds()*s.rate-float64(s.session))/float64(s.sessions))), 0)
	// The float estimate may be one off either way.
	for j > 0 && s.at(j-1) >= t {
		j--
	}
	for s.at(j) < t {
		j++
	}
	return j
}

// offered is how many calls the schedule holds before its end.
func (s openSchedule) offered() int64 { return s.from(s.end) }

// runClock is what the schedule needs of time: the offset from the run's
// start, and a wait until an offset that gives up when ctx ends. Tests
// drive it by hand.
type runClock interface {
	since() time.Duration
	waitUntil(ctx context.Context, at time.Duration) bool
}

type wallClock struct{ start time.Time }

func (c wallClock) since() time.Duration { return time.Since(c.start) }

func (c wallClock) waitUntil(ctx context.Context, at time.Duration) bool {
	if d := at - c.since(); d > 0 {
		return pause(ctx, d)
	}
	return ctx.Err() == nil
}

// openCounts is what one session's schedule came to.
type openCounts struct {
	offered int64 // calls due before the end: sent plus missed
	sent    int64
	missed  int64 // due while the session's previous call was outstanding
}

// runOpen follows the schedule: it waits for each due time and makes the
// call, until the schedule ends, ctx ends (the run's time is up, and the
// calls still due count as missed) or call
// says to stop (the plan, the budget or the session ended); made is whether
// it sent the call. Calls that fell due while one was outstanding are
// missed, up to the schedule's end.
func runOpen(ctx context.Context, s openSchedule, clk runClock, call func() (made, more bool)) openCounts {
	var n openCounts
	for j := int64(0); ; {
		due := s.at(j)
		if due >= s.end {
			return n
		}
		if !clk.waitUntil(ctx, due) {
			// The run's time ran out (a late timer on a busy machine)
			// before calls that were due: offered, and missed.
			rest := s.offered() - j
			n.offered += rest
			n.missed += rest
			return n
		}
		made, more := call()
		if made {
			n.offered++
			n.sent++
		}
		if !more {
			return n
		}
		next := max(s.from(clk.since()), j+1)
		if skipped := min(next, s.offered()) - (j + 1); skipped > 0 {
			n.offered += skipped
			n.missed += skipped
		}
		j = next
	}
}
