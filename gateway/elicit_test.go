package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/transport/rpctest"
)

// fakeUser answers elicitation requests as told and records them.
type fakeUser struct {
	mu     sync.Mutex
	asked  []mcp.ElicitationParams
	answer mcp.ElicitationResponse
}

func (u *fakeUser) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.asked = append(u.asked, req.Params)
	return &mcp.ElicitationResult{ElicitationResponse: u.answer}, nil
}

// eras are the protocol revisions a form is asked in: 2026-07-28, where
// the call returns an input request and the client calls again with the
// answer, and the newest revision before it, where the server sends
// elicitation/create.
var eras = []string{mcp.ProtocolVersion20260728, mcp.LATEST_LEGACY_PROTOCOL_VERSION}

// inEachEra runs test once per protocol revision.
func inEachEra(t *testing.T, test func(t *testing.T, era string)) {
	for _, era := range eras {
		t.Run(era, func(t *testing.T) { test(t, era) })
	}
}

// askingClient connects a client speaking protocol revision era whose user
// answers as u says; a nil u is a client that declares no elicitation.
func askingClient(t *testing.T, e *env, u *fakeUser, era string) *client.Client {
	t.Helper()
	var opts []client.ClientOption
	if u != nil {
		opts = append(opts, client.WithElicitationHandler(u))
	}
	c, _ := rpctest.Connect(t, e.srv, era, opts...)
	if got := c.ProtocolVersion(); got != era {
		t.Fatalf("client speaks %s, want %s", got, era)
	}
	return c
}

func TestMissingBreedIsAskedOfTheUser(t *testing.T) { inEachEra(t, missingBreedIsAsked) }

func missingBreedIsAsked(t *testing.T, era string) {
	e := newEnv(t)
	groups := e.up.Data().BreedGroups()
	breed := groups[len(groups)-1].Breeds[0]
	u := &fakeUser{answer: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept,
		Content: map[string]any{"breed_id": strconv.Itoa(breed.ID)}}}
	c := askingClient(t, e, u, era)

	got := callTool(t, c, "nsip_get_trait_ranges", map[string]any{}).mustOK(t)
	want := e.call("nsip_get_trait_ranges", map[string]any{"breed_id": breed.ID}).mustOK(t)
	if got.text != want.text {
		t.Errorf("after asking: %.200s\nwant the breed's ranges: %.200s", got.text, want.text)
	}
	if len(u.asked) != 1 {
		t.Fatalf("user asked %d times, want once", len(u.asked))
	}
	q := u.asked[0]
	if !strings.Contains(q.Message, "breed_id") {
		t.Errorf("question %q does not say what is needed", q.Message)
	}
	// The form offers every breed by name, as the user knows them.
	schema, _ := json.Marshal(q.RequestedSchema)
	var s struct {
		Properties map[string]struct {
			Type      string   `json:"type"`
			Enum      []string `json:"enum"`
			EnumNames []string `json:"enumNames"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	f := s.Properties["breed_id"]
	nBreeds := 0
	for _, g := range groups {
		nBreeds += len(g.Breeds)
	}
	if f.Type != "string" || len(f.Enum) != nBreeds || len(f.EnumNames) != nBreeds || s.Required[0] != "breed_id" {
		t.Fatalf("form %s: want a required choice of %d breeds", schema, nBreeds)
	}
	i := len(f.Enum) - len(groups[len(groups)-1].Breeds)
	if f.Enum[i] != strconv.Itoa(breed.ID) || f.EnumNames[i] != fmt.Sprintf("%s (%s)", breed.Name, groups[len(groups)-1].Name) {
		t.Errorf("choice %d is %s %q, want %d %q", i, f.Enum[i], f.EnumNames[i], breed.ID, breed.Name)
	}
}

func TestAskedUserDeclinesOrAnswersBadly(t *testing.T) { inEachEra(t, askedUserDeclinesOrAnswersBadly) }

func askedUserDeclinesOrAnswersBadly(t *testing.T, era string) {
	e := newEnv(t)
	cases := []struct {
		answer mcp.ElicitationResponse
		want   string
	}{
		{mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}, "breed_id is required; the user was asked for it and chose decline"},
		{mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}, "chose cancel"},
		{mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"breed_id": "0"}}, "the user's answer: breed_id"},
		{mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{}}, "the user's answer: breed_id is required"},
	}
	for _, tc := range cases {
		c := askingClient(t, e, &fakeUser{answer: tc.answer}, era)
		r := callTool(t, c, "nsip_get_trait_ranges", map[string]any{})
		body := r.errorBody(t)
		if body.Code != toolerr.CodeInvalidArgument || body.Field != "breed_id" || !strings.Contains(body.Problem, tc.want) {
			t.Errorf("answer %+v: error %+v, want %q about breed_id", tc.answer, body, tc.want)
		}
	}
}

// Clients that cannot be asked, and arguments that are the model's to know,
// get the usual error and no question.
func TestNoQuestionWhenTheClientCannotBeAskedOrTheModelShouldKnow(t *testing.T) {
	inEachEra(t, noQuestionWhenTheClientCannotBeAsked)
}

func noQuestionWhenTheClientCannotBeAsked(t *testing.T, era string) {
	e := newEnv(t)
	body := callTool(t, askingClient(t, e, nil, era), "nsip_get_trait_ranges", map[string]any{}).errorBody(t)
	if body.Field != "breed_id" || body.Problem != "breed_id is required" || exampleOf(body.Example)["breed_id"] == nil {
		t.Errorf("without elicitation: %+v", body)
	}
	u := &fakeUser{answer: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"lpn_id": "6402382024NCS310"}}}
	c := askingClient(t, e, u, era)
	if body := callTool(t, c, "nsip_get_lineage", map[string]any{}).errorBody(t); body.Field != "lpn_id" {
		t.Errorf("missing lpn_id: %+v", body)
	}
	// A wrong breed_id, rather than a missing one, is the model's to fix.
	if body := callTool(t, c, "nsip_get_trait_ranges", map[string]any{"breed_id": "x"}).errorBody(t); body.Field != "breed_id" {
		t.Errorf("bad breed_id: %+v", body)
	}
	if len(u.asked) != 0 {
		t.Errorf("the user was asked %d times", len(u.asked))
	}
}

// brokenUser is a client whose elicitation fails.
type brokenUser struct{}

func (brokenUser) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return nil, errors.New("the dialog could not be shown")
}

// A question that cannot reach the user of a client older than
// 2026-07-28 ends the call with an error naming the missing argument and
// why it was not asked, not with a protocol error.
func TestFailedQuestionIsAnErrorResult(t *testing.T) {
	e := newEnv(t)
	c, _ := rpctest.Connect(t, e.srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION, client.WithElicitationHandler(brokenUser{}))
	body := callTool(t, c, "nsip_get_trait_ranges", map[string]any{}).errorBody(t)
	if body.Code != toolerr.CodeInvalidArgument || body.Field != "breed_id" || exampleOf(body.Example)["breed_id"] == nil ||
		!strings.HasPrefix(body.Problem, "breed_id is required, and asking the user for it failed: ") || !strings.Contains(body.Problem, "the dialog could not be shown") {
		t.Errorf("error %+v", body)
	}
}
