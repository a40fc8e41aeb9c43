package transport

import (
	"sync"
	"sync/atomic"
	"time"
)

// workers runs each call on a goroutine kept from an earlier call when one
// is idle, and on a new one otherwise.
//
// A call goes through mcp-go and the gateway deep enough to outgrow a new
// goroutine's first stack: the runtime then copies the stack to one twice
// the size, frame by frame, once or twice a call. That copying was the
// largest single cost a cached call added to mcp-go's own work. A kept
// goroutine has grown its stack already (the garbage collector may shrink
// it while it idles, so it grows again at most once per collection).
type workers struct {
	work chan func()
	quit chan struct{}
	stop func() // lets the idle workers end; safe to call more than once
	idle atomic.Int32
}

const (
	// workerIdle is how long a worker waits for another call before it
	// ends: long enough to carry a busy server from one call to the next,
	// short enough that a burst's goroutines do not outlive it by much.
	workerIdle = 2 * time.Second
	// maxIdleWorkers bounds the goroutines kept waiting at once; past it a
	// worker ends after its call, as a plain goroutine would.
	maxIdleWorkers = 256
)

func newWorkers() *workers {
	w := &workers{work: make(chan func()), quit: make(chan struct{})}
	w.stop = sync.OnceFunc(func() { close(w.quit) })
	return w
}

// run starts f on an idle worker if one is waiting, else on a new
// goroutine that becomes a worker once f returns. It does not wait for f.
func (w *workers) run(f func()) {
	select {
	case w.work <- f:
	default:
		go w.loop(f)
	}
}

// loop runs f, then further calls handed to it, until it has waited
// workerIdle for one, too many others are waiting, or the site stopped.
func (w *workers) loop(f func()) {
	var t *time.Timer
	for {
		f()
		if w.idle.Add(1) > maxIdleWorkers {
			w.idle.Add(-1)
			return
		}
		if t == nil {
			t = time.NewTimer(workerIdle)
		} else {
			t.Reset(workerIdle)
		}
		select {
		case f = <-w.work:
			w.idle.Add(-1)
		case <-t.C:
			w.idle.Add(-1)
			return
		case <-w.quit:
			w.idle.Add(-1)
			t.Stop()
			return
		}
	}
}
