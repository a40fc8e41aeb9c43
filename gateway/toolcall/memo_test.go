package toolcall

import (
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
