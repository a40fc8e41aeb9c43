package flock

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/rank"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// lean makes the fake's search and progeny rows look like NSIP's live
// ones: no sex, no genotyped status, and progeny rows without EBVs.
func lean(f *analysistest.FakeSource) *analysistest.FakeSource {
	f.Pages = func(_ int, rows []nsip.AnimalRow) []nsip.AnimalRow {
		for i := range rows {
			rows[i].Sex, rows[i].Genotyped = "", ""
			if rows[i].Status == "" {
				rows[i].Traits = nil // a progeny row: NSIP's carry no EBVs
			}
		}
		return rows
	}
	return f
}

func sexCounts(f *analysistest.FakeSource, breed int) map[string]int {
	out := map[string]int{}
	for _, a := range f.Animals {
		if a.Breed == breed {
			out[strings.ToLower(a.Sex)]++
		}
	}
	return out
}

// A search group of live rows has its sexes from NSIP's search by
// gender, and says so.
func TestGroupSexesFromSearchByGender(t *testing.T) {
	f := lean(analysistest.Population(41, 250))
	for _, a := range f.Animals {
		a.Status = "CURRENT"
	}
	var a analysistest.FlockAnswer
	analysistest.MustRun(t, FlockSummary, f, map[string]any{"search": map[string]any{"breed_id": 640}}, &a)
	want := sexCounts(f, 640)
	if a.BySex["male"] != want["male"] || a.BySex["female"] != want["female"] || a.BySex["unknown"] != 0 {
		t.Errorf("by_sex %v, want %v", a.BySex, want)
	}
	var c struct {
		Computed struct {
			Sex string `json:"sex"`
		} `json:"computed"`
	}
	analysistest.MustRun(t, FlockSummary, f, map[string]any{"search": map[string]any{"breed_id": 640}}, &c)
	if !strings.Contains(c.Computed.Sex, "gender Male") {
		t.Errorf("computed.sex %q; want it to say the search by gender gave the sexes", c.Computed.Sex)
	}
	// Where NSIP ignores gender, the rams' search returns every animal:
	// the sexes are unknown, and the answer says why.
	f.IgnoreGender = true
	analysistest.MustRun(t, FlockSummary, f, map[string]any{"search": map[string]any{"breed_id": 640}}, &c)
	if !strings.Contains(c.Computed.Sex, "do not add up") {
		t.Errorf("gender ignored: computed.sex %q", c.Computed.Sex)
	}
}

// A breed's pass over live rows reads the breed as its rams and its ewes,
// so every row carries its sex; where NSIP ignores gender, the breed's own
// pages are read and the pass knows no sex, so it serves no search by sex.
func TestPassReadsRamsAndEwes(t *testing.T) {
	f := lean(analysistest.Population(42, 230))
	p, why, err := percentile.ReadBreedPass(context.Background(), f, slog.New(slog.NewTextHandler(io.Discard, nil)), 640, "", 0, nil)
	if err != nil || p == nil {
		t.Fatalf("pass: %v, %s", err, why)
	}
	if p.Animals() != 230 {
		t.Errorf("pass of %d animals, want 230", p.Animals())
	}
	for j, id := range p.IDs {
		if got := p.Sexes[p.Sex[j]]; got != f.Animals[id].Sex {
			t.Errorf("%s: sex %q in the pass, %q in the data", id, got, f.Animals[id].Sex)
		}
	}
	if !p.Serves(breedpass.PassFilter{Sex: "Male"}) {
		t.Error("a pass that knows every sex does not serve a search of rams")
	}
	f.IgnoreGender = true
	q, why, err := percentile.ReadBreedPass(context.Background(), f, slog.New(slog.NewTextHandler(io.Discard, nil)), 640, "", 0, nil)
	if err != nil || q == nil {
		t.Fatalf("pass with gender ignored: %v, %s", err, why)
	}
	if q.Animals() != 230 || q.Serves(breedpass.PassFilter{Sex: "Male"}) || !q.Serves(breedpass.PassFilter{Status: "CURRENT"}) {
		t.Errorf("gender ignored: %d animals, serves rams %v; want all 230, and no search by sex served", q.Animals(), q.Serves(breedpass.PassFilter{Sex: "Male"}))
	}
}

// Where NSIP ignores gender and its rows record no sex, the ranking reads
// its ranked animals' records: an ewe among the rams leaves the ranking,
// counted against the criteria, and the rams left are the best rams.
func TestRankRecordsTakeOutTheOtherSex(t *testing.T) {
	f := lean(analysistest.Population(43, 300))
	f.IgnoreGender = true
	for _, a := range f.Animals {
		a.Status = "CURRENT"
	}
	var a analysistest.RankAnswer
	analysistest.MustRun(t, rank.Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}, "top_n": 10,
		"search_criteria": map[string]any{"gender": "Male"}}, &a)
	rams := analysistest.BruteTop(f, 640, "Male", map[string]float64{"WWT": 1}, 10)
	if len(a.Top) == 0 || len(a.Top) == 10 {
		t.Fatalf("%d rows; want the ewes among the top 10 taken out", len(a.Top))
	}
	for i, row := range a.Top {
		if row[1] != rams[i].ID || row[3] != "Male" {
			t.Errorf("rank %d = %v, want the ram %s", i+1, row[:4], rams[i].ID)
		}
	}
	var c struct {
		Contra *struct {
			Count int `json:"count"`
		} `json:"contradicting_criteria"`
		FromRecords string `json:"from_records"`
	}
	analysistest.MustRun(t, rank.Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}, "top_n": 10,
		"search_criteria": map[string]any{"gender": "Male"}}, &c)
	if c.Contra == nil || c.Contra.Count != 10-len(a.Top) || !strings.Contains(c.FromRecords, "record") {
		t.Errorf("contradicting %+v, from_records %q; want the %d ewes counted and the records named", c.Contra, c.FromRecords, 10-len(a.Top))
	}
}

// A progeny group's EBVs come from each offspring's record, NSIP's
// progeny rows carrying none.
func TestProgenyEBVsFromRecords(t *testing.T) {
	f := lean(analysistest.NewFake())
	f.Add(&analysistest.FakeAnimal{ID: "SIRE1", Sex: "Male", Status: "CURRENT", EBV: map[string]float64{"WWT": 1}})
	for i, v := range []float64{0.5, 2.5, 1.5} {
		f.Add(&analysistest.FakeAnimal{ID: "LAMB" + string(rune('A'+i)), Sire: "SIRE1", Sex: "Female", EBV: map[string]float64{"WWT": v}})
	}
	var a analysistest.FlockAnswer
	analysistest.MustRun(t, FlockSummary, f, map[string]any{"progeny_of": "SIRE1"}, &a)
	if a.Animals != 3 || len(a.Traits) != 1 || a.Traits[0].N != 3 || a.Traits[0].Max != 2.5 || a.Traits[0].MaxIDs[0] != "LAMBB" {
		t.Errorf("progeny: %d animals, traits %+v; want WWT over 3, max 2.5 of LAMBB", a.Animals, a.Traits)
	}
	var c struct {
		Computed struct {
			Method string `json:"method"`
		} `json:"computed"`
	}
	analysistest.MustRun(t, FlockSummary, f, map[string]any{"progeny_of": "SIRE1"}, &c)
	if !strings.Contains(c.Computed.Method, "own record") {
		t.Errorf("method %q; want it to say the EBVs are each offspring's record's", c.Computed.Method)
	}
}
