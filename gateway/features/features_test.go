package features

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
	"github.com/nsip-tools/nsip-mcp/transport/rpctest"
)

// fakeTools is the gateway as the features see it: tools answer with what
// a test sets, and every call is recorded with its arguments.
type fakeTools struct {
	answers map[string]*mcp.CallToolResult
	calls   []call
	missing map[string]bool // tools this server does not offer
	seen    []string
}

type call struct {
	tool string
	args param.Sent
}

func (f *fakeTools) Call(_ context.Context, tool string, args param.Sent) *mcp.CallToolResult {
	f.calls = append(f.calls, call{tool, args})
	if res, ok := f.answers[tool]; ok {
		return res
	}
	return mcp.NewToolResultText(`{"tool":"` + tool + `"}`)
}

func (f *fakeTools) Params(tool string) []param.Spec {
	switch tool {
	case toolname.GetAnimal:
		return []param.Spec{{Name: "search_string", Kind: param.String, Complete: param.LPNs}}
	case toolname.GetProgeny:
		return []param.Spec{nsiparg.LPN(""), {Name: "page", Kind: param.Integer}, {Name: "page_size", Kind: param.Integer}, {Name: "skip", Kind: param.Integer}}
	case toolname.GetTraitRanges:
		return []param.Spec{nsiparg.BreedID}
	}
	return []param.Spec{nsiparg.LPN("")}
}

func (f *fakeTools) Breeds(context.Context) (*nsip.BreedGroups, bool) {
	return &nsip.BreedGroups{Groups: []nsip.BreedGroup{
		{ID: 64, Name: "Hair", Breeds: []nsip.Breed{{ID: 640, Name: "Katahdin"}, {ID: 641, Name: "St. Croix"}, {ID: 642, Name: "Dorper"}}},
		{ID: 69, Name: "Terminal", Breeds: []nsip.Breed{{ID: 690, Name: "Suffolk"}}},
	}}, true
}

func (f *fakeTools) Statuses(context.Context) ([]string, bool) {
	return []string{"CURRENT", "SOLD", "DEAD", "CULL"}, true
}

func (f *fakeTools) SeenLPNs(context.Context) []string { return f.seen }

func (f *fakeTools) InvalidArgs(name string, errs []param.FieldError) string {
	b, _ := json.Marshal(map[string]any{"tool": name, "errors": errs})
	return string(b)
}

func (f *fakeTools) Offers(tool string) bool { return !f.missing[tool] }

func TestCompletionsOfferWhatFitsTheArgument(t *testing.T) {
	ft := &fakeTools{seen: []string{"6402382024NCS310", "6401492020FLE249", "6402382023NCS101"}}
	c := completer{New(ft)}
	ctx := context.Background()
	tests := []struct {
		name  string
		run   func() *mcp.Completion
		want  []string
		total int
	}{
		{"breed by ID prefix", func() *mcp.Completion {
			r, _ := c.CompleteResourceArgument(ctx, uriTraitRanges, mcp.CompleteArgument{Name: "breed_id", Value: "64"}, mcp.CompleteContext{})
			return r
		}, []string{"640", "641", "642"}, 0},
		{"breed by name", func() *mcp.Completion {
			r, _ := c.CompleteResourceArgument(ctx, uriTraitRanges, mcp.CompleteArgument{Name: "breed_id", Value: "kat"}, mcp.CompleteContext{})
			return r
		}, []string{"640"}, 0},
		{"LPN IDs met, through the template's own variable name", func() *mcp.Completion {
			r, _ := c.CompleteResourceArgument(ctx, uriAnimal, mcp.CompleteArgument{Name: "lpn_id", Value: "640238"}, mcp.CompleteContext{})
			return r
		}, []string{"6402382024NCS310", "6402382023NCS101"}, 0},
		{"a prompt's trait", func() *mcp.Completion {
			r, _ := c.CompletePromptArgument(ctx, "choose_replacement_ewes", mcp.CompleteArgument{Name: "trait", Value: "ww"}, mcp.CompleteContext{})
			return r
		}, []string{"WWT"}, 0},
		{"a prompt's breed", func() *mcp.Completion {
			r, _ := c.CompletePromptArgument(ctx, "choose_replacement_ewes", mcp.CompleteArgument{Name: "breed_id", Value: "69"}, mcp.CompleteContext{})
			return r
		}, []string{"690"}, 0},
		{"an argument that offers nothing", func() *mcp.Completion {
			r, _ := c.CompletePromptArgument(ctx, "evaluate_ram_for_purchase", mcp.CompleteArgument{Name: "goal", Value: "he"}, mcp.CompleteContext{})
			return r
		}, []string{}, 0},
		{"a prompt that does not exist", func() *mcp.Completion {
			r, _ := c.CompletePromptArgument(ctx, "no_such_prompt", mcp.CompleteArgument{Name: "trait", Value: ""}, mcp.CompleteContext{})
			return r
		}, []string{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.run()
			if got == nil || !slices.Equal(got.Values, tt.want) || got.Total != tt.total {
				t.Errorf("completion %+v, want values %v", got, tt.want)
			}
		})
	}
}

func TestStatusCompletionsAndTheHundredValueCap(t *testing.T) {
	f := New(&fakeTools{})
	st := param.Spec{Complete: param.Statuses}
	// NSIP's statuses first, then the words read as statuses that are
	// not one of them.
	if got := f.complete(context.Background(), &st, "c"); !slices.Equal(got.Values, []string{"CURRENT", "CULL", "culled", "commercial"}) {
		t.Errorf("statuses starting with c: %v", got.Values)
	}
	if got := f.complete(context.Background(), &st, "Li"); !slices.Equal(got.Values, []string{"living"}) {
		t.Errorf("statuses starting with Li: %v, want the word living", got.Values)
	}
	many := make([]string, 150)
	for i := range many {
		many[i] = "6400000000ABC" + strings.Repeat("0", 3-len(itoa(i))) + itoa(i)
	}
	f = New(&fakeTools{seen: many})
	lp := param.Spec{Complete: param.LPNs}
	got := f.complete(context.Background(), &lp, "64")
	if len(got.Values) != maxCompletions || got.Total != 150 || !got.HasMore {
		t.Errorf("150 matches: %d values, total %d, hasMore %v; want %d, 150, true", len(got.Values), got.Total, got.HasMore, maxCompletions)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestResourceReadsRunTheToolBehindThem(t *testing.T) {
	ft := &fakeTools{answers: map[string]*mcp.CallToolResult{}}
	ok := mcp.NewToolResultText(`{"lpnId":"6402382024NCS310"}`)
	ok.Meta = &mcp.Meta{AdditionalFields: map[string]any{"tokens": 9, "summarized": false}}
	ft.answers[toolname.GetAnimal] = ok
	f := New(ft)
	templates := map[string]*resourceDef{}
	for _, d := range resourceDefs {
		templates[d.name] = d
	}

	got, err := f.readResource(context.Background(), templates["animal"], "nsip://animals/6402382024NCS310", map[string]any{"lpn_id": []string{"6402382024NCS310"}})
	if err != nil {
		t.Fatal(err)
	}
	c := got[0].(mcp.TextResourceContents)
	if c.Text != `{"lpnId":"6402382024NCS310"}` || c.MIMEType != jsonMIME || c.Meta["tokens"] != 9 {
		t.Errorf("animal resource: %+v", c)
	}
	if last := ft.calls[len(ft.calls)-1]; last.tool != toolname.GetAnimal || first(last.args.Value("search_string")) != "6402382024NCS310" {
		t.Errorf("the read called %s with %v; want nsip_get_animal with search_string", last.tool, last.args)
	}

	// Query variables become the tool's typed arguments; those left out
	// are not sent, so the tool's defaults apply.
	_, err = f.readResource(context.Background(), templates["progeny"], "nsip://animals/X/progeny?page=2",
		map[string]any{"lpn_id": []string{"6402382024NCS310"}, "page": []string{"2"}, "page_size": ""})
	if err != nil {
		t.Fatal(err)
	}
	last := ft.calls[len(ft.calls)-1]
	if last.tool != toolname.GetProgeny || first(last.args.Value("page")) != json.Number("2") || first(last.args.Value("lpn_id")) != "6402382024NCS310" {
		t.Errorf("progeny read called %s with %#v", last.tool, last.args)
	}
	if _, sent := last.args.Value("page_size"); sent {
		t.Errorf("an empty page_size was sent: %v", last.args)
	}

	// The glossary is the server's own, read without a tool.
	before := len(ft.calls)
	got, err = f.readResource(context.Background(), templates["traits"], uriTraits, nil)
	if err != nil || len(ft.calls) != before || !strings.Contains(got[0].(mcp.TextResourceContents).Text, `"WWT"`) {
		t.Errorf("glossary: %v, %d tool calls", err, len(ft.calls)-before)
	}

	// A tool's error is the read's error, with the same body.
	ft.answers[toolname.GetLineage] = mcp.NewToolResultError(`{"error":{"code":"not_found"}}`)
	_, err = f.readResource(context.Background(), templates["lineage"], "nsip://animals/X/lineage", map[string]any{"lpn_id": []string{"X"}})
	var re *ResourceError
	if !errors.As(err, &re) || re.Body != `{"error":{"code":"not_found"}}` {
		t.Errorf("lineage error: %v", err)
	}
}

func TestTemplatesRefuseAQueryTheyCannotTake(t *testing.T) {
	byName := map[string]*resourceDef{}
	for _, d := range resourceDefs {
		byName[d.name] = d
	}
	tests := []struct {
		def, uri, field, problem string
	}{
		{"progeny", "nsip://animals/X/progeny?page=1&size=5", "size", `unknown query parameter "size"`},
		{"progeny", "nsip://animals/X/progeny?page=1&page=2", "page", "given 2 times"},
		{"lineage", "nsip://animals/X/lineage?depth=3", "depth", "takes no query"},
		{"progeny", "nsip://animals/X/progeny?page=%zz", "", "not valid"},
	}
	for _, tt := range tests {
		err := checkQuery(byName[tt.def], tt.uri)
		var re *ResourceError
		if !errors.As(err, &re) {
			t.Errorf("%s: %v, want a ResourceError", tt.uri, err)
			continue
		}
		var body struct {
			Error struct{ Code, Field, Problem string } `json:"error"`
		}
		if json.Unmarshal([]byte(re.Body), &body) != nil || body.Error.Code != "invalid_argument" || body.Error.Field != tt.field || !strings.Contains(body.Error.Problem, tt.problem) {
			t.Errorf("%s: %s, want field %q and a problem with %q", tt.uri, re.Body, tt.field, tt.problem)
		}
	}
	if err := checkQuery(byName["progeny"], "nsip://animals/X/progeny?page=1&page_size=5&skip=2"); err != nil {
		t.Errorf("a query the template takes was refused: %v", err)
	}
}

func TestResourcesAndTemplatesAreListedOnce(t *testing.T) {
	f := New(&fakeTools{})
	var fixed, templ []string
	for _, r := range f.Resources() {
		fixed = append(fixed, r.Resource.URI)
	}
	for _, r := range f.ResourceTemplates() {
		templ = append(templ, r.Template.URITemplate.Raw())
	}
	if !slices.Equal(fixed, []string{uriBreeds, uriTraits}) || !slices.Equal(templ, []string{uriTraitRanges, uriAnimal, uriLineage, uriProgeny}) {
		t.Errorf("resources %v, templates %v", fixed, templ)
	}
}

func TestResourceLinksPointAtWhatTheSummaryLeftOut(t *testing.T) {
	tests := []struct {
		text string
		want string // "" for no link
	}{
		{`{"summary":true,"next":{"tool":"nsip_get_lineage","arguments":{"lpn_id":"6402382024NCS310"}}}`, "nsip://animals/6402382024NCS310/lineage"},
		{`{"summary":true,"next":{"tool":"nsip_get_progeny","arguments":{"lpn_id":"6402382024NCS310","page":1,"page_size":5,"skip":2}}}`, "nsip://animals/6402382024NCS310/progeny?page=1&page_size=5&skip=2"},
		{`{"summary":true,"next":{"tool":"nsip_get_progeny","arguments":{"lpn_id":"6402382024NCS310","page":1}}}`, ""},
		{`{"summary":true,"next":{"tool":"nsip_search_animals","arguments":{"lpn_id":"6402382024NCS310"}}}`, ""},
		{`{"summary":true,"next":{"tool":"nsip_get_lineage","arguments":{"lpn_id":"../../etc"}}}`, ""},
		{`{"summary":true}`, ""},
	}
	for _, tt := range tests {
		links := ResourceLinks(summarize.Result{Text: tt.text, Summarized: true})
		got := ""
		if len(links) == 1 {
			got = links[0].(mcp.ResourceLink).URI
		}
		if got != tt.want {
			t.Errorf("%s: link %q, want %q", tt.text, got, tt.want)
		}
	}
	if ResourceLinks(summarize.Result{Text: tests[0].text}) != nil {
		t.Error("an answer passed through got a link")
	}
}

func TestPromptsNameOnlyTheToolsOffered(t *testing.T) {
	all := New(&fakeTools{}).PromptNames()
	if len(all) != len(promptDefs) {
		t.Fatalf("with every tool offered: %v, want all %d prompts", all, len(promptDefs))
	}
	ft := &fakeTools{missing: map[string]bool{"nsip_check_mating": true}}
	f := New(ft)
	for _, p := range f.Prompts() {
		uses := p.Prompt.Meta.AdditionalFields["tools"].([]string)
		if slices.Contains(uses, "nsip_check_mating") || strings.Contains(p.Prompt.Description, "nsip_check_mating") {
			t.Errorf("%s names nsip_check_mating, which is not offered", p.Prompt.Name)
		}
	}
	if !slices.Contains(f.PromptNames(), "check_planned_mating") {
		t.Error("check_planned_mating, which can do without nsip_check_mating, was left out")
	}
	if slices.Contains(New(&fakeTools{missing: map[string]bool{"nsip_get_lineage": true}}).PromptNames(), "check_planned_mating") {
		t.Error("check_planned_mating is offered without nsip_get_lineage, which it needs")
	}
}

// The instructions' note names the resources and the prompts offered,
// and no prompt when none is.
func TestNoteNamesResourcesAndPrompts(t *testing.T) {
	note := New(&fakeTools{}).Note()
	if !strings.Contains(note, "nsip://traits") || !strings.Contains(note, "Prompts start breeder workflows: ") || !strings.Contains(note, "check_planned_mating") {
		t.Errorf("note %q", note)
	}
	none := map[string]bool{}
	for _, name := range []string{"nsip_get_animal", "nsip_get_lineage", "nsip_search_animals", "nsip_get_progeny", "nsip_check_mating",
		"nsip_compare_animals", "nsip_rank_animals", "nsip_flock_summary", "nsip_plan_matings", "nsip_search_by_lpn", "nsip_get_trait_ranges", "nsip_list_breeds"} {
		none[name] = true
	}
	if note := New(&fakeTools{missing: none}).Note(); strings.Contains(note, "Prompts") || !strings.Contains(note, "Resources:") {
		t.Errorf("with no prompt offered: %q", note)
	}
}

func TestPromptsValidateTheirArguments(t *testing.T) {
	f := New(&fakeTools{})
	get := func(name string, args map[string]string) (*mcp.GetPromptResult, error) {
		d := promptByName(name)
		req := mcp.GetPromptRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		return f.promptHandler(d)(context.Background(), req)
	}
	res, err := get("choose_replacement_ewes", map[string]string{"breed_id": " 640 ", "trait": "nlb"})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Messages[0].Content.(mcp.TextContent).Text
	if !strings.Contains(text, "640") || !strings.Contains(text, "NLB") {
		t.Errorf("the request does not carry the normalised arguments: %s", text)
	}
	if len(res.Messages) != 1 {
		t.Errorf("%d messages; this prompt attaches no glossary", len(res.Messages))
	}
	res, err = get("explain_animal_ebvs", map[string]string{"lpn_id": "6402382024ncs310"})
	if err != nil || len(res.Messages) != 2 || !strings.Contains(res.Messages[0].Content.(mcp.TextContent).Text, "6402382024NCS310") {
		t.Fatalf("explain_animal_ebvs: %v, %+v", err, res)
	}
	if g := res.Messages[1].Content.(mcp.EmbeddedResource).Resource.(mcp.TextResourceContents); g.URI != uriTraits || !strings.Contains(g.Text, `"WWT"`) {
		t.Errorf("the glossary attached is %s", g.URI)
	}
	_, err = get("choose_replacement_ewes", map[string]string{"trait": "WWT", "colour": "red"})
	var pe *PromptError
	if !errors.As(err, &pe) || !strings.Contains(pe.Body, `"breed_id"`) || !strings.Contains(pe.Body, `"colour"`) {
		t.Errorf("missing breed_id and an unknown argument: %v", err)
	}
	// Unknown names are judged in name order, so that the few an error
	// lists are the same on every call.
	many := map[string]string{"trait": "WWT", "breed_id": "640"}
	for _, n := range []string{"g", "c", "f", "a", "e", "b", "d"} {
		many[n] = "x"
	}
	for range 5 {
		_, err = get("choose_replacement_ewes", many)
		var body struct {
			Errors []param.FieldError `json:"errors"`
		}
		if !errors.As(err, &pe) || json.Unmarshal([]byte(pe.Body), &body) != nil || len(body.Errors) != 7 {
			t.Fatalf("seven unknown names: %v", err)
		}
		for i, fe := range body.Errors {
			if want := string(rune('a' + i)); fe.Field != want {
				t.Fatalf("problem %d names %q, want %q: the names are judged in name order", i, fe.Field, want)
			}
		}
	}
}

// TestThroughMCP registers the features on an MCP server and uses them as a
// client does: a template read (its query checked first), a prompt, and a
// completion.
func TestThroughMCP(t *testing.T) {
	ft := &fakeTools{answers: map[string]*mcp.CallToolResult{toolname.GetLineage: mcp.NewToolResultText(`{"lpnId":"6402382024NCS310"}`)}}
	f := New(ft)
	hooks := &server.Hooks{}
	f.AddHooks(hooks)
	s := server.NewMCPServer("features-test", "0", append(f.Options(), server.WithHooks(hooks))...)
	f.Register(s)
	c, _ := rpctest.Connect(t, s, "")
	ctx := t.Context()

	read := mcp.ReadResourceRequest{}
	read.Params.URI = "nsip://animals/6402382024NCS310/lineage"
	res, err := c.ReadResource(ctx, read)
	if err != nil || res.Contents[0].(mcp.TextResourceContents).Text != `{"lpnId":"6402382024NCS310"}` {
		t.Fatalf("lineage read: %v %+v", err, res)
	}
	read.Params.URI = "nsip://animals/6402382024NCS310/progeny?size=5"
	if _, err := c.ReadResource(ctx, read); err == nil || !strings.Contains(err.Error(), `unknown query parameter \"size\"`) {
		t.Errorf("a query the template cannot take: %v", err)
	}
	read.Params.URI = uriBreeds
	if res, err := c.ReadResource(ctx, read); err != nil || res.Contents[0].(mcp.TextResourceContents).Text != `{"tool":"nsip_list_breeds"}` {
		t.Errorf("breeds read: %v %+v", err, res)
	}

	get := mcp.GetPromptRequest{}
	get.Params.Name, get.Params.Arguments = "check_planned_mating", map[string]string{"ram_lpn_id": "6402382024NCS310", "ewe_lpn_id": "6401492020FLE249"}
	pr, err := c.GetPrompt(ctx, get)
	if err != nil || !strings.Contains(pr.Messages[0].Content.(mcp.TextContent).Text, "6401492020FLE249") {
		t.Errorf("prompt: %v %+v", err, pr)
	}

	// An argument the prompt cannot use is invalid params, naming it.
	get.Params.Arguments = map[string]string{"ram_lpn_id": "6402382024NCS310"}
	_, err = c.GetPrompt(ctx, get)
	if !errors.Is(err, mcp.ErrInvalidParams) || !strings.Contains(err.Error(), "prompt 'check_planned_mating' refused: ") || !strings.Contains(err.Error(), `ewe_lpn_id`) {
		t.Errorf("a prompt without its ewe: %v; want invalid params naming ewe_lpn_id", err)
	}

	comp := mcp.CompleteRequest{}
	comp.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: "choose_replacement_ewes"}
	comp.Params.Argument.Name, comp.Params.Argument.Value = "breed_id", "Dor"
	cr, err := c.Complete(ctx, comp)
	if err != nil || !slices.Equal(cr.Completion.Values, []string{"642"}) {
		t.Errorf("completion of Dor: %v %+v", err, cr)
	}
}

// first is the value of a (value, ok) pair.
func first(v any, _ bool) any { return v }
