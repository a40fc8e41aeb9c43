package finite

import (
	"fmt"
	"slices"
	"sync"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// IgnoredNote says what ignored_values holds, in every answer that has one:
// numbers left out, and text members of rows cut short (nsip.MaxTextBytes),
// whose "trait" is then the member's name and "raw" their start and length.
var IgnoredNote = fmt.Sprintf("values NSIP sent that no EBV or index can have (magnitude over %g, or too large for a number) were treated as missing; "+
	"a text longer than %d bytes (trait: the member's name) was kept as its first %d bytes", nsip.MaxPlausibleValue, nsip.MaxTextBytes, nsip.MaxTextBytes)

// shownIgnored is how many ignored values an answer lists; the rest are
// counted in not_shown.
const shownIgnored = 20

// Ignored collects the absurd values the models of one call left out. Its
// zero value is ready; it is safe for concurrent use, as an analysis's
// lookups run at once.
type Ignored struct {
	mu     sync.Mutex
	values []nsip.IgnoredValue
}

// Note records vs, each animal's trait once however often it is read.
func (ig *Ignored) Note(vs []nsip.IgnoredValue) {
	if len(vs) == 0 {
		return
	}
	ig.mu.Lock()
	defer ig.mu.Unlock()
	for _, v := range vs {
		if !slices.ContainsFunc(ig.values, func(x nsip.IgnoredValue) bool { return x.LPNID == v.LPNID && x.Name == v.Name }) {
			ig.values = append(ig.values, v)
		}
	}
}

// AddTo adds the values noted to answer v, when v takes them (SetIgnored)
// and there are any, and returns v.
func (ig *Ignored) AddTo(v any) any {
	ig.mu.Lock()
	defer ig.mu.Unlock()
	out, ok := v.(interface{ SetIgnored(*analysis.IgnoredValues) })
	if !ok || len(ig.values) == 0 {
		return v
	}
	iv := &analysis.IgnoredValues{Note: IgnoredNote, Values: make([]analysis.IgnoredValue, 0, min(len(ig.values), shownIgnored))}
	for _, x := range ig.values[:min(len(ig.values), shownIgnored)] {
		iv.Values = append(iv.Values, analysis.IgnoredValue{LPNID: x.LPNID, Trait: x.Name, Raw: x.Raw})
	}
	if len(ig.values) > shownIgnored {
		iv.NotShown = len(ig.values) - shownIgnored
	}
	out.SetIgnored(iv)
	return out
}
