package session

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

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
	// scanned is the latest answer text scanned and the IDs found in it.
	// Sessions asking for the same animal get the same text from the
	// cache, and comparing it with the last one costs far less than
	// scanning it again.
	scanned atomic.Pointer[scannedText]
}

// scannedText is a text and the LPN IDs quoted in it, never changed once
// stored.
type scannedText struct {
	text string
	ids  []string
}

// seenSet is one session's LPN IDs, and the list last added to them.
type seenSet struct {
	ids *lru.Cache[string, struct{}]
	// last is the list of the session's latest Add. Adding the same list
	// again leaves the set as it is: each ID is there already (a list no
	// longer than the set's bound cannot push out its own IDs), and
	// moving them to the front in the same order gives the same order. A
	// session asking for one animal again and again, as a cached call
	// does, then costs a comparison instead of a move per ID.
	last []string
}

func (s *LPNs) init() {
	s.once.Do(func() { s.sessions, _ = lru.New[string, *seenSet](seenSessions) })
}

// Add records that session met ids.
func (s *LPNs) Add(session string, ids []string) {
	if session == "" || len(ids) == 0 {
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
	if slices.Equal(set.last, ids) {
		return
	}
	for _, id := range ids {
		set.ids.Add(id, struct{}{})
	}
	set.last = set.last[:0]
	if len(ids) <= seenLPNsPerSess {
		set.last = append(set.last, ids...)
	}
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
	// On the stack for a typical answer, which names a few animals: this
	// runs on every call.
	var buf [16]string
	ids := buf[:0]
	if a, ok := args.(map[string]any); ok {
		for _, k := range []string{"lpn_id", "search_string"} {
			if s, ok := a[k].(string); ok && isAlnum(s) && len(s) >= nsip.MinLPNIDLength && len(s) <= nsip.MaxLPNIDLength {
				ids = append(ids, s)
			}
		}
	}
	ids = s.appendQuoted(ids, text)
	s.Add(session, ids)
}

// appendQuoted appends the LPN IDs quoted in text to ids, reusing the
// last scan when text is the same.
func (s *LPNs) appendQuoted(ids []string, text string) []string {
	if last := s.scanned.Load(); last != nil && last.text == text {
		return append(ids, last.ids...)
	}
	found := appendQuotedLPNs(nil, text)
	s.scanned.Store(&scannedText{text: text, ids: found})
	return append(ids, found...)
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
