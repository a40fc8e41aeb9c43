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
func TestAttemptHookSeesEveryRetry(t *testing.T) {
	var n atomic.Int32
	type key struct{}
	var mu sync.Mutex
	var got []Attempt
	var tagged int
	c := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"lpnId":"X"}`))
	}, WithAttemptHook(func(ctx context.Context, a Attempt) {
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
		if a.Path != pathLineage || a.Number != i+1 || a.Status != wantStatus || a.Kind != wantKind {
			t.Errorf("attempt %d = %+v, want path %s, number %d, status %d, kind %v", i, a, pathLineage, i+1, wantStatus, wantKind)
		}
	}
}
