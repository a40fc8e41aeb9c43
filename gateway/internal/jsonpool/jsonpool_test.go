package jsonpool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// A decoder taken from a pool gives what a new one gives, whatever the
// inputs before it left behind: trailing values, cut-off objects, errors.
func TestPooledDecodersDecodeAsNewOnes(t *testing.T) {
	inputs := []string{
		`{"a":1}`, `{"a":1} {"b":2}`, `{"b":[1,2.5e3,"x",true]}`, `{"c":`, `[1]`, `7`,
		`{"d":"\u00e9\n"}`, `{"a":12345678901234567890}`, `{} `, `{"e":null}`, `{"a":"x"}junk`, `{"a":1}`,
	}
	type strict struct {
		A json.Number `json:"a"`
	}
	for round := range 3 {
		for _, in := range inputs {
			var got, want any
			gotErr := decodeWith(&numberDecoders, []byte(in), &got)
			d := json.NewDecoder(bytes.NewReader([]byte(in)))
			d.UseNumber()
			wantErr := d.Decode(&want)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
				t.Errorf("round %d, %s: %#v, %v; want %#v, %v", round, in, got, gotErr, want, wantErr)
			}
			var gs, ws strict
			gotErr = decodeWith(&strictDecoders, []byte(in), &gs)
			d = json.NewDecoder(bytes.NewReader([]byte(in)))
			d.DisallowUnknownFields()
			wantErr = d.Decode(&ws)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || gs != ws {
				t.Errorf("round %d, %s into a struct: %#v, %v; want %#v, %v", round, in, gs, gotErr, ws, wantErr)
			}
		}
	}
}

// The two ways in decode as their names say: numbers kept as written, and
// a member the struct lacks refused.
func TestNumbersAndStrict(t *testing.T) {
	var v any
	if err := Numbers([]byte(`{"n":12345678901234567890}`), &v); err != nil || v.(map[string]any)["n"] != json.Number("12345678901234567890") {
		t.Errorf("Numbers: %#v, %v; want the number as written", v, err)
	}
	var s struct {
		A int `json:"a"`
	}
	if err := Strict([]byte(`{"a":1,"b":2}`), &s); err == nil {
		t.Error("Strict took a member the struct lacks")
	}
	if err := Strict([]byte(`{"a":3}`), &s); err != nil || s.A != 3 {
		t.Errorf("Strict: %+v, %v; want a = 3", s, err)
	}
}
