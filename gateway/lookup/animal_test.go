package lookup

import (
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

func TestAnimalContract(t *testing.T) { checkContract(t, Animal) }

// The search string is upper-cased, as LPN IDs are written, and keys the
// record together with percentiles when the call sends it.
func TestAnimalArguments(t *testing.T) {
	args := valid(t, Animal, map[string]any{"search_string": "6402382024ncs310", "percentiles": true, "max_tokens": 800})
	if got, want := Animal.Read(args).Key, `get_animal_details:{"percentiles":true,"search_string":"6402382024NCS310"}`; got != want {
		t.Errorf("key %s, want %s", got, want)
	}
	if fe := invalid(t, Animal, map[string]any{"search_string": "6402382024 NCS310"}); fe.Field != "search_string" ||
		fe.Problem != `"6402382024 NCS310" contains characters that are not allowed` {
		t.Errorf("a space inside: %+v", fe)
	}
	if fe := invalid(t, Animal, map[string]any{"search_string": "6402382024NCS310", "percentile": true}); fe.Field != "percentile" ||
		!strings.Contains(fe.Problem, `did you mean "percentiles"?`) {
		t.Errorf("percentile: %+v", fe)
	}
}

// The example ram's record names his parents and counts his
// offspring; an ID the stand-in lacks is not found, worded as the tool's.
func TestAnimalFetch(t *testing.T) {
	_, c := standIn(t)
	v, err := fetch[nsip.AnimalDetails](t, c, Animal, map[string]any{"search_string": strings.ToLower(nsiptest.ExampleRam)})
	if err != nil {
		t.Fatal(err)
	}
	if v.LPNID != nsiptest.ExampleRam || v.Sire != nsiptest.ExampleSire || v.Dam != nsiptest.ExampleDam ||
		v.TotalProgeny != nsiptest.ExampleOffspring {
		t.Errorf("got %s (sire %s, dam %s, %d progeny), want %s (sire %s, dam %s, %d progeny)", v.LPNID, v.Sire, v.Dam, v.TotalProgeny,
			nsiptest.ExampleRam, nsiptest.ExampleSire, nsiptest.ExampleDam, nsiptest.ExampleOffspring)
	}

	sent := map[string]any{"search_string": "6402382024ZZZ999"}
	_, err = fetch[nsip.AnimalDetails](t, c, Animal, sent)
	te := notFound(t, Animal, sent, err)
	if te.Field != "search_string" || te.Problem != `NSIP has no animal matching "6402382024ZZZ999"` ||
		te.Next != "check the ID, or find animals and their LPN IDs with nsip_search_animals" {
		t.Errorf("unknown ID: %+v", te)
	}
}
