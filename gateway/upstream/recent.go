package upstream

import (
	"sync"
	"time"
)

// recentReads are the answers of the latest fresh read of each key read
// fresh, and when their requests went out. A fresh read asks NSIP what it
// holds now; an answer NSIP gave moments ago says the same at a fraction
// of the cost, and analyses that check NSIP's evaluation date on every
// call (a breed pass's percentiles, COIs and diversity) would otherwise
// send a request each. Only keys read fresh are kept, which are few.
type recentReads struct {
	mu    sync.Mutex
	byKey map[string]recentRead
}

type recentRead struct {
	a     *Answer
	asked time.Time // when its request went out: the answer is no older
}

// get is key's answer if its request went out less than window before
// now; a clock set back serves nothing.
func (r *recentReads) get(key string, now time.Time, window time.Duration) *Answer {
	if window <= 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rr, ok := r.byKey[key]
	if !ok || now.Before(rr.asked) || now.Sub(rr.asked) >= window {
		return nil
	}
	return rr.a
}

// put keeps a as key's answer from a request sent at asked, unless a read
// sent later has already been kept.
func (r *recentReads) put(key string, a *Answer, asked time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rr, ok := r.byKey[key]; ok && rr.asked.After(asked) {
		return
	}
	if r.byKey == nil {
		r.byKey = map[string]recentRead{}
	}
	r.byKey[key] = recentRead{a: a, asked: asked}
}
