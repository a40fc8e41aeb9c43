//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// formTrait is a trait the forms of a ranking over breed and of a plan for
// rams both offer: documented, in the breed's ranges and carried by every
// ram.
func formTrait(t *testing.T, d *nsiptest.Dataset, breed int, rams []string) string {
	t.Helper()
	ranges, _ := d.TraitRanges(breed)
	for _, info := range nsip.Glossary() {
		if _, ok := ranges[info.Code]; !ok || info.Direction == "" {
			continue
		}
		carried := true
		for _, id := range rams {
			a, _ := d.Animal(id)
			carried = carried && slices.ContainsFunc(a.Traits, func(tr nsiptest.Trait) bool { return tr.Code == info.Code })
		}
		if carried {
			return info.Code
		}
	}
	t.Fatalf("breed %d has no documented trait every ram of %v carries", breed, rams)
	return ""
}

// TestTypeScriptSDKAnswersEveryForm has the official TypeScript SDK
// (protocol 2025-11-25, with an elicitation handler) answer each form the
// server asks: the breed for trait ranges, the weights for a ranking, and
// the weights and COI limit for a mating plan. The SDK checks each
// elicitation/create against its own schema before its handler sees it,
// and refuses one it does not accept, so a form it cannot read fails here.
func TestTypeScriptSDKAnswersEveryForm(t *testing.T) {
	watchdog(t, testLimit)
	node := needNode(t)
	for _, tc := range sdkTransports {
		if tc.name == "sse" {
			// Legacy SSE (deprecated) carries no server requests: the
			// features test checks that it gets the usual error.
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := startSDKServer(t, tc.transport, tc.path)
			d := srv.stub.Data()
			rams, ewes := planHerd(t, d)
			ram, _ := d.Animal(rams[0])
			breed := ram.BreedID
			trait := formTrait(t, d, breed, rams)
			plan, _ := json.Marshal([]map[string]any{
				{"op": "call", "name": "nsip_get_trait_ranges", "arguments": map[string]any{}},
				{"op": "call", "name": "nsip_rank_animals", "arguments": map[string]any{"breed_id": breed, "top_n": 3}},
				{"op": "call", "name": "nsip_plan_matings", "arguments": map[string]any{"ram_lpn_ids": rams, "ewe_lpn_ids": ewes}},
				{"op": "read", "uri": fmt.Sprintf("nsip://breeds/%d/trait-ranges", breed)},
			})
			answers, _ := json.Marshal(map[string]any{"elicit": []map[string]any{
				{"action": "accept", "content": map[string]any{"breed_id": strconv.Itoa(breed)}},
				{"action": "accept", "content": map[string]any{trait: 1}},
				{"action": "accept", "content": map[string]any{trait: 2, "max_coi": 0.125}},
			}})
			args := append([]string{"features.mjs", "--answers", string(answers), tc.name}, srv.target...)
			var rep featuresReport
			runNode(t, node, srv.env, &rep, srv.serverLog, append(args, string(plan))...)
			if rep.Fatal != "" || len(rep.TransportErrors) > 0 {
				t.Fatalf("client failed: %s %v\nserver log:\n%s", rep.Fatal, rep.TransportErrors, srv.serverLog())
			}
			if len(rep.Steps) != 4 {
				t.Fatalf("%d steps reported, want 4", len(rep.Steps))
			}
			texts := make([]string, 3)
			for i, s := range rep.Steps[:3] {
				var call struct {
					IsError bool
					Content []struct{ Text string }
				}
				if s.Exception != "" {
					t.Fatalf("step %d threw: %s\nserver log:\n%s", i, s.Exception, srv.serverLog())
				}
				if err := json.Unmarshal(s.Result, &call); err != nil || call.IsError || len(call.Content) != 1 {
					t.Fatalf("step %d: %v: %s\nserver log:\n%s", i, err, s.Result, srv.serverLog())
				}
				texts[i] = call.Content[0].Text
			}
			// Every form reached the handler: none was refused by the SDK.
			if len(rep.ServerRequests) != 3 {
				t.Fatalf("the user was asked %d forms, want 3: %+v\nserver log:\n%s", len(rep.ServerRequests), rep.ServerRequests, srv.serverLog())
			}
			var read struct{ Contents []struct{ Text string } }
			if err := json.Unmarshal(rep.Steps[3].Result, &read); err != nil || len(read.Contents) != 1 {
				t.Fatalf("trait ranges resource: %v: %s", err, rep.Steps[3].Result)
			}
			if texts[0] != read.Contents[0].Text {
				t.Errorf("trait ranges after the user chose breed %d: %.200s\nwant %.200s", breed, texts[0], read.Contents[0].Text)
			}
			var rank struct {
				Weights map[string]float64 `json:"weights"`
				Top     []json.RawMessage  `json:"top"`
			}
			if err := json.Unmarshal([]byte(texts[1]), &rank); err != nil || len(rank.Top) != 3 || rank.Weights[trait] != 1 || len(rank.Weights) != 1 {
				t.Errorf("ranking by the user's %s 1: %v: %.300s", trait, err, texts[1])
			}
			var mated struct {
				MaxCOI  float64            `json:"max_coi"`
				Weights map[string]float64 `json:"weights"`
			}
			if err := json.Unmarshal([]byte(texts[2]), &mated); err != nil || mated.MaxCOI != 0.125 || mated.Weights[trait] != 2 || len(mated.Weights) != 1 {
				t.Errorf("plan by the user's %s 2 under 0.125: %v: %.300s", trait, err, texts[2])
			}
			for i, want := range []string{`"breed_id"`, `"` + trait + `"`, `"max_coi"`} {
				if p := string(rep.ServerRequests[i].Params); !strings.Contains(p, want) || strings.Contains(p, "null") {
					t.Errorf("form %d lacks %s or holds a null: %s", i, want, p)
				}
			}
		})
	}
}
