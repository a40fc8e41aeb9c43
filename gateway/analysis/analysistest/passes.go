package analysistest

import (
	"context"
	"sync"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
)

// MemPasses is a PassStore that keeps each pass encoded, as the shared
// tier does, so that every pass read back has been through the codec.
type MemPasses struct {
	Mu     sync.Mutex
	Kept   map[string][]byte
	Stored int
	Fills  []string // FillPass calls, when the source offers it
	Refuse string   // what FillPass answers: why it does not read the pass
}

func (s *MemPasses) LoadPass(_ context.Context, breed int, eval string) *breedpass.BreedPass {
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

func (s *MemPasses) StorePass(_ context.Context, p *breedpass.BreedPass) {
	b, _ := p.MarshalBinary()
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if s.Kept == nil {
		s.Kept = map[string][]byte{}
	}
	s.Kept[breedpass.PassKey(p.Breed, p.Evaluation)] = b
	s.Stored++
}

// PassFake is the fake source with a store of passes.
type PassFake struct {
	*FakeSource
	*MemPasses
}

// FillFake also reads passes in the background (FillPass), recorded.
type FillFake struct{ PassFake }

func (f FillFake) FillPass(breed int, eval string) string {
	f.MemPasses.Mu.Lock()
	defer f.MemPasses.Mu.Unlock()
	f.Fills = append(f.Fills, breedpass.PassKey(breed, eval))
	return f.Refuse
}
