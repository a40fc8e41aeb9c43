package passes

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A Fill counts its pages, only upward, says so in its status, names its
// follower, and ends with what its read returned; the read under way is
// found by its key until it ends.
func TestFillProgressAndResult(t *testing.T) {
	s := newStore(t, 1<<20, false).s
	release := make(chan struct{})
	f, ok := s.Fill("a", func(_ context.Context, f *Fill) (Summary, error) {
		<-release
		return Summary{Breed: 649, Animals: 120, Pages: 2, Bytes: 99}, nil
	})
	if !ok || f.Key() != "a" || s.Filling("a") != f {
		t.Fatalf("Fill: %v %v", f, ok)
	}
	if again, ok := s.Fill("a", nil); ok || again != f {
		t.Errorf("a second Fill of a: %v %v, want the read under way", again, ok)
	}
	if got := f.Status(649); got != "reading NSIP's last-update date and the first page of breed 649" {
		t.Errorf("status before the first page: %q", got)
	}
	f.Pages(2, 5)
	f.Pages(1, 5) // a page read at once with the second, reported late
	if got := f.Status(649); got != "read 2 of 5 pages of breed 649" {
		t.Errorf("status: %q", got)
	}
	f.Follow("task-1")
	if f.Follower() != "task-1" {
		t.Errorf("follower %q", f.Follower())
	}
	close(release)
	<-f.Done()
	f.Cancel() // once ended, a cancel changes nothing
	if sum, err := f.Result(); err != nil || sum.Breed != 649 || sum.Animals != 120 {
		t.Errorf("Result: %+v, %v", sum, err)
	}
	s.Close()
	if s.Filling("a") != nil {
		t.Error("the read is still found once it has ended")
	}
}

// A cancelled Fill's context is done when Cancel returns, and it ends
// cancelled whatever its read returns; a read that fails ends with its
// error.
func TestFillCancelledOrFailed(t *testing.T) {
	s := newStore(t, 1<<20, false).s
	started := make(chan context.Context)
	f, _ := s.Fill("a", func(ctx context.Context, _ *Fill) (Summary, error) {
		started <- ctx
		<-ctx.Done()
		return Summary{Breed: 1}, nil
	})
	ctx := <-started
	f.Cancel()
	if ctx.Err() == nil {
		t.Error("the read's context is not done when Cancel returns")
	}
	<-f.Done()
	if _, err := f.Result(); !errors.Is(err, ErrCancelled) {
		t.Errorf("cancelled read ended with %v", err)
	}
	failed, _ := s.Fill("b", func(context.Context, *Fill) (Summary, error) { return Summary{}, errors.New("page check failed") })
	<-failed.Done()
	if _, err := failed.Result(); err == nil || err.Error() != "page check failed" {
		t.Errorf("failed read ended with %v", err)
	}
	s.Close()
}

// A Task is a Fill as its MCP task sees it: its status, its summary once
// read, cancelled when cancelled, and the read's own failure, worded with
// the breed, as the task's.
func TestTaskWaitsForItsFill(t *testing.T) {
	s := newStore(t, 1<<20, false).s
	defer s.Close()
	release := make(chan error)
	fill := func(key string) Task {
		f, ok := s.Fill(key, func(ctx context.Context, f *Fill) (Summary, error) {
			select {
			case <-ctx.Done():
				return Summary{}, ctx.Err()
			case err := <-release:
				if err != nil {
					return Summary{}, err
				}
			}
			return Summary{Breed: 649, Animals: 3, Pages: 1, Bytes: 10}, nil
		})
		if !ok {
			t.Fatalf("Fill of %s not started", key)
		}
		return Task{Fill: f, Breed: 649}
	}
	done := fill("done")
	done.Fill.Pages(1, 4)
	if got := done.Status(); got != "read 1 of 4 pages of breed 649" {
		t.Errorf("status %q", got)
	}
	release <- nil
	if v, err := done.Wait(t.Context()); err != nil || v.(Summary).Animals != 3 {
		t.Errorf("Wait: %v, %v; want the summary", v, err)
	}
	failed := fill("failed")
	release <- errors.New("a page check failed")
	if _, err := failed.Wait(t.Context()); err == nil || err.Error() != "a page check failed" {
		t.Errorf("Wait of a failed read: %v", err)
	}
	late := fill("late")
	release <- context.DeadlineExceeded
	if _, err := late.Wait(t.Context()); err == nil || !strings.Contains(err.Error(), "breed 649 was not read within") {
		t.Errorf("Wait of a read past its time: %v", err)
	}
	cancelled := fill("cancelled")
	cancelled.Cancel()
	if _, err := cancelled.Wait(t.Context()); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait of a cancelled read: %v, want context.Canceled", err)
	}
	<-cancelled.Fill.Done()
	ctx, stop := context.WithCancel(t.Context())
	stop()
	waiting := fill("waiting")
	if _, err := waiting.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait whose own context ended: %v", err)
	}
	release <- nil
}

// Holds tells whether a pass of a breed is kept under any evaluation,
// until its TTL passes.
func TestHoldsAnyEvaluationOfABreed(t *testing.T) {
	e := newStore(t, 1<<20, false)
	s := e.s
	defer s.Close()
	if s.Holds(640) {
		t.Fatal("an empty store holds breed 640")
	}
	if !s.Keep(t.Context(), pass(640)) {
		t.Fatal("the pass was not kept")
	}
	if !s.Holds(640) || s.Holds(641) {
		t.Errorf("after keeping 640's pass: holds 640 %v, 641 %v", s.Holds(640), s.Holds(641))
	}
	e.now = e.now.Add(2 * time.Hour)
	if s.Holds(640) {
		t.Error("holds 640 past the TTL")
	}
}
