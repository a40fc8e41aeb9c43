package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/gateway/views"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/transport/rpctest"
)

// formUser stands in for the user of a host: it answers each form the
// server puts to it from what the form offers, and records the forms.
type formUser struct {
	breed int // the breed it picks when asked for one

	mu    sync.Mutex
	forms []mcp.ElicitationParams
}

// formFields decodes a form's fields as a client reads them.
func formFields(t *testing.T, q mcp.ElicitationParams) map[string]map[string]any {
	t.Helper()
	b, err := json.Marshal(q.RequestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("form schema %s: %v", b, err)
	}
	return s.Properties
}

// Elicit answers a breed form with u.breed, and a weights form with weight
// 1 on its first trait and, when offered, a COI limit of 1/8.
func (u *formUser) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	u.mu.Lock()
	u.forms = append(u.forms, req.Params)
	u.mu.Unlock()
	b, _ := json.Marshal(req.Params.RequestedSchema)
	var s struct {
		Properties map[string]any `json:"properties"`
	}
	_ = json.Unmarshal(b, &s)
	answer := map[string]any{}
	switch {
	case s.Properties["breed_id"] != nil:
		answer["breed_id"] = strconv.Itoa(u.breed)
	default:
		var traits []string
		for name := range s.Properties {
			if name != "max_coi" {
				traits = append(traits, name)
			}
		}
		sort.Strings(traits)
		if len(traits) > 0 {
			answer[traits[0]] = 1
		}
		if s.Properties["max_coi"] != nil {
			answer["max_coi"] = 0.125
		}
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: answer}}, nil
}

func (u *formUser) asked() []mcp.ElicitationParams {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.forms)
}

// connectModern starts the binary with the given transport and connects an
// mcp-go client speaking protocol 2026-07-28 (server/discover, no
// initialize, no session) whose user is u.
func connectModern(t *testing.T, flavour string, u *formUser) (*client.Client, *mcp.InitializeResult, *nsiptest.Server, func() string) {
	t.Helper()
	var c *client.Client
	var stub *nsiptest.Server
	var logs func() string
	switch flavour {
	case "stdio":
		s := startStdioServer(t)
		c, stub, logs = s.Client, s.Stub, s.Stderr
		client.WithElicitationHandler(u)(c)
	case "streamable", "websocket":
		kind := "http-sse"
		if flavour == "websocket" {
			kind = "websocket"
		}
		srv := startServer(t, kind)
		stub, logs = srv.Stub, srv.Stderr
		var tr transport.Interface = newWSTransport(srv.BaseURL)
		if flavour == "streamable" {
			h, err := transport.NewStreamableHTTP(srv.BaseURL + "/mcp")
			if err != nil {
				t.Fatal(err)
			}
			tr = h
		}
		c = client.NewClient(tr, client.WithElicitationHandler(u))
		if err := c.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
	default:
		t.Fatalf("unknown flavour %q", flavour)
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "nsip-mcp-e2e-2026", Version: "1"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("discover: %v", err)
	}
	// mcp-go falls back to initialize when discovery fails: that would
	// test the older protocol.
	if v := c.ProtocolVersion(); v != mcp.ProtocolVersion20260728 {
		t.Fatalf("client speaks %q, want %s; server log:\n%s", v, mcp.ProtocolVersion20260728, logs())
	}
	return c, res, stub, logs
}

// withParents is an animal of the stand-in with both parents known.
func withParents(t *testing.T, d *nsiptest.Dataset) nsiptest.Animal {
	t.Helper()
	for _, id := range d.AnimalIDs() {
		if a, _ := d.Animal(id); a.Sire != "" && a.Dam != "" {
			return a
		}
	}
	t.Fatal("the stand-in dataset has no animal with both parents")
	return nsiptest.Animal{}
}

// planHerd is two rams and four ewes of one breed, for a plan.
func planHerd(t *testing.T, d *nsiptest.Dataset) (rams, ewes []string) {
	t.Helper()
	byBreed := map[int][2][]string{}
	for _, id := range d.AnimalIDs() {
		a, _ := d.Animal(id)
		if len(a.Traits) == 0 {
			continue
		}
		g := byBreed[a.BreedID]
		if a.Gender == "Male" && len(g[0]) < 2 {
			g[0] = append(g[0], id)
		} else if a.Gender == "Female" && len(g[1]) < 4 {
			g[1] = append(g[1], id)
		}
		byBreed[a.BreedID] = g
		if len(g[0]) == 2 && len(g[1]) == 4 {
			return g[0], g[1]
		}
	}
	t.Fatal("the stand-in dataset has no breed with two rams and four ewes")
	return nil, nil
}

// TestEndToEndProtocol20260728 drives every feature with a client of
// protocol 2026-07-28 over stdio, streamable HTTP and WebSocket: discovery,
// tools, resources, prompts, completions, and the three forms (the breed
// for trait ranges, the weights for a ranking, the weights and COI limit
// for a mating plan), which reach its user as input requests and come back
// with the call made again.
func TestEndToEndProtocol20260728(t *testing.T) {
	watchdog(t, testLimit)
	for _, flavour := range []string{"stdio", "streamable", "websocket"} {
		t.Run(flavour, func(t *testing.T) {
			t.Parallel()
			u := &formUser{}
			c, disc, stub, logs := connectModern(t, flavour, u)
			d := stub.Data()
			a := withParents(t, d)
			u.breed = a.BreedID
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()

			if disc.ServerInfo.Name != "nsip-mcp" || !strings.Contains(disc.Instructions, "nsip://traits") || disc.Capabilities.Tools == nil {
				t.Errorf("discover: server %+v, tools %v, instructions %.200s", disc.ServerInfo, disc.Capabilities.Tools, disc.Instructions)
			}

			names := toolNames(t, ctx, c)
			sort.Strings(names)
			if !slices.Equal(names, nineTools) {
				t.Errorf("tools/list = %v, want %v", names, nineTools)
			}
			if text := call(t, c, "nsip_get_lineage", map[string]any{"lpn_id": a.LPNID}); !strings.Contains(text, a.Sire) || !strings.Contains(text, a.Dam) {
				t.Errorf("lineage of %s lacks sire %s or dam %s: %.300s", a.LPNID, a.Sire, a.Dam, text)
			}

			f := rpctest.ListFeatures(t, ctx, c)
			if len(f.Resources.Resources) != 2+len(views.All) || len(f.Templates.ResourceTemplates) != 5 || len(f.Prompts.Prompts) != 5 {
				t.Errorf("listed %d resources, %d templates, %d prompts; want %d, 5 (the full-answer template among them), 5", len(f.Resources.Resources), len(f.Templates.ResourceTemplates), len(f.Prompts.Prompts), 2+len(views.All))
			}
			read := func(uri string) string {
				t.Helper()
				r, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
				if err != nil {
					t.Fatalf("read %s: %v", uri, err)
				}
				if len(r.Contents) != 1 {
					t.Fatalf("read %s: %d contents", uri, len(r.Contents))
				}
				tc, _ := r.Contents[0].(mcp.TextResourceContents)
				return tc.Text
			}
			if text := read("nsip://traits"); !strings.Contains(text, `"code":"BWT","name":"Birth weight","unit":"kg","direction":"lower"`) {
				t.Errorf("nsip://traits: %.200s", text)
			}
			if text := read("nsip://animals/" + a.LPNID); !strings.Contains(text, a.LPNID) || !strings.Contains(text, a.BreedName) {
				t.Errorf("animal resource lacks %s or %s: %.300s", a.LPNID, a.BreedName, text)
			}
			ranges := read(fmt.Sprintf("nsip://breeds/%d/trait-ranges", a.BreedID))

			prompt, err := c.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "explain_animal_ebvs", Arguments: map[string]string{"lpn_id": a.LPNID}}})
			if err != nil {
				t.Fatal(err)
			}
			if len(prompt.Messages) != 2 {
				t.Errorf("explain prompt has %d messages, want 2", len(prompt.Messages))
			} else if tc, _ := prompt.Messages[0].Content.(mcp.TextContent); !strings.Contains(tc.Text, a.LPNID) {
				t.Errorf("explain prompt: %+v", prompt.Messages[0])
			}
			done, err := c.Complete(ctx, mcp.CompleteRequest{Params: mcp.CompleteParams{
				Ref:      mcp.PromptReference{Type: "ref/prompt", Name: "choose_replacement_ewes"},
				Argument: mcp.CompleteArgument{Name: "trait", Value: "pw"},
			}})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(done.Completion.Values, []string{"PWWT", "PWT", "PWEC"}) {
				t.Errorf("trait completions %v", done.Completion.Values)
			}

			// The breed form: the user picks the subject's breed, and the
			// answer is that breed's ranges.
			if got := call(t, c, "nsip_get_trait_ranges", map[string]any{}); got != ranges {
				t.Errorf("trait ranges after the user chose breed %d: %.300s\nwant %.300s", a.BreedID, got, ranges)
			}
			// The weights form: the user weighs the first trait offered.
			var rank struct {
				Weights map[string]float64 `json:"weights"`
				Top     []json.RawMessage  `json:"top"`
			}
			text := call(t, c, "nsip_rank_animals", map[string]any{"breed_id": a.BreedID, "top_n": 3})
			if err := json.Unmarshal([]byte(text), &rank); err != nil || len(rank.Weights) != 1 || len(rank.Top) != 3 {
				t.Errorf("ranking by the user's weights: %v: %.400s", err, text)
			}
			// The plan's form: weights over the rams' traits and the COI limit.
			rams, ewes := planHerd(t, d)
			var plan struct {
				MaxCOI  float64            `json:"max_coi"`
				Weights map[string]float64 `json:"weights"`
			}
			text = call(t, c, "nsip_plan_matings", map[string]any{"ram_lpn_ids": rams, "ewe_lpn_ids": ewes})
			if err := json.Unmarshal([]byte(text), &plan); err != nil || plan.MaxCOI != 0.125 || len(plan.Weights) != 1 {
				t.Errorf("plan under the user's COI limit 0.125 and weights: %v: %.400s", err, text)
			}

			forms := u.asked()
			if len(forms) != 3 {
				t.Fatalf("the user was asked %d forms, want 3; server log:\n%s", len(forms), logs())
			}
			if f := formFields(t, forms[0]); len(f) != 1 || f["breed_id"] == nil || !strings.Contains(fmt.Sprint(f["breed_id"]["enumNames"]), a.BreedName) {
				t.Errorf("breed form offers %v, want a choice naming %s", f, a.BreedName)
			}
			if _, ok := formFields(t, forms[1])[firstKey(rank.Weights)]; !ok || !strings.Contains(forms[1].Message, "Rank NSIP animals") {
				t.Errorf("weights form %q lacks the trait ranked by, %v", forms[1].Message, rank.Weights)
			}
			if f := formFields(t, forms[2]); f["max_coi"] == nil || f[firstKey(plan.Weights)] == nil {
				t.Errorf("plan form %v lacks max_coi or %v", f, plan.Weights)
			}
			// Each form ended a call that the client made again with the
			// answer: none was sent as a server request, which 2026-07-28
			// does not have.
			if n := strings.Count(logs(), `"status":"input_required"`); n != 3 {
				t.Logf("server log:\n%s", logs())
				t.Errorf("%d calls ended asking the user, want 3", n)
			}
			if strings.Contains(logs(), "elicitation failed") {
				t.Errorf("an elicitation failed; server log:\n%s", logs())
			}
		})
	}
}

func firstKey(m map[string]float64) string {
	for k := range m {
		return k
	}
	return ""
}
