package diversity

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/scan"
	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// maxAncestors bounds the ancestors chosen for f_a: each costs a pass over
// the breed's pedigree, and past a few hundred the marginal contributions
// left are too small to move f_a much (the answer says how much is left).
const maxAncestors = 500

// topAncestors is how many of the ancestors chosen the answer lists.
const topAncestors = 10

// referenceYears is how many of the last birth years recorded make the
// reference population.
const referenceYears = 2

var BreedDiversity = &analysis.Def{
	Def: tooldef.Def{
		Name: toolname.BreedDiversity, Title: "NSIP breed diversity", Method: "breed_diversity",
		Toolset: toolsets.Analysis, Kind: summarize.KindGeneric,
		Desc: `Pedigree diversity of breed_id: COI by birth year, inbreeding rate, Ne, founders, f_e, f_a, top ancestors; every COI as CSV. ` +
			`The first call reads the breed as a task. flock_id, born_from, born_to narrow it.`,
		Args: params,
	},
	// The breed's trait ranges prove it exists; the date names the pass.
	Ceiling: 2,
	Answers: []reflect.Type{reflect.TypeFor[DiversityAnswer](), reflect.TypeFor[PendingAnswer]()},
	Run:     analysis.Typed(run),
}

// Args are nsip_breed_diversity's arguments: the schema and validation
// derive from them (params), and the run reads them.
type Args struct {
	BreedID  int    `json:"breed_id"`
	FlockID  string `json:"flock_id,omitempty"`
	BornFrom int    `json:"born_from,omitempty"`
	BornTo   int    `json:"born_to,omitempty"`
	param.Budget
}

var params = param.MustStruct[Args](param.Tables(
	param.BudgetTable,
	param.Of(func(a *Args) param.Described {
		return param.Described{
			&a.BreedID:  {Example: 640, Min: param.Bound(1), Max: param.Bound(99999), Quiet: true, Complete: param.Breeds},
			&a.FlockID:  {Example: "640238", MaxLen: nsip.MaxCriteriaLength, Pattern: param.AlnumPattern, Quiet: true},
			&a.BornFrom: {Example: 2015, Min: param.Bound(1900), Max: param.Bound(2100), Quiet: true},
			&a.BornTo:   {Example: 2024, Min: param.Bound(1900), Max: param.Bound(2100), Quiet: true},
		}
	}),
))

func run(ctx context.Context, r *analysis.Call, a *Args) (any, error) {
	if a.BornFrom > 0 && a.BornTo > 0 && a.BornFrom > a.BornTo {
		return nil, &analysis.ArgError{FieldError: param.FieldError{Field: params.Name("BornFrom"),
			Problem: fmt.Sprintf("born_from %d is later than born_to %d", a.BornFrom, a.BornTo), Expected: "born_from no later than born_to, e.g. 2015 and 2024"}}
	}
	if err := breedExists(ctx, r, a.BreedID); err != nil {
		return nil, err
	}
	// NSIP's date as of now, as every reader of a pass asks it: a pass of
	// an evaluation NSIP has replaced is not answered from.
	eval, err := r.Evaluation(ctx)
	if err != nil {
		return nil, err
	}
	p := scan.KeptPass(ctx, r, a.BreedID, eval)
	if p == nil {
		return pending(ctx, r, a.BreedID, eval), nil
	}
	return answer(ctx, r, a, p)
}

// breedExists refuses a breed NSIP has no trait ranges for, as a ranking
// does: its pass would be empty.
func breedExists(ctx context.Context, r *analysis.Call, breed int) error {
	tr, err := r.Ranges(ctx, breed)
	if err != nil {
		return &analysis.AboutError{Field: "breed_id", Value: breed, What: "trait ranges for breed", Next: "list valid breed IDs with " + toolname.ListBreeds, Err: err}
	}
	if len(tr.Ranges) == 0 {
		return &analysis.ArgError{FieldError: param.FieldError{Field: "breed_id", Problem: fmt.Sprintf("NSIP has no trait ranges for breed %d, so it has no animals to read", breed),
			Expected: "a breed ID from " + toolname.ListBreeds + ", e.g. 640"}}
	}
	return nil
}

// pending has the breed's pass read in the background, as the caller's
// task when it can follow one, and says so.
func pending(ctx context.Context, r *analysis.Call, breed int, eval string) *PendingAnswer {
	out := &PendingAnswer{BreedID: breed, Next: "ask again once the read has completed: the answer then comes from the pass, with no search page read"}
	store := r.Src.Passes()
	if store == nil {
		out.BreedPass = "not read: this server keeps no breed passes, and the breed's whole pedigree is needed"
		out.Next = "none on this server"
		out.Upstream = r.Upstream()
		return out
	}
	const why = "the whole breed's pedigree is needed and no pass of it is kept under this evaluation"
	f := store.FillFor(ctx, breed, eval)
	switch {
	case f.Cannot:
		out.BreedPass, out.Next = "not read: "+why+", and this server reads no pass in the background", "none on this server"
	case f.Why != "":
		out.BreedPass, out.Next = "not read: "+why+"; nor in the background: "+f.Why, "ask again later"
	case f.TaskID != "":
		out.TaskID = f.TaskID
		out.BreedPass = "being read in the background as task " + f.TaskID + " (task_id), since " + why + "; follow it with tasks/get, which counts the pages read"
	case f.Follow != "":
		out.BreedPass = "being read in the background, since " + why + "; the read cannot be followed as a task: " + f.Follow
	default:
		out.BreedPass = "being read in the background, since " + why
	}
	out.Upstream = r.Upstream()
	return out
}

// animal is one animal asked about: its number in the breed's pedigree,
// its row and its birth year (0 unknown).
type animal struct {
	num  int32
	row  int
	year int
}

// chosen are the animals of the pass the arguments ask about, each once,
// in the order of the pass's rows.
func chosen(p *breedpass.BreedPass, ped *breeding.BreedPedigree, a *Args) []animal {
	seen := make([]bool, ped.Len())
	var out []animal
	for j, id := range p.IDs {
		i := ped.Animal(j)
		if seen[i] {
			continue
		}
		seen[i] = true
		row := nsip.AnimalRow{LPNID: id, DateOfBirth: p.Dates[p.Born[j]], FlockCode: p.Flocks[p.Flock[j]]}
		if a.FlockID != "" {
			if f, _ := row.Flock(); f != a.FlockID {
				continue
			}
		}
		y, _ := row.BirthYear()
		if (a.BornFrom > 0 || a.BornTo > 0) && y == 0 || a.BornFrom > 0 && y < a.BornFrom || a.BornTo > 0 && y > a.BornTo {
			continue
		}
		out = append(out, animal{num: i, row: j, year: y})
	}
	return out
}

func answer(ctx context.Context, r *analysis.Call, a *Args, p *breedpass.BreedPass) (any, error) {
	ped, err := p.BreedPedigree() // built once and kept with the pass, its inbreeding too
	if err != nil {
		return nil, err
	}
	animals := chosen(p, ped, a)
	if len(animals) == 0 {
		return nil, noneMatch(a, ped.Len()-ped.AddedParents())
	}
	f := ped.Inbreeding()
	every := make([]int32, ped.Len())
	for i := range every {
		every[i] = int32(i)
	}
	ecg := ped.EquivalentGenerations(every)
	out := &DiversityAnswer{BreedID: a.BreedID, FlockID: a.FlockID, BornFrom: a.BornFrom, BornTo: a.BornTo, Animals: len(animals)}
	for _, an := range animals {
		switch s, d := ped.Parents(an.num); {
		case s < 0 && d < 0:
			out.Founders++
		case s < 0 || d < 0:
			out.OneParentKnown++
		}
	}
	out.COIByYear = byYear(animals, f)
	ref := reference(animals)
	out.Reference = Reference{BirthYears: ref.years, Animals: len(ref.nums)}
	out.Completeness = Completeness{MeanECG: round(meanOf(animals, ecg)), ReferenceMeanECG: round(meanNums(ref.nums, ecg)),
		Method: "equivalent complete generations: the sum over an animal's known ancestors of (1/2)^generations back; founders and parents outside the rows count 0"}
	out.DeltaF, out.Ne = deltaF(ref.nums, f, ecg)
	out.Fe, out.Fa, out.TopAncestors = founders(ped, ref.nums)
	cuts := len(ped.Cuts())
	out.Computed = Computed{BreedPass: scan.KeptNote(p), Evaluation: p.Evaluation, Cuts: cuts,
		COI:   fmt.Sprintf("exact COI (Colleau's method) over the breed's whole pedigree of %d animals, %d of them parents the rows name and do not hold, counted as founders unrelated to all others", ped.Len(), ped.AddedParents()),
		Whole: "every animal's lpn_id, birth_year, sire, dam, coi and equivalent_generations: the CSV link"}
	if cuts > 0 {
		out.Computed.COI += fmt.Sprintf("; %d parent links closing a cycle in the rows were cut", cuts)
	}
	out.Computed.Upstream = r.Upstream()
	// A breed recorded over many decades may not fit: its oldest years
	// go first, as the newest are what a breeder acts on.
	years := out.COIByYear.Rows
	fitted, _ := analysis.FitRows(ctx, r, len(years), func(n int) *DiversityAnswer {
		a := *out
		a.COIByYear.Rows = years[len(years)-n:]
		if n < len(years) {
			a.COIByYear.LeftOut = fmt.Sprintf("the %d oldest birth years (%v to %v), to fit the budget: the CSV link has their animals, max_tokens a larger budget",
				len(years)-n, years[0][0], years[len(years)-n-1][0])
		}
		return &a
	})
	return &full.Answer{Value: fitted, Table: coiTable(p, animals, f, ecg)}, nil
}

// noneMatch refuses a narrowing that leaves no animal of the breed's n,
// naming the first argument that narrowed it.
func noneMatch(a *Args, n int) error {
	var field string
	var asked []string
	for _, g := range []struct {
		name string
		v    any
		set  bool
	}{{params.Name("FlockID"), a.FlockID, a.FlockID != ""}, {params.Name("BornFrom"), a.BornFrom, a.BornFrom > 0}, {params.Name("BornTo"), a.BornTo, a.BornTo > 0}} {
		if g.set {
			field = cmp.Or(field, g.name)
			asked = append(asked, fmt.Sprintf("%s %v", g.name, g.v))
		}
	}
	return &analysis.ArgError{FieldError: param.FieldError{Field: field,
		Problem:  fmt.Sprintf("no animal of breed %d's %d matches %s", a.BreedID, n, strings.Join(asked, " and ")),
		Expected: "a flock of the breed (the first six digits of its LPN IDs, e.g. 640238) and birth years its animals have, or neither"}}
}

// byYear is the mean and largest COI of the animals born each year.
func byYear(animals []animal, f []float64) YearTable {
	type acc struct {
		n        int
		sum, max float64
	}
	by := map[int]*acc{}
	t := YearTable{Columns: []string{"birth_year", "n", "mean_coi", "max_coi"},
		Method:   "each animal's COI, by birth year from its date of birth, else " + nsip.LPNReading,
		Unproven: "COIs are of the recorded pedigree: where it stops (founders, parents outside the rows) ancestry counts as unrelated, so they are lower bounds"}
	for _, an := range animals {
		if an.year == 0 {
			t.UnknownYear++
			continue
		}
		c := by[an.year]
		if c == nil {
			c = &acc{}
			by[an.year] = c
		}
		c.n++
		c.sum += f[an.num]
		c.max = max(c.max, f[an.num])
	}
	years := make([]int, 0, len(by))
	for y := range by {
		years = append(years, y)
	}
	slices.Sort(years)
	for _, y := range years {
		c := by[y]
		t.Rows = append(t.Rows, []any{y, c.n, round(c.sum / float64(c.n)), round(c.max)})
	}
	return t
}

// ref is the reference population: the animals asked about born in the
// last referenceYears birth years recorded.
type ref struct {
	years []int
	nums  []int32
}

func reference(animals []animal) ref {
	var years []int
	for _, an := range animals {
		if an.year > 0 && !slices.Contains(years, an.year) {
			years = append(years, an.year)
		}
	}
	slices.Sort(years)
	years = years[max(0, len(years)-referenceYears):]
	out := ref{years: years}
	for _, an := range animals {
		if an.year > 0 && slices.Contains(years, an.year) {
			out.nums = append(out.nums, an.num)
		}
	}
	return out
}

// deltaF is the mean individual rate of inbreeding of the reference
// population and the effective size it implies.
func deltaF(nums []int32, f, ecg []float64) (Figure, Figure) {
	sum, n, shallow := 0.0, 0, 0
	for _, i := range nums {
		if d, ok := breeding.IndividualDeltaF(f[i], ecg[i]); ok {
			sum += d
			n++
		} else {
			shallow++
		}
	}
	df := Figure{N: n, Method: "mean over the reference animals of individual ΔF = 1 - (1 - F)^(1/(t - 1)), t its equivalent complete generations (Gutiérrez et al. 2009)"}
	ne := Figure{N: n, Method: "Ne = 1/(2 ΔF), ΔF as delta_f"}
	if shallow > 0 {
		df.Unproven = fmt.Sprintf("%d reference animals with 1 equivalent generation or less are left out, their ΔF undefined; ", shallow)
	}
	df.Unproven += "unrecorded ancestry counts as unrelated, so ΔF may be understated"
	switch {
	case n == 0:
		df.Unproven = "no reference animal has more than 1 equivalent complete generation of pedigree"
		ne.Unproven = df.Unproven
	case sum == 0:
		zero := 0.0
		df.Value = &zero
		ne.Unproven = "ΔF is 0 in the recorded pedigree: no finite Ne"
	default:
		d := sum / float64(n)
		v, e := round(d), round(1/(2*d))
		df.Value, ne.Value = &v, &e
		ne.Unproven = "as delta_f's"
	}
	return df, ne
}

// founders are f_e, f_a and the ancestors contributing most, for the
// reference population.
func founders(ped *breeding.BreedPedigree, nums []int32) (Figure, Figure, AncestorTable) {
	fd := ped.FounderContributions(nums, maxAncestors)
	fe := Figure{N: fd.Count, Method: "f_e = 1/Σp² over each founder's expected share p of the reference animals' genes (Lacy 1989); an unknown parent of a half-known animal is a founder of its own",
		Unproven: "founders are the pedigree's, not the breed's true founders: a parent whose own parents are unrecorded counts as unrelated to all others, which overstates f_e"}
	fa := Figure{N: len(fd.Ancestors), Method: "f_a = 1/Σq² over the marginal contributions q of ancestors chosen one by one, each the largest left (Boichard et al. 1997)"}
	if fd.Fe > 0 {
		v := round(fd.Fe)
		fe.Value = &v
	}
	if fd.Fa > 0 {
		v := round(fd.Fa)
		fa.Value = &v
	}
	if left := 1 - fd.Explained; left > 1e-9 {
		fa.Unproven = fmt.Sprintf("stopped after %d ancestors explaining %.4f of the genes: f_a lies between %.1f and this upper bound, as no ancestor left contributes more than the last chosen",
			len(fd.Ancestors), fd.Explained, fd.FaLow)
	}
	t := AncestorTable{Columns: []string{"lpn_id", "marginal", "raw"}}
	for _, c := range fd.Ancestors[:min(topAncestors, len(fd.Ancestors))] {
		id := ped.ID(c.Animal)
		if c.Unknown {
			id = "unknown sire of " + id
			if c.Dam {
				id = "unknown dam of " + ped.ID(c.Animal)
			}
		}
		t.Rows = append(t.Rows, []any{id, round(c.Marginal), round(c.Raw)})
	}
	return fe, fa, t
}

// coiTable is every animal asked about, for the CSV link.
func coiTable(p *breedpass.BreedPass, animals []animal, f, ecg []float64) *full.Table {
	t := &full.Table{Columns: []string{"lpn_id", "birth_year", "sire", "dam", "coi", "equivalent_generations"}}
	for _, an := range animals {
		row := []any{p.IDs[an.row], nil, nil, nil, f[an.num], ecg[an.num]}
		if an.year > 0 {
			row[1] = an.year
		}
		if s := p.Parents[p.Sire[an.row]]; s != "" && s != "0" {
			row[2] = s
		}
		if d := p.Parents[p.Dam[an.row]]; d != "" && d != "0" {
			row[3] = d
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func meanOf(animals []animal, v []float64) float64 {
	nums := make([]int32, len(animals))
	for k, an := range animals {
		nums[k] = an.num
	}
	return meanNums(nums, v)
}

func meanNums(nums []int32, v []float64) float64 {
	if len(nums) == 0 {
		return 0
	}
	s := 0.0
	for _, i := range nums {
		s += v[i]
	}
	return s / float64(len(nums))
}

// round keeps ten decimals: well within what a breeder reads, and short
// of the float's noise.
func round(x float64) float64 { return math.Round(x*1e10) / 1e10 }
