package param

import (
	"reflect"
	"strings"
	"testing"
)

type shown struct {
	MaxTokens int `json:"max_tokens,omitempty" arg:"view"`
}

type inner struct {
	Low  int    `json:"low,omitempty"`
	Name string `json:"name"`
}

type sample struct {
	ID     string   `json:"id"`
	Page   int      `json:"page,omitempty"`
	On     bool     `json:"on,omitempty"`
	Codes  []string `json:"codes,omitempty"`
	Within *inner   `json:"within,omitempty"`
	Date   string   `json:"date,omitempty" arg:"key"`
	shown
}

func sampleTable() Table {
	return Table{
		reflect.TypeFor[sample](): {
			"ID":     {Desc: "The ID.", Example: "A1"},
			"Page":   {Default: 0, Min: Bound(0), Max: Bound(9)},
			"On":     {Example: true},
			"Codes":  {Example: []any{"WWT"}},
			"Within": {DropZero: true},
		},
		reflect.TypeFor[inner](): {"Low": {Min: Bound(1), Max: Bound(5)}, "Name": {}},
		reflect.TypeFor[shown](): {"MaxTokens": {Example: 4000}},
	}
}

// The struct says each argument's name, JSON type and required-ness; its
// Fields the rest; view and key-only fields are told apart.
func TestStructDerivesTheArguments(t *testing.T) {
	a, err := sampleTable().Struct(reflect.TypeFor[sample]())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range a.Specs {
		got = append(got, s.Name+":"+string(s.Kind)+map[bool]string{true: "!", false: ""}[s.Required])
	}
	want := "id:string! page:integer on:boolean codes:array within:object max_tokens:integer"
	if strings.Join(got, " ") != want {
		t.Errorf("specs %s, want %s", strings.Join(got, " "), want)
	}
	if s := a.Specs[0]; s.Desc != "The ID." || s.Example != "A1" {
		t.Errorf("id lost its description: %+v", s)
	}
	if items := a.Specs[3].Items; !reflect.DeepEqual(items, map[string]any{"type": "string"}) {
		t.Errorf("codes items %v, want strings", items)
	}
	w := a.Specs[4]
	if len(w.Props) != 2 || w.Props[0].Name != "low" || w.Props[0].Required || !w.Props[1].Required || *w.Props[0].Max != 5 || !w.DropZero {
		t.Errorf("within: %+v", w)
	}
	if !reflect.DeepEqual(a.View, []string{"max_tokens"}) || !reflect.DeepEqual(a.Keyed, []string{"date"}) {
		t.Errorf("view %v keyed %v, want [max_tokens] [date]", a.View, a.Keyed)
	}
	if a.Name("Page") != "page" || a.Name("MaxTokens") != "max_tokens" {
		t.Errorf("Name(Page) = %q, Name(MaxTokens) = %q", a.Name("Page"), a.Name("MaxTokens"))
	}
	// What validation makes of it: defaults, bounds and the nested fields.
	args, errs := ValidateObject("", a.Specs, map[string]any{"id": "x", "within": map[string]any{"low": 7}})
	if len(errs) != 2 || errs[0].Field != "within.low" || errs[1].Field != "within.name" || args["page"] != 0 {
		t.Errorf("validation: %v %v", args, errs)
	}
}

// A field without its description, a description without its field, and
// a description that contradicts the struct each stop the derivation,
// naming the field.
func TestStructRefusesWhatDisagrees(t *testing.T) {
	tests := []struct {
		name string
		edit func(Table)
		want string
	}{
		{"missing", func(tb Table) { delete(tb[reflect.TypeFor[sample]()], "On") },
			"sample.On (on) has no description"},
		{"missing in a nested struct", func(tb Table) { delete(tb[reflect.TypeFor[inner]()], "Name") },
			"sample.Within.Name (name) has no description"},
		{"missing view", func(tb Table) { delete(tb, reflect.TypeFor[shown]()) },
			"shown.MaxTokens (max_tokens) has no description"},
		{"no such field", func(tb Table) { tb[reflect.TypeFor[sample]()]["Size"] = Spec{} },
			"sample has a description for Size, which is no field of it"},
		{"key-only described", func(tb Table) { tb[reflect.TypeFor[sample]()]["Date"] = Spec{} },
			"sample.Date is a key-only field"},
		{"other name", func(tb Table) { tb[reflect.TypeFor[sample]()]["ID"] = Spec{Name: "lpn_id", Required: true} },
			`sample.ID is named "id" by its json tag but "lpn_id"`},
		{"other kind", func(tb Table) { tb[reflect.TypeFor[sample]()]["Page"] = Spec{Kind: String} },
			"sample.Page is a JSON integer by its Go type but a string"},
		{"required by description only", func(tb Table) { tb[reflect.TypeFor[sample]()]["Page"] = Spec{Required: true} },
			"sample.Page is required=false by its json tag"},
		{"required with a default", func(tb Table) { tb[reflect.TypeFor[sample]()]["ID"] = Spec{Default: "A"} },
			"sample.ID is required and has a default"},
		{"props described", func(tb Table) { tb[reflect.TypeFor[sample]()]["Within"] = Spec{Props: []Spec{{Name: "low"}}} },
			"sample.Within: its fields and items come from its Go type"},
	}
	for _, tt := range tests {
		tb := sampleTable()
		tt.edit(tb)
		_, err := tb.Struct(reflect.TypeFor[sample]())
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

// A map is an argument only as trait ranges; a type JSON has no name for,
// and a field no json tag names, are refused.
func TestStructRefusesUnnamedTypes(t *testing.T) {
	type bad struct {
		Weights map[string]float64 `json:"weights"`
		Ch      chan int           `json:"ch"`
		Plain   string
	}
	_, err := Table{reflect.TypeFor[bad](): {"Weights": {}, "Ch": {}, "Plain": {}}}.Struct(reflect.TypeFor[bad]())
	for _, want := range []string{"bad.Weights is a map", "bad.Ch has Go type chan int", "bad.Plain needs a json tag"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want one containing %q", err, want)
		}
	}
}
