package analysistest

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding/tabular"
)

// MemPasses are analysis.Passes that keep each pass encoded, as the shared
// tier does, so that every pass read back has been through the codec. It
// cannot tell whether it holds a breed without a lookup (Holds is true) and
// bounds no pass (MaxBytes is 0); it reads passes in the background only
// when Background is set.
type MemPasses struct {
	Mu     sync.Mutex
	Kept   map[string][]byte
	Stored int
	// Background makes Fill and FillFor read passes in the background:
	// each request is recorded in Fills and answered with Refuse. Without
	// it the store reads no pass on its own (PassFill.Cannot).
	Background bool
	Fills      []string // Fill and FillFor requests, when Background
	Refuse     string   // why a background read is not made; "" when it is
}

var _ analysis.Passes = (*MemPasses)(nil)

func (s *MemPasses) Load(_ context.Context, breed int, eval string) *breedpass.BreedPass {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	b, ok := s.Kept[breedpass.PassKey(breed, eval)]
	if !ok {
		return nil
	}
	var p breedpass.BreedPass
	if err := p.UnmarshalBinary(b); err != nil {
		panic(err)
	}
	return &p
}

func (s *MemPasses) Keep(_ context.Context, p *breedpass.BreedPass) {
	b, _ := p.MarshalBinary()
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if s.Kept == nil {
		s.Kept = map[string][]byte{}
	}
	s.Kept[breedpass.PassKey(p.Breed, p.Evaluation)] = b
	s.Stored++
}

// Holds is true: the store cannot tell without a lookup, so the date is
// read and the pass looked for.
func (s *MemPasses) Holds(context.Context, int) bool { return true }

func (s *MemPasses) Fill(breed int, eval string) analysis.PassFill {
	if !s.Background {
		return analysis.PassFill{Cannot: true}
	}
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.Fills = append(s.Fills, breedpass.PassKey(breed, eval))
	return analysis.PassFill{Why: s.Refuse}
}

// FillFor is Fill: the store has no tasks for a caller to follow.
func (s *MemPasses) FillFor(_ context.Context, breed int, eval string) analysis.PassFill {
	return s.Fill(breed, eval)
}

func (s *MemPasses) MaxBytes() int64 { return 0 }

// PassFake is the fake source with a store of passes, which the test
// reads back through it (Stored, Fills): its Passes are the MemPasses,
// whatever the FakeSource's own Store.
type PassFake struct {
	*FakeSource
	*MemPasses
}

func (p PassFake) Passes() analysis.Passes { return p.MemPasses }

// TaskPasses are MemPasses that read a pass in the background as the
// caller's task: each FillFor is recorded in Fills and answered with Answer.
type TaskPasses struct {
	*MemPasses
	Answer analysis.PassFill
}

func (p TaskPasses) FillFor(_ context.Context, breed int, eval string) analysis.PassFill {
	p.Mu.Lock()
	defer p.Mu.Unlock()
	p.Fills = append(p.Fills, breedpass.PassKey(breed, eval))
	return p.Answer
}

// HoldPass keeps breed's pass of f's animals under f's evaluation, as a
// whole read of its pages would have, and is f reading its store: a
// question about the breed then finds the pass held. The rows are in LPN
// ID order, as the fake's unsorted search serves them.
func HoldPass(f *FakeSource, breed int) PassFake {
	var rows []nsip.AnimalRow
	for _, id := range slices.Sorted(maps.Keys(f.Animals)) {
		if a := f.Animals[id]; a.Breed == breed {
			rows = append(rows, a.row())
		}
	}
	store := &MemPasses{}
	store.Keep(context.Background(), breedpass.NewPassOf(breed, f.Evaluation, rows))
	return PassFake{FakeSource: f, MemPasses: store}
}

// TabularCOI is the lamb COI of sire and dam by the tabular method (half
// their additive relationship) over the pedigree of breed's rows in f,
// every parent they name counted, one without a row as a founder: the
// brute force an answer from a held pass is held to. The rows are
// numbered parents first by a walk of their own, not the breed
// pedigree's, so that the check shares nothing with what it checks.
func TabularCOI(f *FakeSource, breed int) func(sire, dam string) float64 {
	num := map[string]int32{}
	var order []string
	var visit func(id string)
	visit = func(id string) {
		if _, ok := num[id]; ok || id == "" {
			return
		}
		num[id] = -1 // on the way: a cycle would be a broken fixture
		if a := f.Animals[id]; a != nil && a.Breed == breed {
			visit(a.Sire)
			visit(a.Dam)
		}
		num[id] = int32(len(order))
		order = append(order, id)
	}
	for _, id := range slices.Sorted(maps.Keys(f.Animals)) {
		if f.Animals[id].Breed == breed {
			visit(id)
		}
	}
	parent := func(id string) int32 {
		if k, ok := num[id]; ok {
			return k
		}
		return -1
	}
	a := tabular.Float(len(order), func(i int32) (int32, int32) {
		an := f.Animals[order[i]]
		if an == nil || an.Breed != breed {
			return -1, -1
		}
		return parent(an.Sire), parent(an.Dam)
	})
	return func(sire, dam string) float64 { return a(parent(sire), parent(dam)) / 2 }
}
