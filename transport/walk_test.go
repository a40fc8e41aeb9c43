package transport

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// checkWalk holds topMembers's reading of params to the token-by-token one.
func checkWalk(t *testing.T, raw []byte) bool {
	t.Helper()
	if !json.Valid(raw) || len(strings.TrimLeft(string(raw), jsonSpace)) == 0 {
		return false
	}
	raw = []byte(strings.Trim(string(raw), jsonSpace))
	if raw[0] != '{' {
		return false
	}
	env, problem := topMembers(raw)
	if problem != "" {
		return false
	}
	params, _ := env.get("params")
	name, ok := repeatedMember(params)
	if ok != env.hasRepeat || name != env.repeat {
		t.Fatalf("%q: walk finds %q %v, the token reading %q %v", raw, env.repeat, env.hasRepeat, name, ok)
	}
	return true
}

func TestWalkFindsTheRepeatsTokensFind(t *testing.T) {
	inputs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1,"a":2}}}`,
		`{"params":{"name":"x","NAME":"y"}}`,
		`{"params":{"kind":1,"` + "\u212a" + `ind":2}}`, // the Kelvin sign folds to k
		`{"params":{"a":{"b":1,"B":2}}}`,                // deeper names are exact
		`{"params":[{"a":1,"A":2},{"c":[1,{"d":1,"d":2}]}]}`,
		`{"params":{"\u0061":1,"a":2}}`,
		`{"params":{"s":"}\"{","s ":"]"}, "id" : 3 }`,
		`{"params":{"x":[],"y":{},"z":[[]],"w":-1.5e3,"v":true,"u":null},"method":"m"}`,
		`{"params":"text"}`, `{"params":null}`, `{"other":{"a":1,"a":1}}`,
	}
	// Many members: past the list, into the map.
	var many strings.Builder
	many.WriteString(`{"params":{`)
	for i := range 40 {
		many.WriteString(`"m` + strings.Repeat("x", i) + `":1,`)
	}
	many.WriteString(`"mxxxxx":2}}`)
	inputs = append(inputs, many.String())
	inputs = append(inputs, fuzzSeeds...)
	for _, f := range malformedFrames {
		inputs = append(inputs, f.frame)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		inputs = append(inputs, `{"params":`+randomJSON(r, 0)+`}`)
	}
	checked := 0
	for _, in := range inputs {
		if checkWalk(t, []byte(in)) {
			checked++
		}
	}
	if checked < 5000 {
		t.Fatalf("only %d objects compared", checked)
	}
}

// randomJSON is a value over a few names that collide often, in case
// variants and escapes.
func randomJSON(r *rand.Rand, depth int) string {
	names := []string{`"a"`, `"A"`, `"\u0061"`, `"b"`, `"name"`, `"Name"`, `"k"`, `"` + "\u212a" + `"`, `"é"`, `"É"`}
	switch n := r.IntN(6); {
	case depth > 3 || n == 0:
		return []string{`1`, `"s"`, `null`, `true`, `-0.5`, `"\"}"`}[r.IntN(6)]
	case n < 4:
		var b strings.Builder
		b.WriteString("{")
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(names[r.IntN(len(names))] + " : " + randomJSON(r, depth+1))
		}
		b.WriteString("}")
		return b.String()
	default:
		var b strings.Builder
		b.WriteString("[")
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(randomJSON(r, depth+1))
		}
		b.WriteString("]")
		return b.String()
	}
}

func FuzzWalkRepeats(f *testing.F) {
	f.Add(`{"params":{"a":1,"A":2}}`)
	f.Add(`{"params":[{"x":{"y":1,"y":2}}],"id":1}`)
	f.Fuzz(func(t *testing.T, s string) { checkWalk(t, []byte(s)) })
}
