package finite

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// celsius marshals itself; a nil *celsius must not be called.
type celsius float64

func (c celsius) MarshalJSON() ([]byte, error) { return []byte(fmt.Sprintf(`"%g C"`, float64(c))), nil }

// broken fails to marshal, as a Marshaler may.
type broken struct{}

func (broken) MarshalJSON() ([]byte, error) { return nil, errors.New("broken") }

type Inner struct {
	Deep float64 `json:"deep"`
}

type outer struct {
	Inner                    // embedded: its fields are the outer's
	*Extra                   // embedded pointer, set
	*Missing                 // embedded pointer, nil: left out
	Named    Inner           `json:"named"`
	Index    float64         `json:"index"`
	Weights  map[string]any  `json:"weights"`
	Rows     [][]any         `json:"rows"`
	Pair     [2]float32      `json:"pair"`
	Ptr      *float64        `json:"ptr"`
	NilPtr   *float64        `json:"nil_ptr"`
	NilMap   map[string]int  `json:"nil_map"`
	NilSlice []int           `json:"nil_slice"`
	Raw      []byte          `json:"raw"`
	Temp     celsius         `json:"temp"`
	NoTemp   *celsius        `json:"no_temp"`
	Empty    string          `json:"empty,omitempty"`
	Zero     struct{ A int } `json:"zero,omitzero"`
	Any      any             `json:"any"`
	Skipped  float64         `json:"-"`
	hidden   float64         // unexported: never encoded
	Untagged bool
	Omitted  map[string]string `json:"omitted,omitempty"`
}

type Extra struct {
	More float64 `json:"more"`
}

type Missing struct {
	Gone float64 `json:"gone"`
}

// An answer whose arithmetic overflowed still encodes: every infinite or
// undefined number is null, the rest as encoding/json writes them, and
// non_finite_values names each null's path.
func TestEncodeNullsNonFiniteNumbersAndNamesThem(t *testing.T) {
	inf := math.Inf(1)
	v := outer{
		Inner:   Inner{Deep: math.NaN()},
		Extra:   &Extra{More: 2},
		Named:   Inner{Deep: 1},
		Index:   inf,
		Weights: map[string]any{"WWT": math.Inf(-1)},
		Rows:    [][]any{{"a", 1.5, inf}},
		Pair:    [2]float32{1, float32(inf)},
		Ptr:     &inf,
		Raw:     []byte("hi"),
		Temp:    21,
		Skipped: inf,
		hidden:  inf,
	}
	b, err := Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	want := map[string]any{
		"deep": nil, "more": 2.0, "named": map[string]any{"deep": 1.0}, "index": nil,
		"weights": map[string]any{"WWT": nil}, "rows": []any{[]any{"a", 1.5, nil}},
		"pair": []any{1.0, nil}, "ptr": nil, "nil_ptr": nil, "nil_map": nil, "nil_slice": nil,
		"raw": "aGk=", "temp": "21 C", "no_temp": nil, "any": nil, "Untagged": false,
	}
	nf, _ := got["non_finite_values"].(map[string]any)
	delete(got, "non_finite_values")
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("encoded\n%v\nwant\n%v", got, want)
	}
	paths := fmt.Sprint(nf["paths"])
	for _, p := range []string{"deep", "index", "weights.WWT", "rows[0][2]", "pair[1]", "ptr"} {
		if !strings.Contains(" "+strings.Trim(paths, "[]")+" ", " "+p+" ") {
			t.Errorf("paths %s do not name %s", paths, p)
		}
	}
	if n := len(nf["paths"].([]any)); n != 6 || nf["not_shown"] != nil {
		t.Errorf("paths %s (not shown %v): want the six nulls", paths, nf["not_shown"])
	}
	if !strings.Contains(fmt.Sprint(nf["note"]), "overflowed") {
		t.Errorf("note = %v", nf["note"])
	}
}

// An answer of finite numbers is exactly nsip.PlainJSON's: no HTML
// escaping, no added member.
func TestEncodeOfFiniteAnswerIsPlainJSON(t *testing.T) {
	b, err := Encode(map[string]any{"note": "a<b & c", "n": 1.5})
	if err != nil || string(b) != `{"n":1.5,"note":"a<b & c"}` {
		t.Errorf("Encode = %s, %v", b, err)
	}
}

// Ten paths are listed; the rest are counted.
func TestEncodeListsTenPathsAndCountsTheRest(t *testing.T) {
	xs := make([]float64, 13)
	for i := range xs {
		xs[i] = math.NaN()
	}
	b, err := Encode(map[string]any{"xs": xs})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		NF struct {
			Paths    []string `json:"paths"`
			NotShown int      `json:"not_shown"`
		} `json:"non_finite_values"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.NF.Paths) != 10 || got.NF.Paths[0] != "xs[0]" || got.NF.Paths[9] != "xs[9]" || got.NF.NotShown != 3 {
		t.Errorf("non_finite_values = %+v", got.NF)
	}
}

// An answer that is not an object has nowhere to name the paths: its
// numbers are still null.
func TestEncodeOfNonObjectNullsWithoutNaming(t *testing.T) {
	b, err := Encode([]float64{1, math.Inf(1)})
	if err != nil || string(b) != "[1,null]" {
		t.Errorf("Encode = %s, %v", b, err)
	}
}

// A Marshaler that fails beside an overflowed number is null too, and named.
func TestEncodeNullsAFailingMarshaler(t *testing.T) {
	b, err := Encode(struct {
		X float64 `json:"x"`
		B broken  `json:"b"`
	}{X: math.Inf(1)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"b":null`) || !strings.Contains(string(b), `"paths":["x","b"]`) {
		t.Errorf("Encode = %s", b)
	}
}

// Errors other than an unsupported value are the encoder's, unchanged.
func TestEncodeReturnsOtherErrors(t *testing.T) {
	_, err := Encode(map[string]any{"c": make(chan int)})
	var ute *json.UnsupportedTypeError
	if !errors.As(err, &ute) {
		t.Errorf("err = %v, want encoding/json's unsupported type", err)
	}
}

// omitempty follows encoding/json for every kind it knows.
func TestEncodeOmitsEmptyAsEncodingJSON(t *testing.T) {
	type empties struct {
		S   string         `json:"s,omitempty"`
		I   int            `json:"i,omitempty"`
		U   uint8          `json:"u,omitempty"`
		F   float64        `json:"f,omitempty"`
		B   bool           `json:"b,omitempty"`
		P   *int           `json:"p,omitempty"`
		M   map[string]int `json:"m,omitempty"`
		A   [0]int         `json:"a,omitempty"`
		St  struct{}       `json:"st,omitempty"`
		Bad float64        `json:"bad"`
	}
	b, err := Encode(empties{Bad: math.NaN()})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"bad":null,"non_finite_values":{"note":"these numbers overflowed (infinite or undefined) in the arithmetic and are shown as null","paths":["bad"]},"st":{}}`; string(b) != want {
		t.Errorf("Encode =\n%s\nwant\n%s", b, want)
	}
}

func ExampleEncode() {
	b, _ := Encode(map[string]any{"index": math.Inf(1), "rank": 1})
	fmt.Println(string(b))
	// Output: {"index":null,"non_finite_values":{"note":"these numbers overflowed (infinite or undefined) in the arithmetic and are shown as null","paths":["index"]},"rank":1}
}
