package gateway

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// deepKatahdins lists the stand-in's first nRams rams and nEwes ewes of
// breed 640 whose pedigrees are at least depth generations deep.
func deepKatahdins(tb testing.TB, d *nsiptest.Dataset, depth, nRams, nEwes int) (rams, ewes []string) {
	tb.Helper()
	for _, id := range d.AnimalIDs() {
		a, _ := d.Animal(id)
		if a.BreedID != 640 || d.PedigreeDepth(id) < depth {
			continue
		}
		if a.Gender == "Male" && len(rams) < nRams {
			rams = append(rams, id)
		} else if a.Gender == "Female" && len(ewes) < nEwes {
			ewes = append(ewes, id)
		}
	}
	if len(rams) < nRams || len(ewes) < nEwes {
		tb.Fatalf("stand-in has %d rams and %d ewes with pedigrees %d generations deep, want %d and %d", len(rams), len(ewes), depth, nRams, nEwes)
	}
	return rams, ewes
}

// analysisCases picks each analysis's arguments from the stand-in's data:
// Katahdins with deep pedigrees as rams and ewes, the flock of one.
func analysisCases(b *testing.B, d *nsiptest.Dataset) map[string]map[string]any {
	rams, ewes := deepKatahdins(b, d, 3, 3, 20)
	first, _ := d.Animal(ewes[0])
	w := map[string]any{"WWT": 1, "BWT": -0.5}
	return map[string]map[string]any{
		"nsip_check_mating":    {"sire_lpn_id": rams[0], "dam_lpn_id": ewes[0]},
		"nsip_compare_animals": {"lpn_ids": append(slices.Clone(rams), ewes[:2]...)},
		"nsip_rank_animals":    {"breed_id": 640, "weights": w, "top_n": 10},
		"nsip_flock_summary":   {"flock_id": first.FlockCode},
		"nsip_plan_matings":    {"ram_lpn_ids": rams, "ewe_lpn_ids": ewes, "weights": w},
	}
}

// BenchmarkAnalysis runs each analysis on an empty cache (a new gateway per
// iteration) and again on a warm one, against the stand-in on loopback
// (seed 7, 1500 animals, lineages six generations deep), reporting the
// NSIP requests and answer tokens per call besides the time.
func BenchmarkAnalysis(b *testing.B) {
	up := nsiptest.NewServer(b, nsiptest.Options{Seed: 7, Animals: 1500})
	nc, err := nsip.NewClient(nsip.WithBaseURL(up.URL()))
	if err != nil {
		b.Fatal(err)
	}
	sum, _ := summarizer(b)
	cfg := DefaultConfig()
	cfg.RateLimit, cfg.RateBurst = 10000, 10000
	cfg.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	cases := analysisCases(b, up.Data())
	for _, a := range analyses {
		req := mcp.CallToolRequest{}
		req.Params.Name = a.Name
		// As the wire delivers them: JSON arrays, not Go slices.
		raw, _ := json.Marshal(cases[a.Name])
		req.Params.RawArguments = raw
		run := func(b *testing.B, g *Gateway) (tokens int) {
			res := g.call(context.Background(), toolNamed(a.Name), req)
			if res.IsError {
				b.Fatalf("%s: %v", a.Name, res.Content)
			}
			return int(res.Meta.AdditionalFields["tokens"].(int))
		}
		for _, warm := range []bool{false, true} {
			name := a.Name + "/cold"
			if warm {
				name = a.Name + "/warm"
			}
			b.Run(name, func(b *testing.B) {
				g, _ := New(nc, sum, cfg)
				if warm {
					run(b, g)
				}
				up.ResetCounts()
				tokens, n := 0, 0
				for b.Loop() {
					if !warm {
						g, _ = New(nc, sum, cfg)
					}
					tokens = run(b, g)
					n++
				}
				b.ReportMetric(float64(up.TotalRequests())/float64(n), "requests/op")
				b.ReportMetric(float64(tokens), "tokens")
			})
		}
	}
}
