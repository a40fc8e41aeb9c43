package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// One connection shared by two clients: the one with three fetches queued
// does not go before the other's one; they take turns, and a fetch whose
// caller leaves the queue is skipped.
func TestFairServesClientsInTurn(t *testing.T) {
	q := newFair(1)
	ctx := context.Background()
	first, err := q.Wait(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan string, 8)
	queue := func(ctx context.Context, client, name string) {
		n := q.Queued()
		go func() {
			done, err := q.Wait(ctx, client)
			if err != nil {
				served <- name + " left"
				return
			}
			served <- name
			done()
		}()
		waitFor(t, name+" to queue", func() bool { return q.Queued() == n+1 })
	}
	queue(ctx, "a", "a1")
	queue(ctx, "a", "a2")
	gone, leave := context.WithCancel(ctx)
	queue(gone, "a", "a3")
	queue(ctx, "a", "a4")
	queue(ctx, "b", "b1")
	leave()
	if got := <-served; got != "a3 left" {
		t.Fatalf("first news %q; want a3 leaving the queue", got)
	}
	first()
	var order []string
	for range 4 {
		order = append(order, <-served)
	}
	if want := []string{"a1", "b1", "a2", "a4"}; !slices.Equal(order, want) {
		t.Errorf("served %v; want %v: b's one fetch after a's first, not after its backlog", order, want)
	}
	if q.Queued() != 0 {
		t.Errorf("%d still queued", q.Queued())
	}
	// The turn is free again.
	if done, err := q.Wait(ctx, "c"); err != nil {
		t.Errorf("the free turn: %v", err)
	} else {
		done()
	}
}

// A bare list's structured copy is its model, since structuredContent
// must be an object's; an object's copy is its text.
func TestKeepStructured(t *testing.T) {
	list := &Answer{Value: &nsip.Statuses{Values: []string{"CURRENT", "SOLD"}}, Raw: json.RawMessage(`["CURRENT","SOLD"]`),
		Res: summarize.Result{Text: `["CURRENT","SOLD"]`}}
	list.keepStructured()
	want, _ := nsip.PlainJSON(list.Value)
	if string(list.Structured) != string(want) || list.Structured[0] != '{' {
		t.Errorf("a list's copy %s; want its model %s", list.Structured, want)
	}
	drift := &Answer{Raw: json.RawMessage(`[1]`), Res: summarize.Result{Text: `[1]`}, Drift: &nsip.Error{Kind: nsip.KindFormatChanged}}
	if drift.keepStructured(); drift.Structured != nil {
		t.Errorf("an unrecognized list got a copy: %s", drift.Structured)
	}
}

// A map's measure grows with what it holds.
func TestHeapSizeOfMaps(t *testing.T) {
	small := map[string]string{"a": "b"}
	big := map[string]string{}
	for i := range 100 {
		big[string(rune('a'+i%26))+string(rune('a'+i/26))] = "some value of a row"
	}
	s, b := heapSize(small, map[uintptr]bool{}), heapSize(big, map[uintptr]bool{})
	if s <= 0 || b < 100*int64(len("some value of a row")) || b <= s {
		t.Errorf("HeapSize: one entry %d bytes, a hundred %d; want more for more", s, b)
	}
	seen := map[uintptr]bool{}
	heapSize(big, seen)
	if again := heapSize(big, seen); again != 0 {
		t.Errorf("a map measured again with the same seen set: %d bytes; want 0", again)
	}
}

// An answer whose fitted text or body is not JSON has no shared form: it
// is kept locally and never sent to Redis half-written; what decodes is
// only what this codec wrote.
func TestCodecRefusesWhatIsNotJSON(t *testing.T) {
	c := NewCodec(reflect.TypeFor[nsip.LastUpdate]())
	good := &Answer{Value: &nsip.LastUpdate{Date: "01/01/2026"}, Raw: json.RawMessage(`{"date":"01/01/2026"}`), Res: summarize.Result{Text: `{"date":"01/01/2026"}`, Tokens: 7}}
	b, err := c.Encode(good)
	if err != nil {
		t.Fatalf("a JSON answer: %v", err)
	}
	got, err := c.Decode(b)
	if err != nil || got.Value.(*nsip.LastUpdate).Date != "01/01/2026" || got.Res != good.Res || string(got.Raw) != string(good.Raw) {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	for name, a := range map[string]*Answer{
		"empty text":       {Value: good.Value, Raw: good.Raw, Res: summarize.Result{}},
		"text not JSON":    {Value: good.Value, Raw: good.Raw, Res: summarize.Result{Text: `{"date":`}},
		"body not JSON":    {Value: good.Value, Raw: json.RawMessage(`<html>`), Res: good.Res},
		"model not shared": {Value: map[string]any{}, Raw: good.Raw, Res: good.Res},
	} {
		if b, err := c.Encode(a); err == nil {
			t.Errorf("%s: encoded as %d bytes, want an error", name, len(b))
		}
	}
	other := NewCodec(reflect.TypeFor[nsip.Lineage](), reflect.TypeFor[nsip.LastUpdate]())
	if _, err := other.Decode(b); err == nil {
		t.Error("a codec of other models decoded the record")
	}
	if _, err := c.Decode([]byte("not a record")); err == nil {
		t.Error("garbage decoded")
	}
}

func TestReasonHead(t *testing.T) {
	for in, want := range map[string]string{
		`missing field "data": {"x":1}`: `missing field "data"`,
		"no colon here":                 "no colon here",
	} {
		if got := ReasonHead(in); got != want {
			t.Errorf("ReasonHead(%q) = %q; want %q", in, got, want)
		}
	}
	if err := (&queuedTooLong{Err: context.DeadlineExceeded}); err.Error() != context.DeadlineExceeded.Error() || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("QueuedTooLong %q does not read as its cause", err.Error())
	}
}
