package analysis

import (
	"context"
	"sync"
)

// memPasses is a PassStore that keeps each pass encoded, as the shared
// tier does, so that every pass read back has been through the codec.
type memPasses struct {
	mu     sync.Mutex
	kept   map[string][]byte
	stored int
	fills  []string // FillPass calls, when the source offers it
	refuse string   // what FillPass answers: why it does not read the pass
}

func (s *memPasses) LoadPass(_ context.Context, breed int, eval string) *BreedPass {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.kept[PassKey(breed, eval)]
	if !ok {
		return nil
	}
	var p BreedPass
	if err := p.UnmarshalBinary(b); err != nil {
		panic(err)
	}
	return &p
}

func (s *memPasses) StorePass(_ context.Context, p *BreedPass) {
	b, _ := p.MarshalBinary()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kept == nil {
		s.kept = map[string][]byte{}
	}
	s.kept[PassKey(p.Breed, p.Evaluation)] = b
	s.stored++
}

// passFake is the fake source with a store of passes.
type passFake struct {
	*fakeSource
	*memPasses
}

// fillFake also reads passes in the background (FillPass), recorded.
type fillFake struct{ passFake }

func (f fillFake) FillPass(breed int, eval string) string {
	f.memPasses.mu.Lock()
	defer f.memPasses.mu.Unlock()
	f.fills = append(f.fills, PassKey(breed, eval))
	return f.refuse
}
