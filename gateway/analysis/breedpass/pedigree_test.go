package breedpass

import (
	"strings"
	"sync"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// The pass's rows become the breed's pedigree: parents before offspring,
// an import the pass does not hold added as a founder, "" and "0" unknown,
// and a lamb of half-sibs by that import inbred 1/8. A cycle is cut at the
// link the LPN years show wrong.
func TestPassPedigree(t *testing.T) {
	rows := []nsip.AnimalRow{
		{LPNID: "6400012024NCS003", Sire: "6400012023NCS001", Dam: "6400012023NCS002"}, // the lamb, first
		{LPNID: "6400012023NCS001", Sire: "9900012019IMP001", Dam: "0"},
		{LPNID: "6400012023NCS002", Sire: "9900012019IMP001", Dam: ""},
		// An old ewe recorded as the daughter of her own granddaughter.
		{LPNID: "6400012015NCS010", Sire: "", Dam: "6400012020NCS012"},
		{LPNID: "6400012018NCS011", Sire: "", Dam: "6400012015NCS010"},
		{LPNID: "6400012020NCS012", Sire: "", Dam: "6400012018NCS011"},
	}
	pass := NewPassOf(640, "2024-01-01", rows)
	ped, err := pass.Pedigree()
	if err != nil {
		t.Fatal(err)
	}
	if ped.Len() != 7 || ped.AddedParents() != 1 {
		t.Fatalf("%d animals, %d added; want 7 and 1", ped.Len(), ped.AddedParents())
	}
	for i := range int32(ped.Len()) {
		if s, d := ped.Parents(i); s >= i || d >= i {
			t.Fatalf("%s: parents %d, %d not before %d", ped.ID(i), s, d, i)
		}
	}
	lamb := ped.Animal(0)
	if ped.ID(lamb) != "6400012024NCS003" {
		t.Fatalf("row 0 is %s", ped.ID(lamb))
	}
	if f := ped.Inbreeding()[lamb]; f != 0.125 {
		t.Errorf("F of the lamb of half-sibs = %v, want 0.125", f)
	}
	cuts := ped.Cuts()
	if len(cuts) != 1 || cuts[0].Animal != "6400012015NCS010" || cuts[0].Parent != "6400012020NCS012" || !cuts[0].Dam {
		t.Errorf("cuts %+v, want the 2015 ewe's dam link to the 2020 ewe", cuts)
	}
	if _, d := ped.Parents(ped.Animal(3)); d != -1 {
		t.Errorf("the cut link remains")
	}
}

// halfSibRows are a lamb of two half-sibs by an import no row holds.
var halfSibRows = []nsip.AnimalRow{
	{LPNID: "6400012024NCS003", Sire: "6400012023NCS001", Dam: "6400012023NCS002"},
	{LPNID: "6400012023NCS001", Sire: "9900012019IMP001"},
	{LPNID: "6400012023NCS002", Sire: "9900012019IMP001"},
}

// A pass builds its pedigree once and keeps it: the calls it answers share
// one, as does a pass read back from the shared tier after its first use.
// Its rows are found by ID in any case, an animal it lacks is not, and
// its Bytes count the pedigree before it is built.
func TestPassKeepsItsPedigree(t *testing.T) {
	rows := halfSibRows
	made := NewPassOf(640, "2024-01-01", rows)
	b, err := made.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var read BreedPass
	if err := read.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	for name, pass := range map[string]*BreedPass{"made": made, "read back": &read} {
		before := pass.Bytes()
		first, err := pass.BreedPedigree()
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := pass.BreedPedigree(); again != first {
			t.Errorf("%s: a second call built the pedigree again", name)
		}
		if pass.Bytes() != before || before < first.Bytes()+int64(len(b)) {
			t.Errorf("%s: %d bytes before the pedigree, %d after; the pedigree alone takes %d", name, before, pass.Bytes(), first.Bytes())
		}
		for j, row := range rows {
			if k, ok := pass.RowOf(strings.ToLower(row.LPNID)); !ok || k != j {
				t.Errorf("%s: %s at row %d (%v), want %d", name, row.LPNID, k, ok, j)
			}
		}
		if k, ok := pass.RowOf("9900012019IMP001"); ok {
			t.Errorf("%s: the import, a parent without a row, found at row %d", name, k)
		}
	}
	// A pass put together by hand builds a pedigree each time, and finds
	// its rows all the same.
	bare := &BreedPass{IDs: made.IDs, Parents: made.Parents, Sire: made.Sire, Dam: made.Dam}
	if k, ok := bare.RowOf("6400012023NCS002"); !ok || k != 2 {
		t.Errorf("bare pass: row %d (%v), want 2", k, ok)
	}
	if p, err := bare.BreedPedigree(); err != nil || p.Len() != 4 {
		t.Errorf("bare pass: %v animals, %v", p, err)
	}
}

// Calls a kept pass answers at once share its pedigree: the first to ask
// builds it, and all get the same one and the same COIs (run with -race).
func TestPassPedigreeSharedByCalls(t *testing.T) {
	rows := halfSibRows
	pass := NewPassOf(640, "2024-01-01", rows)
	var wg sync.WaitGroup
	peds := make([]*breeding.BreedPedigree, 8)
	cois := make([]float64, 8)
	for i := range peds {
		wg.Go(func() {
			j, _ := pass.RowOf(rows[1+i%2].LPNID)
			ped, err := pass.BreedPedigree()
			if err != nil {
				t.Error(err)
				return
			}
			peds[i] = ped
			cois[i] = ped.Coancestry([][2]int32{{ped.Animal(1), ped.Animal(j)}})[0]
		})
	}
	wg.Wait()
	for i := range peds {
		if peds[i] != peds[0] || (i%2 == 1 && cois[i] != 0.125) || (i%2 == 0 && cois[i] != 0.5) {
			t.Errorf("call %d: pedigree %p (first %p), coancestry %v", i, peds[i], peds[0], cois[i])
		}
	}
}
