package cache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomParams builds a JSON-shaped value of at most depth levels, drawing
// strings from pieces that exercise every escaping rule.
func randomParams(r *rand.Rand, depth int) any {
	kind := r.IntN(10)
	if depth <= 0 {
		kind = r.IntN(6)
	}
	switch kind {
	case 0:
		return randomString(r)
	case 1:
		return r.IntN(200001) - 100000
	case 2:
		return randomFloat(r)
	case 3:
		return r.IntN(2) == 0
	case 4:
		return nil
	case 5:
		return []int64{math.MaxInt64, math.MinInt64, 0, 9007199254740993}[r.IntN(4)]
	case 6, 7, 8:
		m := map[string]any{}
		for range r.IntN(7) {
			m[randomString(r)] = randomParams(r, depth-1)
		}
		return m
	default:
		a := make([]any, r.IntN(5))
		for i := range a {
			a[i] = randomParams(r, depth-1)
		}
		return a
	}
}

var stringPieces = []string{
	"", "a", "page_size", "search_criteria", "6402382024NCS310", "Katahdin", "<", ">", "&",
	`"`, `\`, "/", "\n", "\r", "\t", "\b", "\f", "\x00", "\x01", "\x1f", "\x7f", " ",
	"é", "ñandú", "羊", "🐑", "\u2028", "\u2029", "\u2027", "\ufffd", "Z", "z", "0",
}

func randomString(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(5) {
		b.WriteString(stringPieces[r.IntN(len(stringPieces))])
	}
	return b.String()
}

func randomFloat(r *rand.Rand) float64 {
	switch r.IntN(6) {
	case 0:
		return math.Float64frombits(r.Uint64()) // any exponent, NaN and ±Inf included
	case 1:
		return []float64{0, math.Copysign(0, -1), 1e-6, 9.99e-7, 1e21, 9.99e20, 1e-9, 5e-324, math.MaxFloat64, math.NaN(), math.Inf(-1)}[r.IntN(11)]
	case 2:
		return float64(r.IntN(2000)-1000) / 8
	default:
		return (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(60)-30))
	}
}

// referenceKey is the route the key rule was first written with: marshal,
// decode into maps keeping numbers as written (so any value, struct or map,
// is reduced to sorted JSON objects), and encode again without HTML
// escaping. Key must give the same bytes for everything the gateway passes.
func referenceKey(method string, params any) string {
	if params == nil {
		return method + ":{}"
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Sprintf("%s:%#v", method, params)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		panic(err)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(generic); err != nil {
		panic(err)
	}
	return method + ":" + strings.TrimSuffix(b.String(), "\n")
}

// TestKeyMatchesTheReferenceEncoding holds Key to the bytes of the
// marshal, decode and encode route over many generated parameter sets and
// the shapes the gateway builds, escapes and odd numbers included.
func TestKeyMatchesTheReferenceEncoding(t *testing.T) {
	fixed := []any{
		map[string]any{"search_string": "6402382024NCS310"},
		map[string]any{"lpn_id": "6402382024NCS310", "page": 0, "page_size": 10},
		map[string]any{
			"page": 0, "page_size": 15, "breed_id": 640, "sorted_trait": "WWT", "reverse": false,
			"search_criteria": map[string]any{"gender": "Female", "born_after": "2022-01-01", "status": "CURRENT",
				"trait_ranges": map[string]any{"BWT": map[string]any{"min": -1.5, "max": 0.25}}},
		},
		map[string]any{},
		map[string]any(nil),
		[]any(nil),
		map[string]any{"x": []any{}, "y": map[string]any(nil), "z": []any(nil)},
		map[string]any{"nan": math.NaN()},
		map[string]any{"n": uint64(math.MaxUint64), "i32": int32(-7), "u": uint(3)},
		map[string]any{"typed": []string{"a", "b"}, "bytes": []byte("hi")},
		map[string]any{"html": "<a href=\"x\">&</a>", "sep": "\u2028\u2029"},
		"plain string",
		3.0,
	}
	r := rand.New(rand.NewPCG(7, 11))
	for range 5000 {
		fixed = append(fixed, randomParams(r, 3))
	}
	for i, p := range fixed {
		got, want := Key("m", p), referenceKey("m", p)
		if got != want {
			t.Fatalf("params %d (%#v):\nKey       %q\nreference %q", i, p, got, want)
		}
	}
	if got, want := Key("get_animal_details", map[string]any{"search_string": "6402382024NCS310"}),
		`get_animal_details:{"search_string":"6402382024NCS310"}`; got != want {
		t.Errorf("Key = %s, want %s", got, want)
	}
	if got, want := Key("m", map[string]any{"b": 1, "a": map[string]any{"z": "<&>", "y": 2.5}}),
		`m:{"a":{"y":2.5,"z":"<&>"},"b":1}`; got != want {
		t.Errorf("Key = %s, want %s", got, want)
	}
}

func TestKeyAllocatesOnlyItsResult(t *testing.T) {
	args := map[string]any{
		"page": 0, "page_size": 15, "breed_id": 640, "sorted_trait": "WWT", "reverse": false,
		"search_criteria": map[string]any{"gender": "Female", "born_after": "2022-01-01", "status": "CURRENT"},
	}
	// The buffer, each map's sorted keys and the string (4 measured);
	// encoding/json's encoder made 24 and the marshal-decode-encode route 78.
	if n := testing.AllocsPerRun(100, func() { _ = Key("search_animals", args) }); n > 5 {
		t.Errorf("Key allocates %v times per call, want at most 5", n)
	}
}
