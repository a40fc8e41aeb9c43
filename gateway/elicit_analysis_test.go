package gateway

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
)

// form is an elicitation request's schema as a client reads it.
type form struct {
	Properties map[string]struct {
		Type        string   `json:"type"`
		Title       string   `json:"title"`
		Description string   `json:"description"`
		Minimum     *float64 `json:"minimum"`
		Maximum     *float64 `json:"maximum"`
	} `json:"properties"`
	Required []string `json:"required"`
}

func readForm(t *testing.T, q mcp.ElicitationParams) form {
	t.Helper()
	b, err := json.Marshal(q.RequestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	var f form
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	for name, p := range f.Properties {
		if p.Type != "number" && p.Type != "integer" {
			t.Errorf("field %s is %q: a form has flat primitive fields", name, p.Type)
		}
	}
	return f
}

func accept(content map[string]any) *fakeUser {
	return &fakeUser{answer: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: content}}
}

// A ranking called without weights by a client that can ask its user
// offers the breed's traits and ranks by the answer; the expected top ten
// is brute force over the herd, as in TestRankAnimalsExactTopN.
func TestRankAsksTheUserForWeights(t *testing.T) { inEachEra(t, rankAsksTheUserForWeights) }

func rankAsksTheUserForWeights(t *testing.T, era string) {
	h, all := rankHerd(true)
	e := herdEnv(t, h)
	// A number typed as text is a number.
	u := accept(map[string]any{"WWT": "1", "BWT": -0.5})
	r := callTool(t, askingClient(t, e, u, era), "nsip_rank_animals", map[string]any{"breed_id": 640, "top_n": 5}).mustOK(t)
	a := decodeRank(t, r.text)
	var want []float64
	for _, v := range all {
		want = append(want, v[0]-0.5*v[1])
	}
	slices.Sort(want)
	slices.Reverse(want)
	if len(a.Top) != 5 {
		t.Fatalf("%d rows: %s", len(a.Top), r.text)
	}
	for i, row := range a.Top {
		if got := all[row.LPNID][0] - 0.5*all[row.LPNID][1]; math.Abs(got-want[i]) > 1e-9 || math.Abs(row.Index-want[i]) > 1e-4 {
			t.Errorf("rank %d: %s index %v, brute force %v", i+1, row.LPNID, row.Index, want[i])
		}
	}
	var used struct {
		Weights map[string]float64 `json:"weights"`
	}
	_ = json.Unmarshal([]byte(r.text), &used)
	if param.JSONText(used.Weights) != `{"BWT":-0.5,"WWT":1}` {
		t.Errorf("ranked by %v, want the user's {BWT:-0.5, WWT:1}", used.Weights)
	}
	if len(u.asked) != 1 {
		t.Fatalf("asked %d times, want once", len(u.asked))
	}
	q := u.asked[0]
	if !strings.Contains(q.Message, "Rank NSIP animals by an index needs the breeding objective to rank the breed's animals") {
		t.Errorf("message %q", q.Message)
	}
	f := readForm(t, q)
	// No field is required, and clients that check the form's schema refuse
	// "required": null, so the list is left out.
	var wire map[string]any
	if b, _ := json.Marshal(q.RequestedSchema); json.Unmarshal(b, &wire) != nil || wire["required"] != nil || len(wire) != 2 {
		t.Errorf("form %s: want type and properties, no required with no field required", b)
	}
	// The herd's breed has BWT and WWT; both offered, neither required.
	if len(f.Properties) != 2 || len(f.Required) != 0 {
		t.Fatalf("form %+v: want optional BWT and WWT", f)
	}
	bwt := f.Properties["BWT"]
	if bwt.Type != "number" || bwt.Title != "Birth weight (BWT)" || !strings.Contains(bwt.Description, "lower is better") || !strings.Contains(bwt.Description, "e.g. -1") {
		t.Errorf("BWT field %+v", bwt)
	}
	if w := f.Properties["WWT"]; w.Title != "Weaning weight (direct) (WWT)" || !strings.Contains(w.Description, "(kg), higher is better") {
		t.Errorf("WWT field %+v", w)
	}
}

// Declining, cancelling or answering badly ends the call with an
// invalid_argument about weights, before any search is made.
func TestRankWeightsDeclinedOrAnsweredBadly(t *testing.T) {
	inEachEra(t, rankWeightsDeclinedOrAnsweredBadly)
}

func rankWeightsDeclinedOrAnsweredBadly(t *testing.T, era string) {
	h, _ := rankHerd(true)
	e := herdEnv(t, h)
	cases := []struct {
		user         *fakeUser
		field, probe string
	}{
		{&fakeUser{answer: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}},
			"weights", "weights is required; the user was asked for it and chose decline"},
		{&fakeUser{answer: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}},
			"weights", "weights is required; the user was asked for it and chose cancel"},
		{accept(map[string]any{}), "weights", "the user's answer: weights has 0 traits; give 1..20"},
		{accept(map[string]any{"WWT": 0, "BWT": 0}), "weights", "the user's answer: weights has 0 traits; give 1..20"},
		{accept(map[string]any{"WWT": "lots"}), "weights.WWT", "the user's answer: weights.WWT must be a number"},
		{accept(map[string]any{"WWT": 1, "YWT": 1}), "weights.YWT", "the user's answer: weights.YWT"},
	}
	for _, tc := range cases {
		body := callTool(t, askingClient(t, e, tc.user, era), "nsip_rank_animals", map[string]any{"breed_id": 640}).errorBody(t)
		if body.Code != toolerr.CodeInvalidArgument || body.Field != tc.field || !strings.HasPrefix(body.Problem, tc.probe) {
			t.Errorf("answer %+v: %+v, want %s: %q", tc.user.answer, body, tc.field, tc.probe)
		}
		if tc.field == "weights" && tc.user.answer.Action != mcp.ElicitationResponseActionAccept &&
			body.Next != "ask the user for weights in the conversation, or call nsip_rank_animals again with it" {
			t.Errorf("%s: next %q", tc.user.answer.Action, body.Next)
		}
	}
	if n := h.count("search/getPageOfSearchResults"); n != 0 {
		t.Errorf("%d searches made without weights", n)
	}
}

// A client that cannot be asked gets the usual error at once, with a call
// that works; so does one that can be asked when other arguments are wrong.
func TestWeightsNotAskedOfClientsThatCannot(t *testing.T) {
	inEachEra(t, weightsNotAskedOfClientsThatCannot)
}

func weightsNotAskedOfClientsThatCannot(t *testing.T, era string) {
	h, _ := rankHerd(true)
	e := herdEnv(t, h)
	body := callTool(t, askingClient(t, e, nil, era), "nsip_rank_animals", map[string]any{"breed_id": 640}).errorBody(t)
	if body.Code != toolerr.CodeInvalidArgument || body.Field != "weights" || body.Problem != "weights is required" ||
		!strings.Contains(body.Expected, `e.g. {"BWT":-0.5,"WWT":1}`) || param.JSONText(body.Example) != `{"breed_id":640,"weights":{"BWT":-0.5,"WWT":1}}` {
		t.Errorf("without elicitation: %+v", body)
	}
	u := accept(map[string]any{"WWT": 1})
	body = callTool(t, askingClient(t, e, u, era), "nsip_rank_animals", map[string]any{"breed_id": 640, "top_n": 0}).errorBody(t)
	if body.Field != "top_n" || len(body.Also) != 1 || body.Also[0].Field != "weights" {
		t.Errorf("bad top_n and no weights: %+v", body)
	}
	if len(u.asked) != 0 || h.count("search/getTraitRangesByBreed") != 0 {
		t.Errorf("asked %d times, %d range lookups", len(u.asked), h.count("search/getTraitRangesByBreed"))
	}
}

// A plan without weights asks for them over the traits the rams carry and,
// as the call left it to its default, the COI limit in the same form. The
// herd is TestPlanMatingsHandWorked's; with the user's limit of 1/8 and
// three ewes per ram, R1 may still only take E3 and E4 (his daughters are
// at 1/4), and R2 may now take his granddaughter E7 (1/8): he takes the
// best three of E1 0, E2 1, E5 5, E7 1. Lamb index = (ram + ewe WWT)/2:
// R1 3 + 3.5, R2 3.5 + 1.5 + 1.5; total 13, E1 left for lack of room. At
// the default 1/16, E7 could not be mated and R2 would take E1 instead.
func TestPlanAsksTheUserForWeightsAndCOILimit(t *testing.T) {
	inEachEra(t, planAsksTheUserForWeightsAndCOILimit)
}

func planAsksTheUserForWeightsAndCOILimit(t *testing.T, era string) {
	h := planHerd()
	h.get(lpn("R1")).ebv["BWT"] = [2]float64{0.1, 0.5} // R2 lacks it, so it is not offered
	e := herdEnv(t, h)
	call := map[string]any{
		"ram_lpn_ids": []string{lpn("R1"), lpn("R2")}, "max_ewes_per_ram": 3,
		"ewe_lpn_ids": []string{lpn("E1"), lpn("E2"), lpn("E3"), lpn("E4"), lpn("E5"), lpn("E7")},
	}
	u := accept(map[string]any{"WWT": 1, "max_coi": 0.125})
	r := callTool(t, askingClient(t, e, u, era), "nsip_plan_matings", call).mustOK(t)
	var a struct {
		ByRam      map[string][][]any  `json:"by_ram"`
		Mated      int                 `json:"mated"`
		Total      float64             `json:"total_lamb_index"`
		MaxCOI     float64             `json:"max_coi"`
		Weights    map[string]float64  `json:"weights"`
		Unassigned map[string][]string `json:"unassigned"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %s", err, r.text)
	}
	if a.Mated != 5 || a.Total != 13 || a.MaxCOI != 0.125 || param.JSONText(a.Weights) != `{"WWT":1}` {
		t.Errorf("mated %d worth %v under %v by %v; want 5 worth 13 under 0.125 by WWT 1: %s", a.Mated, a.Total, a.MaxCOI, a.Weights, r.text)
	}
	if got := param.JSONText(a.ByRam[lpn("R2")]); got != `[["640TE2",0,1.5,1.5],["640TE5",0,3.5,3.5],["640TE7",0.125,1.5,1.5]]` {
		t.Errorf("R2 gets %s", got)
	}
	if got := param.JSONText(a.ByRam[lpn("R1")]); got != `[["640TE3",0,3,3],["640TE4",0,3.5,3.5]]` {
		t.Errorf("R1 gets %s", got)
	}
	if param.JSONText(a.Unassigned) != `{"every ram within max_coi already has max_ewes_per_ram ewes":["640TE1"]}` {
		t.Errorf("unassigned %v", a.Unassigned)
	}
	f := readForm(t, u.asked[0])
	c := f.Properties["max_coi"]
	if len(f.Properties) != 2 || f.Properties["WWT"].Type != "number" || len(f.Required) != 0 ||
		c.Type != "number" || *c.Minimum != 0 || *c.Maximum != 1 || !strings.Contains(c.Description, "0.0625 (6.25%, as from first cousins) is the usual limit") {
		t.Errorf("form %+v: want optional WWT and max_coi 0..1 suggesting 0.0625", f)
	}

	// A limit the call set is not asked again; a limit left empty is the default.
	u = accept(map[string]any{"WWT": 1})
	call["max_coi"] = 0.0625
	r = callTool(t, askingClient(t, e, u, era), "nsip_plan_matings", call).mustOK(t)
	_ = json.Unmarshal([]byte(r.text), &a)
	if _, asked := readForm(t, u.asked[0]).Properties["max_coi"]; asked || a.MaxCOI != 0.0625 || a.Total != 12.5 {
		t.Errorf("max_coi set by the call: asked %v, plan under %v worth %v, want 0.0625 worth 12.5", asked, a.MaxCOI, a.Total)
	}
	delete(call, "max_coi")
	r = callTool(t, askingClient(t, e, accept(map[string]any{"WWT": 1}), era), "nsip_plan_matings", call).mustOK(t)
	_ = json.Unmarshal([]byte(r.text), &a)
	if a.MaxCOI != 0.0625 {
		t.Errorf("max_coi left empty: plan under %v, want the default 0.0625", a.MaxCOI)
	}

	for content, want := range map[string]map[string]any{
		`the user's answer: max_coi must be a fraction from 0 to 1, got 6.25`: {"WWT": 1, "max_coi": 6.25},
		`the user's answer: weights.BWT`:                                      {"BWT": 1},
	} {
		body := callTool(t, askingClient(t, e, accept(want), era), "nsip_plan_matings", call).errorBody(t)
		if body.Code != toolerr.CodeInvalidArgument || !strings.HasPrefix(body.Problem, content) {
			t.Errorf("answer %v: %+v, want %q", want, body, content)
		}
	}
	body := callTool(t, askingClient(t, e, &fakeUser{answer: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, era), "nsip_plan_matings", call).errorBody(t)
	if body.Field != "weights" || body.Problem != "weights is required; the user was asked for it and chose decline" {
		t.Errorf("declined: %+v", body)
	}
}

// A ranking run as a task (protocol 2025-11-25) asks its user while it
// runs, as a direct call does: its result is ranked by the answer.
func TestTaskAsksTheUserForWeights(t *testing.T) {
	h, _ := rankHerd(true)
	e := herdEnv(t, h)
	u := accept(map[string]any{"WWT": 1})
	session := server.NewInProcessSessionWithHandlers("form-task", nil, u, nil)
	if err := e.srv.RegisterSession(context.Background(), session); err != nil {
		t.Fatal(err)
	}
	session.SetClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}})
	session.Initialize()
	ctx := e.srv.WithContext(context.Background(), session)
	args := map[string]any{"breed_id": 640, "top_n": 3}
	created := rpc(t, e, ctx, "tools/call", map[string]any{"name": "nsip_rank_animals", "arguments": args, "task": map[string]any{}})
	id, _ := created["task"].(map[string]any)["taskId"].(string)
	res := rpc(t, e, ctx, "tasks/result", map[string]any{"taskId": id})
	content, _ := res["content"].([]any)
	if len(content) != 1 || res["isError"] == true {
		t.Fatalf("task result %v", res)
	}
	var a struct {
		Weights map[string]float64 `json:"weights"`
	}
	_ = json.Unmarshal([]byte(content[0].(map[string]any)["text"].(string)), &a)
	if len(u.asked) != 1 || param.JSONText(a.Weights) != `{"WWT":1}` {
		t.Errorf("asked %d times, ranked by %v; want once, by the user's {WWT:1}", len(u.asked), a.Weights)
	}
}
