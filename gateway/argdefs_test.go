package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// argTypes adds t and every struct its fields embed or hold to seen.
func argTypes(t reflect.Type, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		if f := t.Field(i); f.Tag.Get("arg") != "key" {
			argTypes(f.Type, seen)
		}
	}
}

// Every description in argTable is of a struct some lookup tool takes its
// arguments as: a struct that no tool uses any more cannot leave its
// descriptions behind unchecked.
func TestArgTableDescribesOnlyToolArguments(t *testing.T) {
	used := map[reflect.Type]bool{}
	for _, d := range toolDefs {
		if d.args.Type == nil || d.args.Type != d.fetch.args {
			t.Errorf("%s: arguments not derived from its struct", d.name)
			continue
		}
		argTypes(d.args.Type, used)
	}
	for typ := range argTable {
		if !used[typ] {
			t.Errorf("argTable describes %v, which no lookup tool takes", typ)
		}
	}
	for _, d := range toolDefs {
		own := map[reflect.Type]bool{}
		argTypes(d.args.Type, own)
		for typ := range d.fields {
			if !own[typ] {
				t.Errorf("%s describes %v, which it does not take", d.name, typ)
			}
		}
	}
}

// The cache keys of lookup calls are those the server has always built
// ("method:canonical JSON" of the validated arguments without the view's),
// byte for byte: entries cached by an earlier build, in Redis, stay shared.
func TestLookupKeysUnchanged(t *testing.T) {
	tests := []struct {
		d    *toolDef
		sent map[string]any
		want string
	}{
		{lastUpdateDef, map[string]any{"max_tokens": 4000}, `get_date_last_updated:{}`},
		{traitRangesDef, map[string]any{"breed_id": 640}, `get_trait_ranges_by_breed:{"breed_id":640}`},
		{animalDef, map[string]any{"search_string": "6402382024ncs310", "percentiles": false},
			`get_animal_details:{"percentiles":false,"search_string":"6402382024NCS310"}`},
		{lineageDef, map[string]any{"lpn_id": "6402382024NCS310", "max_tokens": 500}, `get_lineage:{"lpn_id":"6402382024NCS310"}`},
		{progenyDef, map[string]any{"lpn_id": "6402382024NCS310", "traits": []any{"wwt"}, "skip": 2},
			`get_progeny:{"lpn_id":"6402382024NCS310","page":0,"page_size":10}`},
		{searchAnimalsDef, map[string]any{"traits": []any{"BWT"}, "skip": 1, "max_tokens": 3000},
			`search_animals:{"page":0,"page_size":15,"reverse":false}`},
		{searchAnimalsDef, map[string]any{"breed_id": 640, "sorted_trait": "wwt", "search_criteria": map[string]any{
			"gender": "female", "proven_only": false, "trait_ranges": map[string]any{"WWT": map[string]any{"min": 1}}}},
			`search_animals:{"breed_id":640,"page":0,"page_size":15,"reverse":false,"search_criteria":{"gender":"Female","trait_ranges":{"WWT":{"max":1000000,"min":1}}},"sorted_trait":"WWT"}`},
		{searchByLPNDef, map[string]any{"lpn_id": "6402382024NCS310", "traits": []any{"WWT"}}, `search_by_lpn:{"lpn_id":"6402382024NCS310"}`},
	}
	for _, tc := range tests {
		args, errs := param.ValidateObject("", tc.d.args.Specs, tc.sent)
		if len(errs) > 0 {
			t.Fatalf("%s %v: %v", tc.d.name, tc.sent, errs)
		}
		if got := tc.d.key(args); got != tc.want {
			t.Errorf("%s %v:\n key  %s\n want %s", tc.d.name, tc.sent, got, tc.want)
		}
	}
}

// A page read under an evaluation is keyed by the definition with the date
// among its fields, and NSIP is asked the page without it.
func TestEvaluationKeyedNotSent(t *testing.T) {
	args, errs := param.ValidateObject("", searchAnimalsDef.args.Specs, map[string]any{"breed_id": 640, "sorted_trait": "WWT"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	plain := searchAnimalsDef.key(args)
	under := map[string]any{argEvaluation: `09/23/2025`}
	for k, v := range args {
		under[k] = v
	}
	key := searchAnimalsDef.key(under)
	if want := `search_animals:{"breed_id":640,"evaluation":"09/23/2025","page":0,"page_size":15,"reverse":false,"sorted_trait":"WWT"}`; key != want {
		t.Errorf("key %s, want %s", key, want)
	}
	if key == plain {
		t.Errorf("the evaluation does not key the page")
	}
	request, err := bindFetch(searchAnimalsDef, key)
	if err != nil {
		t.Fatal(err)
	}
	var r recorder
	if _, _, err := request(context.Background(), &r); !errors.Is(err, errRecorded) {
		t.Fatal(err)
	}
	if want := []any{"SearchAnimals", nsip.SearchParams{PageSize: 15, BreedID: 640, SortedTrait: "WWT"}}; !reflect.DeepEqual(r.got, want) {
		t.Errorf("asked %#v, want %#v", r.got, want)
	}
	// A tool whose arguments have no evaluation field cannot be keyed by
	// one and lose it on the way: its binding refuses the key.
	if _, err := bindFetch(lineageDef, lineageDef.key(map[string]any{"lpn_id": "6402382024NCS310", argEvaluation: "09/23/2025"})); err == nil {
		t.Errorf("nsip_get_lineage bound a key with an evaluation")
	}
}

// nsip_get_animal takes the percentile path from its validated arguments:
// percentiles true is the analysis, false the record, and a value that is
// not a boolean is refused by the tool's validation naming the argument.
func TestAnimalPercentilesChosenByValidatedArguments(t *testing.T) {
	e := newEnv(t)
	id := e.up.Data().AnimalIDs()[0]
	on := e.call("nsip_get_animal", map[string]any{"search_string": " " + id + " ", "percentiles": true}).mustOK(t)
	var a struct {
		LPNID string `json:"lpn_id"`
	}
	if err := json.Unmarshal([]byte(on.text), &a); err != nil || a.LPNID != id {
		t.Errorf("percentiles true: %v %.300s", err, on.text)
	}
	bad := e.call("nsip_get_animal", map[string]any{"search_string": id, "percentiles": "yes"}).errorBody(t)
	if bad.Field != "percentiles" || bad.Problem != `percentiles must be true or false, got string "yes"` {
		t.Errorf("percentiles \"yes\": field %q problem %q", bad.Field, bad.Problem)
	}
}

// skip is checked against the page of either paged tool, and a busy
// summarizer suggests a smaller page, by one name: both structs must give
// their PageSize that name.
func TestPagedToolsNamePageSizeAlike(t *testing.T) {
	for _, d := range []*toolDef{searchAnimalsDef, progenyDef} {
		if n := d.args.Name("PageSize"); n != argPageSize || !d.hasParam(argPageSize) {
			t.Errorf("%s names its page size %q, the view checks %q", d.name, n, argPageSize)
		}
	}
	g := &Gateway{cfg: Config{MaxBudget: 8000}}
	errs := g.checkView(map[string]any{argSkip: 10, argPageSize: 10})
	if len(errs) != 1 || errs[0].Field != "skip" || errs[0].Expected != "integer 0..9 (less than page_size)" {
		t.Errorf("skip 10 of a page of 10: %v", errs)
	}
}
