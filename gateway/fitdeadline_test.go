package gateway

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// TestFitRunsOnTheCallsDeadline: a fit is told the fetch's deadline, and a
// fit that runs past it (here one held until then, as counting a hostile
// answer would be) is neither served nor cached: the caller gets timeout
// and the next call asks NSIP again.
func TestFitRunsOnTheCallsDeadline(t *testing.T) {
	// The slow fit waits out this deadline once; the other two calls must
	// be fetched and fitted within it, which a loaded machine can stretch
	// well past a fraction of a second.
	const callTimeout = 5 * time.Second
	e := newEnv(t, withConfig(func(c *Config) { c.CallTimeout = callTimeout }))
	var slow atomic.Bool
	var sawDeadline atomic.Int64
	inner := e.gw.fitFunc
	e.gw.fitFunc = func(r summarize.Request) summarize.Result {
		sawDeadline.Store(int64(time.Until(r.Deadline)))
		if slow.Load() {
			time.Sleep(time.Until(r.Deadline)) // a fit that takes the whole deadline
		}
		return inner(r)
	}
	e.call("nsip_get_statuses", nil).mustOK(t)
	if d := time.Duration(sawDeadline.Load()); d <= 0 || d > callTimeout {
		t.Errorf("fit saw a deadline %s away, want within the %s call timeout", d, callTimeout)
	}

	slow.Store(true)
	b := e.call("nsip_list_breeds", nil).errorBody(t)
	if b.Code != toolerr.CodeTimeout {
		t.Errorf("fit past the deadline: %+v, want timeout", b)
	}
	slow.Store(false)
	e.call("nsip_list_breeds", nil).mustOK(t)
	if n := e.up.Requests(nsiptest.EndpointBreedGroups); n != 2 {
		t.Errorf("breed-group requests = %d, want 2: the late fit must not be cached", n)
	}
}
