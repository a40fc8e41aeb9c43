package nsiptest

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Irregular switches on the ways NSIP may answer that it never promised
// not to (see "What NSIP does not promise" in the API notes), one field
// each; the zero value is a regular upstream. Absurd values are set per
// animal with SetTraitText.
type Irregular struct {
	// UnstableTies orders search rows that tie anew on every request, as a
	// database does without a unique tiebreak: rows with equal values of
	// the sorted trait, and every row of an unsorted search. Pages cut
	// across a tie then repeat some animals and skip others.
	UnstableTies bool
	// Round serves these traits rounded to so many decimals, in details,
	// search and progeny rows, the search order and the trait ranges, so
	// that many animals tie (NLB to 1 decimal: a few values for a breed).
	// Search criteria still filter on the exact values.
	Round map[string]int
	// ShortPages leaves this many rows off the end of every search and
	// progeny page before the last; recordCount is unchanged. The rows are
	// missing, not shifted to the next page.
	ShortPages int
	// NarrowRanges publishes each trait range narrowed to this share of its
	// width around its middle (0.5: half as wide), so that animals lie
	// outside the ranges; 0 and 1 leave them as the data has them.
	NarrowRanges float64
	// OneChildLineages lists, in every lineage node with both parents, the
	// dam alone as its only child: a client that reads a lone child as the
	// sire takes the dam for a sire.
	OneChildLineages bool
	// IgnoreCriteria are search criteria, by their names in the request
	// (gender, status, flockId, breedId, breedGroupId, bornAfter,
	// bornBefore, provenOnly, traitRanges), that the search does not apply
	// while it applies the others; recordCount counts what it returns.
	// breedId covers the query parameter and the criteria field.
	IgnoreCriteria []string
	// PadRows pads the registration number of every search row on pages
	// after the first with this many bytes: an upstream (or anyone on its
	// path) that answers the first page honestly and the rest with rows
	// each as large as it likes, under the body limit.
	PadRows int
	// PadParents pads the sire and dam of every search row on pages after
	// the first with this many bytes after a number of the row's own, so
	// that no two rows name the same parents: rows whose members a breed
	// pass keeps, each as large as the client lets a member be.
	PadParents int
}

// padded is rows with each registration number padded by ir.PadRows
// bytes when page is after the first; the dataset's animals are not
// changed.
func (ir Irregular) padded(rows []*animal, page int) []*animal {
	if ir.PadRows <= 0 && ir.PadParents <= 0 || page == 0 {
		return rows
	}
	pad, parents := strings.Repeat("x", ir.PadRows), strings.Repeat("p", ir.PadParents)
	out := make([]*animal, len(rows))
	for i, a := range rows {
		c := *a
		c.RegNumber += pad
		if ir.PadParents > 0 {
			c.Sire, c.Dam = fmt.Sprintf("S%d-%d%s", page, i, parents), fmt.Sprintf("D%d-%d%s", page, i, parents)
		}
		out[i] = &c
	}
	return out
}

// SetIrregular switches the stand-in's irregularities to ir, replacing
// those set before; Irregular{} ends them.
func (h *Handler) SetIrregular(ir Irregular) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.irr = ir
	h.irr.Round = make(map[string]int, len(ir.Round))
	for k, v := range ir.Round {
		h.irr.Round[strings.ToUpper(k)] = v
	}
	h.irr.IgnoreCriteria = slices.Clone(ir.IgnoreCriteria)
}

// irregular is the current setting and, for UnstableTies, a number that
// differs on every search request.
func (h *Handler) irregular() (Irregular, uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.searches++
	return h.irr, h.searches
}

// ignoring strips the criteria ir ignores from c and says whether the
// breed query parameter is ignored too.
func (ir Irregular) ignoring(c Criteria) (Criteria, bool) {
	breed := false
	for _, name := range ir.IgnoreCriteria {
		switch strings.ToLower(name) {
		case "gender":
			c.Gender = ""
		case "status":
			c.Status = ""
		case "flockid":
			c.FlockID = ""
		case "breedid":
			c.BreedID, breed = 0, true
		case "breedgroupid":
			c.BreedGroupID = 0
		case "bornafter":
			c.BornAfter = ""
		case "bornbefore":
			c.BornBefore = ""
		case "provenonly":
			c.ProvenOnly = false
		case "traitranges":
			c.TraitRanges = nil
		}
	}
	return c, breed
}

// served is a trait value as the stand-in sends it under ir.
func (ir Irregular) served(code string, v float64) float64 {
	if d, ok := ir.Round[strings.ToUpper(code)]; ok {
		return round(v, d)
	}
	return v
}

// reorders reports whether reorder changes the order search gives.
func (ir Irregular) reorders(sortTrait string) bool {
	_, rounded := ir.Round[strings.ToUpper(sortTrait)]
	return ir.UnstableTies || rounded
}

// reorder sorts rows as search does, by the served value of sortTrait,
// breaking ties by LPN ID, or with UnstableTies by an order drawn anew
// for request seq.
func (ir Irregular) reorder(rows []*animal, sortTrait string, reverse bool, seq uint64) {
	if !ir.reorders(sortTrait) {
		return
	}
	salt := rand.New(rand.NewPCG(seq, 0x5eed)).Uint64()
	tie := func(x, y *animal) int { return strings.Compare(x.LPNID, y.LPNID) }
	if ir.UnstableTies {
		tie = func(x, y *animal) int {
			hx, hy := mix(x.LPNID, salt), mix(y.LPNID, salt)
			switch {
			case hx < hy:
				return -1
			case hx > hy:
				return 1
			}
			return strings.Compare(x.LPNID, y.LPNID)
		}
	}
	cmp := tie
	if sortTrait != "" {
		cmp = func(x, y *animal) int {
			vx, okx := x.traitValue(sortTrait)
			vy, oky := y.traitValue(sortTrait)
			vx, vy = ir.served(sortTrait, vx), ir.served(sortTrait, vy)
			switch {
			case okx != oky: // animals without the trait come last
				if okx {
					return -1
				}
				return 1
			case vx > vy:
				return -1
			case vx < vy:
				return 1
			}
			return tie(x, y)
		}
	}
	slices.SortStableFunc(rows, func(x, y *animal) int {
		if reverse {
			return cmp(y, x)
		}
		return cmp(x, y)
	})
}

// mix hashes an LPN ID with salt: an order of the rows that changes with
// salt and nothing else.
func mix(id string, salt uint64) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	x := h.Sum64() ^ salt
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return x
}

// cut is page pg of size rows of all, short by ShortPages rows unless it
// is the last page.
func (ir Irregular) cut(n, pg, size int) (lo, hi int) {
	lo = min(pg*size, n)
	if pg > n {
		lo = n
	}
	hi = min(lo+size, n)
	if ir.ShortPages > 0 && hi < n {
		hi = max(lo, hi-ir.ShortPages)
	}
	return lo, hi
}

// ranges is what getTraitRangesByBreed publishes for ranges under ir.
func (ir Irregular) ranges(codes []string, rg map[string][2]float64) map[string][2]float64 {
	out := make(map[string][2]float64, len(codes))
	for _, code := range codes {
		r := rg[code]
		if s := ir.NarrowRanges; s > 0 && s < 1 {
			mid, half := (r[0]+r[1])/2, (r[1]-r[0])/2*s
			r = [2]float64{mid - half, mid + half}
		}
		if d, ok := ir.Round[code]; ok {
			// Rounded outward, so that the ranges still hold every value
			// served unless they were narrowed.
			p := math.Pow(10, float64(d))
			r = [2]float64{math.Floor(r[0]*p) / p, math.Ceil(r[1]*p) / p}
		}
		out[code] = r
	}
	return out
}
