package summarize

import (
	"encoding/json"
	"strconv"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// nodeBlock is one animal of a pedigree with the details parsed from the
// API's HTML fragment; the fragment itself is left out.
type nodeBlock struct {
	LPNID   string             `json:"lpn_id"`
	Farm    string             `json:"farm,omitempty"`
	DOB     string             `json:"dob,omitempty"`
	Sex     string             `json:"sex,omitempty"`
	Status  string             `json:"status,omitempty"`
	Indexes map[string]float64 `json:"indexes,omitempty"`
}

func newNodeBlock(n *nsip.LineageNode, c int) *nodeBlock {
	if n == nil {
		return nil
	}
	b := &nodeBlock{LPNID: clip(n.LPNID, c), Farm: clip(n.Farm, c), DOB: clip(n.DOB, c), Sex: clip(n.Sex, c), Status: clip(n.Status, c)}
	for _, ix := range n.Indexes {
		if b.Indexes == nil {
			b.Indexes = map[string]float64{}
		}
		b.Indexes[clip(ix.Name, c)] = ix.Value
	}
	return b
}

// lineageBlock is a pedigree summary. Ancestors beyond the parents are
// rows of [path, lpn_id(, farm)], where the path spells the way up from
// the subject: "SD" is the sire's dam, so its length is the generation.
type lineageBlock struct {
	Summary      bool              `json:"summary"`
	Kind         Kind              `json:"kind"`
	Subject      *nodeBlock        `json:"subject"`
	Sire         *nodeBlock        `json:"sire,omitempty"`
	Dam          *nodeBlock        `json:"dam,omitempty"`
	Generations  int               `json:"generations"` // deepest generation in the answer; parents are 1
	Columns      []string          `json:"ancestor_columns,omitempty"`
	Ancestors    []json.RawMessage `json:"ancestors,omitempty"`
	Omitted      []int             `json:"omitted_generations,omitempty"`
	OmittedCount int               `json:"omitted_ancestors,omitempty"`
	Next         *NextCall         `json:"next,omitempty"`
}

// ancestor is a pedigree node with its path from the subject.
type ancestor struct {
	path string
	node *nsip.LineageNode
}

// Bounds on a pedigree walk. Decoded JSON cannot loop, but a model built
// in code could point back at an ancestor; these keep such a walk finite.
const (
	maxGenerations = 64
	maxAncestors   = 1 << 14
)

// ancestors lists the pedigree by generation (index 0 is the parents),
// each generation sire side first.
func ancestors(root *nsip.LineageNode) [][]ancestor {
	var gens [][]ancestor
	level := []ancestor{{"", root}}
	seen := 0
	for len(level) > 0 && len(gens) < maxGenerations && seen < maxAncestors {
		var next []ancestor
		for _, a := range level {
			kids := append([]*nsip.LineageNode{a.node.Sire, a.node.Dam}, a.node.Others...)
			for i, k := range kids {
				if k == nil {
					continue
				}
				step := "O" + strconv.Itoa(i-1)
				switch i {
				case 0:
					step = "S"
				case 1:
					step = "D"
				}
				next = append(next, ancestor{a.path + step, k})
			}
		}
		if len(next) > 0 {
			gens = append(gens, next)
		}
		seen += len(next)
		level = next
	}
	return gens
}

// lineageSummary keeps the subject and parents in full, then as many
// generations of ancestors as fit, with farms while they fit; the deepest
// generations go first and are named in omitted_generations.
func lineageSummary(f *fitter, v *nsip.Lineage, c int) ([]byte, bool, error) {
	subj := &v.Subject
	gens := ancestors(subj)
	// Candidates from richest to leanest: for each depth from all
	// generations down to none beyond the parents, with farms then without.
	type plan struct {
		depth int // generations of ancestors beyond the parents
		farms bool
	}
	var plans []plan
	for d := max(0, len(gens)-1); d >= 0; d-- {
		plans = append(plans, plan{d, true})
		if d > 0 {
			plans = append(plans, plan{d, false})
		}
	}
	render := func(i int) ([]byte, error) {
		p := plans[len(plans)-1-i] // largest is leanest-first index order reversed
		lb := &lineageBlock{
			Summary: true, Kind: KindLineage, Subject: newNodeBlock(subj, c),
			Sire: newNodeBlock(subj.Sire, c), Dam: newNodeBlock(subj.Dam, c),
			Generations: len(gens),
		}
		if p.depth > 0 {
			lb.Columns = []string{"path", "lpn_id"}
			if p.farms {
				lb.Columns = append(lb.Columns, "farm")
			}
		}
		for g := 1; g < len(gens); g++ {
			if g > p.depth {
				lb.Omitted = append(lb.Omitted, g+1)
				lb.OmittedCount += len(gens[g])
				continue
			}
			for _, a := range gens[g] {
				row := []any{a.path, clip(a.node.LPNID, c)}
				if p.farms {
					row = append(row, clip(a.node.Farm, c))
				}
				b, err := nsip.PlainJSON(row)
				if err != nil {
					return nil, err
				}
				lb.Ancestors = append(lb.Ancestors, b)
			}
		}
		if lb.OmittedCount > 0 {
			// An ancestor of the deepest generation shown leads on to
			// its own pedigree, which holds the omitted ones above it.
			lb.Next = &NextCall{Tool: toolname.GetLineage, Arguments: map[string]any{"lpn_id": clip(gens[p.depth][0].node.LPNID, c)}}
		}
		return nsip.PlainJSON(lb)
	}
	// Sizes in bytes are free; they place the first guess.
	guess := 0
	for i := range plans {
		b, err := render(i)
		if err != nil {
			return nil, false, err
		}
		if float64(len(b))*f.density <= float64(f.limit) {
			guess = i
		}
	}
	i, out, ok, err := f.largest(len(plans)-1, guess, render)
	if err != nil || !ok {
		return nil, false, err
	}
	return out, i == len(plans)-1 || len(gens) <= 1 || plans[len(plans)-1-i].depth > 0, nil
}
