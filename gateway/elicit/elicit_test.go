package elicit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
	"github.com/nsip-tools/nsip-mcp/transport/rpctest"
)

// fakeUser answers forms as told and records them; err, when set, is the
// client failing to show the form.
type fakeUser struct {
	mu     sync.Mutex
	asked  []mcp.ElicitationParams
	answer mcp.ElicitationResponse
	err    error
}

func (u *fakeUser) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.asked = append(u.asked, req.Params)
	if u.err != nil {
		return nil, u.err
	}
	return &mcp.ElicitationResult{ElicitationResponse: u.answer}, nil
}

func (u *fakeUser) times() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.asked)
}

func accept(content map[string]any) *fakeUser {
	return &fakeUser{answer: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: content}}
}

// eras are the protocol revisions a form is asked in: 2026-07-28, where
// the call returns an input request and the client calls again with the
// answer, and the newest revision before it, where the server sends
// elicitation/create.
var eras = []string{mcp.ProtocolVersion20260728, mcp.LATEST_LEGACY_PROTOCOL_VERSION}

func inEachEra(t *testing.T, test func(t *testing.T, era string)) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) { test(t, era) })
	}
}

func ptr(f float64) *float64 { return &f }

// rangesTool takes a breed, the user's to choose, and a limit, the
// model's to know.
var rangesTool = Tool{Name: "get_ranges", Title: "Trait ranges", Specs: []param.Spec{
	{Name: "breed_id", Kind: param.Integer, Desc: "the breed", Required: true, Min: ptr(1), Max: ptr(9999), Example: 640, Complete: param.Breeds},
	{Name: "limit", Kind: param.Integer, Desc: "how many", Required: true, Min: ptr(1), Example: 5},
}}

var breeds = &nsip.BreedGroups{Groups: []nsip.BreedGroup{
	{Name: "Hair", Breeds: []nsip.Breed{{ID: 640, Name: "Katahdin"}, {ID: 641, Name: "Dorper"}}},
	{Name: "Wool", Breeds: []nsip.Breed{{ID: 486, Name: "Suffolk"}}},
}}

// replyBody is what the test tool answers: the arguments it ran with, or
// the reply that stopped it.
type replyBody struct {
	Filled map[string]any `json:"filled"`
	Asked  bool           `json:"asked"`
	Reply  *Reply         `json:"reply"`
}

// rangesServer serves rangesTool through a.Wrap: a call missing arguments
// asks for them with AskMissing and answers with what it got.
func rangesServer(a *Asker) *server.MCPServer {
	srv := server.NewMCPServer("t", "0")
	srv.AddTool(mcp.NewTool(rangesTool.Name), a.Wrap(func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		sent := req.GetArguments()
		_, errs := param.ValidateObject("", rangesTool.Specs, param.SentOf(sent))
		filled, r, asked := a.AskMissing(ctx, rangesTool, param.SentOf(sent), errs)
		if r != nil && r.Input != nil {
			return r.Input, nil
		}
		b, _ := json.Marshal(struct {
			Filled param.Sent `json:"filled"`
			Asked  bool       `json:"asked"`
			Reply  *Reply     `json:"reply"`
		}{filled, asked, r})
		return mcp.NewToolResultText(string(b)), nil
	}))
	return srv
}

// askingClient connects a client speaking era whose user is u; a nil u is
// a client that declares no elicitation.
func askingClient(t *testing.T, srv *server.MCPServer, u *fakeUser, era string) *client.Client {
	t.Helper()
	var opts []client.ClientOption
	if u != nil {
		opts = append(opts, client.WithElicitationHandler(u))
	}
	c, _ := rpctest.Connect(t, srv, era, opts...)
	if got := c.ProtocolVersion(); got != era {
		t.Fatalf("client speaks %s, want %s", got, era)
	}
	return c
}

func callRanges(t *testing.T, c *client.Client, args map[string]any) replyBody {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = rangesTool.Name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		t.Fatalf("result %+v is not text", res.Content)
	}
	var b replyBody
	if err := json.Unmarshal([]byte(tc.Text), &b); err != nil {
		t.Fatalf("%v: %s", err, tc.Text)
	}
	return b
}

// schemaOf is a form's schema as a client reads it.
type schemaOf struct {
	Properties map[string]struct {
		Type      string   `json:"type"`
		Title     string   `json:"title"`
		Enum      []string `json:"enum"`
		EnumNames []string `json:"enumNames"`
		Minimum   *float64 `json:"minimum"`
		Maximum   *float64 `json:"maximum"`
	} `json:"properties"`
	Required []string `json:"required"`
}

func readSchema(t *testing.T, s any) schemaOf {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var f schemaOf
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return f
}

// A missing breed is asked of the user, offered by name, and the call
// goes on with the answer as the number it names.
func TestMissingBreedIsAskedOfTheUser(t *testing.T) {
	inEachEra(t, func(t *testing.T, era string) {
		a := &Asker{Log: slog.New(slog.DiscardHandler), Breeds: func(context.Context) (*nsip.BreedGroups, bool) { return breeds, true }}
		u := accept(map[string]any{"breed_id": "486"})
		got := callRanges(t, askingClient(t, rangesServer(a), u, era), map[string]any{"limit": 3})
		if !got.Asked || got.Reply != nil || got.Filled["breed_id"] != 486.0 || got.Filled["limit"] != 3.0 {
			t.Errorf("after asking: %+v; want breed 486 with the limit sent", got)
		}
		if u.times() != 1 {
			t.Fatalf("user asked %d times, want once", u.times())
		}
		q := u.asked[0]
		if q.Message != "Trait ranges needs breed_id." {
			t.Errorf("question %q", q.Message)
		}
		f := readSchema(t, q.RequestedSchema).Properties["breed_id"]
		if f.Type != "string" || f.Title != "Breed" || strings.Join(f.Enum, ",") != "640,641,486" ||
			strings.Join(f.EnumNames, ",") != "Katahdin (Hair),Dorper (Hair),Suffolk (Wool)" {
			t.Errorf("breed field %+v; want a choice of the three breeds by name", f)
		}
	})
}

// A user who declines, or answers what the argument does not accept,
// ends the call with a reply saying so; the model's own arguments are
// never asked for.
func TestDeclinedOrBadAnswers(t *testing.T) {
	inEachEra(t, func(t *testing.T, era string) {
		a := &Asker{Log: slog.New(slog.DiscardHandler)}
		srv := rangesServer(a)
		decline := &fakeUser{answer: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}
		got := callRanges(t, askingClient(t, srv, decline, era), map[string]any{"limit": 3})
		if r := got.Reply; r == nil || r.Field != "breed_id" || r.Problem != "breed_id is required; the user was asked for it and chose decline" ||
			r.Next != "ask the user for breed_id in the conversation, or call get_ranges again with it" {
			t.Errorf("declined: %+v", got)
		}

		bad := accept(map[string]any{"breed_id": 0.0})
		got = callRanges(t, askingClient(t, srv, bad, era), map[string]any{"limit": 3})
		if r := got.Reply; r == nil || len(r.Invalid) != 1 || r.Invalid[0].Field != "breed_id" || fmt.Sprint(first(r.Sent.Value("breed_id"))) != "0" || r.Example != nil {
			t.Errorf("answered 0: %+v; want breed_id's problem and the answer as sent", r)
		}

		never := accept(map[string]any{"breed_id": "640"})
		c := askingClient(t, srv, never, era)
		for _, args := range []map[string]any{{"breed_id": 640}, {"breed_id": "x", "limit": 2}, {"breed_id": 640, "limit": 0}} {
			if got := callRanges(t, c, args); got.Asked || got.Reply != nil {
				t.Errorf("%v: %+v; want nothing asked", args, got)
			}
		}
		if never.times() != 0 {
			t.Errorf("the user was asked %d times for what the model should know", never.times())
		}
	})
}

// A client that declares no elicitation is not asked.
func TestClientThatCannotBeAsked(t *testing.T) {
	inEachEra(t, func(t *testing.T, era string) {
		got := callRanges(t, askingClient(t, rangesServer(&Asker{}), nil, era), map[string]any{"limit": 3})
		if got.Asked || got.Reply != nil {
			t.Errorf("%+v; want nothing asked", got)
		}
	})
}

// A form an older client fails to show ends the call with a reply naming
// the argument, why it was not asked and a correct call, and is logged.
func TestFailedFormIsAReply(t *testing.T) {
	logs := &logbuf.Buffer{}
	a := &Asker{Log: slog.New(slog.NewTextHandler(logs, nil))}
	u := &fakeUser{err: errors.New("the dialog could not be shown")}
	got := callRanges(t, askingClient(t, rangesServer(a), u, mcp.LATEST_LEGACY_PROTOCOL_VERSION), map[string]any{"limit": 3})
	r := got.Reply
	if r == nil || r.Field != "breed_id" || !strings.HasPrefix(r.Problem, "breed_id is required, and asking the user for it failed: ") ||
		!strings.Contains(r.Problem, "the dialog could not be shown") || r.Expected == "" || r.Example.String() != `{"breed_id":640,"limit":5}` {
		t.Errorf("reply %+v", r)
	}
	if l := logs.String(); !strings.Contains(l, "elicitation failed") || !strings.Contains(l, "tool=get_ranges") {
		t.Errorf("log %q; want the failure and the tool", l)
	}
}

// A client that cannot take server requests, or whose session cannot
// elicit after all, is treated as one that cannot be asked.
func TestUnsupportedElicitationIsNotAsking(t *testing.T) {
	for _, err := range []error{server.ErrElicitationNotSupported, server.ErrServerInitiatedRequestUnsupported} {
		ctx := context.WithValue(context.Background(), formCallKey{}, &formCall{failed: map[string]error{"breed_id": err}})
		if _, r, asked := (&Asker{}).Ask(ctx, rangesTool, Form{Fields: rangesTool.Specs[:1]}); asked || r != nil {
			t.Errorf("%v: asked %v, reply %+v", err, asked, r)
		}
	}
	if canElicit(context.Background(), mcp.CallToolRequest{}) {
		t.Error("a call outside any session can elicit")
	}
}

// A form for one argument made of several fields (weights per trait)
// names the argument in its problems, and fields asked alongside it are
// validated under their own names.
func TestFormForAnArgumentOfSeveralFields(t *testing.T) {
	q := Form{
		Message:  "Weights?",
		Arg:      "weights",
		Expected: "a weight per trait",
		Example:  param.Example([]param.Spec{{Name: "weights", Kind: param.Object, Required: true, Example: map[string]any{"WWT": 1}}}, param.Sent{}),
		Titles:   map[string]string{"WWT": "Weaning weight"},
		Fields: []param.Spec{
			{Name: "WWT", Kind: param.Number, Desc: "weaning weight", Min: ptr(-10), Max: ptr(10)},
			{Name: "BWT", Kind: param.Number, Desc: "birth weight"},
		},
		Also: []param.Spec{
			{Name: "max_coi", Kind: param.Number, Desc: "inbreeding limit", Required: true, Min: ptr(0), Max: ptr(1)},
			{Name: "rams_only", Kind: param.Boolean, Desc: "rams only"},
			{Name: "status", Kind: param.String, Desc: "status", Enum: []string{"CURRENT", "SOLD"}},
			{Name: "rounds", Kind: param.Integer, Desc: "rounds"},
		},
	}
	a := &Asker{}
	// Before the user answers: the input request with the form.
	ctx := context.WithValue(context.Background(), formCallKey{}, &formCall{canAsk: true})
	_, r, asked := a.Ask(ctx, rangesTool, q)
	if !asked || r == nil || r.Input == nil || r.Field != "weights" || r.Problem != "weights is required; the user is asked for it" {
		t.Fatalf("reply %+v", r)
	}
	ir := r.Input.InputRequests["weights"]
	if ir.Elicitation == nil || ir.Elicitation.Message != "Weights?" {
		t.Fatalf("input request %+v", r.Input.InputRequests)
	}
	s := readSchema(t, ir.Elicitation.RequestedSchema)
	wwt, coi, rams, status := s.Properties["WWT"], s.Properties["max_coi"], s.Properties["rams_only"], s.Properties["status"]
	if wwt.Type != "number" || wwt.Title != "Weaning weight" || *wwt.Minimum != -10 || *wwt.Maximum != 10 || s.Properties["BWT"].Minimum != nil ||
		coi.Title != "max_coi" || rams.Type != "boolean" || status.Type != "string" || strings.Join(status.Enum, ",") != "CURRENT,SOLD" ||
		strings.Join(s.Required, ",") != "max_coi" {
		t.Errorf("schema %+v", s)
	}

	answer := func(content map[string]any) (analysis.Answers, *Reply) {
		res := mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: content}
		fc := &formCall{answers: mcp.InputResponses{"weights": mcp.NewElicitationInputResponse(mcp.ElicitationResult{ElicitationResponse: res})}}
		out, r, asked := a.Ask(context.WithValue(context.Background(), formCallKey{}, fc), rangesTool, q)
		if !asked {
			t.Fatal("an answered form was not asked")
		}
		return out, r
	}
	out, r := answer(map[string]any{"WWT": 2.5, "BWT": "-1", "max_coi": 0.1, "rams_only": true, "status": "sold", "rounds": 3.0})
	want := analysis.Answers{
		Fields: analysis.Choices{Numbers: map[string]float64{"WWT": 2.5, "BWT": -1}, Integers: map[string]int{}, Texts: map[string]string{}, Flags: map[string]bool{}},
		Also:   analysis.Choices{Numbers: map[string]float64{"max_coi": 0.1}, Integers: map[string]int{"rounds": 3}, Texts: map[string]string{"status": "SOLD"}, Flags: map[string]bool{"rams_only": true}},
	}
	if r != nil || !reflect.DeepEqual(out, want) {
		t.Errorf("answers %+v, reply %+v; want %+v", out, r, want)
	}
	_, r = answer(map[string]any{"WWT": "heavy"})
	if r == nil || len(r.Invalid) != 2 || r.Invalid[0].Field != "weights.WWT" || r.Invalid[1].Field != "max_coi" || r.Example.String() != `{"weights":{"WWT":1}}` {
		t.Errorf("bad answers: reply %+v; want weights.WWT and max_coi, with the form's example", r)
	}
}

// An empty form schema names no required fields rather than null, which
// some clients refuse; a breed field without NSIP's list at hand stays an
// integer.
func TestFormSchemaWithoutRequiredOrBreeds(t *testing.T) {
	a := &Asker{Breeds: func(context.Context) (*nsip.BreedGroups, bool) { return nil, false }}
	spec := rangesTool.Specs[0]
	spec.Required = false
	s := a.formSchema(context.Background(), []param.Spec{spec}, nil)
	if b, _ := json.Marshal(s); strings.Contains(string(b), `"required"`) {
		t.Errorf("schema %s has required", b)
	}
	if f := readSchema(t, s).Properties["breed_id"]; f.Type != "integer" || f.Enum != nil || *f.Minimum != 1 {
		t.Errorf("breed field %+v; want a plain integer", f)
	}
}

// formValue reads text as the argument's kind and numbers as exact
// decimals, and leaves other values as they came.
func TestFormValue(t *testing.T) {
	p := &rangesTool.Specs[0]
	out, errs := param.ValidateObject("", []param.Spec{*p}, param.SentOf(map[string]any{"breed_id": formValue(p, "640")}))
	if len(errs) != 0 || fmt.Sprint(first(out.Value("breed_id"))) != "640" {
		t.Errorf("\"640\" validated as %v, %v; want the breed 640", out, errs)
	}
	if v := formValue(p, 0.1); v != json.Number("0.1") {
		t.Errorf("0.1 read as %#v", v)
	}
	if v := formValue(p, true); v != true {
		t.Errorf("true read as %#v", v)
	}
}

// A handler that keeps asking a client older than 2026-07-28 is stopped
// after maxFormRounds forms; a request that is not a form is reported to
// the handler as failed.
func TestFormRoundsAreBounded(t *testing.T) {
	u := accept(map[string]any{"x": "1"})
	a := &Asker{}
	var failures []string
	srv := server.NewMCPServer("t", "0")
	round := 0
	srv.AddTool(mcp.NewTool("loop"), a.Wrap(func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for id, err := range formsOf(ctx).failed {
			failures = append(failures, id+": "+err.Error())
		}
		round++
		return server.NewInputRequestBuilder("").
			Elicit("form"+strconv.Itoa(round), mcp.ElicitationParams{Mode: mcp.ElicitationModeForm, Message: "again?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}}}).
			Sample("sample"+strconv.Itoa(round), mcp.CreateMessageParams{}).
			ToolResult(), nil
	}))
	c := askingClient(t, srv, u, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	req := mcp.CallToolRequest{}
	req.Params.Name = "loop"
	_, err := c.CallTool(context.Background(), req)
	if err == nil || !strings.Contains(err.Error(), "loop asked its user more than 4 forms in one call") {
		t.Errorf("error %v; want the bound on forms", err)
	}
	if u.times() != maxFormRounds {
		t.Errorf("user asked %d times, want %d", u.times(), maxFormRounds)
	}
	if len(failures) == 0 || !strings.Contains(strings.Join(failures, "\n"), "sample1: input request sampling/createMessage is not a form") {
		t.Errorf("failures the handler saw: %v; want the sampling request reported as not a form", failures)
	}
}

// An analysis leaves a missing weights list to ask for once it knows the
// traits to offer, only when the client can be asked or has answered and
// every problem is such a list left out.
func TestLeftToAsk(t *testing.T) {
	d := &analysis.Def{Def: tooldef.Def{Args: param.Args{Lists: []param.List{{Name: "weights"}, {Name: "lpn_ids"}}}}}
	missing := []param.FieldError{{Field: "weights", Problem: "is required"}}
	canAsk := context.WithValue(context.Background(), formCallKey{}, &formCall{canAsk: true})
	answered := context.WithValue(context.Background(), formCallKey{}, &formCall{answers: mcp.InputResponses{"weights": {}}})
	cases := []struct {
		ctx  context.Context
		sent map[string]any
		errs []param.FieldError
		want bool
	}{
		{canAsk, map[string]any{}, missing, true},
		{answered, map[string]any{}, missing, true},
		{context.Background(), map[string]any{}, missing, false},
		{canAsk, map[string]any{}, nil, false},
		{canAsk, map[string]any{"weights": map[string]any{}}, missing, false},
		{canAsk, map[string]any{}, []param.FieldError{{Field: "weights", Problem: "must be an object"}}, false},
		{canAsk, map[string]any{}, []param.FieldError{{Field: "lpn_ids", Problem: "is required"}}, false},
		{canAsk, map[string]any{}, []param.FieldError{{Field: "breed_id", Problem: "is required"}}, false},
	}
	for i, c := range cases {
		if got := LeftToAsk(c.ctx, d, param.SentOf(c.sent), c.errs); got != c.want {
			t.Errorf("case %d: %v, want %v", i, got, c.want)
		}
	}
}

// An answer a custom validation made of a type no form field has is kept
// as its JSON text, not dropped.
func TestChoicesKeepOtherValuesAsText(t *testing.T) {
	answers, errs := param.ValidateObject("", []param.Spec{
		{Name: "codes", Kind: param.Array, Custom: func(_ string, raw any) (any, []param.FieldError) {
			list, _ := raw.([]any)
			out := make([]any, len(list))
			for i, v := range list {
				out[i] = strings.ToUpper(fmt.Sprint(v))
			}
			return out, nil
		}},
		{Name: "n", Kind: param.Integer},
	}, param.SentOf(map[string]any{"codes": []any{"wwt", "BWT"}, "n": 2}))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	c := choices(answers)
	if c.Texts["codes"] != `["WWT","BWT"]` || c.Integers["n"] != 2 || len(c.Numbers)+len(c.Flags) != 0 {
		t.Errorf("choices %+v", c)
	}
}

// first is the value of a (value, ok) pair.
func first(v any, _ bool) any { return v }
