package breeding

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/breeding/tabular"
)

// rowsOf builds a breed's rows from "id sire dam" triples, "-" for a parent
// the row leaves blank, interning the parents as a breed pass does.
func rowsOf(triples ...[3]string) BreedRows {
	var r BreedRows
	at := map[string]uint32{}
	name := func(s string) uint32 {
		if s == "-" {
			s = ""
		}
		k, ok := at[s]
		if !ok {
			k = uint32(len(r.Names))
			at[s] = k
			r.Names = append(r.Names, s)
		}
		return k
	}
	for _, t := range triples {
		r.IDs = append(r.IDs, t[0])
		r.Sire = append(r.Sire, name(t[1]))
		r.Dam = append(r.Dam, name(t[2]))
	}
	return r
}

func mustBreed(t testing.TB, r BreedRows) *BreedPedigree {
	t.Helper()
	p, err := NewBreedPedigree(r)
	if err != nil {
		t.Fatal(err)
	}
	checkParentsFirst(t, p)
	return p
}

// checkParentsFirst fails unless every known parent is numbered before
// its offspring.
func checkParentsFirst(t testing.TB, p *BreedPedigree) {
	t.Helper()
	for i := range int32(p.Len()) {
		s, d := p.Parents(i)
		if s >= i || d >= i {
			t.Fatalf("%s (%d) has parents %d and %d, not before it", p.ID(i), i, s, d)
		}
	}
}

// byID is the number of the animal with id, failing if none.
func byID(t testing.TB, p *BreedPedigree, id string) int32 {
	t.Helper()
	for i := range int32(p.Len()) {
		if p.ID(i) == id {
			return i
		}
	}
	t.Fatalf("no animal %s", id)
	return -1
}

// ratTable and floatTable are the tabular method (nsip/breeding/tabular), the
// brute force the pedigree's methods are held to.
func ratTable(p *BreedPedigree) [][]*big.Rat { return tabular.Rat(p.Len(), p.Parents) }

func floatTable(p *BreedPedigree) func(i, j int32) float64 { return tabular.Float(p.Len(), p.Parents) }

// Hand-worked pedigrees. The values are Wright's: F of a lamb is the sum
// over its parents' common ancestors A and over each pair of paths to A
// sharing only A of (1/2)^(n1+n2+1) (1 + F_A).
func TestBreedInbreedingHandWorked(t *testing.T) {
	cases := []struct {
		name string
		rows [][3]string
		want map[string]*big.Rat // the lamb L unless named otherwise
	}{
		{"full-sib mating: two paths, 2 (1/2)^3",
			[][3]string{{"X", "-", "-"}, {"Y", "-", "-"}, {"S", "X", "Y"}, {"D", "X", "Y"}, {"L", "S", "D"}},
			map[string]*big.Rat{"L": big.NewRat(1, 4), "S": new(big.Rat)}},
		{"half-sib mating: one path S-X-D, (1/2)^3",
			[][3]string{{"X", "-", "-"}, {"S", "X", "-"}, {"D", "X", "0"}, {"L", "S", "D"}},
			map[string]*big.Rat{"L": big.NewRat(1, 8)}},
		{"parent-offspring: a ram on his daughter, (1/2)^2",
			[][3]string{{"S", "-", "-"}, {"Y", "-", "-"}, {"D", "S", "Y"}, {"L", "S", "D"}},
			map[string]*big.Rat{"L": big.NewRat(1, 4), "D": new(big.Rat)}},
		{"repeated ancestor: half-sibs by a sire from a full-sib mating, (1/2)^3 (1 + 1/4)",
			[][3]string{{"G1", "-", "-"}, {"G2", "-", "-"}, {"P", "G1", "G2"}, {"Q", "G1", "G2"}, {"X", "P", "Q"},
				{"S", "X", "-"}, {"D", "X", "-"}, {"L", "S", "D"}},
			map[string]*big.Rat{"X": big.NewRat(1, 4), "L": big.NewRat(5, 32)}},
		{"repeated ancestor: double first cousins, 4 (1/2)^5",
			[][3]string{{"A", "-", "-"}, {"B", "-", "-"}, {"C", "-", "-"}, {"E", "-", "-"},
				{"P", "A", "B"}, {"Q", "A", "B"}, {"R", "C", "E"}, {"U", "C", "E"},
				{"S", "P", "R"}, {"D", "U", "Q"}, {"L", "S", "D"}},
			map[string]*big.Rat{"L": big.NewRat(1, 8)}},
		{"six generations of full-sib matings: 0, 1/4, 3/8, 1/2, 19/32, 43/64",
			[][3]string{{"M0", "-", "-"}, {"F0", "-", "-"},
				{"M1", "M0", "F0"}, {"F1", "M0", "F0"}, {"M2", "M1", "F1"}, {"F2", "M1", "F1"},
				{"M3", "M2", "F2"}, {"F3", "M2", "F2"}, {"M4", "M3", "F3"}, {"F4", "M3", "F3"},
				{"M5", "M4", "F4"}, {"F5", "M4", "F4"}, {"L", "M5", "F5"}},
			map[string]*big.Rat{"M1": new(big.Rat), "M2": big.NewRat(1, 4), "F3": big.NewRat(3, 8),
				"M4": big.NewRat(1, 2), "F5": big.NewRat(19, 32), "L": big.NewRat(43, 64)}},
		{"an imported ram no row holds still joins his lambs: half-sibs",
			[][3]string{{"S", "IMP", "-"}, {"D", "IMP", "-"}, {"L", "S", "D"}},
			map[string]*big.Rat{"L": big.NewRat(1, 8), "IMP": new(big.Rat)}},
		{"unrelated", [][3]string{{"S", "A", "B"}, {"D", "C", "E"}, {"L", "S", "D"}},
			map[string]*big.Rat{"L": new(big.Rat)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Rows reversed, so that the offspring come first and the
			// pedigree must sort them.
			rows := slices.Clone(c.rows)
			slices.Reverse(rows)
			p := mustBreed(t, rowsOf(rows...))
			f := p.Inbreeding()
			tab := ratTable(p)
			lin := NewPedigree()
			for _, r := range c.rows {
				s, d := strings.Trim(r[1], "-0"), strings.Trim(r[2], "-0")
				if err := lin.Add(r[0], s, d); err != nil {
					t.Fatal(err)
				}
			}
			for id, want := range c.want {
				i := byID(t, p, id)
				exact := new(big.Rat).Sub(tab[i][i], big.NewRat(1, 1))
				if exact.Cmp(want) != 0 {
					t.Errorf("tabular F(%s) = %v, want %v", id, exact, want)
				}
				w, _ := want.Float64()
				if f[i] != w {
					t.Errorf("F(%s) = %v, want %v", id, f[i], w)
				}
				got, err := lin.Inbreeding(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				if got != w {
					t.Errorf("lineage F(%s) = %v, want %v", id, got, w)
				}
			}
			// Every animal against the exact table, and the coancestry of
			// every pair (with itself included) as a(i,j)/2.
			var pairs [][2]int32
			for i := range int32(p.Len()) {
				exact, _ := new(big.Rat).Sub(tab[i][i], big.NewRat(1, 1)).Float64()
				if f[i] != exact {
					t.Errorf("F(%s) = %v, tabular %v", p.ID(i), f[i], exact)
				}
				for j := range i + 1 {
					pairs = append(pairs, [2]int32{i, j})
				}
			}
			for k, v := range p.Coancestry(pairs) {
				i, j := pairs[k][0], pairs[k][1]
				exact, _ := new(big.Rat).Mul(tab[i][j], big.NewRat(1, 2)).Float64()
				if v != exact {
					t.Errorf("coancestry(%s, %s) = %v, tabular %v", p.ID(i), p.ID(j), v, exact)
				}
			}
		})
	}
}

// The coancestry of a lamb's parents is its inbreeding; unknown gives 0
// and a number beyond the pedigree NaN.
func TestBreedCoancestryOfParentsIsTheLambsF(t *testing.T) {
	p := mustBreed(t, rowsOf([3]string{"X", "-", "-"}, [3]string{"S", "X", "-"}, [3]string{"D", "X", "-"}, [3]string{"L", "S", "D"}))
	s, d, l := byID(t, p, "S"), byID(t, p, "D"), byID(t, p, "L")
	got := p.Coancestry([][2]int32{{s, d}, {d, s}, {s, s}, {s, -1}, {-1, -1}, {l, int32(p.Len())}})
	want := []float64{0.125, 0.125, 0.5, 0, 0}
	if !slices.Equal(got[:5], want) || !math.IsNaN(got[5]) {
		t.Errorf("coancestry = %v, want %v and NaN", got, want)
	}
	if f := p.Inbreeding()[l]; f != got[0] {
		t.Errorf("F(L) = %v, coancestry of its parents %v", f, got[0])
	}
}

// Readers may share a pedigree: the first to ask computes the inbreeding,
// the others wait for it (run with -race to see the claim checked).
func TestBreedPedigreeSharedByReaders(t *testing.T) {
	r := genBreed(5, shape{gens: 6, flocks: 3, rams: 2, ewes: 10, borrowed: 0.1})
	want := mustBreed(t, r).Inbreeding()
	p := mustBreed(t, r)
	pairs := [][2]int32{{int32(p.Len() - 1), int32(p.Len() - 2)}, {3, 3}}
	done := make(chan []float64, 8)
	for range 4 {
		go func() { done <- p.Inbreeding() }()
		go func() { done <- p.Coancestry(pairs) }()
	}
	for range 8 {
		got := <-done
		if len(got) == len(want) && !slices.Equal(got, want) {
			t.Error("a reader saw other inbreeding")
		}
	}
}

// shape is a generated breed: flocks of a few rams and many ewes over
// generations, generations overlapping (dams up to three generations
// old), rams mostly home-bred, some borrowed from another flock, some
// imported (named by the rows but no row of their own), some dams
// unrecorded, and small flocks so that inbreeding runs deep.
type shape struct {
	gens, flocks, rams, ewes int
	imported, borrowed       float64 // shares of sires
	unknownDam, unknownSire  float64
}

// genBreed makes a breed of shape, its rows shuffled.
func genBreed(seed uint64, s shape) BreedRows {
	rng := rand.New(rand.NewPCG(seed, 1))
	var triples [][3]string
	type flock struct{ rams, ewes [][]string } // per generation
	fl := make([]flock, s.flocks)
	imports := make([]string, 1+s.flocks/4)
	for i := range imports {
		imports[i] = fmt.Sprintf("9%05d%04dIMP%03d", i, 1990+rng.IntN(10), i)
	}
	serial := 0
	for g := range s.gens {
		for fi := range fl {
			var rams, ewes []string
			for k := range s.rams + s.ewes {
				serial++
				id := fmt.Sprintf("%06d%04dNSP%05d", 100000+fi, 2000+g, serial)
				sire, dam := "-", "-"
				if g > 0 {
					switch x := rng.Float64(); {
					case x < s.imported:
						sire = imports[rng.IntN(len(imports))]
					case x < s.imported+s.borrowed:
						o := fl[rng.IntN(len(fl))].rams[g-1]
						sire = o[rng.IntN(len(o))]
					case x < s.imported+s.borrowed+s.unknownSire:
						sire = "0"
					default:
						o := fl[fi].rams[g-1]
						sire = o[rng.IntN(len(o))]
					}
					if rng.Float64() >= s.unknownDam {
						back := 1 + rng.IntN(min(g, 3))
						o := fl[fi].ewes[g-back]
						dam = o[rng.IntN(len(o))]
					}
				}
				triples = append(triples, [3]string{id, sire, dam})
				if k < s.rams {
					rams = append(rams, id)
				} else {
					ewes = append(ewes, id)
				}
			}
			fl[fi].rams = append(fl[fi].rams, rams)
			fl[fi].ewes = append(fl[fi].ewes, ewes)
		}
	}
	rng.Shuffle(len(triples), func(i, j int) { triples[i], triples[j] = triples[j], triples[i] })
	r := rowsOf(triples...)
	r.Year = lpnYear
	return r
}

// lpnYear reads the birth year from an LPN-shaped ID (digits 7 to 10), as
// the breed pass's constructor does with the real parser.
func lpnYear(id string) int {
	y := 0
	if len(id) < 10 {
		return 0
	}
	for _, c := range id[6:10] {
		if c < '0' || c > '9' {
			return 0
		}
		y = 10*y + int(c-'0')
	}
	return y
}

var testShape = shape{gens: 12, flocks: 8, rams: 2, ewes: 30, imported: 0.05, borrowed: 0.1, unknownDam: 0.05, unknownSire: 0.03}

// Every animal's F and a plan's coancestries against the float table, to
// 1e-12, on a generated breed of about three thousand animals.
func TestBreedInbreedingMatchesTable(t *testing.T) {
	r := genBreed(7, testShape)
	p := mustBreed(t, r)
	if p.AddedParents() == 0 || len(p.Cuts()) != 0 || p.DuplicateRows() != 0 {
		t.Fatalf("added %d, cuts %v, duplicates %d", p.AddedParents(), p.Cuts(), p.DuplicateRows())
	}
	a := floatTable(p)
	f := p.Inbreeding()
	deep, most := 0, 0.0
	for i := range int32(p.Len()) {
		want := a(i, i) - 1
		if math.Abs(f[i]-want) > 1e-12 {
			t.Fatalf("F(%s) = %v, tabular %v", p.ID(i), f[i], want)
		}
		if f[i] > 0.25 {
			deep++
		}
		most = max(most, f[i])
	}
	if deep < 10 {
		t.Errorf("only %d animals with F over 0.25 (highest %v): the test pedigree is not deep", deep, most)
	}
	// Every row's animal is the row's ID.
	for j, id := range r.IDs {
		if k := p.Animal(j); p.ID(k) != id || p.Row(k) != int32(j) {
			t.Fatalf("row %d (%s) is animal %d (%s, row %d)", j, id, k, p.ID(k), p.Row(k))
		}
	}
	// Random pairs, repeated animals and unknowns among them.
	rng := rand.New(rand.NewPCG(3, 3))
	n := int32(p.Len())
	var pairs [][2]int32
	for range 3000 {
		x, y := rng.Int32N(n), rng.Int32N(n)
		if rng.IntN(4) == 0 {
			y = rng.Int32N(20) // a few animals in many pairs
		}
		pairs = append(pairs, [2]int32{x, y})
	}
	for k, v := range p.Coancestry(pairs) {
		x, y := pairs[k][0], pairs[k][1]
		if want := a(x, y) / 2; math.Abs(v-want) > 1e-12 {
			t.Fatalf("coancestry(%s, %s) = %v, tabular %v", p.ID(x), p.ID(y), v, want)
		}
	}
}

// The lineage-by-lineage method already in the package gives the same F
// on the same generated breed.
func TestBreedInbreedingMatchesLineageMethod(t *testing.T) {
	r := genBreed(11, shape{gens: 8, flocks: 4, rams: 2, ewes: 20, imported: 0.05, borrowed: 0.1, unknownDam: 0.05, unknownSire: 0.03})
	p := mustBreed(t, r)
	lin := NewPedigree()
	// Parents first, as Add wants to see no animal before its parents'
	// records to keep its cycle check cheap; any order would do.
	for i := range int32(p.Len()) {
		s, d := p.Parents(i)
		if err := lin.Add(p.ID(i), idOr(p, s), idOr(p, d)); err != nil {
			t.Fatal(err)
		}
	}
	f := p.Inbreeding()
	for i := range int32(p.Len()) {
		got, err := lin.Inbreeding(context.Background(), p.ID(i))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-f[i]) > 1e-12 {
			t.Fatalf("F(%s): breed %v, lineage %v", p.ID(i), f[i], got)
		}
	}
}

func idOr(p *BreedPedigree, k int32) string {
	if k < 0 {
		return ""
	}
	return p.ID(k)
}

// A cycle in bad data is cut, recorded, and the rest still computed; the
// link cut is the older animal's record naming a younger one.
func TestBreedPedigreeCutsCycles(t *testing.T) {
	r := rowsOf(
		[3]string{"1000012015AAA1", "1000012018AAA3", "-"}, // an old ram "sired" by his grandson
		[3]string{"1000012016AAA2", "1000012015AAA1", "-"},
		[3]string{"1000012018AAA3", "1000012016AAA2", "-"},
		[3]string{"SELF", "SELF", "-"}, // its own sire
		[3]string{"1000012019AAA4", "1000012018AAA3", "1000012016AAA2"},
	)
	r.Year = lpnYear
	p := mustBreed(t, r)
	cuts := p.Cuts()
	if len(cuts) != 2 {
		t.Fatalf("cuts %+v, want 2", cuts)
	}
	want := CutLink{Animal: "1000012015AAA1", Parent: "1000012018AAA3", Cycle: []string{"1000012018AAA3", "1000012016AAA2", "1000012015AAA1"}, Length: 3}
	if c := cuts[0]; c.Animal != want.Animal || c.Parent != want.Parent || c.Dam || !slices.Equal(c.Cycle, want.Cycle) || c.Length != 3 {
		t.Errorf("first cut %+v, want %+v", c, want)
	}
	if c := cuts[1]; c.Animal != "SELF" || c.Parent != "SELF" || c.Length != 1 {
		t.Errorf("second cut %+v, want SELF's own sire link", c)
	}
	s, _ := p.Parents(byID(t, p, "1000012015AAA1"))
	if s != -1 {
		t.Errorf("the cut link is still there")
	}
	// The youngest: sire 2018, dam 2016, the 2018 ram's sire: a
	// parent-offspring mating, 1/4.
	if f := p.Inbreeding()[byID(t, p, "1000012019AAA4")]; f != 0.25 {
		t.Errorf("F = %v, want 0.25", f)
	}
}

// A long cycle (the whole breed in a ring) and a long chain are walked
// without recursion: neither loops nor overflows.
func TestBreedPedigreeLongRingAndChain(t *testing.T) {
	const n = 200_000
	var ring, chain [][3]string
	for i := range n {
		ring = append(ring, [3]string{fmt.Sprint("R", i), fmt.Sprint("R", (i+1)%n), "-"})
		par := "-"
		if i > 0 {
			par = fmt.Sprint("C", i-1)
		}
		chain = append(chain, [3]string{fmt.Sprint("C", i), par, par})
	}
	p := mustBreed(t, rowsOf(ring...))
	if c := p.Cuts(); len(c) != 1 || c[0].Length != n || len(c[0].Cycle) != maxCycleShown {
		t.Fatalf("ring: %d cuts, first of length %d listing %d", len(c), c[0].Length, len(c[0].Cycle))
	}
	mustBreed(t, rowsOf(chain...)) // walked without recursion, parents first
	// Each animal is its parent's lamb by selfing: F_i = (1 + F_{i-1})/2.
	// The inbreeding of a chain costs its length squared (each column
	// passes up the whole chain), so it is computed on a shorter one.
	q := mustBreed(t, rowsOf(chain[:2000]...))
	f := q.Inbreeding()
	if last := f[byID(t, q, fmt.Sprint("C", 1999))]; last != 1 {
		t.Errorf("F at the end of a selfed chain = %v, want 1 to float precision", last)
	}
}

// A row repeating an ID is the same animal; the first row's parents stand.
func TestBreedPedigreeRepeatedRows(t *testing.T) {
	p := mustBreed(t, rowsOf([3]string{"A", "-", "-"}, [3]string{"B", "A", "-"}, [3]string{"B", "-", "-"}))
	if p.Len() != 2 || p.DuplicateRows() != 1 || p.Animal(1) != p.Animal(2) {
		t.Fatalf("len %d, duplicates %d", p.Len(), p.DuplicateRows())
	}
	if s, _ := p.Parents(byID(t, p, "B")); s != byID(t, p, "A") {
		t.Errorf("B's sire %d", s)
	}
	if _, err := NewBreedPedigree(BreedRows{IDs: []string{"A"}, Sire: []uint32{0}, Dam: []uint32{0}}); err == nil {
		t.Error("a parent index beyond the table was accepted")
	}
	if _, err := NewBreedPedigree(BreedRows{IDs: []string{"A"}}); err == nil {
		t.Error("rows without parents were accepted")
	}
}

// A hundred thousand animals over twenty generations: a hundred flocks of
// three rams and forty-seven ewes.
var benchShape = shape{gens: 20, flocks: 100, rams: 3, ewes: 47, imported: 0.03, borrowed: 0.1, unknownDam: 0.03, unknownSire: 0.02}

func benchBreed(b *testing.B) *BreedPedigree {
	b.Helper()
	p, err := NewBreedPedigree(genBreed(1, benchShape))
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func BenchmarkBreedPedigreeBuild(b *testing.B) {
	r := genBreed(1, benchShape)
	b.ReportAllocs()
	var p *BreedPedigree
	for b.Loop() {
		p, _ = NewBreedPedigree(r)
	}
	b.ReportMetric(float64(p.Bytes())/float64(p.Len()), "held-B/animal")
	b.ReportMetric(float64(p.Len()), "animals")
}

func BenchmarkBreedInbreeding(b *testing.B) {
	p := benchBreed(b)
	b.ReportAllocs()
	for b.Loop() {
		p.computeInbreeding()
	}
	b.ReportMetric(float64(p.Len()), "animals")
}

// A plan of 10 rams by 100 ewes, all of the last generation.
func BenchmarkBreedCoancestryPlan(b *testing.B) {
	p := benchBreed(b)
	p.Inbreeding()
	var rams, ewes []int32
	for i := int32(p.Len()) - 1; i >= 0 && (len(rams) < 10 || len(ewes) < 100); i-- {
		id := p.ID(i)
		if p.Row(i) < 0 || !strings.Contains(id, "2019NSP") {
			continue
		}
		if len(rams) < 10 && i%5 == 0 {
			rams = append(rams, i)
		} else if len(ewes) < 100 {
			ewes = append(ewes, i)
		}
	}
	var pairs [][2]int32
	for _, r := range rams {
		for _, e := range ewes {
			pairs = append(pairs, [2]int32{r, e})
		}
	}
	if len(pairs) != 1000 {
		b.Fatalf("%d pairs", len(pairs))
	}
	b.ReportAllocs()
	for b.Loop() {
		p.Coancestry(pairs)
	}
}

// The same work, every animal's F, on the three-thousand-animal test
// breed, by the breed pedigree and by the lineage-by-lineage Pedigree
// (whose kept F are dropped each time): the ratio of the two.
func BenchmarkBreedInbreedingSmall(b *testing.B) {
	p, err := NewBreedPedigree(genBreed(7, testShape))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		p.computeInbreeding()
	}
	b.ReportMetric(float64(p.Len()), "animals")
}

func BenchmarkLineageInbreedingSmall(b *testing.B) {
	p, err := NewBreedPedigree(genBreed(7, testShape))
	if err != nil {
		b.Fatal(err)
	}
	lin := NewPedigree()
	for i := range int32(p.Len()) {
		s, d := p.Parents(i)
		if err := lin.Add(p.ID(i), idOr(p, s), idOr(p, d)); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		lin.inbr = nil
		for i := range int32(p.Len()) {
			if _, err := lin.Inbreeding(ctx, p.ID(i)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(p.Len()), "animals")
}
