package toolcall

import (
	"strings"
	"testing"
)

func TestMemoKeepsCallsByTheirExactText(t *testing.T) {
	m := NewMemo()
	a := Call{Read: []string{"a"}}
	m.Put([]byte(`{"search_string":"6402382024NCS310"}`), a)
	if got, ok := m.Get([]byte(`{"search_string":"6402382024NCS310"}`)); !ok || got.Read[0] != "a" {
		t.Errorf("the same text gave %v, %v", got, ok)
	}
	for _, other := range []string{`{"search_string": "6402382024NCS310"}`, `{"search_string":"6402382024NCS311"}`, ``} {
		if got, ok := m.Get([]byte(other)); ok {
			t.Errorf("%q found %v kept for another text", other, got)
		}
	}
	long := `{"search_string":"` + strings.Repeat("x", memoMaxBytes) + `"}`
	m.Put([]byte(long), a)
	if _, ok := m.Get([]byte(long)); ok {
		t.Error("a text over the bound was kept")
	}
	// Every slot's text is its own: texts that share a slot replace each
	// other, and none is ever found for another.
	for i := range 4 * memoSlots {
		raw := []byte(`{"page":` + strings.Repeat("1", i%40+1) + `,"i":"` + string(rune('a'+i%26)) + `"}`)
		m.Put(raw, Call{Read: []string{string(raw)}})
		if got, ok := m.Get(raw); !ok || got.Read[0] != string(raw) {
			t.Fatalf("%s: gave %v, %v right after it was kept", raw, got, ok)
		}
	}
	var none *Memo
	none.Put([]byte(`{}`), a)
	if _, ok := none.Get([]byte(`{}`)); ok {
		t.Error("a nil memo kept a call")
	}
}
