package lookup

import (
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

func TestLineageContract(t *testing.T) { checkContract(t, Lineage) }

// The LPN ID is upper-cased and keys the pedigree alone; one with other
// characters than letters and digits is refused.
func TestLineageArguments(t *testing.T) {
	args := valid(t, Lineage, map[string]any{"lpn_id": "6402382024ncs310", "max_tokens": 500})
	if got, want := Lineage.Read(args).Key, `get_lineage:{"lpn_id":"6402382024NCS310"}`; got != want {
		t.Errorf("key %s, want %s", got, want)
	}
	if fe := invalid(t, Lineage, map[string]any{"lpn_id": "6402-382024"}); fe.Field != "lpn_id" ||
		fe.Problem != `"6402-382024" contains characters that are not allowed` {
		t.Errorf("a dash inside: %+v", fe)
	}
	// lpn for lpn_id: the argument is missing, and the name sent is taken
	// for its abbreviation.
	_, errs := Lineage.Args.Validate(param.SentOf(map[string]any{"lpn": nsiptest.ExampleRam}))
	if len(errs) != 2 || errs[0].Field != "lpn_id" || errs[0].Problem != "is required" ||
		errs[1].Field != "lpn" || errs[1].Problem != `is not an argument of this tool; did you mean "lpn_id"?` {
		t.Errorf("lpn for lpn_id: %+v", errs)
	}
}

// The example ram's pedigree starts with him and names his sire and dam;
// an LPN ID the stand-in lacks is not found, worded as the tool's.
func TestLineageFetch(t *testing.T) {
	_, c := standIn(t)
	v, err := fetch[nsip.Lineage](t, c, Lineage, map[string]any{"lpn_id": nsiptest.ExampleRam})
	if err != nil {
		t.Fatal(err)
	}
	s := v.Subject
	if s.LPNID != nsiptest.ExampleRam || s.Sire == nil || s.Sire.LPNID != nsiptest.ExampleSire ||
		s.Dam == nil || s.Dam.LPNID != nsiptest.ExampleDam {
		t.Errorf("pedigree of %s: %+v, want sire %s and dam %s", nsiptest.ExampleRam, s, nsiptest.ExampleSire, nsiptest.ExampleDam)
	}

	sent := map[string]any{"lpn_id": "6402382024ZZZ999"}
	_, err = fetch[nsip.Lineage](t, c, Lineage, sent)
	te := notFound(t, Lineage, sent, err)
	if te.Field != "lpn_id" || te.Problem != `NSIP has no pedigree for LPN ID "6402382024ZZZ999"` ||
		te.Next != "check the LPN ID, or find animals with nsip_search_animals" {
		t.Errorf("unknown LPN ID: %+v", te)
	}
}
