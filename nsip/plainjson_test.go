package nsip

import (
	"encoding/json"
	"math"
	"testing"
)

func TestPlainJSONKeepsHTMLCharacters(t *testing.T) {
	v := map[string]any{"farm": "Smith & Sons <Ridge>", "n": 3, "list": []string{"a>b"}}
	got, err := PlainJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"farm":"Smith & Sons <Ridge>","list":["a>b"],"n":3}`
	if string(got) != want {
		t.Fatalf("PlainJSON = %s, want %s", got, want)
	}
	// The same value as json.Marshal writes it, apart from the escapes.
	std, _ := json.Marshal(v)
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal(std, &b) != nil {
		t.Fatal("not valid JSON")
	}
	if again, _ := json.Marshal(a); string(again) != string(std) {
		t.Fatalf("decodes to %v, json.Marshal wrote %s", a, std)
	}
}

func TestPlainJSONRefusesWhatJSONCannotHold(t *testing.T) {
	if b, err := PlainJSON(math.NaN()); err == nil {
		t.Fatalf("PlainJSON(NaN) = %s, want an error", b)
	}
}
