package tasks

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/cache/cachetest"
	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

func newStore(t *testing.T, cfg Config) (*Store, *cachetest.Clock) {
	t.Helper()
	c := cachetest.NewClock()
	cfg.Now = c.Now
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

// A task that expires while it runs has its work stopped, and its place
// is given back; so is the place of one whose creation failed.
func TestExpiryStopsWorkAndFreesThePlace(t *testing.T) {
	s, c := newStore(t, Config{PerCaller: 1, TTL: time.Minute})
	ctx := caller.WithRequest(context.Background(), caller.Address("192.0.2.9"))
	task, err := s.create(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.bind(task, mcp.Task{TaskId: "record-1"})
	work, done := s.Start(ctx, task)
	defer done()
	if _, err := s.create(ctx, nil); err == nil || !strings.Contains(err.Error(), "NSIP_TASKS_PER_CLIENT=1") {
		t.Fatalf("second task: %v", err)
	}
	c.Advance(time.Minute)
	if n := s.Len(); n != 0 {
		t.Errorf("%d held after the TTL", n)
	}
	if work.Err() == nil {
		t.Error("the expired task's work goes on")
	}
	next, err := s.create(ctx, nil)
	if err != nil {
		t.Fatalf("after expiry: %v", err)
	}
	s.drop(next)
	if _, err := s.create(ctx, nil); err != nil {
		t.Errorf("after a dropped creation: %v", err)
	}
}

// A task cancelled before its work starts never runs; a client's shorter
// ttl is kept, a longer one cut to the store's.
func TestCancelBeforeStartAndTTLs(t *testing.T) {
	s, _ := newStore(t, Config{TTL: time.Minute})
	ctx := caller.WithRequest(context.Background(), caller.Token("ab"))
	short, long := int64(1000), int64(3_600_000)
	a, _ := s.create(ctx, &short)
	b, _ := s.create(ctx, &long)
	if a.ttl != time.Second || b.ttl != time.Minute {
		t.Errorf("ttls %s and %s, want 1s and 1m", a.ttl, b.ttl)
	}
	s.Cancel(a)
	work, done := s.Start(ctx, a)
	s.bind(a, mcp.Task{TaskId: "record-a"})
	done()
	if work.Err() == nil {
		t.Error("a task cancelled before it started runs")
	}
}

// Issued knows the IDs the store gave clients, while it holds their tasks,
// and never mcp-go's ID for its record of one.
func TestIssued(t *testing.T) {
	s, _ := newStore(t, Config{})
	ctx := caller.WithRequest(context.Background(), caller.Address("192.0.2.9"))
	task, err := s.create(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.bind(task, mcp.Task{TaskId: "record-1"})
	if !s.Issued(task.ID()) {
		t.Errorf("the task's own ID %q is not known as issued", task.ID())
	}
	if s.Issued("record-1") || s.Issued("") {
		t.Error("mcp-go's record ID, or no ID, counts as issued")
	}
	s.drop(task)
	if s.Issued(task.ID()) {
		t.Error("a forgotten task's ID is still issued")
	}
}
