package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// hitEnv is a gateway logging at warn, as nsip-load runs nsip-mcp, with
// one nsip_get_animal answer cached, and the request for it as it arrives
// from the wire (raw arguments and mcp-go's decoding of them).
func hitEnv(t *testing.T) (*env, mcp.CallToolRequest, string) {
	t.Helper()
	e := newEnv(t, withConfig(func(c *Config) {
		c.Logger = slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}))
	id := e.up.Data().MostProgeny()
	req := mcp.CallToolRequest{}
	req.Params.Name = lookup.Animal.Name
	req.Params.RawArguments = json.RawMessage(`{"search_string":"` + id + `"}`)
	req.Params.Arguments = map[string]any{"search_string": id}
	if res, _ := e.gw.handler(toolOf(lookup.Animal))(context.Background(), req); res.IsError {
		t.Fatalf("warm-up: %+v", res)
	}
	return e, req, id
}

// TestCachedHitAllocations counts what the gateway's handler allocates for
// a cache hit that a bare server answering the same bytes would not: the
// decoded arguments (once, not once more to see whether percentiles were
// asked for), their validation and key, the result and its _meta. The
// structured copy is encoded when the answer is cached, and the call's log
// line is not built when its level is off. It was 48 allocations, 31 since.
func TestCachedHitAllocations(t *testing.T) {
	e, req, _ := hitEnv(t)
	h := e.gw.handler(toolOf(lookup.Animal))
	ctx := context.Background()
	res, _ := h(ctx, req)
	if res.IsError || res.Meta.AdditionalFields["cache"] != cacheHit || len(res.RawStructuredContent) == 0 {
		t.Fatalf("not a hit with a structured copy: %+v", res)
	}
	const most = 32
	if n := testing.AllocsPerRun(50, func() { _, _ = h(ctx, req) }); n > most {
		t.Errorf("a cache hit of nsip_get_animal makes %v allocations in the handler, want at most %d", n, most)
	}
}

// TestHitServesTheTextAsItsStructuredCopy: an answer that is an object is
// its own structured copy, kept as bytes when cached so that a hit sends
// them without copying; a bare list (NSIP's statuses) has its model encoded
// once, when cached. Every hit sends the bytes kept, which the cache counts
// in the entry.
func TestHitServesTheTextAsItsStructuredCopy(t *testing.T) {
	e, req, id := hitEnv(t)
	key := lookup.Animal.Key(validLookup(t, lookup.Animal, map[string]any{"search_string": id}))
	ent, ok := e.gw.cache.Peek(key)
	if !ok {
		t.Fatal("the answer is not cached")
	}
	obj := ent.Value.(*upstream.Answer)
	if string(obj.Structured) != obj.Res.Text {
		t.Fatalf("kept copy %.200s, want the text %.200s", obj.Structured, obj.Res.Text)
	}
	for range 2 {
		res, _ := e.gw.handler(toolOf(lookup.Animal))(context.Background(), req)
		if res.Meta.AdditionalFields["cache"] != cacheHit || &res.RawStructuredContent[0] != &obj.Structured[0] {
			t.Fatalf("hit: cache %v; the copy was made again instead of sent as kept", res.Meta.AdditionalFields["cache"])
		}
	}

	sreq := mcp.CallToolRequest{}
	sreq.Params.Name = lookup.Statuses.Name
	h := e.gw.handler(toolOf(lookup.Statuses))
	if res, _ := h(context.Background(), sreq); res.IsError {
		t.Fatalf("statuses: %+v", res)
	}
	skey := lookup.Statuses.Key(validLookup(t, lookup.Statuses, map[string]any{}))
	sent, ok := e.gw.cache.Peek(skey)
	if !ok {
		t.Fatal("the statuses are not cached")
	}
	a := sent.Value.(*upstream.Answer)
	want, err := nsip.PlainJSON(a.Value)
	if err != nil || len(a.Structured) == 0 || !bytes.Equal(a.Structured, want) {
		t.Fatalf("cached copy %.200s, model encodes to %.200s (%v)", a.Structured, want, err)
	}
	without := upstream.Answer{ID: a.ID, Value: a.Value, Raw: a.Raw, Res: a.Res, Shared: a.Shared, Drift: a.Drift}
	if grew := sent.Size - without.Size(skey); grew < int64(len(a.Structured)) {
		t.Errorf("the entry counts %d bytes for a %d-byte copy", grew, len(a.Structured))
	}
	for range 2 {
		res, _ := h(context.Background(), sreq)
		if res.Meta.AdditionalFields["cache"] != cacheHit || &res.RawStructuredContent[0] != &a.Structured[0] {
			t.Fatalf("hit: cache %v; the copy was encoded again instead of sent as cached", res.Meta.AdditionalFields["cache"])
		}
	}
}
