package gateway

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// benchmarkHit measures a cache hit through the tool handler: validation,
// key, lookup and fitting the cached upstream answer into the budget.
func benchmarkHit(b *testing.B, tool string, args func(e *env) map[string]any) {
	e := newEnv(b)
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args(e)
	h := e.gw.handler(defByName(b, tool))
	ctx := context.Background()
	if res, err := h(ctx, req); err != nil || res.IsError {
		b.Fatalf("warm-up call failed: %v %v", err, res)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if res, _ := h(ctx, req); res.IsError {
			b.Fatal("error result")
		}
	}
}

func BenchmarkHitPassThrough(b *testing.B) {
	benchmarkHit(b, "nsip_get_animal", func(e *env) map[string]any {
		return map[string]any{"search_string": e.up.Data().MostProgeny()}
	})
}

func BenchmarkHitSummarizedSearchPage(b *testing.B) {
	benchmarkHit(b, "nsip_search_animals", func(*env) map[string]any { return map[string]any{"page_size": 100} })
}
