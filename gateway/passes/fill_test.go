package passes

import (
	"context"
	"errors"
	"testing"
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
