package main

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// The nine tools, in tools/list order; a call's tool is an index into it.
var toolNames = [...]string{
	toolname.GetLastUpdate, toolname.ListBreeds, toolname.GetStatuses, toolname.GetTraitRanges,
	toolname.SearchAnimals, toolname.GetAnimal, toolname.GetLineage, toolname.GetProgeny, toolname.SearchByLPN,
}

const (
	toolLastUpdate = iota
	toolListBreeds
	toolStatuses
	toolTraitRanges
	toolSearch
	toolAnimal
	toolLineage
	toolProgeny
	toolByLPN
)

// mixWeights is how often each tool is called in the mix scenario, in
// percent: record lookups dominate, as in a breeder's conversation with an
// assistant, and the argument-free reference tools are asked now and then.
var mixWeights = [len(toolNames)]int{
	toolLastUpdate: 5, toolListBreeds: 8, toolStatuses: 5, toolTraitRanges: 8,
	toolSearch: 18, toolAnimal: 24, toolLineage: 12, toolProgeny: 12, toolByLPN: 8,
}

// call is one tool call to make.
type call struct {
	tool int
	args map[string]any
	hot  bool // drawn from the hot key set
}

func (c call) name() string { return toolNames[c.tool] }

// keyspace holds the arguments calls are drawn from, taken from the
// stand-in's own data so that every lookup names something that exists.
type keyspace struct {
	animals  []string // every LPN ID
	hot      []string // the hot animals, none of them founders
	parents  map[string][2]string
	breedOf  map[string]int
	breeds   []int
	ranged   []int // the breeds NSIP has trait ranges for; the others answer no_data
	hotBreed int   // the breed with the most animals
	traits   []string
}

// newKeyspace picks hotKeys animals spread evenly over the data set, each
// the first non-founder at or after its slot, so that they have parents to
// look up and come from several breeds.
func newKeyspace(d *nsiptest.Dataset, hotKeys int) *keyspace {
	ks := &keyspace{
		animals: d.AnimalIDs(),
		parents: map[string][2]string{},
		breedOf: map[string]int{},
		breeds:  d.BreedIDs(),
		traits:  nsiptest.TraitCodes(),
	}
	perBreed := map[int]int{}
	for _, id := range ks.animals {
		a, _ := d.Animal(id)
		perBreed[a.BreedID]++
		ks.breedOf[id] = a.BreedID
		if a.Sire != "" && a.Dam != "" {
			ks.parents[id] = [2]string{a.Sire, a.Dam}
		}
	}
	for _, b := range ks.breeds {
		if perBreed[b] > perBreed[ks.hotBreed] {
			ks.hotBreed = b
		}
		if _, ok := d.TraitRanges(b); ok {
			ks.ranged = append(ks.ranged, b)
		}
	}
	hotKeys = min(hotKeys, len(ks.animals))
	stride := len(ks.animals) / hotKeys
	for i := 0; i < hotKeys; i++ {
		for j := i * stride; j < len(ks.animals); j++ {
			id := ks.animals[j]
			// Hot animals come from breeds with trait ranges: a breeder's
			// session asks for them.
			if _, ok := ks.parents[id]; ok && slices.Contains(ks.ranged, ks.breedOf[id]) && !slices.Contains(ks.hot, id) {
				ks.hot = append(ks.hot, id)
				break
			}
		}
	}
	return ks
}

// plan yields one session's calls in order; ok is false when the session
// has nothing more to do or ctx ended while it waited.
type plan interface {
	next(ctx context.Context, r *rand.Rand) (c call, ok bool)
}

// mixPlan draws calls at random by mixWeights, a share hot of them on hot
// keys and the rest on keys spread over the whole data set.
type mixPlan struct {
	ks  *keyspace
	hot float64
	cum [len(toolNames)]int
}

// newMixPlan draws from the named tools only, or from all nine when none
// are named.
func newMixPlan(ks *keyspace, hot float64, only ...string) *mixPlan {
	p := &mixPlan{ks: ks, hot: hot}
	sum := 0
	for i, w := range mixWeights {
		if len(only) == 0 || slices.Contains(only, toolNames[i]) {
			sum += w
		}
		p.cum[i] = sum
	}
	return p
}

func (p *mixPlan) next(_ context.Context, r *rand.Rand) (call, bool) {
	n := r.IntN(p.cum[len(p.cum)-1])
	tool := 0
	for p.cum[tool] <= n {
		tool++
	}
	return p.ks.draw(tool, r.Float64() < p.hot, r), true
}

// hotSearches are the few searches every session keeps coming back to.
var hotSearches = []struct {
	page  int
	trait string
}{{0, ""}, {1, ""}, {0, "WWT"}}

var pageSizes = []int{5, 10, 15, 25, 50, 100}

// draw builds the arguments of one call of tool, hot or cold.
func (ks *keyspace) draw(tool int, hot bool, r *rand.Rand) call {
	c := call{tool: tool, hot: hot}
	animal := func() string {
		if hot {
			return ks.hot[r.IntN(len(ks.hot))]
		}
		return ks.animals[r.IntN(len(ks.animals))]
	}
	switch tool {
	case toolLastUpdate, toolListBreeds, toolStatuses:
		c.args, c.hot = map[string]any{}, true // one key each: always hot
	case toolTraitRanges:
		b := ks.hotBreed
		if !hot {
			b = ks.ranged[r.IntN(len(ks.ranged))]
		}
		c.args = map[string]any{"breed_id": b}
	case toolSearch:
		if hot {
			s := hotSearches[r.IntN(len(hotSearches))]
			c.args = map[string]any{"breed_id": ks.hotBreed, "page": s.page}
			if s.trait != "" {
				c.args["sorted_trait"] = s.trait
			}
			break
		}
		c.args = map[string]any{
			"breed_id":  ks.breeds[r.IntN(len(ks.breeds))],
			"page":      r.IntN(5),
			"page_size": pageSizes[r.IntN(len(pageSizes))],
		}
		if r.IntN(2) == 0 {
			c.args["sorted_trait"] = ks.traits[r.IntN(len(ks.traits))]
			c.args["reverse"] = r.IntN(2) == 0
		}
	case toolAnimal:
		c.args = map[string]any{"search_string": animal()}
	case toolProgeny:
		c.args = map[string]any{"lpn_id": animal(), "page": 0, "page_size": 10}
	default: // lineage, profile
		c.args = map[string]any{"lpn_id": animal()}
	}
	return c
}

// scriptPlan replays a fixed list of calls once.
type scriptPlan struct {
	calls []call
	i     int
}

func (p *scriptPlan) next(context.Context, *rand.Rand) (call, bool) {
	if p.i >= len(p.calls) {
		return call{}, false
	}
	p.i++
	return p.calls[p.i-1], true
}

// breederScript is the session of a breeder looking for a ram through an
// assistant: orientation, a search, one animal examined from every side,
// its parents, then back to the list and a second candidate. Session i
// studies hot animal i (modulo the hot set), so concurrent sessions overlap
// the way breeders of one breed do.
func breederScript(ks *keyspace, i int) []call {
	a := ks.hot[i%len(ks.hot)]
	b2 := ks.hot[(i+1)%len(ks.hot)]
	breed := ks.breedOf[a]
	par := ks.parents[a]
	search := func(page int) map[string]any {
		return map[string]any{"breed_id": breed, "sorted_trait": "WWT", "page": page}
	}
	c := func(tool int, args map[string]any) call { return call{tool: tool, args: args, hot: true} }
	return []call{
		c(toolLastUpdate, map[string]any{}),
		c(toolListBreeds, map[string]any{}),
		c(toolStatuses, map[string]any{}),
		c(toolTraitRanges, map[string]any{"breed_id": breed}),
		c(toolSearch, search(0)),
		c(toolSearch, search(1)),
		c(toolAnimal, map[string]any{"search_string": a}),
		c(toolLineage, map[string]any{"lpn_id": a}),
		c(toolProgeny, map[string]any{"lpn_id": a}),
		c(toolAnimal, map[string]any{"search_string": par[0]}),
		c(toolAnimal, map[string]any{"search_string": par[1]}),
		c(toolAnimal, map[string]any{"search_string": a}),
		c(toolSearch, search(0)),
		c(toolTraitRanges, map[string]any{"breed_id": breed}),
		c(toolAnimal, map[string]any{"search_string": b2}),
		c(toolLineage, map[string]any{"lpn_id": b2}),
		c(toolAnimal, map[string]any{"search_string": a}),
		c(toolByLPN, map[string]any{"lpn_id": a}),
		c(toolListBreeds, map[string]any{}),
		c(toolAnimal, map[string]any{"search_string": b2}),
	}
}

// collapsePlan makes every session ask for the same answer at the same
// moment: round r is nsip_get_animal of a cold animal no earlier round
// asked for, and no session starts round r+1 before all have sent round r.
type collapsePlan struct {
	ks    *keyspace
	bar   *barrier
	round int
}

func (p *collapsePlan) next(ctx context.Context, _ *rand.Rand) (call, bool) {
	if !p.bar.wait(ctx) {
		return call{}, false
	}
	id := collapseAnimal(p.ks, p.round)
	p.round++
	return call{tool: toolAnimal, args: map[string]any{"search_string": id}}, true
}

// collapseAnimal is round r's animal: distinct for every round up to the
// data set's size, walking with a stride coprime to it from the far end so
// that it rarely meets a hot animal.
func collapseAnimal(ks *keyspace, r int) string {
	n := len(ks.animals)
	stride := 7919
	for gcd(stride, n) != 1 {
		stride++
	}
	return ks.animals[(n-1+r*stride)%n]
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// barrier releases its waiters together once all parties have arrived.
// A party that stops for good calls leave, so the others are not held.
type barrier struct {
	mu      sync.Mutex
	parties int
	waiting int
	release chan struct{}
}

func newBarrier(parties int) *barrier {
	return &barrier{parties: parties, release: make(chan struct{})}
}

func (b *barrier) wait(ctx context.Context) bool {
	b.mu.Lock()
	ch := b.release
	b.waiting++
	if b.waiting >= b.parties {
		b.open()
		b.mu.Unlock()
		return true
	}
	b.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}

func (b *barrier) leave() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.parties--
	if b.waiting > 0 && b.waiting >= b.parties {
		b.open()
	}
}

// open lets the current generation go; callers hold mu.
func (b *barrier) open() {
	close(b.release)
	b.release = make(chan struct{})
	b.waiting = 0
}
