package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// BenchmarkResourceReadVersusToolCall alternates a cached resources/read of
// nsip://animals/{lpn_id} with the cached tools/call it stands for, both as
// JSON-RPC bytes through HandleMessage in a registered session (so the hooks
// that note LPN IDs for completions run), and reports each side's mean and
// their ratio.
func BenchmarkResourceReadVersusToolCall(b *testing.B) {
	stub := benchStub(b)
	r := newPipelineRig(b, stub, 0)
	id := animalIDs(stub)[0]
	session := server.NewInProcessSession("bench", nil)
	if err := r.srv.RegisterSession(context.Background(), session); err != nil {
		b.Fatal(err)
	}
	session.Initialize()
	ctx := r.srv.WithContext(context.Background(), session)
	read := []byte(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"nsip://animals/` + id + `"}}`)
	call := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nsip_get_animal","arguments":{"search_string":"` + id + `"}}}`)
	do := func(msg []byte) {
		out, err := json.Marshal(r.srv.HandleMessage(ctx, msg))
		if err != nil || !bytes.Contains(out, []byte(`"cache":"hit"`)) {
			b.Fatalf("not a cached answer: %v %.200s", err, out)
		}
	}
	r.call(b, "nsip_get_animal", map[string]any{"search_string": id}, "")
	b.ReportAllocs()
	var reads, calls time.Duration
	for b.Loop() {
		t0 := time.Now()
		do(read)
		t1 := time.Now()
		do(call)
		reads += t1.Sub(t0)
		calls += time.Since(t1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(reads.Microseconds())/n, "µs-read/op")
	b.ReportMetric(float64(calls.Microseconds())/n, "µs-call/op")
	b.ReportMetric(float64(reads)/float64(calls), "read/call")
}
