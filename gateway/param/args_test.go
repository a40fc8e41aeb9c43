package param

import (
	"strings"
	"testing"
)

type decodeInner struct {
	Skip int `json:"skip,omitempty"`
}

type decodeArgs struct {
	LPNID string `json:"lpn_id"`
	Page  int    `json:"page,omitempty"`
	decodeInner
}

// DecodeInto names the member that does not fit, found from the struct,
// whether it is a name the struct lacks or a value of another type.
func TestDecodeIntoNamesTheMember(t *testing.T) {
	var a decodeArgs
	if fe := DecodeInto([]byte(`{"lpn_id":"6402382024NCS310","page":2,"skip":3}`), &a); fe != nil || a.LPNID != "6402382024NCS310" || a.Page != 2 || a.Skip != 3 {
		t.Fatalf("decoded %+v, %v", a, fe)
	}
	for _, c := range []struct{ params, field, says string }{
		{`{"lpn_id":"X","zebra":1,"apple":2}`, "apple", "unknown field"},
		{`{"lpn_id":"X","page":"two"}`, "page", "cannot unmarshal"},
		{`{"lpn_id":"X","skip":1.5}`, "skip", "cannot unmarshal"},
		{`[1]`, "arguments", "cannot unmarshal"},
	} {
		fe := DecodeInto([]byte(c.params), &decodeArgs{})
		if fe == nil || fe.Field != c.field || !strings.Contains(fe.Problem, c.says) || !strings.HasPrefix(fe.Problem, "does not fit the tool's arguments") {
			t.Errorf("%s: %+v, want field %q saying %q", c.params, fe, c.field, c.says)
		}
	}
}
