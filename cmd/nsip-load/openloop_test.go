package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeClock is moved by hand: waiting jumps to the due time, and each call
// takes the latency the test gives it. deadline, when set, is when the
// run's time runs out.
type fakeClock struct {
	now      time.Duration
	deadline time.Duration
}

func (c *fakeClock) since() time.Duration { return c.now }

func (c *fakeClock) waitUntil(_ context.Context, at time.Duration) bool {
	at = max(at, c.now)
	if c.deadline > 0 && at >= c.deadline {
		c.now = c.deadline
		return false
	}
	c.now = at
	return true
}

// drive runs the schedule with calls taking lat[k] (10 ms past the list),
// and returns the counts and when each call was sent.
func (c *fakeClock) drive(s openSchedule, lat ...time.Duration) (openCounts, []time.Duration) {
	var sent []time.Duration
	n := runOpen(context.Background(), s, c, func() (bool, bool) {
		sent = append(sent, c.now)
		d := 10 * time.Millisecond
		if k := len(sent) - 1; k < len(lat) {
			d = lat[k]
		}
		c.now += d
		return true, true
	})
	return n, sent
}

func msList(n ...int) []time.Duration {
	out := make([]time.Duration, len(n))
	for i, v := range n {
		out[i] = time.Duration(v) * time.Millisecond
	}
	return out
}

var tenCallsASecond = scheduleFor(0, 1, 10, time.Second)

func TestOpenScheduleSpreadsTheRateOverTheSessions(t *testing.T) {
	type due struct {
		at      time.Duration
		session int
	}
	var all []due
	var total int64
	for i := range 3 {
		s := scheduleFor(i, 3, 30, time.Second)
		total += s.offered()
		for j := range s.offered() {
			all = append(all, due{s.at(j), i})
		}
	}
	if total != 30 {
		t.Fatalf("3 sessions at 30 calls/s over 1 s offer %d calls, want 30", total)
	}
	slices.SortFunc(all, func(a, b due) int { return int(a.at - b.at) })
	for k, d := range all {
		if d.session != k%3 {
			t.Fatalf("call %d at %s belongs to session %d, want %d (sessions take turns)", k, d.at, d.session, k%3)
		}
	}
	var got int64
	for i := range 200 {
		got += scheduleFor(i, 200, 1500, 4*time.Second).offered()
	}
	if got != 6000 {
		t.Errorf("200 sessions at 1500 calls/s over 4 s offer %d calls, want 6000", got)
	}
}

func TestRunOpenSendsAtTheDueTimesWhenAnswersAreQuick(t *testing.T) {
	n, sent := (&fakeClock{}).drive(tenCallsASecond)
	if n != (openCounts{offered: 10, sent: 10}) {
		t.Errorf("counts %+v, want 10 offered and sent, none missed", n)
	}
	if want := msList(0, 100, 200, 300, 400, 500, 600, 700, 800, 900); !slices.Equal(sent, want) {
		t.Errorf("sent at %v, want %v", sent, want)
	}
}

func TestRunOpenMissesCallsDueWhileOneIsOutstanding(t *testing.T) {
	tests := []struct {
		name   string
		lat    []time.Duration
		counts openCounts
		sent   []time.Duration
	}{
		{"an answer after 250 ms misses the calls due at 100 and 200 ms",
			msList(250), openCounts{offered: 10, sent: 8, missed: 2}, msList(0, 300, 400, 500, 600, 700, 800, 900)},
		{"an answer exactly when the next is due misses nothing",
			msList(100), openCounts{offered: 10, sent: 10}, msList(0, 100, 200, 300, 400, 500, 600, 700, 800, 900)},
		{"an answer after the end misses what fell due before it",
			msList(10, 10, 10, 10, 10, 10, 10, 10, 300), openCounts{offered: 10, sent: 9, missed: 1}, msList(0, 100, 200, 300, 400, 500, 600, 700, 800)},
		{"the last call outstanding past the end misses nothing",
			msList(10, 10, 10, 10, 10, 10, 10, 10, 10, 500), openCounts{offered: 10, sent: 10}, msList(0, 100, 200, 300, 400, 500, 600, 700, 800, 900)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, sent := (&fakeClock{}).drive(tenCallsASecond, tt.lat...)
			if n != tt.counts {
				t.Errorf("counts %+v, want %+v", n, tt.counts)
			}
			if !slices.Equal(sent, tt.sent) {
				t.Errorf("sent at %v, want %v", sent, tt.sent)
			}
		})
	}
}

func TestRunOpenCountsCallsStillDueWhenTheRunEnds(t *testing.T) {
	// The run's time runs out at 550 ms, as when a busy machine wakes the
	// session late: the calls due at 600..900 ms were offered and missed.
	n, sent := (&fakeClock{deadline: 550 * time.Millisecond}).drive(tenCallsASecond)
	if n != (openCounts{offered: 10, sent: 6, missed: 4}) {
		t.Errorf("counts %+v, want 10 offered, 6 sent, 4 missed", n)
	}
	if len(sent) != 6 {
		t.Errorf("sent %v, want 6 calls", sent)
	}
}

func TestRunOpenStopsWhenThePlanEnds(t *testing.T) {
	clk := &fakeClock{}
	calls := 0
	n := runOpen(context.Background(), tenCallsASecond, clk, func() (bool, bool) {
		calls++
		if calls == 3 {
			return false, false // the plan or the budget ran out: no call made
		}
		return true, true
	})
	if n != (openCounts{offered: 2, sent: 2}) || calls != 3 {
		t.Errorf("counts %+v after %d asks, want 2 offered and sent after 3", n, calls)
	}
}

func TestVersusSideFillSeparatesTheIdleRate(t *testing.T) {
	w := &worker{offered: 102, missed: 2}
	for i := range 100 {
		w.samples = append(w.samples, sample{lat: time.Millisecond, cache: cacheHit, err: i == 0})
	}
	s := VersusSide{Seconds: 10, CPUSeconds: 2, idleCPU: 0.04, idleTime: 2 * time.Second}
	s.fill([]*worker{w})
	// 20 ms/s idle over 10 s is 0.2 s of the 2 s: a tenth; the other
	// 1.8 s over 100 calls is 18 ms a call.
	if s.Offered != 102 || s.Missed != 2 || s.Calls != 100 || s.Answered != 99 || s.Errors != 1 || s.Hits != 99 {
		t.Errorf("counts %+v", s)
	}
	if s.IdleCPUMSPerS != 20 || s.IdleShare != 0.1 || s.NetPerCallUS != 18000 || s.CPUPerCallUS != 20000 {
		t.Errorf("idle %.1f ms/s, share %.3f, net %.1f µs, gross %.1f µs; want 20, 0.1, 18000, 20000",
			s.IdleCPUMSPerS, s.IdleShare, s.NetPerCallUS, s.CPUPerCallUS)
	}
}

func TestVersusRefusesARatioWhenAServerFellBehind(t *testing.T) {
	side := func(offered, answered int64, perCall float64) VersusSide {
		return VersusSide{Offered: offered, Answered: answered, CPUPerCallUS: perCall, NetPerCallUS: perCall - 10}
	}
	tests := []struct {
		name          string
		v             Versus
		ratio         float64
		refusedNaming string // "" when a ratio is given
	}{
		{"both answered every call", Versus{Rate: 1500, Bare: side(9000, 9000, 100), Subject: side(9000, 9000, 115)}, 1.15, ""},
		{"exactly 98% answered", Versus{Rate: 1500, Bare: side(1000, 980, 100), Subject: side(1000, 1000, 110)}, 1.1, ""},
		{"nsip-mcp one call under 98%", Versus{Rate: 1500, Bare: side(1000, 1000, 100), Subject: side(1000, 979, 110)}, 0, "nsip-mcp answered 979 of the 1000"},
		{"the bare server behind", Versus{Rate: 1500, Bare: side(1000, 900, 100), Subject: side(1000, 1000, 110)}, 0, "the bare server answered 900 of the 1000"},
		{"nothing offered", Versus{Rate: 1500, Bare: side(0, 0, 100), Subject: side(0, 0, 110)}, 0, "answered 0 of the 0"},
		{"closed loop has no offered calls to hold to", Versus{Bare: side(0, 500, 100), Subject: side(0, 400, 120)}, 1.2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.v
			v.judge()
			if v.Ratio != tt.ratio {
				t.Errorf("ratio %.3f, want %.3f", v.Ratio, tt.ratio)
			}
			if tt.refusedNaming == "" {
				if v.Refused != "" || v.NetRatio == 0 {
					t.Errorf("refused %q, net ratio %.3f; want a ratio", v.Refused, v.NetRatio)
				}
				return
			}
			if !strings.Contains(v.Refused, tt.refusedNaming) || !strings.Contains(v.Refused, "--rate 1500") || v.NetRatio != 0 {
				t.Errorf("refused %q (net ratio %.3f), want it to say %q and name --rate 1500, and no ratio", v.Refused, v.NetRatio, tt.refusedNaming)
			}
		})
	}
}
