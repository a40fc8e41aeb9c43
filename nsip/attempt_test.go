package nsip

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// The hook sees every request, the retried ones too, with its status and
// the caller's context, so a caller can count retries per endpoint.
func TestRequestHookSeesEveryRetry(t *testing.T) {
	var n atomic.Int32
	type key struct{}
	var mu sync.Mutex
	var got []RequestInfo
	var tagged int
	c := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"lpnId":"X"}`))
	}, WithRequestHook(func(ctx context.Context, a RequestInfo) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, a)
		if ctx.Value(key{}) == "call" {
			tagged++
		}
	}))
	ctx := context.WithValue(ctxT(t), key{}, "call")
	_, _ = c.Lineage(ctx, "6402382024NCS310")
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || tagged != 3 {
		t.Fatalf("hook saw %d attempts (%d with the caller's context), want 3: %+v", len(got), tagged, got)
	}
	for i, a := range got {
		wantStatus, wantKind := http.StatusServiceUnavailable, KindUpstream
		if i == 2 {
			wantStatus, wantKind = http.StatusOK, Kind(0)
		}
		var kind Kind
		if e, ok := a.Err.(*Error); ok {
			kind = e.Kind
		}
		if a.Endpoint != pathLineage || a.Attempt != i+1 || a.Status != wantStatus || kind != wantKind || a.Probe {
			t.Errorf("attempt %d = %+v, want endpoint %s, attempt %d, status %d, kind %v", i, a, pathLineage, i+1, wantStatus, wantKind)
		}
	}
}

// A caller's retry gate is asked before each retry, never before the first
// request, with the failure being retried; when it refuses, no further
// request is sent and the call returns that failure.
func TestRetryGateBoundsEveryRetry(t *testing.T) {
	var sent atomic.Int32
	c := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}, quickRetries(5))
	var asked []int
	gate := func(ctx context.Context, attempt int, failed *Error) error {
		asked = append(asked, attempt)
		if failed == nil || failed.Status != http.StatusServiceUnavailable {
			t.Errorf("gate for attempt %d got failure %v, want the 503 being retried", attempt, failed)
		}
		if attempt > 3 {
			return errors.New("no token left")
		}
		return nil
	}
	_, err := c.Lineage(WithRetryGate(ctxT(t), gate), "6402382024NCS310")
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindUpstream || e.Attempts != 3 {
		t.Fatalf("err = %v, want the third attempt's upstream failure", err)
	}
	if sent.Load() != 3 || !slices.Equal(asked, []int{2, 3, 4}) {
		t.Errorf("requests sent = %d, gate asked for attempts %v; want 3 sent and the gate asked for 2, 3 and 4", sent.Load(), asked)
	}
}
