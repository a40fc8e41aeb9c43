package param

import (
	"fmt"
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
	if items := a.Specs[3].Items; !reflect.DeepEqual(items, Type(String)) {
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
	args, errs := ValidateObject("", a.Specs, SentOf(map[string]any{"id": "x", "within": map[string]any{"low": 7}}))
	if len(errs) != 2 || errs[0].Field != "within.low" || errs[1].Field != "within.name" || args.m["page"] != 0 {
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

type listed struct {
	Index   string             `json:"index,omitempty"`
	Limit   *float64           `json:"limit,omitempty"`
	Within  *inner             `json:"within,omitempty"`
	IDs     []string           `json:"ids"`
	Codes   []string           `json:"codes,omitempty"`
	Weights map[string]float64 `json:"weights,omitempty"`
}

func listedTable() Table {
	return Table{
		reflect.TypeFor[listed](): {
			"Index":   {Example: "X"},
			"Limit":   {Example: 0.5},
			"Within":  {Brief: true},
			"IDs":     {List: &List{MinItems: 2, MaxItems: 3, Item: lpnItems, Example: []string{ExampleLPN}}},
			"Codes":   {List: &List{MaxItems: 4, Item: traitItems, Example: []string{"WWT"}}},
			"Weights": {List: &List{MaxItems: 5, Unless: "index", Item: weightItems, Example: map[string]any{"WWT": 1.0}}},
		},
		reflect.TypeFor[inner](): {"Low": {}, "Name": {}},
	}
}

// Lists of LPN IDs, of trait codes and of weights are fields too: they
// become Lists, named and required by their fields, in field order, apart
// from the Specs; a Brief field publishes its type alone.
func TestStructDerivesLists(t *testing.T) {
	a, err := listedTable().Struct(reflect.TypeFor[listed]())
	if err != nil {
		t.Fatal(err)
	}
	if got := Names(a.Specs); got != "index and limit and within" {
		t.Errorf("specs %s, want index and limit and within", got)
	}
	if k := a.Specs[1].Kind; k != Number {
		t.Errorf("a *float64 is a %s, want a number", k)
	}
	if s := a.Specs[2].Schema(); !reflect.DeepEqual(s, Type(Object)) {
		t.Errorf("brief schema %v, want only its type", s)
	}
	if len(a.Lists) != 3 {
		t.Fatalf("lists %+v, want ids, codes, weights", a.Lists)
	}
	ids, codes, w := a.Lists[0], a.Lists[1], a.Lists[2]
	if ids.Name != "ids" || !ids.Required || codes.Name != "codes" || codes.Required || w.Name != "weights" || !w.Required || w.Unless != "index" {
		t.Errorf("lists %+v", a.Lists)
	}
	if w.requiredIn(SentOf(map[string]any{"index": "X"})) || !w.requiredIn(SentOf(map[string]any{})) {
		t.Error("weights must be required exactly when index is absent")
	}
	v, errs := ids.Validate([]any{"6402382024ncs310", "6402382022NCS087"})
	if len(errs) > 0 || !reflect.DeepEqual(v, []string{"6402382024NCS310", "6402382022NCS087"}) {
		t.Errorf("ids validate to %v %v", v, errs)
	}
	if _, errs := ids.Validate([]any{ExampleLPN}); len(errs) != 1 || errs[0].Problem != "has 1 items; give 2..3" {
		t.Errorf("one id: %v", errs)
	}
}

// A list whose Go type or description disagrees with it is refused,
// naming the field.
func TestStructRefusesWhatDisagreesInLists(t *testing.T) {
	type nested struct {
		IDs []string `json:"ids"`
	}
	type holder struct {
		In *nested `json:"in,omitempty"`
	}
	tests := []struct {
		name string
		edit func(Table)
		want string
	}{
		{"weights as an array", func(tb Table) { tb[reflect.TypeFor[listed]()]["IDs"] = Spec{List: &List{Item: weightItems}} },
			"listed.IDs has Go type []string, but a list of its items is a map[string]float64"},
		{"ids as a map", func(tb Table) { tb[reflect.TypeFor[listed]()]["Weights"] = Spec{List: &List{Item: lpnItems}} },
			"listed.Weights has Go type map[string]float64, but a list of its items is a []string"},
		{"unknown item", func(tb Table) { tb[reflect.TypeFor[listed]()]["Codes"] = Spec{List: &List{}} },
			"listed.Codes: a list says what it holds (Item)"},
		{"spec beside the list", func(tb Table) {
			tb[reflect.TypeFor[listed]()]["Codes"] = Spec{Desc: "x", List: &List{Item: traitItems}}
		}, "listed.Codes: a list's description is all in its List"},
		{"required and unless", func(tb Table) {
			tb[reflect.TypeFor[listed]()]["IDs"] = Spec{List: &List{Item: lpnItems, Unless: "index"}}
		},
			"listed.IDs is required, so nothing stands in for it"},
		{"required by its list only", func(tb Table) {
			tb[reflect.TypeFor[listed]()]["Codes"] = Spec{List: &List{Item: traitItems, Required: true}}
		},
			"listed.Codes is optional by its json tag (omitempty) but required by its List"},
		{"other name", func(tb Table) {
			tb[reflect.TypeFor[listed]()]["IDs"] = Spec{List: &List{Name: "lpn_ids", Item: lpnItems}}
		},
			`listed.IDs is named "ids" by its json tag but "lpn_ids"`},
	}
	for _, tt := range tests {
		tb := listedTable()
		tt.edit(tb)
		_, err := tb.Struct(reflect.TypeFor[listed]())
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
	_, err := Table{
		reflect.TypeFor[holder](): {"In": {}},
		reflect.TypeFor[nested](): {"IDs": {List: &List{Item: lpnItems}}},
	}.Struct(reflect.TypeFor[holder]())
	if err == nil || !strings.Contains(err.Error(), "holder.In.IDs: a list is an argument of its own") {
		t.Errorf("a list in an object: error %v", err)
	}
}

// Of finds each entry's field by its address, so the entries land on the
// fields named, and an entry that is no field of the struct is refused.
func TestOfFindsFieldsByAddress(t *testing.T) {
	type inner struct {
		Deep int `json:"deep"`
	}
	type args struct {
		BreedID int    `json:"breed_id"`
		Status  string `json:"status,omitempty"`
		Inner   inner  `json:"inner"`
	}
	tb := Of(func(a *args) Described {
		return Described{&a.BreedID: {Example: 640}, &a.Status: {Example: "CURRENT"}, &a.Inner: {}}
	})
	f := tb[reflect.TypeFor[args]()]
	if len(f) != 3 || f["BreedID"].Example != 640 || f["Status"].Example != "CURRENT" {
		t.Fatalf("Of = %v, want BreedID, Status and Inner described", f)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "1 described entries are no fields") {
			t.Errorf("a nested field described on the outer struct: recovered %v, want a refusal", r)
		}
	}()
	Of(func(a *args) Described { return Described{&a.BreedID: {}, &a.Inner.Deep: {}} })
}
