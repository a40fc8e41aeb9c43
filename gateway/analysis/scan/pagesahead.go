package scan

import (
	"context"
	"sync"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A group's statistics read every page of its listing up to NSIP's count
// (or the page limit), so once a page has given the count the pages after
// it are known to be wanted and are read at once rather than one after
// another: at NSIP's speed of a second a page, a breed's thirty pages take
// about eight seconds rather than thirty. The scan still takes them in
// order, so its checks and its answer are those of one page at a time, and
// it reads the same pages: a page is read ahead only when the count last
// seen and the limit say the scan will ask for it. Only a count that
// shrinks between pages, or a scan ended early by an error or an empty
// page, leaves pages read ahead unused.

// pageResult is one page read ahead.
type pageResult struct {
	rows  []nsip.AnimalRow
	total int
	err   error
}

// aheadReader reads the pages after the one asked while the scan works on
// it, up to width under way.
type aheadReader struct {
	read         PageReader
	width, limit int

	mu      sync.Mutex
	pending map[int]chan pageResult
	cancel  context.CancelFunc // stops pages read ahead and not taken
	wg      sync.WaitGroup
}

// ReadAhead is read with the pages up to NSIP's count read width at a
// time, up to page limit-1; width 1 or less is read as it is. Only for a
// scan that reads from the first page on without restarting, whose pages
// read does not change between pages. stop, called once the scan is over,
// cancels the pages read ahead that it did not take and waits for them, so
// that no lookup of the call outlives it.
func ReadAhead(ctx context.Context, read PageReader, width, limit int) (_ PageReader, stop func()) {
	return ReadAheadAfter(ctx, read, width, limit, -1, 0)
}

// ReadAheadAfter is ReadAhead for a scan that has read page n itself
// (total the count it gave; n -1 for none): the pages after n that the
// count holds are started at once.
func ReadAheadAfter(ctx context.Context, read PageReader, width, limit, n, total int) (_ PageReader, stop func()) {
	if width <= 1 {
		return read, func() {}
	}
	actx, cancel := context.WithCancel(ctx)
	a := &aheadReader{read: func(_ context.Context, n int) ([]nsip.AnimalRow, int, error) { return read(actx, n) },
		width: width, limit: limit, pending: map[int]chan pageResult{}, cancel: cancel}
	if n >= 0 {
		a.start(actx, n, total)
	}
	return a.page, func() { a.cancel(); a.wg.Wait() }
}

// page answers page n, from the page read ahead when there is one, and
// starts the pages after it that the count holds.
func (a *aheadReader) page(ctx context.Context, n int) ([]nsip.AnimalRow, int, error) {
	a.mu.Lock()
	ch, ok := a.pending[n]
	delete(a.pending, n)
	a.mu.Unlock()
	var res pageResult
	if ok {
		select {
		case res = <-ch:
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	} else {
		res.rows, res.total, res.err = a.read(ctx, n)
	}
	if res.err == nil && len(res.rows) > 0 {
		a.start(ctx, n, res.total)
	}
	return res.rows, res.total, res.err
}

// start reads ahead the pages after n, up to width of them under way
// beside the scan's, that a count of total leaves and the limit allows.
func (a *aheadReader) start(ctx context.Context, n, total int) {
	last := min(PagesOf(total)-1, a.limit-1, n+a.width)
	a.mu.Lock()
	defer a.mu.Unlock()
	for p := n + 1; p <= last; p++ {
		if _, ok := a.pending[p]; ok {
			continue
		}
		ch := make(chan pageResult, 1)
		a.pending[p] = ch
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			var r pageResult
			r.rows, r.total, r.err = a.read(ctx, p)
			ch <- r
		}()
	}
}
