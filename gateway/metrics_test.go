package gateway

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/nsip-tools/nsip-mcp/gateway/metrics"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// gathered is the value of the series of name with exactly labels on reg:
// -1 when there is none.
func gathered(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for _, l := range m.GetLabel() {
				if labels[l.GetName()] != l.GetValue() {
					continue series
				}
			}
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue()
			case m.Gauge != nil:
				return m.Gauge.GetValue()
			}
		}
	}
	return -1
}

// An analysis run as a task is counted as running until its result is in,
// and once as started.
func TestTasksAreCounted(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := flockHerd()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(h.release)
	e := newEnv(t, func(c *Config, o *[]nsip.Option) {
		c.Metrics = metrics.New(reg)
		*o = append(*o, nsip.WithBaseURL(ts.URL+"/api"))
	})
	ctx := taskSession(t, e)
	created := rpc(t, e, ctx, "tools/call", map[string]any{"name": "nsip_flock_summary", "arguments": map[string]any{"flock_id": "640555"}, "task": map[string]any{}})
	task, _ := created["task"].(map[string]any)
	id, _ := task["taskId"].(string)
	if id == "" {
		t.Fatalf("created %v, want a task", created)
	}
	// The task's goroutine starts on its own; NSIP is held until released.
	for deadline := time.Now().Add(10 * time.Second); gathered(t, reg, "nsip_mcp_tasks_running", nil) != 1; {
		if time.Now().After(deadline) {
			t.Fatal("the task never counted as running")
		}
		time.Sleep(time.Millisecond)
	}
	h.release()
	rpc(t, e, ctx, "tasks/result", map[string]any{"taskId": id})
	if got := gathered(t, reg, "nsip_mcp_tasks_running", nil); got != 0 {
		t.Errorf("tasks running after the result = %g, want 0", got)
	}
	if got := gathered(t, reg, "nsip_mcp_tasks_started_total", map[string]string{"tool": "nsip_flock_summary"}); got != 1 {
		t.Errorf("tasks started = %g, want 1", got)
	}
	if got := gathered(t, reg, "nsip_mcp_tool_calls_total", map[string]string{"tool": "nsip_flock_summary", "outcome": "ok"}); got != 1 {
		t.Errorf("flock summary calls ok = %g, want 1", got)
	}
}
