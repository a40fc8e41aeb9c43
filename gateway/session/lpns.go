package session

import (
	"context"
	"hash/maphash"
	"slices"
	"strings"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/cache/recent"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// The LPN IDs a session has met, in its arguments or in NSIP's answers,
// are offered back to it as completions (gateway/features).

// Bounds on what is remembered of sessions: the recently active ones, and
// the LPN IDs each met most recently.
const (
	seenSessions    = 1000
	seenLPNsPerSess = 200
)

// LPNs remembers, per session, the LPN IDs it met, most recent first. The
// zero value is ready to use and safe for concurrent use.
type LPNs struct {
	once     sync.Once
	sessions *lru.Cache[string, *seenSet]
	mu       sync.Mutex
	seed     maphash.Seed
	// scanned are answer texts scanned lately and the IDs found in each,
	// by a hash of the text's start: sessions asking for the same animals
	// get the same texts from the cache, and finding one here costs far
	// less than scanning it again.
	scanned *recent.Places[scannedText]
}

// scannedSets is how many sets of recent.Ways scanned texts are kept;
// hashedPrefix is how much of a text picks its set (its whole length is
// compared).
const (
	scannedSets  = 16
	hashedPrefix = 128
)

// scannedText is a text and the LPN IDs quoted in it, never changed once
// stored.
type scannedText struct {
	text string
	ids  []string
}

// seenSet is one session's LPN IDs: those in ids, and the notes not yet
// added to them.
//
// An LRU set holds the IDs touched last, in the order of their last
// touch, so a note made again needs adding only at its last time: adding
// it at every time gives the same set in the same order. The notes of a
// session are therefore kept apart as they come, each once, at the place
// of its latest time, and added to ids in that order when the set is read
// or when more are kept than maxPending. A session asking for the same
// few animals again and again, as cached calls do, costs a comparison per
// call instead of a move per ID.
type seenSet struct {
	ids     *lru.Cache[string, struct{}]
	pending []noted // oldest first, no two the same
}

// maxPending is how many notes a session keeps before adding the oldest.
const maxPending = 32

// noted is what one call met: the LPN IDs among its arguments, then those
// quoted in its answer, a list shared by every note of the same answer.
type noted struct {
	args  [2]string
	nargs int
	ids   []string
}

// same reports the same IDs in the same order: the same arguments and the
// same list of the answer's.
func (n *noted) same(o *noted) bool {
	return n.nargs == o.nargs && n.args == o.args && len(n.ids) == len(o.ids) &&
		(len(n.ids) == 0 || &n.ids[0] == &o.ids[0])
}

func (set *seenSet) note(n noted) {
	last := len(set.pending) - 1
	for i := last; i >= 0; i-- {
		if !set.pending[i].same(&n) {
			continue
		}
		if i < last {
			copy(set.pending[i:], set.pending[i+1:])
			set.pending[last] = n
		}
		return
	}
	if len(set.pending) == maxPending {
		set.add(set.pending[0])
		copy(set.pending, set.pending[1:])
		set.pending = set.pending[:last]
	}
	set.pending = append(set.pending, n)
}

// fold adds the pending notes to ids, oldest first.
func (set *seenSet) fold() {
	for _, n := range set.pending {
		set.add(n)
	}
	clear(set.pending)
	set.pending = set.pending[:0]
}

func (set *seenSet) add(n noted) {
	for _, id := range n.args[:n.nargs] {
		set.ids.Add(id, struct{}{})
	}
	for _, id := range n.ids {
		set.ids.Add(id, struct{}{})
	}
}

func (s *LPNs) init() {
	s.once.Do(func() {
		s.sessions, _ = lru.New[string, *seenSet](seenSessions)
		s.seed = maphash.MakeSeed()
		s.scanned = recent.New[scannedText](scannedSets)
	})
}

// Add records that session met ids. The list is copied: a note is kept
// until the set is next read, and the caller may reuse its slice.
func (s *LPNs) Add(session string, ids []string) {
	s.note(session, noted{ids: slices.Clone(ids)})
}

func (s *LPNs) note(session string, n noted) {
	if session == "" || n.nargs == 0 && len(n.ids) == 0 {
		return
	}
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	set, ok := s.sessions.Get(session)
	if !ok {
		ids, _ := lru.New[string, struct{}](seenLPNsPerSess)
		set = &seenSet{ids: ids}
		s.sessions.Add(session, set)
	}
	set.note(n)
}

// List returns the session's LPN IDs, most recently met first.
func (s *LPNs) List(session string) []string {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	set, ok := s.sessions.Get(session)
	if !ok {
		return nil
	}
	set.fold()
	ids := set.ids.Keys() // oldest first
	slices.Reverse(ids)
	return ids
}

// Forget drops what session met.
func (s *LPNs) Forget(session string) {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions.Remove(session)
}

// ID is the ID of the session ctx's request came in, or "" outside one.
func ID(ctx context.Context) string {
	if s := server.ClientSessionFromContext(ctx); s != nil {
		return s.SessionID()
	}
	return ""
}

// quotedLPNs returns the LPN IDs in text, as they look in NSIP's answers
// and in summaries: a quoted flock and year prefix of digits, then a
// letter, then up to 24 letters and digits, e.g. "6402382024NCS310"
// (the regular expression "([0-9]{6,}[A-Za-z][A-Za-z0-9]{0,24})").
// Matching the quoted shape rather than decoding the JSON finds them in
// summary table rows too. It runs on every answer, cache hits included, so
// it is a scan rather than the regular expression, which cost a cached call
// more than the rest of the gateway.
func quotedLPNs(text string) []string { return appendQuotedLPNs(nil, text) }

// appendQuotedLPNs appends quotedLPNs(text) to ids.
func appendQuotedLPNs(ids []string, text string) []string {
	for i := 0; ; {
		q := strings.IndexByte(text[i:], '"')
		if q < 0 {
			return ids
		}
		start := i + q + 1
		j := start
		for j < len(text) && text[j] >= '0' && text[j] <= '9' {
			j++
		}
		i = start // no match: the next try starts at the next quote
		if j-start < 6 || j >= len(text) || !isLetter(text[j]) {
			continue
		}
		j++
		end := j
		for end < len(text) && end-j <= 24 && (isLetter(text[end]) || text[end] >= '0' && text[end] <= '9') {
			end++
		}
		if end-j > 24 || end >= len(text) || text[end] != '"' {
			continue
		}
		ids = append(ids, text[start:end])
		i = end + 1
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isAlnum is alnumPattern's test, without the regular expression: it runs
// on the arguments of every call.
func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return s != ""
}

// Note records the LPN IDs in a tool's arguments and in its answer.
func (s *LPNs) Note(ctx context.Context, args any, text string) {
	session := ID(ctx)
	if session == "" {
		return
	}
	var n noted
	if a, ok := args.(map[string]any); ok {
		for _, k := range []string{"lpn_id", "search_string"} {
			if s, ok := a[k].(string); ok && isAlnum(s) && len(s) >= nsip.MinLPNIDLength && len(s) <= nsip.MaxLPNIDLength {
				n.args[n.nargs] = s
				n.nargs++
			}
		}
	}
	n.ids = s.quoted(text)
	s.note(session, n)
}

// quoted is the LPN IDs quoted in text, from the scan kept for it when
// there is one. The list is shared and must not be changed.
func (s *LPNs) quoted(text string) []string {
	s.init()
	hash := maphash.String(s.seed, text[:min(len(text), hashedPrefix)])
	is := func(kept *scannedText) bool { return kept.text == text }
	if kept := s.scanned.Find(hash, is); kept != nil {
		return kept.ids
	}
	found := quotedLPNs(text)
	s.scanned.Keep(hash, &scannedText{text: text, ids: found}, is)
	return found
}

// Hooks records LPN IDs from tool calls and resource reads, and forgets a
// session's when it ends.
func (s *LPNs) Hooks(h *server.Hooks) {
	h.AddAfterCallTool(func(ctx context.Context, _ any, req *mcp.CallToolRequest, res any) {
		r, ok := res.(*mcp.CallToolResult)
		if !ok || r == nil || r.IsError || len(r.Content) == 0 {
			return
		}
		if tc, ok := mcp.AsTextContent(r.Content[0]); ok {
			s.Note(ctx, req.GetArguments(), tc.Text)
		}
	})
	h.AddAfterReadResource(func(ctx context.Context, _ any, req *mcp.ReadResourceRequest, res *mcp.ReadResourceResult) {
		for _, c := range res.Contents {
			if tc, ok := c.(mcp.TextResourceContents); ok {
				s.Note(ctx, req.Params.Arguments, tc.Text)
			}
		}
	})
	h.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) { s.Forget(cs.SessionID()) })
}
