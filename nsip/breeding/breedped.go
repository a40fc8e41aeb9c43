package breeding

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
)

// BreedRows is a breed's records as a breed pass holds them: per row an
// animal's ID and its sire and dam as indexes into a table of the parent
// IDs the rows named. It is the input of NewBreedPedigree, in the pass's
// own shape so that building a pedigree copies no string.
type BreedRows struct {
	IDs       []string
	Names     []string // the parent IDs the rows named, "" or "0" for none
	Sire, Dam []uint32 // per row, an index into Names
	// Year, when set, gives an animal's birth year (0 when unknown). It
	// only decides where a cycle in bad data is cut: see NewBreedPedigree.
	Year func(id string) int
}

// CutLink is a parent link NewBreedPedigree dropped because it closed a
// cycle: Animal recorded with Parent as its sire (or dam), although
// Parent descends from Animal by the other links. Cycle lists the animals
// of the cycle from Parent down to Animal, at most maxCycleShown of them;
// Length is how many it has.
type CutLink struct {
	Animal string   `json:"animal"`
	Parent string   `json:"parent"`
	Dam    bool     `json:"dam"` // the dam link was cut, else the sire link
	Cycle  []string `json:"cycle"`
	Length int      `json:"length"`
}

// maxCycleShown bounds what a CutLink lists, so that bad data cannot make
// the record of its cuts grow with the square of the breed.
const maxCycleShown = 16

// BreedPedigree is one breed's whole pedigree, compactly: animals numbered
// 0..Len()-1 with parents before their offspring, each parent an int32
// number (-1 where unknown). It is built once from a breed pass's rows and
// read many times; Inbreeding computes every animal's coefficient once,
// on first use, and is safe for concurrent use; so is everything else, as
// nothing else changes after construction.
//
// Memory: 32 bytes an animal for the numbering (an ID's header, sire and
// dam, the row of each animal and the animal of each row; the IDs' bytes
// are the rows'), 8 more for its inbreeding: 40 in all (Bytes). Building
// it takes about 140 bytes an animal while it runs, most of it a map from
// ID to animal dropped at the end; computing the inbreeding about 45.
type BreedPedigree struct {
	ids   []string   // animal -> LPN ID
	par   [][2]int32 // animal -> sire's and dam's numbers, -1 where unknown; side by side, as every walk reads both
	row   []int32    // animal -> its row in BreedRows, -1 for an added parent
	node  []int32    // row -> animal
	cuts  []CutLink
	added int // parents named by rows but absent from them
	dups  int // rows repeating an ID an earlier row gave

	once sync.Once
	f    []float64
}

// unknownParent reports whether a row's parent ID names no animal.
func unknownParent(s string) bool {
	s = strings.TrimSpace(s)
	return s == "" || s == "0"
}

// NewBreedPedigree numbers the animals of rows, parents first.
//
// A parent a row names that no row holds (an import, or an animal of
// another breed) is added as a founder with unknown parents rather than
// read as unknown: two lambs of one imported ram are half-sibs whether or
// not the ram's own record is in the breed, and dropping him would call
// them unrelated and understate the inbreeding of their offspring. Its
// own ancestry is not known, so it counts as unrelated to every other
// founder, as an unknown parent does.
//
// A row repeating an ID an earlier row gave is the same animal; the first
// row's parents stand (DuplicateRows counts the others).
//
// Bad data may make an animal its own ancestor. The animals are ordered
// by a depth-first walk up through the parents, starting from the
// youngest animals (by Year, then row order; Year is read only when
// there is a cycle to cut); a link that names as parent an animal the
// walk is still below closes a cycle and is cut, recorded in Cuts.
// Walking from the young up, the link cut is the one an older animal's
// record makes to a younger one, the likeliest error. The walk
// keeps its own stack, so it neither loops nor deepens the goroutine's
// stack however the data are shaped.
func NewBreedPedigree(r BreedRows) (*BreedPedigree, error) {
	n := len(r.IDs)
	if len(r.Sire) != n || len(r.Dam) != n {
		return nil, errors.New("breeding: every row needs a sire and a dam entry")
	}
	// Number the animals in the order first met, rows before added
	// parents; the final, parents-first order comes later.
	num := make(map[string]int32, n)
	ids := make([]string, 0, n)
	node := make([]int32, n)
	dups := 0
	for j, id := range r.IDs {
		if k, ok := num[id]; ok {
			node[j] = k
			dups++
			continue
		}
		k := int32(len(ids))
		ids = append(ids, id)
		node[j] = k
		num[id] = k
	}
	if len(ids)+len(r.Names) > math.MaxInt32 {
		return nil, errors.New("breeding: more animals than an int32 numbers")
	}
	rows := len(ids)
	parentOf := make([]int32, len(r.Names))
	for i, s := range r.Names {
		if unknownParent(s) {
			parentOf[i] = -1
			continue
		}
		k, ok := num[s]
		if !ok {
			k = int32(len(ids))
			ids = append(ids, s)
			num[s] = k
		}
		parentOf[i] = k
	}
	num = nil // the map is the largest transient; let it go before sorting
	m := len(ids)
	sire, dam, firstRow := make([]int32, m), make([]int32, m), make([]int32, m)
	for i := range m {
		sire[i], dam[i], firstRow[i] = -1, -1, -1
	}
	for j := range n {
		k := node[j]
		if firstRow[k] >= 0 {
			continue // a repeat: the first row's parents stand
		}
		if int(r.Sire[j]) >= len(r.Names) || int(r.Dam[j]) >= len(r.Names) {
			return nil, fmt.Errorf("breeding: row %d names a parent beyond the table of %d", j, len(r.Names))
		}
		firstRow[k] = int32(j)
		sire[k], dam[k] = parentOf[r.Sire[j]], parentOf[r.Dam[j]]
	}
	order, cuts := topoOrder(ids, sire, dam, nil)
	if len(cuts) > 0 && r.Year != nil {
		// Bad data: walk again from the youngest, so that the links cut
		// are the likeliest errors. Years are read only here, as reading
		// them costs more than the walk and most breeds need none.
		for _, c := range cuts {
			c.restore()
		}
		year := make([]int, rows)
		for k := range rows {
			year[k] = r.Year(ids[k])
		}
		order, cuts = topoOrder(ids, sire, dam, year)
	}
	p := &BreedPedigree{added: m - rows, dups: dups}
	for _, c := range cuts {
		p.cuts = append(p.cuts, c.CutLink)
	}
	// Renumber: animal order[i] becomes i.
	newOf := make([]int32, m)
	for i, k := range order {
		newOf[k] = int32(i)
	}
	p.ids = make([]string, m)
	p.par, p.row = make([][2]int32, m), make([]int32, m)
	for i, k := range order {
		p.ids[i] = ids[k]
		p.row[i] = firstRow[k]
		p.par[i] = [2]int32{renum(newOf, sire[k]), renum(newOf, dam[k])}
	}
	for j := range node {
		node[j] = newOf[node[j]]
	}
	p.node = node
	return p, nil
}

func renum(newOf []int32, k int32) int32 {
	if k < 0 {
		return -1
	}
	return newOf[k]
}

// cut is a link topoOrder dropped, with what it takes to put it back.
type cut struct {
	CutLink
	links []int32 // sire or dam
	k, q  int32
}

func (c cut) restore() { c.links[c.k] = c.q }

// topoOrder lists the animals parents first by a depth-first walk up
// through the parents from each animal in number order or, when year is
// given (the rows' years), youngest first. A link to an animal the walk is
// still below closes a cycle: it is set to -1 in sire or dam and recorded.
func topoOrder(ids []string, sire, dam []int32, year []int) ([]int32, []cut) {
	m := len(ids)
	roots := make([]int32, m)
	for i := range roots {
		roots[i] = int32(i)
	}
	if year != nil {
		slices.SortStableFunc(roots, func(a, b int32) int {
			ya, yb := yearOf(year, a), yearOf(year, b)
			return cmp.Compare(yb, ya) // youngest first; unknown years last
		})
	}
	const (
		unseen = iota
		open
		done
	)
	state := make([]uint8, m)
	order := make([]int32, 0, m)
	var cuts []cut
	type frame struct {
		k    int32
		next uint8 // 0: the sire next, 1: the dam, 2: both done
	}
	var stack []frame
	pos := make([]int32, m) // an open animal's place on the stack
	for _, root := range roots {
		if state[root] != unseen {
			continue
		}
		stack = append(stack[:0], frame{k: root})
		state[root] = open
		pos[root] = 0
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next < 2 {
				links := sire
				if top.next == 1 {
					links = dam
				}
				top.next++
				q := links[top.k]
				switch {
				case q < 0:
				case state[q] == unseen:
					state[q] = open
					pos[q] = int32(len(stack))
					stack = append(stack, frame{k: q})
				case state[q] == open:
					// q is top's descendant by the links on the stack.
					cyc := stack[pos[q]:]
					c := CutLink{Animal: ids[top.k], Parent: ids[q], Dam: top.next == 2, Length: len(cyc)}
					for _, f := range cyc[:min(len(cyc), maxCycleShown)] {
						c.Cycle = append(c.Cycle, ids[f.k])
					}
					cuts = append(cuts, cut{CutLink: c, links: links, k: top.k, q: q})
					links[top.k] = -1
				}
				continue
			}
			state[top.k] = done
			order = append(order, top.k) // post-order: both parents are placed
			stack = stack[:len(stack)-1]
		}
	}
	return order, cuts
}

// yearOf is animal k's year; 0 (unknown) sorts after every known year.
func yearOf(year []int, k int32) int {
	if int(k) >= len(year) || year[k] <= 0 {
		return -1 << 31
	}
	return year[k]
}

// Len is the number of animals, parents added from outside the rows
// included.
func (p *BreedPedigree) Len() int { return len(p.ids) }

// ID is animal i's LPN ID.
func (p *BreedPedigree) ID(i int32) string { return p.ids[i] }

// Parents are animal i's sire and dam, -1 where unknown.
func (p *BreedPedigree) Parents(i int32) (sire, dam int32) { return p.par[i][0], p.par[i][1] }

// Row is the row animal i was read from, -1 for a parent no row holds.
func (p *BreedPedigree) Row(i int32) int32 { return p.row[i] }

// Animal is the number of the animal of row j.
func (p *BreedPedigree) Animal(j int) int32 { return p.node[j] }

// Cuts are the parent links dropped to break cycles, in the order found.
func (p *BreedPedigree) Cuts() []CutLink { return slices.Clone(p.cuts) }

// AddedParents is how many parents the rows named that no row holds,
// each added as a founder.
func (p *BreedPedigree) AddedParents() int { return p.added }

// DuplicateRows is how many rows repeated an ID an earlier row gave.
func (p *BreedPedigree) DuplicateRows() int { return p.dups }

// Bytes is about what the pedigree holds in memory: per animal an ID's
// header, sire, dam, row and inbreeding (counted whether computed yet or
// not, so that the figure does not change under a reader), per row its
// animal, and the cuts.
func (p *BreedPedigree) Bytes() int64 {
	b := int64(len(p.ids))*(16+4+4+4+8) + int64(len(p.node))*4 + 256
	for _, c := range p.cuts {
		b += 64 + 16*int64(len(c.Cycle))
	}
	return b
}
