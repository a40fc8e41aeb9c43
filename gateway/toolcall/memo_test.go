package toolcall

import (
	"fmt"
	"strings"
	"testing"
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
	// Every slot's text is its own: texts that share a slot replace each
	// other, and none is ever found for another.
	for i := range 4 * memoSlots {
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
	first := &Answered{From: Held{Key: "details:a"}}
	k.Answer(first)
	if got := m.Get(raw).Answered(); got != first {
		t.Errorf("found answer %v, want the one kept", got)
	}
	second := &Answered{From: Held{Key: "details:b"}}
	m.Get(raw).Answer(second)
	if got := m.Get(raw).Answered(); got != second {
		t.Errorf("found answer %v after another was kept", got)
	}
	if m.Put(raw, Call{}).Answered() != nil || m.Get(raw).Answered() != nil {
		t.Error("a call kept again kept the answer before it")
	}
	var none *Kept
	none.Answer(first) // a call not kept keeps no answer, and does not fail
	if none.Answered() != nil {
		t.Error("a nil Kept has an answer")
	}
}

// Texts whose hashes share a set are all kept, up to the set's places: a
// handful of animals asked over and over must not push each other out.
// Past that, the newest text is kept and the set still holds memoWays.
func TestTextsSharingASetAreAllKept(t *testing.T) {
	m := NewMemo()
	var same [][]byte
	for i := 0; len(same) < memoWays+1; i++ {
		raw := []byte(fmt.Sprintf(`{"lpn_id":"6402382024NCS%03d"}`, i))
		if len(same) == 0 || m.set(raw) == m.set(same[0]) {
			same = append(same, raw)
		}
	}
	for _, raw := range same[:memoWays] {
		m.Put(raw, Call{Read: []string{string(raw)}})
	}
	for round := range 3 {
		for _, raw := range same[:memoWays] {
			if got := m.Get(raw); got == nil || got.Call.Read[0] != string(raw) {
				t.Fatalf("round %d: %s gave %v; every text of a set with room must stay kept", round, raw, got)
			}
		}
	}
	// Kept again, a text takes its own place, not a second one.
	m.Put(same[0], Call{Read: []string{"again"}})
	if got := m.Get(same[0]); got == nil || got.Call.Read[0] != "again" {
		t.Fatalf("a text kept again gave %v", got)
	}
	for _, raw := range same[1:memoWays] {
		if m.Get(raw) == nil {
			t.Fatalf("keeping %s again pushed out %s", same[0], raw)
		}
	}
	m.Put(same[memoWays], Call{Read: []string{"newest"}})
	if got := m.Get(same[memoWays]); got == nil || got.Call.Read[0] != "newest" {
		t.Fatalf("the newest text of a full set gave %v", got)
	}
	kept := 0
	for _, raw := range same {
		if m.Get(raw) != nil {
			kept++
		}
	}
	if kept != memoWays {
		t.Errorf("a full set keeps %d texts, want %d", kept, memoWays)
	}
}
