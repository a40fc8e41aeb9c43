package nsiptest_test

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// bigSize keeps the big breed tests quick under -race; the generator is the
// same at 50,000.
const bigSize = 6000

func bigServer(t *testing.T) (*nsiptest.Server, []nsiptest.Animal) {
	t.Helper()
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 5, Animals: 600, BigBreed: bigSize})
	var herd []nsiptest.Animal
	for _, id := range srv.Data().AnimalIDs() {
		if a := animal(t, srv.Data(), id); a.BreedID == nsiptest.BigBreedID {
			herd = append(herd, a)
		}
	}
	return srv, herd
}

// TestBigBreedSortedPages pages through the big breed sorted by a trait,
// as the live API sorts (highest first, ties by LPN ID; reverse turns it
// around), and checks every row against an order worked out here from the
// animals themselves.
func TestBigBreedSortedPages(t *testing.T) {
	srv, herd := bigServer(t)
	if len(herd) != bigSize {
		t.Fatalf("breed %d has %d animals, want %d", nsiptest.BigBreedID, len(herd), bigSize)
	}
	want := slices.Clone(herd)
	wwt := func(a nsiptest.Animal) float64 { tr, _ := a.Trait("WWT"); return tr.Value }
	slices.SortFunc(want, func(x, y nsiptest.Animal) int {
		if vx, vy := wwt(x), wwt(y); vx != vy {
			if vx > vy {
				return -1
			}
			return 1
		}
		return strings.Compare(x.LPNID, y.LPNID)
	})
	pages := (bigSize + 99) / 100
	var got []string
	for pg := range pages {
		var p searchPage
		decode200(t, do(t, srv, "POST", fmt.Sprintf("%s?page=%d&pageSize=100&breedId=%d&sortedBreedTrait=WWT",
			nsiptest.EndpointSearch, pg, nsiptest.BigBreedID), "{}"), &p)
		if p.RecordCount != bigSize {
			t.Fatalf("page %d: recordCount %d, want %d", pg, p.RecordCount, bigSize)
		}
		for _, r := range p.Records {
			got = append(got, r.LpnID)
		}
	}
	if len(got) != bigSize {
		t.Fatalf("%d pages gave %d rows, want %d", pages, len(got), bigSize)
	}
	for i := range want {
		if got[i] != want[i].LPNID {
			t.Fatalf("row %d is %s (WWT %v), want %s (WWT %v)", i, got[i], wwt(animal(t, srv.Data(), got[i])), want[i].LPNID, wwt(want[i]))
		}
	}
	var rev searchPage
	decode200(t, do(t, srv, "POST", fmt.Sprintf("%s?page=0&pageSize=3&breedId=%d&sortedBreedTrait=wwt&reverse=true",
		nsiptest.EndpointSearch, nsiptest.BigBreedID), "{}"), &rev)
	for i, r := range rev.Records {
		if w := want[bigSize-1-i].LPNID; r.LpnID != w {
			t.Errorf("reversed row %d is %v, want %s", i, r.LpnID, w)
		}
	}
	// Criteria count right: the rams of the breed.
	var rams searchPage
	decode200(t, do(t, srv, "POST", fmt.Sprintf("%s?page=0&pageSize=1&breedId=%d", nsiptest.EndpointSearch, nsiptest.BigBreedID),
		`{"gender":"Male"}`), &rams)
	males := 0
	for _, a := range herd {
		if a.Gender == "Male" {
			males++
		}
	}
	if rams.RecordCount != males || males == 0 || males == bigSize {
		t.Errorf("rams: recordCount %d, want %d of %d", rams.RecordCount, males, bigSize)
	}
}

// TestBigBreedAnimals checks what the breed's animals carry: the Hair
// group's seventeen traits with accuracies (MWWT without), both sexes,
// every status including DEAD and CULL, flocks of the breed, birth dates
// across the years, parents of the breed and older than their lambs, and
// trait ranges that bound every value.
func TestBigBreedAnimals(t *testing.T) {
	srv, herd := bigServer(t)
	d := srv.Data()
	codes := d.BreedTraitCodes(nsiptest.BigBreedID)
	if len(codes) != 17 {
		t.Fatalf("breed %d trait codes %v, want the 17 of a Hair breed", nsiptest.BigBreedID, codes)
	}
	ranges, ok := d.TraitRanges(nsiptest.BigBreedID)
	if !ok || len(ranges) != 17 {
		t.Fatalf("TraitRanges = %d ranges, %v; want 17", len(ranges), ok)
	}
	statuses, sexes, years := map[string]int{}, map[string]int{}, map[int]bool{}
	for _, a := range herd {
		statuses[a.Status]++
		sexes[a.Gender]++
		years[a.Born.Year()] = true
		if !strings.HasPrefix(a.LPNID, "649") || !strings.HasPrefix(a.FlockCode, "649") || a.Contact.FlockCode != a.FlockCode {
			t.Fatalf("%s: flock %s, contact %s; want a flock of breed 649", a.LPNID, a.FlockCode, a.Contact.FlockCode)
		}
		if len(a.Traits) != 17 {
			t.Fatalf("%s has %d traits, want 17", a.LPNID, len(a.Traits))
		}
		for _, tr := range a.Traits {
			if (tr.Accuracy < 0) != (tr.Code == "MWWT") || tr.Accuracy > 100 || math.IsNaN(tr.Value) {
				t.Fatalf("%s %s = %v accuracy %d", a.LPNID, tr.Code, tr.Value, tr.Accuracy)
			}
			if r := ranges[tr.Code]; tr.Value < r.Min || tr.Value > r.Max {
				t.Fatalf("%s %s = %v outside the breed's range %v", a.LPNID, tr.Code, tr.Value, r)
			}
		}
		if len(a.Indexes) != 2 {
			t.Fatalf("%s indexes %v, want US Hair Index and SRC$ Index", a.LPNID, a.Indexes)
		}
		if a.Sire == "" {
			continue
		}
		s, dm := animal(t, d, a.Sire), animal(t, d, a.Dam)
		if s.BreedID != a.BreedID || dm.BreedID != a.BreedID || s.Gender != "Male" || dm.Gender != "Female" ||
			!s.Born.Before(a.Born) || !dm.Born.Before(a.Born) {
			t.Fatalf("%s: sire %s (%d %s %s), dam %s (%d %s %s)", a.LPNID, s.LPNID, s.BreedID, s.Gender, s.Born,
				dm.LPNID, dm.BreedID, dm.Gender, dm.Born)
		}
	}
	for _, st := range d.Statuses() {
		if statuses[st] == 0 && st != "EXPORTED" {
			t.Errorf("no animal of the breed is %s: %v", st, statuses)
		}
	}
	if statuses["DEAD"] < bigSize/20 || statuses["CULL"] < bigSize/50 {
		t.Errorf("statuses %v: want some DEAD and CULL", statuses)
	}
	if sexes["Male"] < bigSize/3 || sexes["Female"] < bigSize/3 || len(years) < 15 {
		t.Errorf("sexes %v, %d birth years", sexes, len(years))
	}
}

// TestBigBreedPedigreesAndProgeny follows a recent animal's served lineage
// several generations deep, each node's parents those its details name,
// and a ram's progeny pages, each lamb naming him as its sire.
func TestBigBreedPedigreesAndProgeny(t *testing.T) {
	srv, herd := bigServer(t)
	d := srv.Data()
	var deep nsiptest.Animal
	for _, a := range herd {
		if d.PedigreeDepth(a.LPNID) > d.PedigreeDepth(deep.LPNID) {
			deep = a
		}
	}
	if n := d.PedigreeDepth(deep.LPNID); n < 5 {
		t.Fatalf("deepest pedigree of the breed is %d generations, want 5 or more", n)
	}
	root := unwrap[node](t, get(t, srv, nsiptest.EndpointLineage+"?lpnId="+deep.LPNID))
	nodes, depth := 0, 0
	var walk func(n node, gen int)
	walk = func(n node, gen int) {
		nodes++
		depth = max(depth, gen)
		det := unwrap[struct {
			Row struct {
				Sire *string `json:"lpnSre"`
				Dam  *string `json:"lpnDam"`
			} `json:"searchResultViewModel"`
		}](t, get(t, srv, nsiptest.EndpointDetails+"?searchString="+n.LpnID))
		if len(n.Children) == 2 && (det.Row.Sire == nil || det.Row.Dam == nil ||
			n.Children[0].LpnID != *det.Row.Sire || n.Children[1].LpnID != *det.Row.Dam) {
			t.Errorf("%s lineage parents %s, %s; details say %v, %v", n.LpnID, n.Children[0].LpnID, n.Children[1].LpnID, det.Row.Sire, det.Row.Dam)
		}
		for _, c := range n.Children {
			walk(c, gen+1)
		}
	}
	walk(root, 0)
	if depth < nsiptest.LineageDepth || nodes < 1<<(nsiptest.LineageDepth+1)-1 {
		t.Errorf("lineage of %s: %d nodes, %d generations deep; want the full %d", deep.LPNID, nodes, depth, nsiptest.LineageDepth)
	}

	ram := deep.Sire
	kids := d.Progeny(ram)
	var first struct {
		RecordCount   int              `json:"recordCount"`
		NumberOfPages int              `json:"numberOfPages"`
		Records       []map[string]any `json:"records"`
	}
	decode200(t, get(t, srv, nsiptest.EndpointProgeny+"?page=0&pageSize=100&lpnId="+ram), &first)
	if first.RecordCount != len(kids) || first.RecordCount != animal(t, d, ram).ProgenyCount || len(kids) == 0 {
		t.Fatalf("progeny of %s: recordCount %d, dataset %d, details %d", ram, first.RecordCount, len(kids), animal(t, d, ram).ProgenyCount)
	}
	if want := (len(kids) + 99) / 100; first.NumberOfPages != want {
		t.Errorf("numberOfPages %d, want %d", first.NumberOfPages, want)
	}
	for i, r := range first.Records {
		if r["lpnId"] != kids[i] || animal(t, d, kids[i]).Sire != ram {
			t.Fatalf("progeny row %d is %v (sire %s), want %s of sire %s", i, r["lpnId"], animal(t, d, kids[i]).Sire, kids[i], ram)
		}
	}
}

// TestBigBreedLeavesTheRestAlone: adding the breed changes no other
// animal, and the same seed and size give the same breed.
func TestBigBreedLeavesTheRestAlone(t *testing.T) {
	plain := nsiptest.NewDataset(9, 600)
	big := nsiptest.NewDatasetWithBigBreed(9, 600, 1500)
	if big.Len() != plain.Len()+1500 || big.BreedSize(nsiptest.BigBreedID) != 1500 || plain.BreedSize(nsiptest.BigBreedID) != 0 {
		t.Fatalf("%d animals with the breed, %d without; breed size %d", big.Len(), plain.Len(), big.BreedSize(nsiptest.BigBreedID))
	}
	for _, id := range plain.AnimalIDs() {
		if a, b := animal(t, plain, id), animal(t, big, id); !reflect.DeepEqual(a, b) {
			t.Fatalf("%s differs once the big breed is added:\n%+v\n%+v", id, a, b)
		}
	}
	if !slices.Equal(big.AnimalIDs()[:plain.Len()], plain.AnimalIDs()) {
		t.Error("the other breeds' animals moved")
	}
	if slices.Contains(plain.BreedIDs(), nsiptest.BigBreedID) || !slices.Contains(big.BreedIDs(), nsiptest.BigBreedID) {
		t.Errorf("breed ids without %v, with %v", plain.BreedIDs(), big.BreedIDs())
	}
}
