package argcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// offered are the tools of the test server, the first one every
// configuration offers.
var offered = []string{"nsip_list_breeds", "nsip_get_animal", "nsip_get_lineage", "nsip_search_animals"}

// newServer is an MCP server offering the tools named, each answering its
// own name, with u's hooks and middleware; calls reports each handler run.
func newServer(t *testing.T, u *UnknownTools, calls *[]string) *server.MCPServer {
	t.Helper()
	hooks := &server.Hooks{}
	u.Hooks(hooks)
	s := server.NewMCPServer("test", "1", server.WithHooks(hooks), server.WithToolHandlerMiddleware(u.Middleware))
	for _, n := range offered {
		s.AddTool(mcp.NewTool(n), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			*calls = append(*calls, req.Params.Name)
			return mcp.NewToolResultText("ran " + n), nil
		})
	}
	return s
}

// call sends tools/call of name and returns the result's text and whether
// it is an error result.
func call(t *testing.T, s *server.MCPServer, name string) (string, bool) {
	t.Helper()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, name)
	b, err := json.Marshal(s.HandleMessage(context.Background(), json.RawMessage(msg)))
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
		Error any `json:"error"`
	}
	if err := json.Unmarshal(b, &resp); err != nil || resp.Error != nil || len(resp.Result.Content) != 1 {
		t.Fatalf("tools/call %s answered %s (%v)", name, b, err)
	}
	return resp.Result.Content[0].Text, resp.Result.IsError
}

func unknownTools(log *bytes.Buffer, defined ...string) *UnknownTools {
	return &UnknownTools{
		Offered:  func() []string { return offered },
		Defined:  func(name string) bool { return strings.Contains(strings.Join(defined, " "), name) },
		Toolsets: []string{"lookup"},
		Render: func(r *Refusal) *mcp.CallToolResult {
			b, _ := json.Marshal(r)
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(b))}, IsError: true}
		},
		Log: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
}

// A misspelt tool name is answered as an error result the model can act
// on, naming the tool meant first, and no tool runs; a tool offered runs
// as ever.
func TestUnknownToolIsARefusalNamingTheNearest(t *testing.T) {
	var log bytes.Buffer
	var calls []string
	s := newServer(t, unknownTools(&log), &calls)
	text, isErr := call(t, s, "nsip_get_animl")
	var r Refusal
	if err := json.Unmarshal([]byte(text), &r); err != nil || !isErr {
		t.Fatalf("answer %s (error result %v): %v", text, isErr, err)
	}
	if r.Field != "name" || r.Value != "nsip_get_animl" || r.Problem != `this server has no tool "nsip_get_animl"; did you mean "nsip_get_animal"?` ||
		!strings.HasPrefix(r.Expected, "a tool this server offers, the nearest being nsip_get_animal, ") ||
		!strings.HasSuffix(r.Expected, "; all: "+strings.Join(offered, ", ")) ||
		r.Next != "call nsip_get_animal if it is the one meant; tools/list describes each tool" {
		t.Errorf("refusal %+v", r)
	}
	if len(calls) != 0 {
		t.Errorf("handlers ran for an unknown tool: %v", calls)
	}
	if !strings.Contains(log.String(), `msg="call of an unknown tool" tool="\"nsip_get_animl\""`) {
		t.Errorf("log %q", log.String())
	}
	if text, isErr := call(t, s, "nsip_get_lineage"); isErr || text != "ran nsip_get_lineage" || fmt.Sprint(calls) != "[nsip_get_lineage]" {
		t.Errorf("an offered tool answered %q (error %v), handlers %v", text, isErr, calls)
	}
}

// A tool the server defines but its toolsets leave out is refused with the
// setting that leaves it out.
func TestToolLeftOutByToolsetsNamesTheSetting(t *testing.T) {
	var log bytes.Buffer
	var calls []string
	s := newServer(t, unknownTools(&log, "nsip_rank_animals"), &calls)
	text, _ := call(t, s, "nsip_rank_animals")
	var r Refusal
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		t.Fatal(err)
	}
	if want := "this server does not offer nsip_rank_animals: the server's NSIP_TOOLSETS setting leaves out its toolset (it offers lookup)"; r.Problem != want {
		t.Errorf("problem %q, want %q", r.Problem, want)
	}
}

// A server offering no tools has none to hand the call to: mcp-go answers.
func TestNoToolsOfferedLeavesTheCallAlone(t *testing.T) {
	u := unknownTools(&bytes.Buffer{})
	u.Offered = func() []string { return nil }
	hooks := &server.Hooks{}
	u.Hooks(hooks)
	req := &mcp.CallToolRequest{}
	req.Params.Name = "nsip_get_animl"
	for _, h := range hooks.OnBeforeCallTool {
		h(context.Background(), 1, req)
	}
	if req.Params.Name != "nsip_get_animl" || req.Params.Meta != nil {
		t.Errorf("call changed to %+v", req.Params)
	}
}

// Nothing near: the nearest by edits are still named, without a guess;
// a long name is cut in the value and the problem alike.
func TestUnknownToolWithoutAGuess(t *testing.T) {
	r := UnknownTool("zzzzzz", offered)
	if strings.Contains(r.Problem, "did you mean") || !strings.HasPrefix(r.Expected, "a tool this server offers, the nearest being nsip_get_animal, ") ||
		!strings.HasPrefix(r.Next, "call nsip_get_animal ") {
		t.Errorf("refusal %+v", r)
	}
	long := strings.Repeat("x", 500)
	r = UnknownTool(long, offered)
	v, _ := r.Value.(string)
	if !strings.HasSuffix(v, "…") || len([]rune(v)) > 100 || len(r.Problem) > 200 {
		t.Errorf("a long name is repeated whole: value %d runes, problem %q", len([]rune(v)), r.Problem)
	}
}

// The nearest names ignore case and separators, ties in the order given.
func TestClosestNamesIgnoreCaseAndSeparators(t *testing.T) {
	got := closestNames("NSIP-GET-LINEAGE", offered, 2)
	if fmt.Sprint(got) != "[nsip_get_lineage nsip_get_animal]" {
		t.Errorf("closestNames = %v", got)
	}
	if got := closestNames("x", offered[:1], 3); fmt.Sprint(got) != "[nsip_list_breeds]" {
		t.Errorf("closestNames of one = %v", got)
	}
}
