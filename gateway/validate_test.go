package gateway

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

func TestInvalidArgumentsNeverReachTheUpstream(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("A", 33)
	tests := []struct {
		name    string
		tool    string
		args    any
		field   string
		problem string // a fragment the problem must contain
	}{
		// argument shape
		{"arguments an array", "nsip_get_animal", []any{"6402382024NCS310"}, "arguments", "must be a JSON object, got array"},
		{"arguments a string", "nsip_get_last_update", "now", "arguments", "got string"},
		{"argument to a tool without any", "nsip_get_statuses", map[string]any{"breed_id": 640}, "breed_id", "not an argument"},
		// required and empty
		{"missing required", "nsip_get_animal", map[string]any{}, "search_string", "is required"},
		{"null required", "nsip_get_lineage", map[string]any{"lpn_id": nil}, "lpn_id", "is required"},
		{"empty string", "nsip_get_animal", map[string]any{"search_string": ""}, "search_string", "must not be empty"},
		{"blank string", "nsip_get_lineage", map[string]any{"lpn_id": "   "}, "lpn_id", "must not be empty"},
		// types
		{"string for integer", "nsip_get_progeny", map[string]any{"lpn_id": "6402382024NCS310", "page": "1"}, "page", "must be an integer, got string"},
		{"fraction for integer", "nsip_get_progeny", map[string]any{"lpn_id": "6402382024NCS310", "page": 1.5}, "page", "must be an integer"},
		{"number for string", "nsip_get_lineage", map[string]any{"lpn_id": 6402382024}, "lpn_id", "must be a string, got integer"},
		{"string for boolean", "nsip_search_animals", map[string]any{"reverse": "yes"}, "reverse", "must be true or false"},
		{"array for object", "nsip_search_animals", map[string]any{"search_criteria": []any{}}, "search_criteria", "must be an object"},
		// ranges
		{"page_size too large", "nsip_search_animals", map[string]any{"page_size": 500}, "page_size", "at most 100"},
		{"page_size zero", "nsip_get_progeny", map[string]any{"lpn_id": "6402382024NCS310", "page_size": 0}, "page_size", "at least 1"},
		{"negative page", "nsip_search_animals", map[string]any{"page": -1}, "page", "at least 0"},
		{"breed_id zero", "nsip_get_trait_ranges", map[string]any{"breed_id": 0}, "breed_id", "at least 1"},
		{"huge breed_id", "nsip_get_trait_ranges", map[string]any{"breed_id": 1e300}, "breed_id", "at most 99999"},
		// LPN IDs and search strings
		{"LPN too short", "nsip_get_lineage", map[string]any{"lpn_id": "64A"}, "lpn_id", "at least 5"},
		{"LPN too long", "nsip_search_by_lpn", map[string]any{"lpn_id": long}, "lpn_id", "at most 32"},
		{"LPN with punctuation", "nsip_get_progeny", map[string]any{"lpn_id": "6402382024-NCS310"}, "lpn_id", "not allowed"},
		{"LPN with a path", "nsip_get_lineage", map[string]any{"lpn_id": "../../etc"}, "lpn_id", "not allowed"},
		{"oversize search string", "nsip_get_animal", map[string]any{"search_string": strings.Repeat("9", 65)}, "search_string", "at most 64"},
		{"search string with a query", "nsip_get_animal", map[string]any{"search_string": "640?x=1"}, "search_string", "not allowed"},
		// enums and trait codes
		// Which codes exist is the breed's business (TestTraitCodesCheckedAgainstTheBreed);
		// a code that cannot be one is refused here.
		{"malformed sort trait", "nsip_search_animals", map[string]any{"sorted_trait": "WW1"}, "sorted_trait", "is not a trait code (1 to 16 letters) nor a trait's name"},
		{"unknown gender", "nsip_search_animals", map[string]any{"search_criteria": map[string]any{"gender": "Ram"}}, "search_criteria.gender", "not one of Male, Female, Both"},
		{"unknown trait in ranges", "nsip_search_animals",
			map[string]any{"search_criteria": map[string]any{"trait_ranges": map[string]any{"BW_X": map[string]any{"min": 0, "max": 1}}}},
			"search_criteria.trait_ranges.BW_X", "is not a trait code"},
		{"trait range min above max", "nsip_search_animals",
			map[string]any{"search_criteria": map[string]any{"trait_ranges": map[string]any{"wwt": map[string]any{"min": 3, "max": 1}}}},
			"search_criteria.trait_ranges.wwt", "min 3 is greater than max 1"},
		{"trait range without min or max", "nsip_search_animals",
			map[string]any{"search_criteria": map[string]any{"trait_ranges": map[string]any{"BWT": map[string]any{}}}},
			"search_criteria.trait_ranges.BWT", "gives neither min nor max"},
		{"trait range bound not a number", "nsip_search_animals",
			map[string]any{"search_criteria": map[string]any{"trait_ranges": map[string]any{"BWT": map[string]any{"min": "low", "max": 1}}}},
			"search_criteria.trait_ranges.BWT.min", "must be a number"},
		{"trait range not an object", "nsip_search_animals",
			map[string]any{"search_criteria": map[string]any{"trait_ranges": map[string]any{"BWT": 1}}},
			"search_criteria.trait_ranges.BWT", "must be an object"},
		{"trait given twice", "nsip_search_animals",
			map[string]any{"search_criteria": map[string]any{"trait_ranges": map[string]any{"BWT": map[string]any{"min": 0, "max": 1}, "bwt": map[string]any{"min": 0, "max": 2}}}},
			"search_criteria.trait_ranges.bwt", "more than once"},
		{"trait range bound misspelled", "nsip_search_animals",
			map[string]any{"search_criteria": map[string]any{"trait_ranges": map[string]any{"BWT": map[string]any{"min": 0, "max": 1, "maxx": 2}}}},
			"search_criteria.trait_ranges.BWT.maxx", `is not a field of search_criteria.trait_ranges.BWT; did you mean "max"`},
		// dates
		{"date in US order", "nsip_search_animals", map[string]any{"search_criteria": map[string]any{"born_after": "09/23/2025"}}, "search_criteria.born_after", "YYYY-MM-DD"},
		{"impossible date", "nsip_search_animals", map[string]any{"search_criteria": map[string]any{"born_before": "2023-02-30"}}, "search_criteria.born_before", "not a real calendar date"},
		{"window ends before it starts", "nsip_search_animals",
			map[string]any{"search_criteria": map[string]any{"born_after": "2024-01-01", "born_before": "2023-01-01"}},
			"search_criteria.born_after", "later than born_before"},
		// other criteria
		{"flock with spaces", "nsip_search_animals", map[string]any{"search_criteria": map[string]any{"flock_id": "640 238"}}, "search_criteria.flock_id", "not allowed"},
		{"status with digits", "nsip_search_animals", map[string]any{"search_criteria": map[string]any{"status": "C4"}}, "search_criteria.status", "not allowed"},
		{"breed group zero", "nsip_search_animals", map[string]any{"search_criteria": map[string]any{"breed_group_id": 0}}, "search_criteria.breed_group_id", "at least 1"},
		// unknown and misspelled names
		{"camelCase name", "nsip_search_animals", map[string]any{"pageSize": 10}, "pageSize", `did you mean "page_size"`},
		{"misspelled name", "nsip_get_progeny", map[string]any{"lpn_id": "6402382024NCS310", "pagesize": 5}, "pagesize", `did you mean "page_size"`},
		{"misspelled criterion", "nsip_search_animals", map[string]any{"search_criteria": map[string]any{"bornAfter": "2022-01-01"}}, "search_criteria.bornAfter", `did you mean "born_after"`},
		{"unrelated name", "nsip_get_animal", map[string]any{"search_string": "6402382024NCS310", "verbose": true}, "verbose", "not an argument"},
		{"lpn for search string", "nsip_get_animal", map[string]any{"lpn_id": "6402382024NCS310"}, "search_string", "is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := e.call(tt.tool, tt.args).errorBody(t)
			if b.Code != toolerr.CodeInvalidArgument {
				t.Errorf("code = %q, want %q", b.Code, toolerr.CodeInvalidArgument)
			}
			if b.Field != tt.field {
				t.Errorf("field = %q, want %q (problem %q)", b.Field, tt.field, b.Problem)
			}
			if !strings.Contains(b.Problem, tt.problem) {
				t.Errorf("problem = %q, want it to contain %q", b.Problem, tt.problem)
			}
			if !strings.Contains(b.Problem, tt.field) {
				t.Errorf("problem %q does not name the field %q", b.Problem, tt.field)
			}
			if b.Expected == "" {
				t.Error("no expected value described")
			}
			// The example must itself be a correct call of this tool.
			if _, errs := param.ValidateObject("", defByName(t, tt.tool).Args.Specs, param.SentOf(exampleOf(b.Example))); len(errs) > 0 {
				t.Errorf("example %v is not a valid call: %+v", b.Example, errs)
			}
		})
	}
	if n := e.up.TotalRequests(); n != 0 {
		t.Errorf("the stand-in upstream received %d requests for invalid calls, want 0", n)
	}
	if got := e.gw.Health().ErrorsByCode[toolerr.CodeInvalidArgument]; got != int64(len(tests)) {
		t.Errorf("errors_by_code.invalid_argument = %d, want %d", got, len(tests))
	}
}

func defByName(t testing.TB, name string) *toolDef {
	t.Helper()
	for _, d := range lookupToolDefs {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func TestAllProblemsAreReportedAndTheExampleKeepsValidArguments(t *testing.T) {
	e := newEnv(t)
	b := e.call("nsip_search_animals", map[string]any{
		"page_size":    500,
		"sorted_trait": "bwt",
		"reverse":      true,
		"colour":       "white",
		"search_criteria": map[string]any{
			"gender":     "female",
			"born_after": "2022-13-01",
		},
	}).errorBody(t)
	if b.Field != "page_size" {
		t.Errorf("first field = %q, want page_size", b.Field)
	}
	var also []string
	for _, a := range b.Also {
		also = append(also, a.Field)
	}
	want := []string{"search_criteria.born_after", "colour"}
	if strings.Join(also, ",") != strings.Join(want, ",") {
		t.Errorf("also = %v, want %v", also, want)
	}
	ex := exampleOf(b.Example)
	if ex["page_size"] != float64(15) || ex["sorted_trait"] != "BWT" || ex["reverse"] != true {
		t.Errorf("example = %v: want page_size fixed to 15, sorted_trait normalised, reverse kept", ex)
	}
	if _, ok := ex["colour"]; ok {
		t.Errorf("example keeps the unknown argument: %v", ex)
	}
	crit, _ := ex["search_criteria"].(map[string]any)
	if crit["gender"] != "Female" || crit["born_after"] != "2022-01-01" {
		t.Errorf("example criteria = %v, want gender normalised and born_after replaced", crit)
	}
	if n := e.up.TotalRequests(); n != 0 {
		t.Errorf("upstream requests = %d, want 0", n)
	}
}

func TestNormalisedArgumentsReachTheUpstream(t *testing.T) {
	e := newEnv(t)
	r := e.call("nsip_search_animals", map[string]any{
		"page_size":    3,
		"sorted_trait": " wwt ",
		"search_criteria": map[string]any{
			"gender":       "FEMALE",
			"status":       "current",
			"born_after":   "2020-01-01",
			"born_before":  "2024-12-31",
			"trait_ranges": map[string]any{"wwt": map[string]any{"min": -100, "max": 100}},
		},
	}).mustOK(t)
	if !strings.Contains(r.text, `"recordCount"`) {
		t.Fatalf("unexpected answer %.200s", r.text)
	}
	lines := e.logs.Records(t)
	last := lines[len(lines)-1]
	want := `{"page":0,"page_size":3,"reverse":false,"search_criteria":{"born_after":"2020-01-01","born_before":"2024-12-31","gender":"Female","status":"CURRENT","trait_ranges":{"WWT":{"max":100,"min":-100}}},"sorted_trait":"WWT"}`
	if last["params"] != want {
		t.Errorf("logged params = %v\nwant %s", last["params"], want)
	}
}

// TestTraitWordsReadAsTheCodeTheyMean: a breeder names a trait in words,
// which spelling distance leads astray (WEANING is nearer DAG than WWT);
// the words are read as the trait they mean, wherever a code is taken,
// and the answer says so. A word for several traits is refused naming
// each, and the example is a call with one of them.
func TestTraitWordsReadAsTheCodeTheyMean(t *testing.T) {
	e := newEnv(t)
	ranges := func(k string) map[string]any {
		return map[string]any{"breed_id": 640, "search_criteria": map[string]any{"trait_ranges": map[string]any{k: map[string]any{"min": 0}}}}
	}
	tests := []struct {
		name string
		tool string
		args map[string]any
		read string
	}{
		{"sort by a word", "nsip_search_animals", map[string]any{"breed_id": 640, "sorted_trait": "WEANING"},
			`"WEANING" read as WWT (weaning weight), higher is better`},
		{"sort by birth", "nsip_search_animals", map[string]any{"breed_id": 640, "sorted_trait": "birth"},
			`"birth" read as BWT (birth weight), lower is better`},
		{"sort by worms", "nsip_search_animals", map[string]any{"breed_id": 640, "sorted_trait": "worms"},
			`"worms" read as FEC (fecal egg count), lower is better`},
		{"sort by a phrase", "nsip_search_animals", map[string]any{"sorted_trait": "weaning weight"},
			`"weaning weight" read as WWT (weaning weight), higher is better`},
		{"range of parasites", "nsip_search_animals", ranges("PARASITE"),
			`"PARASITE" read as FEC (fecal egg count), lower is better`},
		{"range of a phrase", "nsip_search_animals", ranges("post weaning weight"),
			`"post weaning weight" read as PWWT (post-weaning weight), higher is better`},
		{"weights by a word", "nsip_rank_animals", map[string]any{"breed_id": 640, "top_n": 2, "weights": map[string]any{"weaning": 1}},
			`"weaning" read as WWT (weaning weight), higher is better`},
		{"traits by a phrase", "nsip_compare_animals", map[string]any{"lpn_ids": []any{"6402382024NCS310", "6402382022NCS087"}, "traits": []any{"BWT", "eye muscle"}},
			`"eye muscle" read as EMD (post-weaning eye muscle depth), higher is better`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.call(tc.tool, tc.args).mustOK(t)
			if got := readOf(r); len(got) != 1 || got[0] != tc.read {
				t.Errorf("read %q; want %q", got, tc.read)
			}
		})
	}
	b := e.call("nsip_search_animals", map[string]any{"breed_id": 640, "sorted_trait": "depth"}).errorBody(t)
	if b.Field != "sorted_trait" || !strings.Contains(b.Problem, "FAT (post-weaning fat depth), lower is better") ||
		!strings.Contains(b.Problem, "YEMD (yearling eye muscle depth), higher is better") {
		t.Errorf("depth: %+v", b)
	}
	if r := e.call("nsip_search_animals", exampleOf(b.Example)); r.isError {
		t.Errorf("the example %s fails: %s", param.JSONText(b.Example), r.text)
	}
	b = e.call("nsip_search_animals", map[string]any{"sorted_trait": "WW1"}).errorBody(t)
	if !strings.HasSuffix(b.Problem, `did you mean "WWT"?`) || exampleOf(b.Example)["sorted_trait"] != "WWT" {
		t.Errorf("WW1: %+v", b)
	}
}

// TestIndexByAnyOfItsNames: index takes NSIP's row key (usIndex), its
// display name (US Index) and the names breeders use (US Hair Index), case,
// spacing and punctuation aside; a name NSIP did not send is refused with
// an example that asks for one it did, never the refused name.
func TestIndexByAnyOfItsNames(t *testing.T) {
	e := newEnv(t)
	rank := func(index string) reply {
		return e.call("nsip_rank_animals", map[string]any{"breed_id": 640, "index": index, "top_n": 2})
	}
	// The answer names the index as asked, or as NSIP spells that name,
	// with the member NSIP sends it under.
	for asked, want := range map[string][2]string{
		"usIndex": {"usIndex", "usHairIndex"}, "US Index": {"US Index", "usHairIndex"}, "us hair index": {"US Hair Index", "usHairIndex"},
		"usHairIndex": {"US Hair Index", "usHairIndex"}, "US-Hair-Index": {"US Hair Index", "usHairIndex"}, "hair index": {"hair index", "usHairIndex"},
		"srcIndex": {"SRC$ Index", "srcIndex"}, "SRC Index": {"SRC$ Index", "srcIndex"}, "src$index": {"SRC$ Index", "srcIndex"}, "SRC dollars": {"SRC dollars", "srcIndex"},
	} {
		var a struct {
			Index     string `json:"index"`
			IndexCode string `json:"index_code"`
		}
		if err := json.Unmarshal([]byte(rank(asked).mustOK(t).text), &a); err != nil || [2]string{a.Index, a.IndexCode} != want {
			t.Errorf("index %q ranked by %q %q (%v), want %q", asked, a.Index, a.IndexCode, err, want)
		}
	}
	// A breed whose rows carry usIndex, asked for its US Hair Index: the
	// same ranking as by usIndex, under the name asked.
	var byKey, byName struct {
		Index     string  `json:"index"`
		IndexCode string  `json:"index_code"`
		Top       [][]any `json:"top"`
		Computed  struct {
			Method string `json:"method"`
		} `json:"computed"`
	}
	polypay := func(index string, into any) {
		r := e.call("nsip_rank_animals", map[string]any{"breed_id": 620, "index": index, "top_n": 5}).mustOK(t)
		if err := json.Unmarshal([]byte(r.text), into); err != nil {
			t.Fatal(err)
		}
	}
	polypay("usIndex", &byKey)
	polypay("US Hair Index", &byName)
	if byName.Index != "US Hair Index" || byName.IndexCode != "usIndex" || len(byName.Top) != 5 || fmt.Sprint(byName.Top) != fmt.Sprint(byKey.Top) ||
		!strings.Contains(byName.Computed.Method, "NSIP's own US Hair Index (NSIP's US Index, usIndex)") {
		t.Errorf("Polypays by US Hair Index: %q %q %v %q; by usIndex %v", byName.Index, byName.IndexCode, byName.Top, byName.Computed.Method, byKey.Top)
	}
	for asked, want := range map[string]string{"hair indx": "US Hair Index", "lambing index": "SRC$ Index"} {
		b := rank(asked).errorBody(t)
		ex, _ := exampleOf(b.Example)["index"].(string)
		if b.Field != "index" || ex != want {
			t.Errorf("index %q: field %q, example %s; want an example asking for %q", asked, b.Field, param.JSONText(b.Example), want)
		}
		if asked != "lambing index" && !strings.HasSuffix(b.Problem, fmt.Sprintf("did you mean %q?", want)) {
			t.Errorf("index %q: problem %q, want a did-you-mean of %q", asked, b.Problem, want)
		}
	}
}

// TestUnknownBreedNamesTheBreeds: NSIP answers a search of a breed it does
// not have with no animals; the call is refused naming the breeds NSIP has,
// from its cached breed list, as are trait ranges and a ranking of one. A
// search of a breed NSIP has never reads the list.
func TestUnknownBreedNamesTheBreeds(t *testing.T) {
	e := newEnv(t)
	e.call("nsip_search_animals", map[string]any{"breed_id": 640, "page_size": 1}).mustOK(t)
	if n := e.up.Requests(nsiptest.EndpointBreedGroups); n != 0 {
		t.Errorf("a search of a known breed read the breed list %d times", n)
	}
	calls := []struct {
		tool  string
		args  map[string]any
		field string
		fixed func(ex map[string]any) any
	}{
		{"nsip_search_animals", map[string]any{"breed_id": 99999, "page_size": 2}, "breed_id",
			func(ex map[string]any) any { return ex["breed_id"] }},
		{"nsip_search_animals", map[string]any{"search_criteria": map[string]any{"breed_id": 99999, "gender": "Male"}}, "search_criteria.breed_id",
			func(ex map[string]any) any { return ex["search_criteria"].(map[string]any)["breed_id"] }},
		{"nsip_get_trait_ranges", map[string]any{"breed_id": 99999}, "breed_id",
			func(ex map[string]any) any { return ex["breed_id"] }},
		{"nsip_rank_animals", map[string]any{"breed_id": 99999, "weights": map[string]any{"WWT": 1}}, "breed_id",
			func(ex map[string]any) any { return ex["breed_id"] }},
	}
	for _, c := range calls {
		b := e.call(c.tool, c.args).errorBody(t)
		if b.Code != toolerr.CodeNotFound || b.Field != c.field || b.Problem != "NSIP has no breed 99999" ||
			!strings.Contains(b.Expected, "640 Katahdin, 641 St. Croix") || fmt.Sprint(b.Value) != "99999" || !strings.Contains(b.Next, "nsip_list_breeds") {
			t.Errorf("%s %v: %+v", c.tool, c.args, b)
		}
		if got := c.fixed(exampleOf(b.Example)); fmt.Sprint(got) != "640" {
			t.Errorf("%s: example %s, want breed 640 in place of 99999", c.tool, param.JSONText(b.Example))
		}
	}
	if n := e.up.Requests(nsiptest.EndpointBreedGroups); n != 1 {
		t.Errorf("breed list read %d times, want once (then cached)", n)
	}
}
