// Tests of nsip_flock_summary (flock.go) as a client calls it: its
// published contract, how a call's arguments are read (exactly one group,
// a rule across arguments the run applies), and how the fields of NSIP's
// records are read. Its runs are in run_test.go; a breed's pass that
// answers its searches is in breedpass_test.go and the files beside it.

package flock

import (
	"errors"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"

	"github.com/nsip-tools/nsip-mcp/nsip"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

func TestFlockSummaryContract(t *testing.T) {
	analysistest.CheckContract(t, FlockSummary, SchemaNames())
}

// A search's criteria are read as nsip_search_animals reads them (sex and
// status in NSIP's spelling, trait codes upper-cased); a flock ID with
// other characters than letters and digits is refused by its name, with
// what it takes and its example.
func TestFlockSummaryArguments(t *testing.T) {
	a := analysistest.Decoded[Args](t, FlockSummary, map[string]any{"search": map[string]any{"breed_id": 640,
		"search_criteria": map[string]any{"gender": "male", "status": "current", "trait_ranges": map[string]any{"wwt": map[string]any{"min": 1}}}}})
	if s := a.Search; s == nil || s.BreedID != 640 || s.Criteria == nil || s.Criteria.Gender != "Male" || s.Criteria.Status != "CURRENT" ||
		s.Criteria.TraitRanges["WWT"].Min != 1 || a.FlockID != "" || a.ProgenyOf != "" {
		t.Errorf("read as %+v (search %+v)", a, a.Search)
	}
	if a := analysistest.Decoded[Args](t, FlockSummary, map[string]any{"flock_id": "640238", "breed_id": 640}); a.FlockID != "640238" || a.BreedID != 640 {
		t.Errorf("a flock of a breed read as %+v", a)
	}
	// An LPN ID in any case is NSIP's, written upper case: one animal's
	// offspring are one question, read and cached once.
	if a := analysistest.Decoded[Args](t, FlockSummary, map[string]any{"progeny_of": "6402382024ncs310"}); a.ProgenyOf != "6402382024NCS310" {
		t.Errorf("progeny_of in lower case read as %q, want 6402382024NCS310", a.ProgenyOf)
	}
	if fe := analysistest.Invalid(t, FlockSummary, map[string]any{"flock_id": "640-238"}); fe.Field != "flock_id" ||
		fe.Problem != `"640-238" contains characters that are not allowed` || fe.Expected != `string of letters and digits, 1-32 characters, e.g. "640238"` {
		t.Errorf("a dash inside: %+v", fe)
	}
}

// Exactly one of flock_id, progeny_of and search, and breed_id only with
// flock_id; the error names the fields.
func TestGroupTakesExactlyOne(t *testing.T) {
	f := analysistest.FlockOf(3, 10)
	for _, c := range []struct {
		args  map[string]any
		field string
		says  string
	}{
		{map[string]any{}, "flock_id", "give exactly one of flock_id, progeny_of or search"},
		{map[string]any{"flock_id": "640238", "progeny_of": "SIRE0001"}, "flock_id", "was given with progeny_of: give exactly one"},
		{map[string]any{"progeny_of": "SIRE0001", "search": map[string]any{"breed_id": 640}}, "progeny_of", "was given with search"},
		{map[string]any{"flock_id": "640238", "progeny_of": "SIRE0001", "search": map[string]any{"breed_id": 640}}, "flock_id", "was given with progeny_of and search"},
		{map[string]any{"progeny_of": "SIRE0001", "breed_id": 640}, "breed_id", "only narrows flock_id"},
		{map[string]any{"search": map[string]any{"breed_id": 640}, "breed_id": 640}, "breed_id", "give search.breed_id"},
	} {
		_, err := analysistest.Run(t, FlockSummary, f, c.args)
		var ae *analysis.ArgError
		if !errors.As(err, &ae) || ae.Field != c.field || !strings.Contains(ae.Problem, c.says) || ae.Expected == "" {
			t.Errorf("%v: %v, want an argument error on %s saying %q", c.args, err, c.field, c.says)
		}
	}
	if n := f.CallsOf("search") + f.CallsOf("progeny"); n != 0 {
		t.Errorf("%d lookups made for calls refused", n)
	}
	// search needs its breed; its criteria are nsip_search_animals's.
	for _, sent := range []map[string]any{
		{"search": map[string]any{"search_criteria": map[string]any{"gender": "Male"}}},
		{"search": map[string]any{"breed_id": 640, "search_criteria": map[string]any{"gender": "Ram"}}},
	} {
		if _, errs := FlockSummary.Validate(param.SentOf(sent)); len(errs) == 0 || !strings.HasPrefix(errs[0].Field, "search.") {
			t.Errorf("%v: %v, want a problem under search.", sent, errs)
		}
	}
}

// NSIP writes dates three ways and sex as words or codes (see the API
// document), and its search rows carry no date at all; the flock counts
// read them all, and a live row's year from its LPN ID.
func TestFlockFieldReaders(t *testing.T) {
	for in, want := range map[string]string{"2/13/2024": "2024", "2024-02-13T00:00:00": "2024", "2024-02-13": "2024", "": "unknown", "13/2/24": "unknown"} {
		if got, lpn := facts.RowYear(nsip.AnimalRow{DateOfBirth: in}); got != want || lpn {
			t.Errorf("rowYear(dateOfBirth %q) = %q (from LPN %v), want %q", in, got, lpn, want)
		}
	}
	if got, lpn := facts.RowYear(nsip.AnimalRow{LPNID: "6402382022NCS087"}); got != "2022" || !lpn {
		t.Errorf("rowYear of a live row = %q (from LPN %v), want 2022 from its LPN ID", got, lpn)
	}
	for in, want := range map[string]string{"Male": "male", "1": "male", "M": "male", "female": "female", "2": "female", "": "unknown", "Wether": "Wether"} {
		if got := sexName(in); got != want {
			t.Errorf("sexName(%q) = %q, want %q", in, got, want)
		}
	}
}
