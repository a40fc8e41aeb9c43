package jsonwalk

import "testing"

func TestSkipValue(t *testing.T) {
	cases := []struct {
		in   string
		want string // the value SkipValue steps over, from the first byte
	}{
		{`"a\"b" ,`, `"a\"b"`},
		{`{"k":[1,{"x":"}"}],"e":"\\"} ]`, `{"k":[1,{"x":"}"}],"e":"\\"}`},
		{`[[],[[]]],1`, `[[],[[]]]`},
		{`-12.5e3}`, `-12.5e3`},
		{`true]`, `true`},
		{"null\n,", `null`},
		// Not valid JSON: the walk stops at the end of the text, never past it.
		{`"open`, `"open`},
		{`{"a":[`, `{"a":[`},
		{`"\`, `"\`},
	}
	for _, c := range cases {
		if got := c.in[:SkipValue([]byte(c.in), 0)]; got != c.want {
			t.Errorf("SkipValue(%q) stepped over %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSkipSpace(t *testing.T) {
	b := []byte(" \t\r\n x\v")
	if i := SkipSpace(b, 0); i != 5 {
		t.Errorf("SkipSpace stopped at %d, want 5 (JSON white space only)", i)
	}
	if i := SkipSpace(b, 6); i != 6 || IsSpace('\v') {
		t.Errorf("vertical tab counted as JSON white space")
	}
	if i := SkipSpace([]byte("   "), 0); i != 3 {
		t.Errorf("all-space text: stopped at %d, want 3", i)
	}
}
