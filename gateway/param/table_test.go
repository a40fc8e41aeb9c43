package param

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// pen is an argument struct using every kind of argument and list.
type pen struct {
	LPN      string             `json:"lpn_id,omitempty"`
	Flock    []string           `json:"lpn_ids,omitempty"`
	Traits   []string           `json:"traits,omitempty"`
	Weights  map[string]float64 `json:"weights,omitempty"`
	Weight   float64            `json:"weight,omitempty"`
	Ewes     bool               `json:"ewes,omitempty"`
	Sex      string             `json:"sex,omitempty"`
	Born     string             `json:"born,omitempty"`
	Tag      string             `json:"tag,omitempty"`
	Criteria *herd              `json:"search_criteria,omitempty"`
	Sorted   string             `json:"sorted_trait,omitempty"`
	Page     int                `json:"page,omitempty"`
}

var penArgs = MustStruct[pen](Table{
	reflect.TypeFor[pen](): {
		"LPN":      optional(LPNParam("The animal.")),
		"Flock":    {List: &List{Desc: "Animals to compare.", Required: true, MinItems: 2, MaxItems: 4, Item: lpnItems, Example: []string{"A1", "B2"}, Unless: "lpn_id"}},
		"Traits":   {List: &List{Desc: "Traits to show.", MaxItems: 3, Item: traitItems, Example: []string{"WWT"}}},
		"Weights":  {List: &List{Desc: "Weights per trait.", MaxItems: 3, Item: weightItems, Example: map[string]any{"WWT": 1.0}}},
		"Weight":   {Desc: "A weight.", Example: 1.5},
		"Ewes":     {Desc: "Ewes only.", Example: true},
		"Sex":      {Desc: "Sex.", Enum: []string{"Male", "Female"}, Example: "Female"},
		"Born":     {Desc: "Born on.", Date: true, Example: "2024-02-01"},
		"Tag":      {Desc: "A tag.", MinLen: 2, MaxLen: 6, Pattern: regexp.MustCompile(`^[a-z]+$`), Example: "ab"},
		"Criteria": herdArg,
		"Sorted":   sortedTrait,
		"Page":     {Desc: "Page.", Default: 0, Min: Bound(0), Max: Bound(9), Example: 1},
	},
	reflect.TypeFor[herd](): herdTable[reflect.TypeFor[herd]()],
})

// optional is s not required.
func optional(s Spec) Spec {
	s.Required = false
	return s
}

// outcome renders what validation made of a call: the normalised
// arguments as JSON, then one line per problem.
func outcome(args map[string]any) string {
	rest := map[string]any{}
	for k, v := range args {
		rest[k] = v
	}
	var lists []FieldError
	got := map[string]any{}
	for _, l := range penArgs.Lists {
		raw, sent := rest[l.Name]
		delete(rest, l.Name)
		switch {
		case sent:
			v, errs := l.Validate(raw)
			lists = append(lists, errs...)
			got[l.Name] = v
		case l.requiredIn(SentOf(args)):
			lists = append(lists, FieldError{Field: l.Name, Problem: "is required"})
		}
	}
	v, errs := ValidateObject("", penArgs.Specs, SentOf(rest))
	v.Each(func(k string, x any) { got[k] = x })
	errs = append(errs, lists...)
	b, _ := json.Marshal(got)
	lines := []string{string(b)}
	for _, e := range errs {
		lines = append(lines, e.Field+": "+e.Problem)
	}
	return strings.Join(lines, "\n")
}

// What each kind of argument accepts, how it is normalised, and what a
// caller is told of what it refuses.
func TestValidationOfEveryKind(t *testing.T) {
	lpn := ExampleLPN
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"normalised", map[string]any{"lpn_id": strings.ToLower(lpn), "traits": []any{"wwt", "WWT", "nlb"},
			"weights": map[string]any{"wwt": 2}, "weight": json.Number("2.5"), "ewes": true, "sex": "female",
			"born": "2024-02-29", "tag": "abc", "sorted_trait": "bwt",
			"search_criteria": map[string]any{"gender": "male", "status": "current", "trait_ranges": map[string]any{"wwt": map[string]any{"min": 1}}}},
			`{"born":"2024-02-29","ewes":true,"lpn_id":"6402382024NCS310","page":0,"search_criteria":{"gender":"Male","status":"CURRENT","trait_ranges":{"WWT":{"min":1}}},"sex":"Female","sorted_trait":"BWT","tag":"abc","traits":null,"weight":2.5,"weights":{"WWT":2}}
traits[1]: WWT is listed twice`},
		{"wrong types", map[string]any{"lpn_id": 12, "weight": "heavy", "ewes": "yes", "page": 1.5, "search_criteria": "rams"}, `{}
lpn_id: must be a string, got integer 12
weight: must be a number, got string "heavy"
ewes: must be true or false, got string "yes"
search_criteria: must be an object, got string "rams"
page: must be an integer, got number 1.5`},
		{"bounds and shapes", map[string]any{"lpn_ids": []any{lpn}, "page": 10, "sex": "ram", "born": "2024-02-30", "tag": "a", "sorted_trait": "weight"}, `{"lpn_ids":null}
sex: "ram" is not one of Male, Female
born: "2024-02-30" is not a real calendar date in YYYY-MM-DD form
tag: is 1 characters long; at least 2 needed
sorted_trait: "weight" could mean any of 6 traits: BWT, WWT, MWWT, PWWT, YWT, YGFW
page: must be at most 9, got 10
lpn_ids: has 1 items; give 2..4`},
		{"pattern", map[string]any{"lpn_id": lpn, "tag": "ABC1"}, `{"lpn_id":"6402382024NCS310","page":0}
tag: "ABC1" contains characters that are not allowed`},
		{"lists", map[string]any{"lpn_ids": []any{lpn, lpn}, "traits": []any{"WWT", "BWT", "NLB", "PWWT"}, "weights": map[string]any{"XQZ": 1, "WWT": "a"}}, `{"lpn_ids":null,"page":0,"traits":null,"weights":null}
lpn_ids[1]: 6402382024NCS310 is listed twice
traits: has 4 items; give 0..3
weights.WWT: must be a number, got string "a"
weights.XQZ: "XQZ" is not a known trait code or name`},
		{"trait ranges", map[string]any{"lpn_id": lpn, "search_criteria": map[string]any{"trait_ranges": map[string]any{
			"WWT": map[string]any{"min": 5, "max": 1}, "BWT": map[string]any{}, "w w": 3, "nlb": []any{}}}}, `{"lpn_id":"6402382024NCS310","page":0}
search_criteria.trait_ranges.nlb: must be an object, got array []
search_criteria.trait_ranges."w w": "w w" is not a known trait code or name; did you mean "WWT"?`},
		{"criteria rules", map[string]any{"lpn_id": lpn, "search_criteria": map[string]any{"born_after": "2024-01-01", "born_before": "2023-01-01"}}, `{"lpn_id":"6402382024NCS310","page":0}
search_criteria.born_before: ends at 2023-01-01, before its start at 2024-01-01`},
		{"unknown names", map[string]any{"lpn_id": lpn, "trait": []any{"WWT"}, "pgae": 1, "zzzzzz": 1}, `{"lpn_id":"6402382024NCS310","page":0}
pgae: is not an argument of this tool
trait: is not an argument of this tool; did you mean "sorted_trait"?
zzzzzz: is not an argument of this tool`},
		{"empty criteria dropped", map[string]any{"lpn_id": lpn, "search_criteria": map[string]any{}}, `{"lpn_id":"6402382024NCS310","page":0}`},
	}
	for _, c := range cases {
		if got := outcome(c.args); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}
