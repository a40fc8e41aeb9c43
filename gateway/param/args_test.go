package param

import (
	"reflect"
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

// pairArgs has scalars and lists, as an analysis's arguments do.
type pairArgs struct {
	Limit  int                `json:"limit,omitempty"`
	Rams   []string           `json:"ram_lpn_ids"`
	Traits []string           `json:"traits,omitempty"`
	Weight map[string]float64 `json:"weights,omitempty"`
	Index  string             `json:"index,omitempty"`
}

var pairSpecs = MustStruct[pairArgs](Table{reflect.TypeFor[pairArgs](): {
	"Limit":  {Example: 2, Min: Bound(0), Max: Bound(10)},
	"Rams":   {List: &List{MinItems: 1, MaxItems: 3, Item: lpnItems, Example: []string{ExampleLPN}}},
	"Traits": {List: &List{MinItems: 1, MaxItems: 5, Item: traitItems, Example: []string{"WWT"}}},
	"Weight": {List: &List{Required: true, Unless: "index", MaxItems: 5, Item: weightItems, Example: map[string]any{"WWT": 1.0}}},
	"Index":  {Example: "US Index", MaxLen: 40},
}})

// Validate judges scalars, lists and unknown names once each: a list
// required unless another argument stands in for it, a list that is
// refused, and a misspelt name with the one meant.
func TestArgsValidateScalarsAndLists(t *testing.T) {
	args, errs := pairSpecs.Validate(SentOf(map[string]any{"limit": 3, "ram_lpn_ids": []any{"6402382024ncs310"}, "weights": map[string]any{"WWT": 2.0}}))
	if len(errs) > 0 {
		t.Fatalf("a valid call: %+v", errs)
	}
	if n, _ := args.Int("limit"); n != 3 || !reflect.DeepEqual(args.Strings("ram_lpn_ids"), []string{"6402382024NCS310"}) || !reflect.DeepEqual(args.Members()["weights"], map[string]float64{"WWT": 2}) {
		t.Errorf("validated %#v", args)
	}
	if _, errs := pairSpecs.Validate(SentOf(map[string]any{"ram_lpn_ids": []any{ExampleLPN}, "index": "US Index"})); len(errs) > 0 {
		t.Errorf("weights are not required when index is sent: %+v", errs)
	}
	if _, errs := pairSpecs.Validate(SentOf(map[string]any{"limit": 20, "ram_lpn_ids": []any{ExampleLPN}, "index": "US Index"})); len(errs) != 1 || errs[0].Field != "limit" {
		t.Errorf("limit 20 of at most 10: %+v", errs)
	}
	_, errs = pairSpecs.Validate(SentOf(map[string]any{"traits": []any{}, "wieghts": 1}))
	got := map[string]string{}
	for _, e := range errs {
		got[e.Field] = e.Problem + " | " + e.Expected
	}
	for field, says := range map[string]string{
		"ram_lpn_ids": "is required",
		"weights":     "is required",
		"traits":      "",
		"wieghts":     "weights",
	} {
		if p, ok := got[field]; !ok || !strings.Contains(p, says) {
			t.Errorf("%s: %q, want it named saying %q (all: %v)", field, p, says, got)
		}
	}
}

// Example keeps what the call got right and fills what it needs with the
// definition's examples; a list sent wrong is replaced.
func TestArgsExampleKeepsWhatWasRight(t *testing.T) {
	ex := pairSpecs.Example(SentOf(map[string]any{"limit": 4, "traits": []any{"not a code!"}})).args
	if ex["limit"] != 4 || !reflect.DeepEqual(ex["ram_lpn_ids"], []string{ExampleLPN}) ||
		!reflect.DeepEqual(ex["traits"], []string{"WWT"}) || !reflect.DeepEqual(ex["weights"], map[string]any{"WWT": 1.0}) {
		t.Errorf("example %#v", ex)
	}
	ex = pairSpecs.Example(SentOf(map[string]any{"ram_lpn_ids": []any{"6402382022NCS087"}, "index": "US Index"})).args
	if !reflect.DeepEqual(ex["ram_lpn_ids"], []any{"6402382022NCS087"}) || ex["weights"] != nil {
		t.Errorf("a call with index: example %#v, want its rams and no weights", ex)
	}
}

// A tool's input schema lists its scalars in order, then its lists; a
// list another argument may stand in for is not required, since a call
// may leave it out.
func TestArgsInputSchemaListsFollowTheScalars(t *testing.T) {
	a := Args{
		Specs: []Spec{{Name: "breed_id", Kind: Integer, Required: true}, {Name: "top_n", Kind: Integer}},
		Lists: []List{
			{Name: "weights", Required: true, Unless: "index", MaxItems: 20, Item: weightItems},
			{Name: "lpn_ids", Required: true, MaxItems: 20, Item: lpnItems},
		},
	}
	s := a.InputSchema()
	if want := []string{"breed_id", "top_n", "weights", "lpn_ids"}; !reflect.DeepEqual(s.PropertyOrder, want) {
		t.Errorf("order %v, want %v", s.PropertyOrder, want)
	}
	if want := []string{"breed_id", "lpn_ids"}; !reflect.DeepEqual(s.Required, want) {
		t.Errorf("required %v, want %v (weights may give way to index)", s.Required, want)
	}
	if got, ok := s.Properties["weights"].(*Schema); !ok || got == nil {
		t.Errorf("weights' schema is %T, want the list's *Schema", s.Properties["weights"])
	}
}

// A name the tool lacks that begins exactly one of its arguments is taken
// for an abbreviation of it; one that begins several suggests none of
// them rather than a guess.
func TestAbbreviatedNameSuggestsTheArgument(t *testing.T) {
	ps := []Spec{{Name: "lpn_id", Kind: String}, {Name: "breed_id", Kind: Integer}, {Name: "breed_group_id", Kind: Integer}}
	for _, c := range []struct{ sent, want string }{
		{"lpn", "lpn_id"},
		{"LPN", "lpn_id"},
		{"breed_group", "breed_group_id"},
		{"bre", ""},
		{"l", ""},
	} {
		errs := namesNotTaken("", ps, map[string]any{c.sent: 1})
		if len(errs) != 1 || errs[0].Field != c.sent {
			t.Fatalf("%s: %+v", c.sent, errs)
		}
		if c.want == "" {
			if errs[0].Expected != "one of lpn_id, breed_id, breed_group_id" || strings.Contains(errs[0].Problem, "did you mean") {
				t.Errorf("%s: %+v, want no suggestion", c.sent, errs[0])
			}
			continue
		}
		if errs[0].Expected != c.want || !strings.HasSuffix(errs[0].Problem, `did you mean "`+c.want+`"?`) {
			t.Errorf("%s: %+v, want did you mean %q", c.sent, errs[0], c.want)
		}
	}
}
