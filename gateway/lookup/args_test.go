package lookup

import (
	"reflect"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
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

// Every description in ArgTable is of a struct some lookup tool takes its
// arguments as: a struct that no tool uses any more cannot leave its
// descriptions behind unchecked.
func TestArgTableDescribesOnlyToolArguments(t *testing.T) {
	used := map[reflect.Type]bool{}
	for _, d := range All {
		if d.Args.Type == nil || d.Args.Type != d.fetch.args {
			t.Errorf("%s: arguments not derived from its struct", d.Name)
			continue
		}
		argTypes(d.Args.Type, used)
	}
	for typ := range ArgTable {
		if !used[typ] {
			t.Errorf("ArgTable describes %v, which no lookup tool takes", typ)
		}
	}
	for _, d := range All {
		own := map[reflect.Type]bool{}
		argTypes(d.Args.Type, own)
		for typ := range d.fields {
			if !own[typ] {
				t.Errorf("%s describes %v, which it does not take", d.Name, typ)
			}
		}
	}
}

// The cache keys of lookup calls are those the server has always built
// ("method:canonical JSON" of the validated arguments without the view's),
// byte for byte: entries cached by an earlier build, in Redis, stay shared.
func TestLookupKeysUnchanged(t *testing.T) {
	tests := []struct {
		d    *Def
		sent map[string]any
		want string
	}{
		{LastUpdate, map[string]any{"max_tokens": 4000}, `get_date_last_updated:{}`},
		{TraitRanges, map[string]any{"breed_id": 640}, `get_trait_ranges_by_breed:{"breed_id":640}`},
		{Animal, map[string]any{"search_string": "6402382024ncs310", "percentiles": false},
			`get_animal_details:{"percentiles":false,"search_string":"6402382024NCS310"}`},
		{Lineage, map[string]any{"lpn_id": "6402382024NCS310", "max_tokens": 500}, `get_lineage:{"lpn_id":"6402382024NCS310"}`},
		{Progeny, map[string]any{"lpn_id": "6402382024NCS310", "traits": []any{"wwt"}, "skip": 2},
			`get_progeny:{"lpn_id":"6402382024NCS310","page":0,"page_size":10}`},
		{SearchAnimals, map[string]any{"traits": []any{"BWT"}, "skip": 1, "max_tokens": 3000},
			`search_animals:{"page":0,"page_size":15,"reverse":false}`},
		{SearchAnimals, map[string]any{"breed_id": 640, "sorted_trait": "wwt", "search_criteria": map[string]any{
			"gender": "female", "proven_only": false, "trait_ranges": map[string]any{"WWT": map[string]any{"min": 1}}}},
			`search_animals:{"breed_id":640,"page":0,"page_size":15,"reverse":false,"search_criteria":{"gender":"Female","trait_ranges":{"WWT":{"max":1000000,"min":1}}},"sorted_trait":"WWT"}`},
		{SearchByLPN, map[string]any{"lpn_id": "6402382024NCS310", "traits": []any{"WWT"}}, `search_by_lpn:{"lpn_id":"6402382024NCS310"}`},
	}
	for _, tc := range tests {
		args, errs := tc.d.Args.Validate(param.SentOf(tc.sent))
		if len(errs) > 0 {
			t.Fatalf("%s %v: %v", tc.d.Name, tc.sent, errs)
		}
		if got := tc.d.Key(args); got != tc.want {
			t.Errorf("%s %v:\n key  %s\n want %s", tc.d.Name, tc.sent, got, tc.want)
		}
	}
}
