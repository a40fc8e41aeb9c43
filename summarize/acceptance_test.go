package summarize

import (
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// sized grows an answer one step at a time until its compact JSON reaches
// about want tokens, and fails if no step lands within 5% of it.
func sized(t *testing.T, c *Counter, want int, make func(step int) Request) (Request, int) {
	t.Helper()
	for step := 0; step < 1000; step++ {
		req := make(step)
		n := c.Count(compactOf(t, req.Raw))
		if n >= want-want/20 {
			if n > want+want/20 {
				t.Fatalf("step %d jumps to %d tokens, past %d", step, n, want)
			}
			return req, n
		}
	}
	t.Fatalf("never reached %d tokens", want)
	return Request{}, 0
}

// TestSpecAcceptanceSummarized is FR-005's example: a response of 3,500
// tokens comes back in at most 1,050 with every FR-005a field.
func TestSpecAcceptanceSummarized(t *testing.T) {
	s, c := newTestSummarizer(t)
	for _, tc := range []struct {
		name string
		make func(step int) Request
	}{
		{"animal profile", func(step int) Request {
			v := newGen(41).profile(step, 3)
			return Request{Kind: KindProfile, Value: v, Raw: v.Raw}
		}},
		{"animal details", func(step int) Request {
			v := bigDetails(newGen(42), step*4)
			return Request{Kind: KindAnimal, Value: v, Raw: v.Raw}
		}},
		{"search page", func(step int) Request {
			v := newGen(43).search(step, 1523, 0, max(step, 1))
			return Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: map[string]any{"page": 0, "page_size": max(step, 1)}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, n := sized(t, c, 3500, tc.make)
			r := s.Fit(req)
			checkResult(t, c, req, r)
			if !r.Summarized || r.Tokens > 1050 || r.Kind != req.Kind {
				t.Fatalf("%d tokens came back as %d (summarized %v as %s)", n, r.Tokens, r.Summarized, r.Kind)
			}
			checkShape(t, req, r.Text)
			t.Logf("%d tokens -> %d", n, r.Tokens)
		})
	}
}

// TestSpecAcceptancePassThrough is FR-015's example: a response of 1,850
// tokens with contact data comes back unmodified, contact fields and all.
func TestSpecAcceptancePassThrough(t *testing.T) {
	s, c := newTestSummarizer(t)
	req, n := sized(t, c, 1850, func(step int) Request {
		g := newGen(44)
		g.unicode = true
		v := g.profile(step, 2)
		return Request{Kind: KindProfile, Value: v, Raw: v.Raw}
	})
	r := s.Fit(req)
	checkResult(t, c, req, r)
	if r.Summarized || r.Text != compactOf(t, req.Raw) || r.Tokens != n {
		t.Fatalf("a %d-token answer was changed (summarized %v)", n, r.Summarized)
	}
	ci := req.Value.(*nsip.AnimalProfile).Details.Contact
	for _, f := range []string{ci.FarmName, ci.ContactName, ci.Phone, ci.Email, ci.Address, ci.City, ci.State, ci.ZipCode} {
		if f == "" || !strings.Contains(r.Text, f) {
			t.Errorf("contact field %q is not in the answer", f)
		}
	}
}
