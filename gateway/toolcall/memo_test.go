package toolcall

import (
	"runtime"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/cache/recent"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
)

func TestMemoKeepsCallsByTheirExactText(t *testing.T) {
	m := NewMemo()
	a := Call{Read: []string{"a"}}
	m.Put([]byte(`{"search_string":"6402382024NCS310"}`), a)
	if got := m.Get([]byte(`{"search_string":"6402382024NCS310"}`)); got == nil || got.Call.Read[0] != "a" {
		t.Errorf("the same text gave %v", got)
	}
	for _, other := range []string{`{"search_string": "6402382024NCS310"}`, `{"search_string":"6402382024NCS311"}`, ``} {
		if got := m.Get([]byte(other)); got != nil {
			t.Errorf("%q found %v kept for another text", other, got.Call)
		}
	}
	long := `{"search_string":"` + strings.Repeat("x", memoMaxBytes) + `"}`
	m.Put([]byte(long), a)
	if m.Get([]byte(long)) != nil {
		t.Error("a text over the bound was kept")
	}
	// Every place's text is its own: texts that share a set replace each
	// other in turn, and none is ever found for another.
	for i := range 4 * memoSets * recent.Ways {
		raw := []byte(`{"page":` + strings.Repeat("1", i%40+1) + `,"i":"` + string(rune('a'+i%26)) + `"}`)
		m.Put(raw, Call{Read: []string{string(raw)}})
		if got := m.Get(raw); got == nil || got.Call.Read[0] != string(raw) {
			t.Fatalf("%s: gave %v right after it was kept", raw, got)
		}
	}
	var none *Memo
	if none.Put([]byte(`{}`), a) != nil || none.Get([]byte(`{}`)) != nil || none.Get(nil).Answered() != nil {
		t.Error("a nil memo kept a call")
	}
}

// A kept call's answer is found with it, and replaced by the next; a call
// kept again starts with none.
func TestKeptCallsCarryTheirAnswer(t *testing.T) {
	m := NewMemo()
	raw := []byte(`{"lpn_id":"6402382024NCS310"}`)
	k := m.Put(raw, Call{})
	if k.Answered() != nil {
		t.Fatal("a call just kept has an answer")
	}
	first := &Answered{From: Held{Key: "details:a", Answer: &upstream.Answer{}}}
	k.Answer(first)
	if got := m.Get(raw).Answered(); got != first {
		t.Errorf("found answer %v, want the one kept", got)
	}
	second := &Answered{From: Held{Key: "details:b", Answer: &upstream.Answer{}}}
	m.Get(raw).Answer(second)
	if got := m.Get(raw).Answered(); got != second {
		t.Errorf("found answer %v after another was kept", got)
	}
	runtime.KeepAlive(first.From.Answer)
	runtime.KeepAlive(second.From.Answer)
	if m.Put(raw, Call{}).Answered() != nil || m.Get(raw).Answered() != nil {
		t.Error("a call kept again kept the answer before it")
	}
	var none *Kept
	none.Answer(first) // a call not kept keeps no answer, and does not fail
	if none.Answered() != nil {
		t.Error("a nil Kept has an answer")
	}
}

// A Get allocates nothing: it is on every cached call's path.
func TestMemoGetAllocatesNothing(t *testing.T) {
	m := NewMemo()
	raw := []byte(`{"lpn_id":"6402382024NCS310"}`)
	m.Put(raw, Call{})
	if n := testing.AllocsPerRun(100, func() {
		if m.Get(raw) == nil {
			panic("not kept")
		}
	}); n != 0 {
		t.Errorf("Get allocated %v times", n)
	}
}

// A kept answer lives as long as the cached answer it was rendered from,
// and no longer: the memo does not hold that answer's memory once the
// cache has let it go. An answer with no cached answer behind it is not
// kept at all.
func TestAKeptAnswerGoesWithItsCachedAnswer(t *testing.T) {
	m := NewMemo()
	held, dropped := []byte(`{"lpn_id":"held"}`), []byte(`{"lpn_id":"dropped"}`)
	cached := &upstream.Answer{Raw: make([]byte, 1<<20)}
	m.Put(held, Call{}).Answer(&Answered{From: Held{Key: "details:held", Answer: cached}})
	func() {
		gone := &upstream.Answer{Raw: make([]byte, 1<<20)}
		m.Put(dropped, Call{}).Answer(&Answered{From: Held{Key: "details:dropped", Answer: gone}})
		if m.Get(dropped).Answered() == nil {
			t.Fatal("an answer kept was not found while its cached answer lived")
		}
	}()
	for i := 0; i < 100 && m.Get(dropped).Answered() != nil; i++ {
		runtime.GC()
	}
	if m.Get(dropped).Answered() != nil {
		t.Error("the memo still held an answer whose cached answer was gone")
	}
	if a := m.Get(held).Answered(); a == nil || a.From.Answer != cached {
		t.Errorf("the answer of a cached answer still held was lost: %v", a)
	}
	runtime.KeepAlive(cached)

	orphan := m.Put([]byte(`{"lpn_id":"orphan"}`), Call{})
	orphan.Answer(&Answered{From: Held{Key: "details:orphan"}})
	if orphan.Answered() != nil {
		t.Error("an answer with no cached answer behind it was kept")
	}
}
