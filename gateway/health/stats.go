package health

import (
	"sync"
	"sync/atomic"
)

// Stats are the call path's counters behind Health. Init fills the maps
// once; afterwards they are only read, so they need no lock. Safe for
// concurrent use once Init has run.
type Stats struct {
	calls  map[string]*atomic.Int64 // by tool name
	errors map[string]*atomic.Int64 // by error code

	mu             sync.Mutex
	summarizations int64
	reductionSum   float64 // sum of 1 - tokens/original over summarized results
}

// Init readies the counters of tools and of error codes; every name the
// call path counts must be among them.
func (s *Stats) Init(tools, codes []string) {
	s.calls = make(map[string]*atomic.Int64, len(tools))
	for _, t := range tools {
		s.calls[t] = new(atomic.Int64)
	}
	s.errors = make(map[string]*atomic.Int64, len(codes))
	for _, c := range codes {
		s.errors[c] = new(atomic.Int64)
	}
}

// Called counts a call of tool.
func (s *Stats) Called(tool string) { s.calls[tool].Add(1) }

// Failed counts a call that ended with an error of code.
func (s *Stats) Failed(code string) { s.errors[code].Add(1) }

// Summarized counts an answer fitted from original tokens to tokens.
func (s *Stats) Summarized(tokens, original int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.summarizations++
	if original > 0 {
		s.reductionSum += 1 - float64(tokens)/float64(original)
	}
}
