package floors

import (
	"math/rand"
	"testing"
)

// TestArrangeSmall checks the layout on a graph small enough to follow by
// hand: a -> b -> c -> a is a cycle, so one of its arrows must point up;
// d uses a and nothing uses d, so d goes on the top floor. Which arrow of
// the cycle points up is a free choice, and it sets the floor count: 4 when
// c -> a points up (d, a, b, c in a column), 3 when a -> b or b -> c does.
func TestArrangeSmall(t *testing.T) {
	g := graph{
		nodes: []*node{{name: "a"}, {name: "b"}, {name: "c"}, {name: "d"}},
		arrows: []arrow{
			{from: 0, to: 1, names: []string{"B"}},
			{from: 1, to: 2, names: []string{"C"}},
			{from: 2, to: 0, names: []string{"A"}},
			{from: 3, to: 0, names: []string{"A"}},
		},
	}
	l := arrange(g)
	if len(l.up) != 1 {
		t.Errorf("got %d upward arrows, want 1", len(l.up))
	}
	if l.order[0] != 3 {
		t.Errorf("got %q on top, want d", g.nodes[l.order[0]].name)
	}
	if l.floors != 3 && l.floors != 4 {
		t.Errorf("got %d floors, want 3 or 4", l.floors)
	}
	if len(l.sccs) != 1 || len(l.sccs[0]) != 3 {
		t.Errorf("got cycles %v, want one of 3 nodes", l.sccs)
	}
}

// TestOrders checks the exact order against every permutation, and that the
// heuristic used for large cycles is never better than exact (which would
// mean the exact search is wrong), on fixed pseudo-random graphs.
func TestOrders(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for trial := 0; trial < 200; trial++ {
		m := 2 + r.Intn(6)
		out := make([]uint64, m)
		for i := range out {
			for j := range out {
				if i != j && r.Intn(3) == 0 {
					out[i] |= 1 << j
				}
			}
		}
		exact := upCount(exactOrder(out), out)
		if brute := bruteForce(out); exact != brute {
			t.Fatalf("graph %v: exact order has %d upward arrows, best permutation %d", out, exact, brute)
		}
		if h := upCount(improve(greedyOrder(out), out), out); h < exact {
			t.Fatalf("graph %v: heuristic %d beats exact %d", out, h, exact)
		}
	}
}

// bruteForce is the fewest upward arrows over all orders.
func bruteForce(out []uint64) int {
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	best := -1
	var permute func(k int)
	permute = func(k int) {
		if k == len(order) {
			if c := upCount(order, out); best < 0 || c < best {
				best = c
			}
			return
		}
		for i := k; i < len(order); i++ {
			order[k], order[i] = order[i], order[k]
			permute(k + 1)
			order[k], order[i] = order[i], order[k]
		}
	}
	permute(0)
	return best
}
