package lookup

import (
	"slices"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

func TestProgenyContract(t *testing.T) { checkContract(t, Progeny) }

// A call naming only the animal asks for its first page of 10; traits,
// upper-cased, only choose the columns shown and stay out of the key.
func TestProgenyArguments(t *testing.T) {
	args := valid(t, Progeny, map[string]any{"lpn_id": "6402382024ncs310", "traits": []any{"wwt"}})
	if !slices.Equal(args.Strings("traits"), []string{"WWT"}) {
		t.Errorf("traits %v, want [WWT]", args.Strings("traits"))
	}
	if got, want := Progeny.Read(args).Key, `get_progeny:{"lpn_id":"6402382024NCS310","page":0,"page_size":10}`; got != want {
		t.Errorf("key %s, want %s", got, want)
	}
	if fe := invalid(t, Progeny, map[string]any{"lpn_id": nsiptest.ExampleRam, "page_size": 101}); fe.Field != "page_size" ||
		fe.Problem != "must be at most 100, got 101" {
		t.Errorf("page_size 101: %+v", fe)
	}
	if args := valid(t, Progeny, map[string]any{"lpn_id": nsiptest.ExampleRam, "traits": []any{"weaning weight"}}); !slices.Equal(args.Strings("traits"), []string{"WWT"}) {
		t.Errorf("a trait by its name: %v, want [WWT]", args.Strings("traits"))
	}
	if fe := invalid(t, Progeny, map[string]any{"lpn_id": nsiptest.ExampleRam, "traits": []any{"scrapie gene"}}); fe.Field != "traits[0]" ||
		fe.Problem != `"scrapie gene" is not a trait code (1 to 16 letters) nor a trait's name` {
		t.Errorf("no trait: %+v", fe)
	}
}

// The third page of 10 of the example ram's offspring is the last 5 of
// the stand-in's, newest first; an LPN ID it lacks is not found, worded
// as the tool's.
func TestProgenyFetch(t *testing.T) {
	data, c := standIn(t)
	v, err := fetch[nsip.ProgenyPage](t, c, Progeny, map[string]any{"lpn_id": nsiptest.ExampleRam, "page": 2})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range v.Animals {
		got = append(got, a.LPNID)
	}
	want := data.Progeny(nsiptest.ExampleRam)[20:]
	if v.TotalCount != nsiptest.ExampleOffspring || v.PageSize != 10 || !slices.Equal(got, want) {
		t.Errorf("page 2: %d of %d (page size %d): %v, want %v", len(got), v.TotalCount, v.PageSize, got, want)
	}

	sent := map[string]any{"lpn_id": "6402382024ZZZ999"}
	_, err = fetch[nsip.ProgenyPage](t, c, Progeny, sent)
	te := notFound(t, Progeny, sent, err)
	if te.Field != "lpn_id" || te.Problem != `NSIP has no progeny for LPN ID "6402382024ZZZ999"` ||
		te.Next != "check the LPN ID, or find animals with nsip_search_animals" {
		t.Errorf("unknown LPN ID: %+v", te)
	}
}
