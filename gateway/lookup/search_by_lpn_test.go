package lookup

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

func TestSearchByLPNContract(t *testing.T) { checkContract(t, SearchByLPN) }

// The LPN ID is upper-cased; traits only choose the EBVs shown.
func TestSearchByLPNArguments(t *testing.T) {
	args := valid(t, SearchByLPN, map[string]any{"lpn_id": "6402382024ncs310", "traits": []any{"wwt"}})
	if got, want := SearchByLPN.Read(args).Key, `search_by_lpn:{"lpn_id":"6402382024NCS310"}`; got != want {
		t.Errorf("key %s, want %s", got, want)
	}
	_, errs := SearchByLPN.Args.Validate(param.SentOf(map[string]any{"lpnid": nsiptest.ExampleRam}))
	if len(errs) != 2 || errs[0].Field != "lpn_id" || errs[0].Problem != "is required" ||
		errs[1].Field != "lpnid" || !strings.Contains(errs[1].Problem, `did you mean "lpn_id"?`) {
		t.Errorf("lpnid: %+v", errs)
	}
}

// A profile's parts are the calls of the three single-part tools that
// ask the same, so the profile shares their cache entries; an ID no call
// could send is refused rather than keyed.
func TestProfilePartsAreTheSinglePartCalls(t *testing.T) {
	parts, err := ProfileParts("6402382024NCS310")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`get_animal_details:{"search_string":"6402382024NCS310"}`,
		`get_lineage:{"lpn_id":"6402382024NCS310"}`,
		`get_progeny:{"lpn_id":"6402382024NCS310","page":0,"page_size":10}`,
	}
	for i, p := range parts {
		if p.Key != want[i] || p.Def.Key(p.Args) != want[i] {
			t.Errorf("part %d (%s): key %s, arguments key as %s; want %s", i, p.Def.Name, p.Key, p.Def.Key(p.Args), want[i])
		}
	}
	if _, err := ProfileParts(""); err == nil || !strings.Contains(err.Error(), "search_string") {
		t.Errorf("an empty ID: %v", err)
	}
}

// The example ram's profile is read from the stand-in as its three parts:
// his record, his pedigree, his first 10 offspring. An LPN ID the
// stand-in lacks is not found, worded as the profile's.
func TestSearchByLPNPartsFetch(t *testing.T) {
	_, c := standIn(t)
	parts, err := ProfileParts(nsiptest.ExampleRam)
	if err != nil {
		t.Fatal(err)
	}
	var got [3]any
	for i, p := range parts {
		request, err := p.Def.Bind(p.Key)
		if err != nil {
			t.Fatal(err)
		}
		if got[i], _, err = request(context.Background(), c); err != nil {
			t.Fatalf("%s: %v", p.Def.Name, err)
		}
	}
	details, lineage, progeny := got[0].(*nsip.AnimalDetails), got[1].(*nsip.Lineage), got[2].(*nsip.ProgenyPage)
	if details.LPNID != nsiptest.ExampleRam || lineage.Subject.Sire.LPNID != nsiptest.ExampleSire ||
		len(progeny.Animals) != nsip.ProfilePageSize || progeny.TotalCount != nsiptest.ExampleOffspring {
		t.Errorf("profile of %s: details of %s, sire %s, %d of %d offspring", nsiptest.ExampleRam,
			details.LPNID, lineage.Subject.Sire.LPNID, len(progeny.Animals), progeny.TotalCount)
	}

	sent := map[string]any{"lpn_id": "6402382024ZZZ999"}
	parts, err = ProfileParts("6402382024ZZZ999")
	if err != nil {
		t.Fatal(err)
	}
	request, err := parts[0].Def.Bind(parts[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = request(context.Background(), c)
	te := notFound(t, SearchByLPN, sent, err)
	if te.Field != "lpn_id" || te.Problem != `NSIP has no animal with LPN ID "6402382024ZZZ999"` ||
		te.Next != "check the LPN ID, or find animals with nsip_search_animals" {
		t.Errorf("unknown LPN ID: %+v", te)
	}
}

// A profile asked for again is served with the parts it was keyed with,
// not keyed again: a profile from the cache took a third of its
// allocations validating its parts anew. The profiles remembered are
// bounded, whatever IDs are sent.
func TestProfilePartsRememberedAndBounded(t *testing.T) {
	first, err := ProfileParts("6402382024NCS311")
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() {
		again, err := ProfileParts("6402382024NCS311")
		if err != nil || again[2].Key != first[2].Key {
			t.Fatalf("asked again: %v, %v", again, err)
		}
	}); n != 0 {
		t.Errorf("a profile asked for again allocates %v times keying its parts, want none", n)
	}
	for i := range 1500 {
		if _, err := ProfileParts(fmt.Sprintf("6402382024N%05d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := recentProfiles.Len(); n > 1024 {
		t.Errorf("%d profiles remembered after 1,501 asked for, want at most 1,024", n)
	}
}
