package transport

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

// The filter leaves out exactly the events carrying a dropped notification:
// others in the same write, answers that name the method, and an event cut
// across writes go through unchanged.
func TestEventFilterDropsWholeEvents(t *testing.T) {
	const method = "notifications/tasks/status"
	st := &site{opts: Options{DropNotifications: map[string]func(json.RawMessage) bool{
		method: func(params json.RawMessage) bool { return !strings.Contains(string(params), `"ours"`) },
	}}}
	rec := httptest.NewRecorder()
	w := st.filterEvents(rec)
	foreign := `event: message` + "\n" + `data: {"jsonrpc":"2.0","method":"` + method + `","params":{"taskId":"theirs"}}` + "\n\n"
	own := `event: message` + "\n" + `data: {"jsonrpc":"2.0","method":"` + method + `","params":{"taskId":"ours"}}` + "\n\n"
	answer := `event: message` + "\n" + `data: {"jsonrpc":"2.0","id":1,"result":{"text":"` + method + `"}}` + "\n\n"
	progress := `event: message` + "\n" + `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}` + "\n\n"
	cut := `event: message` + "\n" + `data: {"jsonrpc":"2.0","method":"` + method
	for _, write := range []string{foreign, own + foreign + answer, progress, cut} {
		if n, err := w.Write([]byte(write)); n != len(write) || err != nil {
			t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(write))
		}
	}
	if got, want := rec.Body.String(), own+answer+progress+cut; got != want {
		t.Errorf("stream:\n%s\nwant:\n%s", got, want)
	}
}

// A JSON body is one answer, which the filter passes through whole without
// looking for the methods in it, even when its text names one.
func TestEventFilterPassesJSONBodies(t *testing.T) {
	const method = "notifications/tasks/status"
	st := &site{opts: Options{DropNotifications: map[string]func(json.RawMessage) bool{
		method: func(json.RawMessage) bool { return true },
	}}}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8"} {
		rec := httptest.NewRecorder()
		rec.Header().Set("Content-Type", ct)
		w := st.filterEvents(rec)
		body := `{"jsonrpc":"2.0","id":1,"result":{"text":"` + method + `\n\n"}}` + "\n"
		if n, err := w.Write([]byte(body)); n != len(body) || err != nil {
			t.Fatalf("%s: Write = %d, %v; want %d, nil", ct, n, err, len(body))
		}
		if got := rec.Body.String(); got != body {
			t.Errorf("%s: body %q, want %q", ct, got, body)
		}
	}
}

// Without anything to drop the writer is not wrapped.
func TestEventFilterAbsentWithoutDrops(t *testing.T) {
	rec := httptest.NewRecorder()
	if w := (&site{}).filterEvents(rec); w != rec {
		t.Errorf("filterEvents wrapped the writer with nothing to drop: %T", w)
	}
}

// The cost the filter adds to an event it lets through unread, and to one
// it decodes and drops.
func BenchmarkEventFilter(b *testing.B) {
	const method = "notifications/tasks/status"
	st := &site{opts: Options{DropNotifications: map[string]func(json.RawMessage) bool{
		method: func(json.RawMessage) bool { return true },
	}}}
	answer := []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"text\":\"" + strings.Repeat("x", 1000) + "\"}}\n\n")
	status := []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"" + method + "\",\"params\":{\"taskId\":\"0b6f\",\"status\":\"completed\"}}\n\n")
	for _, c := range []struct {
		name, contentType string
		p                 []byte
	}{{"answer", "text/event-stream", answer}, {"status", "text/event-stream", status}, {"json-answer", "application/json", answer}} {
		b.Run(c.name, func(b *testing.B) {
			rec := httptest.NewRecorder()
			rec.Header().Set("Content-Type", c.contentType)
			w := st.filterEvents(discard{rec})
			b.SetBytes(int64(len(c.p)))
			for b.Loop() {
				_, _ = w.Write(c.p)
			}
		})
	}
}

// discard is a ResponseWriter that keeps nothing, so the benchmark
// measures the filter.
type discard struct{ *httptest.ResponseRecorder }

func (discard) Write(p []byte) (int, error) { return len(p), nil }
