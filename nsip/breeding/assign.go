package breeding

import (
	"errors"
	"slices"
)

// Pair is a possible mating: its value (the predicted offspring's index)
// and whether it is allowed (its COI within the cap).
type Pair struct {
	Value   float64
	Allowed bool
	// COI breaks ties between plans of equal size and total (see
	// AssignLowCOI); Assign ignores it.
	COI float64
}

// Assignment gives each ewe's ram (an index into the rams) or -1.
type Assignment struct {
	RamOf []int
	Mated int
	Total float64 // sum of the chosen pairs' values
}

// Assign mates as many ewes as the allowed pairs and the rams' capacities
// permit, and among those assignments picks one of largest total value. It
// is a min-cost max-flow (source -> ram with the ram's capacity -> ewe over
// an allowed pair, cost -value -> sink), solved by successive shortest
// paths with Bellman-Ford, which tolerates the negative costs. pairs is
// indexed [ram][ewe].
func Assign(pairs [][]Pair, capacity []int) (Assignment, error) {
	return assign(pairs, capacity, false)
}

// tieEps is how close two totals are to count as equal: sums of the same
// values in another order differ in their last bits.
const tieEps = 1e-9

// AssignLowCOI is Assign with ties settled by inbreeding: among the
// assignments mating the most ewes with the largest total (within 1e-9),
// it picks one whose highest pair COI is lowest, and among those one whose
// COI sum (so mean) is lowest. The highest COI is found by bisecting over
// the pairs' distinct COIs, re-solving with pairs above each threshold
// removed; the sum by a second cost compared only where totals tie.
func AssignLowCOI(pairs [][]Pair, capacity []int) (Assignment, error) {
	best, err := assign(pairs, capacity, false)
	if err != nil || best.Mated == 0 {
		return best, err
	}
	var cois []float64
	for _, row := range pairs {
		for _, p := range row {
			if p.Allowed {
				cois = append(cois, p.COI)
			}
		}
	}
	slices.Sort(cois)
	cois = slices.Compact(cois)
	under := func(t float64) [][]Pair {
		out := make([][]Pair, len(pairs))
		for r, row := range pairs {
			out[r] = slices.Clone(row)
			for e := range out[r] {
				out[r][e].Allowed = out[r][e].Allowed && out[r][e].COI <= t
			}
		}
		return out
	}
	lo, hi := 0, len(cois)-1 // cois[hi] allows every allowed pair
	for lo < hi {
		mid := (lo + hi) / 2
		a, err := assign(under(cois[mid]), capacity, false)
		if err != nil {
			return Assignment{}, err
		}
		if a.Mated == best.Mated && a.Total >= best.Total-tieEps {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return assign(under(cois[lo]), capacity, true)
}

func assign(pairs [][]Pair, capacity []int, lowSum bool) (Assignment, error) {
	nr := len(pairs)
	if len(capacity) != nr {
		return Assignment{}, errors.New("breeding: one capacity per ram")
	}
	ne := 0
	if nr > 0 {
		ne = len(pairs[0])
	}
	for _, row := range pairs {
		if len(row) != ne {
			return Assignment{}, errors.New("breeding: pairs must be a full rams x ewes table")
		}
	}
	// Nodes: 0 source, 1..nr rams, nr+1..nr+ne ewes, nr+ne+1 sink.
	src, sink := 0, nr+ne+1
	g := newFlow(nr + ne + 2)
	for r := range nr {
		g.edge(src, 1+r, capacity[r], cost{})
		for e := range ne {
			if pairs[r][e].Allowed {
				c := cost{-pairs[r][e].Value, 0}
				if lowSum {
					c.tie = pairs[r][e].COI
				}
				g.edge(1+r, 1+nr+e, 1, c)
			}
		}
	}
	for e := range ne {
		g.edge(1+nr+e, sink, 1, cost{})
	}
	for g.augment(src, sink) {
	}
	out := Assignment{RamOf: make([]int, ne)}
	for e := range ne {
		out.RamOf[e] = -1
	}
	for r := range nr {
		for _, id := range g.adj[1+r] {
			ed := g.edges[id]
			if ed.to > nr && ed.to <= nr+ne && ed.cap == 0 && id%2 == 0 {
				e := ed.to - 1 - nr
				out.RamOf[e] = r
				out.Mated++
				out.Total += pairs[r][e].Value
			}
		}
	}
	return out, nil
}

// cost is an edge's cost: its value, then, compared only where values
// tie, a second cost (a COI) that settles the tie.
type cost struct{ v, tie float64 }

func (c cost) plus(d cost) cost { return cost{c.v + d.v, c.tie + d.tie} }
func (c cost) neg() cost        { return cost{-c.v, -c.tie} }

// less orders costs by value, then tie; values within tieEps are equal.
func (c cost) less(d cost) bool {
	if c.v < d.v-tieEps {
		return true
	}
	return c.v <= d.v+tieEps && c.tie < d.tie-tieEps
}

type flowEdge struct {
	to, cap int
	cost    cost
}

type flow struct {
	edges []flowEdge
	adj   [][]int
}

func newFlow(n int) *flow { return &flow{adj: make([][]int, n)} }

// edge adds u->v and its residual v->u; forward edges have even ids.
func (f *flow) edge(u, v, c int, k cost) {
	f.adj[u] = append(f.adj[u], len(f.edges))
	f.edges = append(f.edges, flowEdge{v, c, k})
	f.adj[v] = append(f.adj[v], len(f.edges))
	f.edges = append(f.edges, flowEdge{u, 0, k.neg()})
}

// augment sends one unit along a cheapest path; all capacities into the
// sink are 1, so one unit is all any path carries.
func (f *flow) augment(s, t int) bool {
	n := len(f.adj)
	dist := make([]cost, n)
	reached := make([]bool, n)
	prev := make([]int, n)
	for i := range prev {
		prev[i] = -1
	}
	reached[s] = true
	for range n {
		changed := false
		for u := range n {
			if !reached[u] {
				continue
			}
			for _, id := range f.adj[u] {
				e := f.edges[id]
				if d := dist[u].plus(e.cost); e.cap > 0 && (!reached[e.to] || d.less(dist[e.to])) {
					dist[e.to], prev[e.to], reached[e.to] = d, id, true
					changed = true
				}
			}
		}
		if !changed {
			break
		}
	}
	if prev[t] < 0 {
		return false
	}
	for v := t; v != s; {
		id := prev[v]
		f.edges[id].cap--
		f.edges[id^1].cap++
		v = f.edges[id^1].to
	}
	return true
}
