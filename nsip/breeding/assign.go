package breeding

import (
	"errors"
	"math"
)

// Pair is a possible mating: its value (the predicted offspring's index)
// and whether it is allowed (its COI within the cap).
type Pair struct {
	Value   float64
	Allowed bool
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
		g.edge(src, 1+r, capacity[r], 0)
		for e := range ne {
			if pairs[r][e].Allowed {
				g.edge(1+r, 1+nr+e, 1, -pairs[r][e].Value)
			}
		}
	}
	for e := range ne {
		g.edge(1+nr+e, sink, 1, 0)
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

type flowEdge struct {
	to, cap int
	cost    float64
}

type flow struct {
	edges []flowEdge
	adj   [][]int
}

func newFlow(n int) *flow { return &flow{adj: make([][]int, n)} }

// edge adds u->v and its residual v->u; forward edges have even ids.
func (f *flow) edge(u, v, c int, cost float64) {
	f.adj[u] = append(f.adj[u], len(f.edges))
	f.edges = append(f.edges, flowEdge{v, c, cost})
	f.adj[v] = append(f.adj[v], len(f.edges))
	f.edges = append(f.edges, flowEdge{u, 0, -cost})
}

// augment sends one unit along a cheapest path; all capacities into the
// sink are 1, so one unit is all any path carries.
func (f *flow) augment(s, t int) bool {
	n := len(f.adj)
	dist := make([]float64, n)
	prev := make([]int, n)
	for i := range dist {
		dist[i], prev[i] = math.Inf(1), -1
	}
	dist[s] = 0
	const eps = 1e-9
	for range n {
		changed := false
		for u := range n {
			if math.IsInf(dist[u], 1) {
				continue
			}
			for _, id := range f.adj[u] {
				e := f.edges[id]
				if e.cap > 0 && dist[u]+e.cost < dist[e.to]-eps {
					dist[e.to], prev[e.to] = dist[u]+e.cost, id
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
