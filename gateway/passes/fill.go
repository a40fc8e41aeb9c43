package passes

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// A Fill is one pass being read in the background: its pages counted as
// they are read, cancellable, and, once done, how it ended. The caller
// whose question started it may follow it as an MCP task (gateway/tasks),
// whose status is what a Fill says.
type Fill struct {
	key    string
	cancel context.CancelFunc
	done   chan struct{}

	mu          sync.Mutex
	read, pages int
	follower    string // the task its starter follows it by, "" for none
	ended       bool
	sum         Summary
	err         error
}

// Summary is what a pass read in the background came to, its task's
// result.
type Summary struct {
	Breed      int    `json:"breed"`
	Evaluation string `json:"evaluation"`
	Animals    int    `json:"animals"`
	Pages      int    `json:"pages"`
	Bytes      int64  `json:"bytes"`
}

// ErrCancelled ends a Fill that was cancelled.
var ErrCancelled = errors.New("the read was cancelled")

// Key is the key of the pass being read.
func (f *Fill) Key() string { return f.key }

// Pages records that read of the breed's pages have been read.
func (f *Fill) Pages(read, pages int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	// Pages read at once may report out of order: the count only grows.
	f.read, f.pages = max(f.read, read), pages
}

// Progress is how many of the breed's pages have been read; pages is 0
// until the first page has said how many there are.
func (f *Fill) Progress() (read, pages int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.read, f.pages
}

// Cancel ends the read: its context is done before Cancel returns, so it
// starts no lookup after.
func (f *Fill) Cancel() {
	f.mu.Lock()
	if f.err == nil && !f.ended {
		f.err = ErrCancelled // kept, whatever the read then returns
	}
	f.mu.Unlock()
	f.cancel()
}

// Done is closed when the read has ended.
func (f *Fill) Done() <-chan struct{} { return f.done }

// Result is how the read ended, once Done: the pass's summary, or why it
// was not kept.
func (f *Fill) Result() (Summary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sum, f.err
}

// Follow records the task its starter follows it by.
func (f *Fill) Follow(task string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.follower = task
}

// Follower is the task its starter follows it by, "" for none.
func (f *Fill) Follower() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.follower
}

func (f *Fill) end(sum Summary, err error) {
	f.mu.Lock()
	switch {
	case f.err != nil: // cancelled
	case err != nil:
		f.err = err
	default:
		f.sum = sum
	}
	f.ended = true
	f.mu.Unlock()
	close(f.done)
}

// Status says where the read is, for its task's status message.
func (f *Fill) Status(breed int) string {
	read, pages := f.Progress()
	if pages == 0 {
		return fmt.Sprintf("reading NSIP's last-update date and the first page of breed %d", breed)
	}
	return fmt.Sprintf("read %d of %d pages of breed %d", read, pages, breed)
}

// Task is a Fill of breed's pass as the MCP task that follows it sees it
// (gateway/tasks' Work): its progress, its cancellation and its end.
type Task struct {
	Fill  *Fill
	Breed int
}

// Wait is the pass's summary once read, or why it was not.
func (t Task) Wait(ctx context.Context) (any, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.Fill.Done():
	}
	sum, err := t.Fill.Result()
	switch {
	case errors.Is(err, ErrCancelled) || errors.Is(err, context.Canceled):
		return nil, context.Canceled // the task was cancelled, or the gateway closed
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("the pass of breed %d was not read within %s", t.Breed, FillTime)
	case err != nil:
		return nil, err
	}
	return sum, nil
}

// Cancel stops the read.
func (t Task) Cancel() { t.Fill.Cancel() }

// Status is the read's progress as tasks/get shows it.
func (t Task) Status() string { return t.Fill.Status(t.Breed) }
