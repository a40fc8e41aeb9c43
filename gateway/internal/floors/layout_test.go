package floors

import (
	"fmt"
	"sort"
)

// exactLimit is the largest strongly connected component whose order is
// found exactly (dynamic programming over subsets, 2^n states); larger
// components fall back to a heuristic.
const exactLimit = 20

// maxComponent is the largest strongly connected component handled at all,
// as a component's arrows are kept as one bit set per node.
const maxComponent = 64

// layout is an order of the nodes, highest first, and what it implies.
type layout struct {
	order  []int   // node indices, highest first
	pos    []int   // pos[node] = index in order
	up     []arrow // arrows from a lower node to a higher one
	floor  []int   // floor[node]: nodes on the longest downward path from it (1 = ground floor)
	floors int     // the highest floor
	sccs   [][]int // strongly connected components with more than one node
}

// arrange orders the nodes so that as few arrows as possible point up
// (a minimum feedback arc set, found exactly for components of up to
// exactLimit nodes).
//
// Arrows between different strongly connected components never need to
// point up: the components are laid out in topological order. Inside a
// component the order is found by dynamic programming over subsets when it
// is small enough, otherwise by the Eades–Lin–Smyth greedy heuristic
// followed by moving single nodes while that lowers the count.
func arrange(g graph) layout {
	n := len(g.nodes)
	adj := make([][]int, n)
	for _, a := range g.arrows {
		adj[a.from] = append(adj[a.from], a.to)
	}
	comps := sccs(n, adj) // in reverse topological order (sinks first)
	var l layout
	for i := len(comps) - 1; i >= 0; i-- {
		c := comps[i]
		sort.Ints(c)
		if len(c) > 1 {
			l.sccs = append(l.sccs, c)
		}
		l.order = append(l.order, orderComponent(c, adj)...)
	}
	l.pos = make([]int, n)
	for i, v := range l.order {
		l.pos[v] = i
	}
	depth := make([]int, n)
	for i := n - 1; i >= 0; i-- {
		v := l.order[i]
		depth[v] = 1
		for _, w := range adj[v] {
			if l.pos[w] > i && depth[w]+1 > depth[v] {
				depth[v] = depth[w] + 1
			}
		}
		if depth[v] > l.floors {
			l.floors = depth[v]
		}
	}
	l.floor = depth
	for _, a := range g.arrows {
		if l.pos[a.to] < l.pos[a.from] {
			l.up = append(l.up, a)
		}
	}
	return l
}

// sccs returns the strongly connected components (Tarjan's algorithm), each
// component listed after every component it has arrows to.
func sccs(n int, adj [][]int) [][]int {
	index := make([]int, n)
	low := make([]int, n)
	on := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var out [][]int
	next := 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		for _, w := range adj[v] {
			if index[w] < 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var c []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				c = append(c, w)
				if w == v {
					break
				}
			}
			out = append(out, c)
		}
	}
	for v := 0; v < n; v++ {
		if index[v] < 0 {
			visit(v)
		}
	}
	return out
}

// orderComponent orders the nodes of one strongly connected component,
// highest first, minimising the arrows inside it that point up.
func orderComponent(c []int, adj [][]int) []int {
	if len(c) == 1 {
		return c
	}
	local := map[int]int{}
	for i, v := range c {
		local[v] = i
	}
	m := len(c)
	if m > maxComponent {
		panic(fmt.Sprintf("a cycle of %d nodes is more than this measure handles (%d)", m, maxComponent))
	}
	out := make([]uint64, m) // bit j set: arrow from c[i] to c[j]
	for i, v := range c {
		for _, w := range adj[v] {
			if j, ok := local[w]; ok {
				out[i] |= 1 << j
			}
		}
	}
	var order []int
	if m <= exactLimit {
		order = exactOrder(out)
	} else {
		order = improve(greedyOrder(out), out)
	}
	res := make([]int, m)
	for i, j := range order {
		res[i] = c[j]
	}
	return res
}

// upCount counts the arrows pointing up in an order of local indices.
func upCount(order []int, out []uint64) int {
	var placed uint64
	n := 0
	for _, v := range order {
		n += popcount(out[v] & placed)
		placed |= 1 << v
	}
	return n
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// exactOrder finds an order with the fewest upward arrows. best[S] is the
// fewest upward arrows among the nodes of S when they are placed first
// (highest) in some order; placing v next, below all of S, turns v's
// arrows into S upward. Ties go to the lowest node index, so the result
// does not change from run to run.
func exactOrder(out []uint64) []int {
	m := len(out)
	full := uint64(1)<<m - 1
	best := make([]int32, full+1)
	last := make([]int8, full+1)
	for s := uint64(1); s <= full; s++ {
		best[s] = -1
		for v := 0; v < m; v++ {
			bit := uint64(1) << v
			if s&bit == 0 {
				continue
			}
			prev := s &^ bit
			cost := best[prev] + int32(popcount(out[v]&prev))
			if best[s] < 0 || cost < best[s] {
				best[s], last[s] = cost, int8(v)
			}
		}
	}
	order := make([]int, m)
	for s, i := full, m-1; i >= 0; i-- {
		v := int(last[s])
		order[i] = v
		s &^= 1 << v
	}
	return order
}

// greedyOrder is the Eades–Lin–Smyth heuristic: repeatedly take sinks to
// the bottom and sources to the top, and otherwise put on top the node with
// the most outgoing minus incoming arrows among those left.
func greedyOrder(out []uint64) []int {
	m := len(out)
	in := make([]uint64, m)
	for i := range out {
		for j := 0; j < m; j++ {
			if out[i]&(1<<j) != 0 {
				in[j] |= 1 << i
			}
		}
	}
	left := uint64(1)<<m - 1
	var top, bottom []int
	for left != 0 {
		changed := true
		for changed {
			changed = false
			for v := 0; v < m; v++ {
				if left&(1<<v) != 0 && out[v]&left == 0 {
					bottom = append(bottom, v)
					left &^= 1 << v
					changed = true
				}
			}
			for v := 0; v < m; v++ {
				if left&(1<<v) != 0 && in[v]&left == 0 {
					top = append(top, v)
					left &^= 1 << v
					changed = true
				}
			}
		}
		if left == 0 {
			break
		}
		pick, score := -1, 0
		for v := 0; v < m; v++ {
			if left&(1<<v) == 0 {
				continue
			}
			d := popcount(out[v]&left) - popcount(in[v]&left)
			if pick < 0 || d > score {
				pick, score = v, d
			}
		}
		top = append(top, pick)
		left &^= 1 << pick
	}
	for i := len(bottom) - 1; i >= 0; i-- {
		top = append(top, bottom[i])
	}
	return top
}

// improve moves single nodes to the position that lowers the upward count
// most, while any move lowers it.
func improve(order []int, out []uint64) []int {
	best := upCount(order, out)
	for {
		moved := false
		for i := range order {
			for j := range order {
				if i == j {
					continue
				}
				cand := move(order, i, j)
				if c := upCount(cand, out); c < best {
					order, best, moved = cand, c, true
				}
			}
		}
		if !moved {
			return order
		}
	}
}

// move returns a copy of order with the element at i moved to index j.
func move(order []int, i, j int) []int {
	v := order[i]
	rest := make([]int, 0, len(order))
	rest = append(rest, order[:i]...)
	rest = append(rest, order[i+1:]...)
	res := make([]int, 0, len(order))
	res = append(res, rest[:j]...)
	res = append(res, v)
	return append(res, rest[j:]...)
}
