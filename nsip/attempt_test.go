package nsip

import (
	"context"
	"net/http"
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
