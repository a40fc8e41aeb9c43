package argcheck

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

// wordsArgs takes a trait in every way a tool does: a value, a list, a
// weights object and search_criteria's trait ranges.
type wordsArgs struct {
	Sorted   string             `json:"sorted_trait,omitempty"`
	Traits   []string           `json:"traits,omitempty"`
	Weights  map[string]float64 `json:"weights,omitempty"`
	Criteria *nsiparg.Criteria  `json:"search_criteria,omitempty"`
}

var wordsCalls = param.MustStruct[wordsArgs](param.Tables(nsiparg.CriteriaTable, param.Of(func(a *wordsArgs) param.Described {
	return param.Described{
		&a.Sorted:   nsiparg.SortedTrait,
		&a.Traits:   {List: &param.List{Desc: "Traits.", MaxItems: 5, Item: nsiparg.Traits, Example: []string{"WWT"}}},
		&a.Weights:  {List: &param.List{Desc: "Weights.", MaxItems: 5, Item: nsiparg.Weights, Example: map[string]any{"WWT": 1.0}}},
		&a.Criteria: nsiparg.CriteriaArg,
	}
})))

// Each trait word of a call, wherever a trait is taken, is said once in
// the readings, sorted; codes sent as codes, in any case, are not.
func TestReadings(t *testing.T) {
	sent := param.SentOf(map[string]any{
		"sorted_trait": "weaning weight",
		"traits":       []any{"birth weight", "nlb"},
		"weights":      map[string]any{"parasite resistance": -1.0, "WWT": 1.0},
		"search_criteria": map[string]any{"gender": "female",
			"trait_ranges": map[string]any{"loin depth": map[string]any{"min": 1.0}}},
	})
	args, errs := wordsCalls.Validate(sent)
	if got := param.JSONText(args.Members()); errs != nil || got != `{"search_criteria":{"gender":"Female","trait_ranges":{"EMD":{"max":1000000,"min":1}}},"sorted_trait":"WWT","traits":["BWT","NLB"],"weights":{"FEC":-1,"WWT":1}}` {
		t.Fatalf("validated %s %+v", got, errs)
	}
	want := []string{
		`"birth weight" read as BWT (birth weight), lower is better`,
		`"loin depth" read as EMD (post-weaning eye muscle depth), higher is better`,
		`"parasite resistance" read as FEC (fecal egg count), lower is better`,
		`"weaning weight" read as WWT (weaning weight), higher is better`,
	}
	if got := Readings(sent, args); !reflect.DeepEqual(got, want) {
		t.Errorf("readings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	codes := param.SentOf(map[string]any{"sorted_trait": "wwt", "traits": []any{"BWT"}, "weights": map[string]any{"fec": 1.0}})
	args, _ = wordsCalls.Validate(codes)
	if got := Readings(codes, args); got != nil {
		t.Errorf("codes read as %v", got)
	}
}

// The breed fields are found wherever a call's arguments hold them.
func TestBreedPaths(t *testing.T) {
	ps := []param.Spec{{Name: "breed_id", Complete: param.Breeds}, {Name: "search", Props: []param.Spec{
		{Name: "breed_id", Complete: param.Breeds}, {Name: "search_criteria", Props: param.Named(wordsCalls.Specs, "search_criteria").Props}}}}
	if got := strings.Join(BreedPaths(ps), " "); got != "breed_id search.breed_id search.search_criteria.breed_id" {
		t.Errorf("BreedPaths = %s", got)
	}
}
