package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// stubUpstream answers from fixed values, for what the stand-in server cannot
// produce: models without raw bodies, nil answers, errors that are not the
// client's.
type stubUpstream struct {
	statuses *nsip.Statuses
	err      error
	calls    int
}

func (s *stubUpstream) DateLastUpdated(context.Context) (*nsip.LastUpdate, error) {
	s.calls++
	return nil, s.err
}
func (s *stubUpstream) BreedGroups(context.Context) (*nsip.BreedGroups, error) {
	s.calls++
	return nil, s.err
}
func (s *stubUpstream) Statuses(context.Context) (*nsip.Statuses, error) {
	s.calls++
	return s.statuses, s.err
}
func (s *stubUpstream) TraitRanges(context.Context, int) (*nsip.TraitRanges, error) {
	s.calls++
	return nil, s.err
}
func (s *stubUpstream) SearchAnimals(context.Context, nsip.SearchParams) (*nsip.SearchResults, error) {
	s.calls++
	return nil, s.err
}
func (s *stubUpstream) AnimalDetails(context.Context, string) (*nsip.AnimalDetails, error) {
	s.calls++
	return nil, s.err
}
func (s *stubUpstream) Lineage(context.Context, string) (*nsip.Lineage, error) {
	s.calls++
	return nil, s.err
}
func (s *stubUpstream) Progeny(context.Context, string, int, int) (*nsip.ProgenyPage, error) {
	s.calls++
	return nil, s.err
}

func stubEnv(t *testing.T, up *stubUpstream) *env {
	t.Helper()
	sum, _ := summarizer(t)
	gw, err := New(up, sum, Config{Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, gw: gw, srv: gw.NewMCPServer("stub", "0")}
	e.client = connect(t, e.srv)
	return e
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

func TestNewValidatesItsInputs(t *testing.T) {
	sum, _ := summarizer(t)
	if _, err := New(nil, sum, Config{}); err == nil {
		t.Error("New accepted a nil upstream")
	}
	if _, err := New(&stubUpstream{}, nil, Config{}); err == nil {
		t.Error("New accepted a nil summarizer")
	}
	for _, cfg := range []Config{{Budget: -1}, {RateLimit: -1}, {CallTimeout: -time.Second}, {CacheMaxBytes: -1}} {
		if _, err := New(&stubUpstream{}, sum, cfg); err == nil || !strings.Contains(err.Error(), "negative") {
			t.Errorf("New(%+v) = %v, want a negative-value error", cfg, err)
		}
	}
	g, err := New(&stubUpstream{}, sum, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if g.cfg.Budget != 2000 || g.cfg.CacheTTL != time.Hour || g.cfg.RateBurst != 10 || g.cfg.BreakerFailures != 5 || g.cfg.ProgressInterval != 2*time.Second {
		t.Errorf("zero config did not take the defaults: %+v", g.cfg)
	}
	h := g.Health()
	if h.Cache.MaxEntries != 10_000 || h.Cache.MaxBytes != 64<<20 || h.RateLimit.LimitPerSecond != 5 || h.RateLimit.TokensAvailable != 10 {
		t.Errorf("default bounds = %+v / %+v", h.Cache, h.RateLimit)
	}
}

func TestModelsWithoutRawBodiesAreEncoded(t *testing.T) {
	up := &stubUpstream{statuses: &nsip.Statuses{Values: []string{"CURRENT", "SOLD"}}}
	e := stubEnv(t, up)
	r := e.call("nsip_get_statuses", nil).mustOK(t)
	if r.text != `{"values":["CURRENT","SOLD"]}` {
		t.Errorf("text = %s", r.text)
	}
}

func TestNilAnswerWithoutErrorIsUnexpected(t *testing.T) {
	e := stubEnv(t, &stubUpstream{})
	b := e.call("nsip_get_statuses", nil).errorBody(t)
	if b.Code != toolerr.CodeUnexpectedResponse || !strings.Contains(b.Problem, "no answer") {
		t.Errorf("error = %+v", b)
	}
}

func TestErrorMapping(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		code  string
		field string
		in    string // fragment of the problem
	}{
		{"upstream 400 names the argument", &nsip.Error{Kind: nsip.KindInvalidArgument, Status: 400, Param: "pageSize", Reason: "pageSize must be 1..100"},
			toolerr.CodeInvalidArgument, "page_size", "pageSize must be 1..100"},
		{"upstream 400 on an unknown parameter", &nsip.Error{Kind: nsip.KindInvalidArgument, Status: 400},
			toolerr.CodeInvalidArgument, "lpn_id", "NSIP rejected"},
		{"client timeout", &nsip.Error{Kind: nsip.KindTimeout}, toolerr.CodeTimeout, "", "did not answer"},
		{"client cancelled", &nsip.Error{Kind: nsip.KindCanceled}, toolerr.CodeCanceled, "", "cancelled"},
		{"connection refused", &nsip.Error{Kind: nsip.KindConnection, Reason: "connection refused"}, toolerr.CodeUpstreamError, "", "connection refused"},
		{"5xx", &nsip.Error{Kind: nsip.KindUpstream, Status: 502}, toolerr.CodeUpstreamError, "", "HTTP 502"},
		{"unknown kind", &nsip.Error{Kind: nsip.Kind(99)}, toolerr.CodeUpstreamError, "", "kind(99)"},
		{"plain error", errors.New("boom"), toolerr.CodeUpstreamError, "", "boom"},
		{"deadline", context.DeadlineExceeded, toolerr.CodeTimeout, "", "did not answer"},
		{"cancel", context.Canceled, toolerr.CodeCanceled, "", "cancelled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := stubEnv(t, &stubUpstream{err: tt.err})
			b := e.call("nsip_get_progeny", map[string]any{"lpn_id": nsiparg.ExampleLPN}).errorBody(t)
			if b.Code != tt.code || b.Field != tt.field || !strings.Contains(b.Problem, tt.in) {
				t.Errorf("error = %+v, want code %s field %q problem containing %q", b, tt.code, tt.field, tt.in)
			}
		})
	}
}

func TestNoStructuredContentAndCompactErrorJSON(t *testing.T) {
	e := stubEnv(t, &stubUpstream{err: &nsip.Error{Kind: nsip.KindNotFound, Status: 404}})
	req := mcp.CallToolRequest{}
	req.Params.Name = "nsip_get_lineage"
	req.Params.Arguments = map[string]any{"lpn_id": nsiparg.ExampleLPN}
	res, err := e.client.CallTool(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(mcp.TextContent).Text
	if !res.IsError || res.StructuredContent != nil {
		t.Errorf("isError %v, structured %v", res.IsError, res.StructuredContent)
	}
	if strings.ContainsAny(text, "\n\t") || !json.Valid([]byte(text)) {
		t.Errorf("error body is not compact JSON: %q", text)
	}
	want := `{"error":{"code":"not_found","field":"lpn_id","value":"6402382024NCS310","problem":"NSIP has no pedigree for LPN ID \"6402382024NCS310\"","next":"check the LPN ID, or find animals with nsip_search_animals"}}`
	if text != want {
		t.Errorf("body = %s\nwant %s", text, want)
	}
}

func TestSchemaConstraints(t *testing.T) {
	get := func(tool, prop string) map[string]any {
		d := defByName(t, tool)
		b, _ := json.Marshal(param.InputSchema(d.Args.Specs))
		var s struct {
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		return s.Properties[prop]
	}
	tests := []struct {
		tool, prop, key string
		want            any
	}{
		{"nsip_search_animals", "page_size", "default", float64(15)},
		{"nsip_search_animals", "page_size", "maximum", float64(100)},
		{"nsip_get_progeny", "page_size", "default", float64(10)},
		{"nsip_get_progeny", "page", "default", float64(0)},
		{"nsip_get_lineage", "lpn_id", "pattern", "^[A-Za-z0-9]+$"},
		{"nsip_get_lineage", "lpn_id", "maxLength", float64(32)},
		{"nsip_search_animals", "reverse", "default", false},
	}
	for _, tt := range tests {
		if got := get(tt.tool, tt.prop)[tt.key]; got != tt.want {
			t.Errorf("%s.%s.%s = %v, want %v", tt.tool, tt.prop, tt.key, got, tt.want)
		}
	}
	// A breed is taken by its ID or, as text, its name or number.
	if got := fmt.Sprint(get("nsip_get_trait_ranges", "breed_id")["type"]); got != "[integer string]" {
		t.Errorf("nsip_get_trait_ranges.breed_id.type = %s, want [integer string]", got)
	}
	crit := get("nsip_search_animals", "search_criteria")
	props := crit["properties"].(map[string]any)
	if props["born_after"].(map[string]any)["format"] != "date" || crit["additionalProperties"] != false {
		t.Errorf("search_criteria schema = %v", crit)
	}
	gender := props["gender"].(map[string]any)["enum"].([]any)
	if len(gender) != 3 || gender[0] != "Male" {
		t.Errorf("gender enum = %v", gender)
	}
	// Trait codes are open (breeds carry codes beyond any list), so the
	// schema names no codes; each maps to an object of bounds.
	tr := props["trait_ranges"].(map[string]any)
	// Breeds publish different traits: the schema lists none (the breed's
	// trait ranges decide, and validation checks the form).
	if tr["propertyNames"] != nil || tr["additionalProperties"].(map[string]any)["type"] != "object" {
		t.Errorf("trait_ranges schema = %v", tr)
	}
	if st := get("nsip_search_animals", "sorted_trait"); st["enum"] != nil {
		t.Errorf("sorted_trait schema = %v, want no list of codes", st)
	}
}

func TestMalformedRawArgumentsAreAnInvalidArgument(t *testing.T) {
	e := stubEnv(t, &stubUpstream{})
	req := mcp.CallToolRequest{}
	req.Params.Name = "nsip_get_animal"
	req.Params.RawArguments = json.RawMessage(`{"search_string":`)
	res, err := e.gw.handler(toolOf(lookup.Animal))(context.Background(), req)
	if err != nil || !res.IsError {
		t.Fatalf("handler = %v, %v", res, err)
	}
	text := res.Content[0].(mcp.TextContent).Text
	if !strings.Contains(text, `"field":"arguments"`) || !strings.Contains(text, "not valid JSON") {
		t.Errorf("body = %s", text)
	}
}
