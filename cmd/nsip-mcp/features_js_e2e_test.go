//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/views"
)

// featuresReport is what features.mjs prints.
type featuresReport struct {
	Server *struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		WebsiteURL  string `json:"websiteUrl"`
	} `json:"server"`
	Instructions string `json:"instructions"`
	Steps        []struct {
		Op        string          `json:"op"`
		Result    json.RawMessage `json:"result"`
		Exception string          `json:"exception"`
	} `json:"steps"`
	ServerRequests []struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	} `json:"serverRequests"`
	TransportErrors []string `json:"transportErrors"`
	Fatal           string   `json:"fatal"`
}

// TestTypeScriptSDKResourcesPromptsCompletions drives the binary with the
// official TypeScript SDK over each transport: it lists and reads resources
// and templates, completes arguments, gets a prompt, and answers the
// question the server asks when a tool lacks the user's choice.
func TestTypeScriptSDKResourcesPromptsCompletions(t *testing.T) {
	watchdog(t, testLimit)
	node := needNode(t)
	for _, tc := range sdkTransports {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := startSDKServer(t, tc.transport, tc.path)
			stub, target, env, serverLog := srv.stub, srv.target, srv.env, srv.serverLog
			d := stub.Data()
			a := jsSubject(t, d)
			kids := d.Progeny(a.LPNID)
			breed := strconv.Itoa(a.BreedID)
			plan, _ := json.Marshal([]map[string]any{
				{"op": "listResources"},
				{"op": "listTemplates"},
				{"op": "listPrompts"},
				{"op": "read", "uri": "nsip://traits"},
				{"op": "read", "uri": "nsip://animals/" + a.LPNID},
				{"op": "read", "uri": "nsip://animals/" + a.LPNID + "/progeny?page=0&page_size=2"},
				{"op": "read", "uri": "nsip://breeds/" + breed + "/trait-ranges"},
				{"op": "call", "name": "nsip_get_lineage", "arguments": map[string]any{"lpn_id": a.LPNID}},
				{"op": "complete", "ref": map[string]any{"type": "ref/resource", "uri": "nsip://animals/{lpn_id}"},
					"argument": map[string]any{"name": "lpn_id", "value": strings.ToLower(a.Sire[:3])}},
				{"op": "complete", "ref": map[string]any{"type": "ref/prompt", "name": "choose_replacement_ewes"},
					"argument": map[string]any{"name": "trait", "value": "pw"}},
				{"op": "getPrompt", "name": "explain_animal_ebvs", "arguments": map[string]any{"lpn_id": a.LPNID}},
				{"op": "call", "name": "nsip_get_trait_ranges", "arguments": map[string]any{}},
			})
			answers := fmt.Sprintf(`{"elicit":{"action":"accept","content":{"breed_id":%q}}}`, breed)
			args := append([]string{"features.mjs", "--answers", answers, tc.name}, target...)
			var rep featuresReport
			runNode(t, node, env, &rep, serverLog, append(args, string(plan))...)
			if rep.Fatal != "" || len(rep.TransportErrors) > 0 {
				t.Fatalf("client failed: %s %v\nserver log:\n%s", rep.Fatal, rep.TransportErrors, serverLog())
			}
			if len(rep.Steps) != 12 {
				t.Fatalf("%d steps reported, want 12", len(rep.Steps))
			}
			for i, s := range rep.Steps {
				if s.Exception != "" {
					t.Errorf("step %d %s threw: %s", i, s.Op, s.Exception)
				}
			}
			if rep.Server == nil || rep.Server.WebsiteURL == "" || rep.Server.Description == "" || !strings.Contains(rep.Instructions, "nsip://traits") {
				t.Errorf("initialize: server %+v, instructions %.200s", rep.Server, rep.Instructions)
			}
			step := func(i int, v any) {
				t.Helper()
				if err := json.Unmarshal(rep.Steps[i].Result, v); err != nil {
					t.Fatalf("step %d %s: %v: %s", i, rep.Steps[i].Op, err, rep.Steps[i].Result)
				}
			}
			var resources struct{ Resources []struct{ URI string } }
			step(0, &resources)
			var templates struct {
				ResourceTemplates []struct{ URITemplate string }
			}
			step(1, &templates)
			var prompts struct{ Prompts []struct{ Name string } }
			step(2, &prompts)
			if len(resources.Resources) != 2+len(views.All) || len(templates.ResourceTemplates) != 5 || len(prompts.Prompts) != 5 {
				t.Errorf("listed %d resources, %d templates, %d prompts; want %d, 5 (the full-answer template among them), 5", len(resources.Resources), len(templates.ResourceTemplates), len(prompts.Prompts), 2+len(views.All))
			}
			read := func(i int) string {
				var r struct {
					Contents []struct{ URI, MimeType, Text string }
				}
				step(i, &r)
				if len(r.Contents) != 1 || r.Contents[0].MimeType != "application/json" {
					t.Fatalf("step %d: contents %+v", i, r.Contents)
				}
				return r.Contents[0].Text
			}
			if text := read(3); !strings.Contains(text, `"code":"BWT","name":"Birth weight","unit":"kg","direction":"lower"`) {
				t.Errorf("nsip://traits: %.200s", text)
			}
			if text := read(4); !strings.Contains(text, a.LPNID) || !strings.Contains(text, a.BreedName) {
				t.Errorf("animal resource lacks %s or %s: %.300s", a.LPNID, a.BreedName, text)
			}
			progeny := read(5)
			for _, k := range kids[:2] {
				if !strings.Contains(progeny, k) {
					t.Errorf("progeny page 0 of 2 lacks %s: %.300s", k, progeny)
				}
			}
			ranges := read(6)
			for code := range must(d.TraitRanges(a.BreedID)) {
				if !strings.Contains(ranges, code) {
					t.Errorf("trait ranges lack %s: %.300s", code, ranges)
				}
			}
			var lpns, traits struct{ Completion struct{ Values []string } }
			step(8, &lpns)
			if !slices.Contains(lpns.Completion.Values, a.Sire) {
				t.Errorf("LPN completions %v lack the sire %s met in the pedigree", lpns.Completion.Values, a.Sire)
			}
			step(9, &traits)
			if !slices.Equal(traits.Completion.Values, []string{"PWWT", "PWT", "PWEC"}) {
				t.Errorf("trait completions %v", traits.Completion.Values)
			}
			var prompt struct {
				Messages []struct {
					Content struct {
						Type     string
						Text     string
						Resource struct{ URI string }
					}
				}
			}
			step(10, &prompt)
			if len(prompt.Messages) != 2 || !strings.Contains(prompt.Messages[0].Content.Text, a.LPNID) ||
				prompt.Messages[1].Content.Resource.URI != "nsip://traits" {
				t.Errorf("explain prompt: %+v", prompt)
			}
			var call struct {
				IsError bool
				Content []struct{ Text string }
			}
			step(11, &call)
			if tc.name == "sse" {
				// mcp-go cannot send requests over legacy SSE: the usual error.
				if !call.IsError || !strings.Contains(call.Content[0].Text, `"problem":"breed_id is required"`) || len(rep.ServerRequests) != 0 {
					t.Errorf("over SSE: %+v, %d server requests", call, len(rep.ServerRequests))
				}
				return
			}
			if len(rep.ServerRequests) != 1 || rep.ServerRequests[0].Method != "elicitation/create" ||
				!strings.Contains(string(rep.ServerRequests[0].Params), a.BreedName) {
				t.Fatalf("server requests %+v, want one question offering %s", rep.ServerRequests, a.BreedName)
			}
			if call.IsError || len(call.Content) != 1 || call.Content[0].Text != ranges {
				t.Errorf("trait ranges after the user chose breed %s: %+v\nwant %.200s", breed, call, ranges)
			}
		})
	}
}

func must[T any](v T, ok bool) T {
	if !ok {
		panic("missing test data")
	}
	return v
}
