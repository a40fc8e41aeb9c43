package gateway

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func (e *env) getPrompt(name string, args map[string]string) (*mcp.GetPromptResult, error) {
	req := mcp.GetPromptRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return e.client.GetPrompt(context.Background(), req)
}

func TestPromptsAreListedWithTheirTools(t *testing.T) {
	e := newEnv(t)
	res, err := e.client.ListPrompts(context.Background(), mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range res.Prompts {
		names = append(names, p.Name)
		tools := promptTools(t, p)
		if len(tools) == 0 {
			t.Errorf("%s: _meta.tools missing", p.Name)
		}
		for _, tool := range tools {
			if !strings.Contains(p.Description, tool) {
				t.Errorf("%s: description %q does not name %s", p.Name, p.Description, tool)
			}
		}
	}
	want := []string{"check_planned_mating", "choose_replacement_ewes", "compare_flock_to_breed", "evaluate_ram_for_purchase", "explain_animal_ebvs"}
	if !slices.Equal(names, want) {
		t.Errorf("prompts %v, want %v", names, want)
	}
}

// Every tool a prompt names either exists here or is one of the analysis
// tools the prompt says to use only if offered.
func TestPromptsNameOnlyRealTools(t *testing.T) {
	e := newEnv(t)
	var tools []string
	for _, st := range e.gw.Tools() {
		tools = append(tools, st.Tool.Name)
	}
	res, err := e.client.ListPrompts(context.Background(), mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	// A valid value for every argument any prompt takes.
	valid := map[string]string{
		"lpn_id": "6402382024NCS310", "ram_lpn_id": "6402382024NCS310", "ewe_lpn_id": "6402382022NCS087",
		"breed_id": "640", "trait": "WWT", "flock_id": "640238", "status": "CURRENT", "goal": "heavier lambs",
	}
	for _, p := range res.Prompts {
		vals := map[string]string{}
		for _, a := range p.Arguments {
			v, ok := valid[a.Name]
			if !ok {
				t.Fatalf("%s: no valid value known for argument %s", p.Name, a.Name)
			}
			vals[a.Name] = v
		}
		got, err := e.getPrompt(p.Name, vals)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		tc, _ := mcp.AsTextContent(got.Messages[0].Content)
		text := tc.Text
		for _, tool := range promptTools(t, p) {
			if !strings.Contains(text, tool) {
				t.Errorf("%s lists %s but its text never mentions it", p.Name, tool)
			}
			if !slices.Contains(tools, tool) && !strings.Contains(text, "If "+tool+" is offered") {
				t.Errorf("%s relies on %s, which this server does not offer", p.Name, tool)
			}
		}
	}
}

func TestPromptTextCarriesTheArguments(t *testing.T) {
	e := newEnv(t)
	res, err := e.getPrompt("check_planned_mating", map[string]string{"ram_lpn_id": "6402382024NCS310", "ewe_lpn_id": " 6402382022ABC001 "})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != mcp.RoleUser {
		t.Fatalf("messages %+v", res.Messages)
	}
	text := res.Messages[0].Content.(mcp.TextContent).Text
	for _, want := range []string{"ram 6402382024NCS310 with ewe 6402382022ABC001", "nsip_get_lineage", "6.25%, the level of a first-cousin mating", "half-sibling mating gives 12.5%"} {
		if !strings.Contains(text, want) {
			t.Errorf("prompt text lacks %q:\n%s", want, text)
		}
	}

	// An optional argument left out makes the model ask instead of guess.
	res, err = e.getPrompt("choose_replacement_ewes", map[string]string{"breed_id": "640", "trait": "nlb"})
	if err != nil {
		t.Fatal(err)
	}
	text = res.Messages[0].Content.(mcp.TextContent).Text
	if !strings.Contains(text, "breed 640 from any flock") || !strings.Contains(text, "Trait to rank on: NLB.") {
		t.Errorf("replacement ewes prompt:\n%s", text)
	}
	res, err = e.getPrompt("compare_flock_to_breed", map[string]string{"breed_id": "640", "flock_id": "640238", "status": "sold"})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Messages[0].Content.(mcp.TextContent).Text; !strings.Contains(text, "flock_id 640238 and status SOLD") {
		t.Errorf("compare prompt:\n%s", text)
	}
	res, _ = e.getPrompt("evaluate_ram_for_purchase", map[string]string{"lpn_id": "6402382024NCS310"})
	if text := res.Messages[0].Content.(mcp.TextContent).Text; !strings.Contains(text, "ask me what I want him to improve") {
		t.Errorf("without a goal the prompt should ask for one:\n%s", text)
	}
}

func TestExplainPromptAttachesTheGlossary(t *testing.T) {
	e := newEnv(t)
	res, err := e.getPrompt("explain_animal_ebvs", map[string]string{"lpn_id": "6402382024NCS310"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 2 {
		t.Fatalf("%d messages, want the request and the glossary", len(res.Messages))
	}
	er, ok := res.Messages[1].Content.(mcp.EmbeddedResource)
	if !ok {
		t.Fatalf("second message is %T, want an embedded resource", res.Messages[1].Content)
	}
	tc := er.Resource.(mcp.TextResourceContents)
	if tc.URI != "nsip://traits" || !strings.Contains(tc.Text, `"code":"BWT","name":"Birth weight","unit":"kg","direction":"lower"`) {
		t.Errorf("embedded glossary %s %.200s", tc.URI, tc.Text)
	}
}

// TestPromptArgumentErrorsNameTheArgument: a prompts/get with a missing or
// bad argument is invalid params (-32602) naming the argument.
func TestPromptArgumentErrorsNameTheArgument(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		prompt string
		args   map[string]string
		want   []string
	}{
		{"evaluate_ram_for_purchase", map[string]string{}, []string{`"field":"lpn_id"`, `"problem":"lpn_id is required"`}},
		{"evaluate_ram_for_purchase", map[string]string{"lpn_id": "ab"}, []string{`"field":"lpn_id"`}},
		{"choose_replacement_ewes", map[string]string{"breed_id": "Katahdin"}, []string{`"field":"breed_id"`}},
		{"choose_replacement_ewes", map[string]string{"breed_id": "640", "trait": "XYZ"}, []string{`"field":"trait"`}},
		{"compare_flock_to_breed", map[string]string{"breed_id": "640", "flock_id": "1", "flok": "2"}, []string{`"field":"flok"`, `is not an argument of compare_flock_to_breed`}},
		{"check_planned_mating", map[string]string{}, []string{`"field":"ram_lpn_id"`, `"field":"ewe_lpn_id"`}},
		{"compare_flock_to_breed", map[string]string{"breed_id": "640", "flock_id": "64 02; drop"}, []string{`"field":"flock_id"`}},
		{"evaluate_ram_for_purchase", map[string]string{"lpn_id": "6402382024NCS310", "goal": strings.Repeat("more lambs ", 60)}, []string{`"field":"goal"`}},
		// Eight problems are bounded as a tool's are: the first five
		// listed, in name order, the rest counted.
		{"evaluate_ram_for_purchase", map[string]string{"a1": "1", "a2": "2", "a3": "3", "a4": "4", "a5": "5", "a6": "6", "a7": "7"},
			[]string{`"field":"lpn_id"`, `"field":"a4"`, `"problem":"and 3 more problems not listed"`}},
	}
	for _, tc := range cases {
		_, err := e.getPrompt(tc.prompt, tc.args)
		if err == nil {
			t.Errorf("%s %v: no error", tc.prompt, tc.args)
			continue
		}
		// Invalid params, as the protocol has it, not internal error.
		if !errors.Is(err, mcp.ErrInvalidParams) || !strings.Contains(err.Error(), "prompt '"+tc.prompt+"' refused: {\"error\":{\"code\":\"invalid_argument\",") {
			t.Errorf("%s %v: error %v, want invalid params naming the prompt and refusing its arguments", tc.prompt, tc.args, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %v: error %v lacks %s", tc.prompt, tc.args, err, w)
			}
		}
	}
}

// promptTools are the tools a listed prompt says it uses (_meta.tools).
func promptTools(t *testing.T, p mcp.Prompt) []string {
	t.Helper()
	if p.Meta == nil {
		return nil
	}
	var out []string
	switch v := p.Meta.AdditionalFields["tools"].(type) {
	case []string:
		out = v
	case []any:
		for _, x := range v {
			s, _ := x.(string)
			out = append(out, s)
		}
	}
	return out
}
