package session

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func TestSeenLPNsAreBounded(t *testing.T) {
	var s LPNs
	for i := range seenLPNsPerSess + 50 {
		s.Add("a", []string{"LPN" + strconv.Itoa(100000+i)})
	}
	got := s.List("a")
	if len(got) != seenLPNsPerSess || got[0] != "LPN"+strconv.Itoa(100000+seenLPNsPerSess+49) {
		t.Errorf("%d kept, newest %s", len(got), got[0])
	}
	s.Forget("a")
	if len(s.List("a")) != 0 {
		t.Error("forget kept the session's IDs")
	}
}

// A list added again right after itself is skipped; the order it leaves
// must be the one adding every ID again would, however the lists repeat,
// overlap or hold an ID twice.
func TestAddingTheSameListAgainKeepsTheOrder(t *testing.T) {
	lists := [][]string{
		{"x", "y"}, {"x", "y"}, {"z"}, {"x", "y"}, {"y", "x", "y"}, {"y", "x", "y"},
		{"z", "x"}, {"x"}, {"x"}, {"y", "z"}, {"y", "z"}, {"z", "y", "x"},
	}
	var s LPNs
	plain := []string{} // what adding every ID one by one gives, newest first
	for i, ids := range lists {
		s.Add("a", ids)
		for _, id := range ids {
			plain = slices.DeleteFunc(plain, func(p string) bool { return p == id })
			plain = slices.Insert(plain, 0, id)
		}
		if got := s.List("a"); !slices.Equal(got, plain) {
			t.Fatalf("after list %d %v: %v, want %v", i, ids, got, plain)
		}
	}
	// A list longer than the bound pushes out its own first IDs; added
	// twice, the latest IDs up to the bound remain, newest first.
	long := make([]string, seenLPNsPerSess+2)
	for i := range long {
		long[i] = "L" + strconv.Itoa(i)
	}
	s.Add("b", long)
	s.Add("b", long)
	want := slices.Clone(long[2:])
	slices.Reverse(want)
	if got := s.List("b"); !slices.Equal(got, want) {
		t.Errorf("a list past the bound added twice: %d kept, newest %s", len(got), got[0])
	}
}

// Nothing is remembered without a session to remember it for, or with
// nothing to remember; a session never seen lists nothing.
func TestNothingToRemember(t *testing.T) {
	var s LPNs
	s.Add("", []string{"6402382024NCS310"})
	s.Add("a", nil)
	s.Note(context.Background(), map[string]any{"lpn_id": "6402382024NCS310"}, `"6402382024NCS311"`)
	if got := s.List(""); got != nil {
		t.Errorf("no session: %v", got)
	}
	if got := s.List("a"); got != nil {
		t.Errorf("nothing added: %v", got)
	}
	if id := ID(context.Background()); id != "" {
		t.Errorf("ID outside a session = %q", id)
	}
}

// lpnServer is an MCP server whose tools and resource answer with text
// naming LPN IDs, remembering them in s.
func lpnServer(s *LPNs, seen *sessions) *server.MCPServer {
	h := &server.Hooks{}
	s.Hooks(h)
	seen.hook(h)
	srv := server.NewMCPServer("t", "0", server.WithHooks(h), server.WithResourceCapabilities(false, false))
	srv.AddTool(mcp.NewTool("animal", mcp.WithString("lpn_id"), mcp.WithString("search_string")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(`{"sire":"6400462020VPI007","dam":"","note":"12345A"}`), nil
		})
	srv.AddTool(mcp.NewTool("fails", mcp.WithString("lpn_id")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError(`{"error":{"value":"6400462020VPI008"}}`), nil
		})
	srv.AddTool(mcp.NewTool("empty"),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	srv.AddResourceTemplate(mcp.NewResourceTemplate("nsip://animals/{lpn_id}", "animal"),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{
				mcp.TextResourceContents{URI: req.Params.URI, Text: `{"dam":"6400462020VPI009"}`},
				mcp.BlobResourceContents{URI: req.Params.URI, Blob: "IjY0MDA0NjIwMjBWUEkwMTAi"},
			}, nil
		})
	return srv
}

// A session is offered the LPN IDs of its calls' arguments and answers
// and of the resources it read, newest first; failed calls, answers
// without text and other sessions add nothing; the session's end forgets
// them.
func TestSessionRemembersTheLPNsItMet(t *testing.T) {
	var s LPNs
	var seen sessions
	srv := lpnServer(&s, &seen)
	c := connect(t, srv)
	id := seen.last(t)

	callTool(t, c, "animal", map[string]any{"lpn_id": "6402382024NCS310", "search_string": "not-an-id"})
	callTool(t, c, "animal", map[string]any{"search_string": "6402382024NCS311", "lpn_id": 7})
	callTool(t, c, "fails", map[string]any{"lpn_id": "6402382024NCS312"})
	callTool(t, c, "empty", nil)
	req := mcp.ReadResourceRequest{}
	req.Params.URI = "nsip://animals/6402382024NCS313"
	if _, err := c.ReadResource(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got := s.List(id)
	// The second call met the sire again: it is newer than NCS311.
	want := []string{"6400462020VPI009", "6400462020VPI007", "6402382024NCS311", "6402382024NCS310"}
	if !slices.Equal(got, want) {
		t.Errorf("remembered %v, want %v", got, want)
	}

	other := connect(t, srv)
	otherID := seen.last(t)
	callTool(t, other, "empty", nil)
	if got := s.List(otherID); len(got) != 0 {
		t.Errorf("another session is offered %v", got)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if got := s.List(id); len(got) != 0 {
		t.Errorf("after the session ended it still holds %v", got)
	}
}

// stubSession is a client session with an ID and nothing else.
type stubSession string

func (s stubSession) SessionID() string                                 { return string(s) }
func (stubSession) Initialize()                                         {}
func (stubSession) Initialized() bool                                   { return true }
func (stubSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return nil }

// Sessions asking for the same animal note the same answer text; the IDs
// in it are found by one scan, and each session still remembers them.
func TestTheSameTextIsScannedOnce(t *testing.T) {
	srv := server.NewMCPServer("t", "1")
	in := func(id string) context.Context { return srv.WithContext(context.Background(), stubSession(id)) }
	var s LPNs
	text := `{"LpnId":"6402382024NCS310","Sire":"6402382019NCS011","Dam":"6402382020NCS120"}`
	s.Note(in("a"), map[string]any{"search_string": "6402382024NCS310"}, text)
	first := s.quoted(text)
	// The same text in other memory, as a second cached answer would be.
	again := string([]byte(text))
	s.Note(in("b"), nil, again)
	if got := s.quoted(again); &got[0] != &first[0] {
		t.Error("the same text was scanned again")
	}
	want := []string{"6402382020NCS120", "6402382019NCS011", "6402382024NCS310"}
	for _, id := range []string{"a", "b"} {
		if got := s.List(id); !slices.Equal(got, want) {
			t.Errorf("session %s remembers %v, want %v", id, got, want)
		}
	}
	other := `{"LpnId":"6402382024NCS999"}`
	s.Note(in("b"), nil, other)
	if got := s.quoted(other); !slices.Equal(got, []string{"6402382024NCS999"}) {
		t.Errorf("another text gave %v", got)
	}
	if got := s.List("b"); got[0] != "6402382024NCS999" || len(got) != 4 {
		t.Errorf("session b remembers %v after the other text", got)
	}
}

// Notes kept apart and added later leave each session the IDs, in the
// order, that adding every note's IDs at once would: whatever the notes
// repeat, however many are kept before they are added, and past the
// bound of IDs a session remembers.
func TestKeptNotesGiveTheOrderOfAddingEach(t *testing.T) {
	srv := server.NewMCPServer("t", "1")
	in := func(id string) context.Context { return srv.WithContext(context.Background(), stubSession(id)) }
	rng := rand.New(rand.NewPCG(7, 11))
	// Answers naming overlapping animals: 60 texts over 300 IDs, so that
	// a session meets more than it can remember and more texts than it
	// keeps apart.
	id := func(i int) string { return fmt.Sprintf("64023820%02dNCS%03d", i%30, i) }
	texts := make([]string, 60)
	for i := range texts {
		var b strings.Builder
		for j := range 1 + rng.IntN(12) {
			fmt.Fprintf(&b, `{"n%d":"%s"},`, j, id((i*5+j*7)%300))
		}
		texts[i] = b.String()
	}
	for _, pool := range []int{3, 20, 60} { // a few animals again and again, up to more than are kept apart
		var s LPNs
		plain := map[string]*lru.Cache[string, struct{}]{}
		for step := range 3000 {
			session := []string{"a", "b"}[rng.IntN(2)]
			text := texts[rng.IntN(pool)]
			var args map[string]any
			if rng.IntN(3) == 0 {
				args = map[string]any{"lpn_id": id(rng.IntN(300))}
			}
			s.Note(in(session), args, string([]byte(text)))
			if plain[session] == nil {
				plain[session], _ = lru.New[string, struct{}](seenLPNsPerSess)
			}
			if args != nil {
				plain[session].Add(args["lpn_id"].(string), struct{}{})
			}
			for _, x := range quotedLPNs(text) {
				plain[session].Add(x, struct{}{})
			}
			if step%97 == 0 || step == 2999 {
				for _, sess := range []string{"a", "b"} {
					if plain[sess] == nil {
						continue
					}
					want := plain[sess].Keys()
					slices.Reverse(want)
					if got := s.List(sess); !slices.Equal(got, want) {
						t.Fatalf("pool %d, step %d, session %s: %d IDs %v\nwant %d %v", pool, step, sess, len(got), got[:min(5, len(got))], len(want), want[:min(5, len(want))])
					}
				}
			}
		}
	}
}

// A list handed to Add is the caller's to reuse at once: what the session
// remembers is the IDs as they were added.
func TestAddedListsAreTheCallersToReuse(t *testing.T) {
	var s LPNs
	buf := []string{"6402382024NCS310", "6402382024NCS311"}
	s.Add("a", buf)
	buf[0], buf[1] = "6402382024NCS999", "6402382024NCS998"
	if got := s.List("a"); !slices.Equal(got, []string{"6402382024NCS311", "6402382024NCS310"}) {
		t.Errorf("remembers %v, want the IDs as added", got)
	}
}
