package nsiptest_test

import (
	"slices"
	"sort"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/breeding/tabular"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// tabularCOI computes every animal's inbreeding by the tabular method
// (nsip/breeding/tabular) over the animals' recorded sires and dams, one breed
// at a time, born first numbered first: a method that shares no code with
// the server's, so that the world's figures are checked
// independently. Parents outside the rows are founders.
func tabularCOI(rows []nsiptest.Animal) map[string]float64 {
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Born.Before(rows[j].Born) })
	at := make(map[string]int, len(rows))
	for i, a := range rows {
		at[a.LPNID] = i
	}
	par := func(id string) int32 {
		if j, ok := at[id]; ok {
			return int32(j)
		}
		return -1
	}
	a := tabular.Float(len(rows), func(i int32) (int32, int32) { return par(rows[i].Sire), par(rows[i].Dam) })
	out := make(map[string]float64, len(rows))
	for _, r := range rows {
		out[r.LPNID] = a(par(r.Sire), par(r.Dam)) / 2
	}
	return out
}

// TestWorldIsLikeARealBreed holds the default world to the figures
// specs/upstream.md states for it: mean inbreeding of a few percent, a few
// close matings, flocks of 20 to 500, births over 15 to 20 years with most
// older animals no longer CURRENT, sires with tens to hundreds of progeny
// and AI sires used across flocks.
func TestWorldIsLikeARealBreed(t *testing.T) {
	d := nsiptest.NewDataset(1, 0)
	byBreed := map[int][]nsiptest.Animal{}
	flocks := map[string]int{}
	years := map[int]bool{}
	oldCurrent, old := 0, 0
	for _, id := range d.AnimalIDs() {
		a, _ := d.Animal(id)
		byBreed[a.BreedID] = append(byBreed[a.BreedID], a)
		flocks[a.FlockCode]++
		years[a.Born.Year()] = true
		if a.Born.Year() <= 2015 {
			old++
			if a.Status == "CURRENT" {
				oldCurrent++
			}
		}
	}
	sum, n, close := 0.0, 0, 0
	for _, breed := range d.BreedIDs() {
		rows := byBreed[breed]
		coi := tabularCOI(rows)
		bs := 0.0
		for _, f := range coi {
			bs += f
			if f >= 0.125 {
				close++
			}
		}
		t.Logf("breed %d: %d animals, mean COI %.2f%%", breed, len(rows), 100*bs/float64(len(rows)))
		sum += bs
		n += len(rows)
		if breed == 640 {
			if m := bs / float64(len(rows)); m < 0.01 || m > 0.05 {
				t.Errorf("Katahdins' mean COI %.2f%%, want 1%% to 5%%", 100*m)
			}
		}
	}
	mean := sum / float64(n)
	t.Logf("world: %d animals, mean COI %.2f%%, %d animals with COI >= 12.5%%", n, 100*mean, close)
	if mean < 0.01 || mean > 0.05 {
		t.Errorf("mean COI %.2f%%, want 1%% to 5%%", 100*mean)
	}
	if close == 0 || close > n/20 {
		t.Errorf("%d animals from close matings (COI >= 12.5%%), want a few", close)
	}
	for code, k := range flocks {
		if k < 20 || k > 500 {
			t.Errorf("flock %s holds %d animals, want 20 to 500", code, k)
		}
	}
	if len(years) < 15 || len(years) > 20 {
		t.Errorf("animals born over %d years, want 15 to 20", len(years))
	}
	if oldCurrent*4 > old {
		t.Errorf("%d of %d animals born by 2015 are CURRENT, want most no longer", oldCurrent, old)
	}
	var progeny []int
	for _, id := range d.AnimalIDs() {
		if k := len(d.Progeny(id)); k > 0 {
			if a, _ := d.Animal(id); a.Gender == "Male" {
				progeny = append(progeny, k)
			}
		}
	}
	slices.Sort(progeny)
	top := progeny[len(progeny)-1]
	median := progeny[len(progeny)/2]
	t.Logf("sires: %d, median progeny %d, most %d", len(progeny), median, top)
	if top < 100 || median < 10 {
		t.Errorf("sires' progeny: median %d, most %d; want tens, and a hundred or more for the most used", median, top)
	}
}
