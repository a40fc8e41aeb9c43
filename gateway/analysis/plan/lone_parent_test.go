package plan

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/mating"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// loneDamHerd: RAM02's sire and dam are both by XXXXX, and so are EWE01's,
// so RAM02 x EWE01 is 4 path pairs of (1/2)^5: 1/8. Every lineage lists
// a dam alone, so no lineage shows XXXXX; the animals' own records do.
// RAM01, of founders, is unrelated to EWE01 and has the lower index.
func loneDamHerd() *analysistest.FakeSource {
	f := analysistest.Herd("RAM01 FFFF1 FFFF2 Male", "RAM02 PAPA2 MUM01 Male", "PAPA2 XXXXX GMA01 Male", "MUM01 XXXXX GMA02 Female",
		"EWE01 PAPA3 MUM03 Female", "PAPA3 XXXXX GMA03 Male", "MUM03 XXXXX GMA04 Female")
	f.LoneDam = true
	for id, v := range map[string]float64{"RAM01": 1, "RAM02": 9, "EWE01": 3} {
		f.Animals[id].EBV = map[string]float64{"WWT": v}
	}
	return f
}

type loneAnswer struct {
	analysistest.PlanAnswer
	Notes    []string `json:"notes"`
	Computed struct {
		Records int `json:"ancestor_records_read"`
	} `json:"computed"`
}

func planLone(t *testing.T, src analysis.Source) loneAnswer {
	t.Helper()
	var a loneAnswer
	analysistest.MustRunSource(t, PlanMatings, src, map[string]any{"ram_lpn_ids": []any{"RAM01", "RAM02"}, "ewe_lpn_ids": []any{"EWE01"}, "weights": map[string]any{"WWT": 1.0}, "max_coi": 0.0625}, &a)
	return a
}

// A lineage node listing one parent is not taken to mean the other is
// unrecorded: the ancestor's own record is read, XXXXX is found behind
// RAM02 and EWE01, and their lamb (1/8) is kept from a cap of 1/16. Read
// as sireless, the ancestors would give the pair a COI of 0 and the ewe
// to the better ram.
func TestPlanReadsRecordsOfLoneParentAncestors(t *testing.T) {
	f := loneDamHerd()
	a := planLone(t, f)
	why := "every ram's lamb would exceed max_coi"
	if got := a.RamOf(); !maps.Equal(got, map[string]string{"EWE01": "RAM01"}) || a.Unresolved.Pairs != 0 || len(a.Unassigned) != 0 {
		t.Errorf("plan %v, unassigned %v, unresolved %+v; want EWE01 to RAM01 (RAM02's lamb is 1/8) and nothing unresolved", got, a.Unassigned, a.Unresolved)
	}
	if notes := strings.Join(a.Notes, " "); !strings.Contains(notes, "show 4 ancestors with one parent where their own records name two") {
		t.Errorf("notes %q; want the lineages' lone parents named", a.Notes)
	}
	if a.Computed.Records != 4 {
		t.Errorf("ancestor records read %d, want 4 (PAPA2, MUM01, PAPA3, MUM03)", a.Computed.Records)
	}
	// With RAM02 alone, the ewe stays unmated, for the COI read.
	b := planLoneRams(t, f, "RAM02")
	if b.Mated != 0 || len(b.Unassigned[why]) != 1 {
		t.Errorf("RAM02 alone: mated %d, unassigned %v; want EWE01 unassigned because the lamb exceeds max_coi", b.Mated, b.Unassigned)
	}
	var m analysistest.MatingAnswer
	analysistest.MustRun(t, mating.CheckMating, f, map[string]any{"sire_lpn_id": "RAM02", "dam_lpn_id": "EWE01"}, &m)
	if m.COI == nil || *m.COI != 1.0/8 {
		t.Errorf("check_mating: coi %v basis %q, want 1/8", analysistest.FmtPtr(m.COI), m.Basis)
	}
}

func planLoneRams(t *testing.T, f *analysistest.FakeSource, rams ...string) loneAnswer {
	t.Helper()
	var a loneAnswer
	analysistest.MustRun(t, PlanMatings, f, map[string]any{"ram_lpn_ids": analysistest.ToAny(rams), "ewe_lpn_ids": []any{"EWE01"}, "weights": map[string]any{"WWT": 1.0}, "max_coi": 0.0625}, &a)
	return a
}

// detailsFail is a fake whose details of one animal fail, its lineage
// still served.
type detailsFail struct {
	*analysistest.FakeSource
	id  string
	err error
}

func (d *detailsFail) Details(ctx context.Context, id string) (*nsip.AnimalDetails, error) {
	if id == d.id {
		d.Count("details", true)
		return nil, d.err
	}
	return d.FakeSource.Details(ctx, id)
}

// Where the record of MUM01, shown with one parent, cannot be read, what
// was read puts RAM02 x EWE01 at 1/16 (through PAPA2 alone), within the
// cap; it is a lower bound, so the pair is left out and named, not mated,
// and check_mating says why its COI is a bound.
func TestPlanLeavesLoneParentPairsUnresolved(t *testing.T) {
	src := &detailsFail{FakeSource: loneDamHerd(), id: "MUM01", err: errors.New("NSIP busy")}
	a := planLone(t, src)
	if got := a.RamOf(); !maps.Equal(got, map[string]string{"EWE01": "RAM01"}) || a.Unresolved.Pairs != 1 || !slices.Equal(a.Unresolved.Animals, []string{"RAM02"}) {
		t.Errorf("plan %v, unresolved %+v; want EWE01 to RAM01 and RAM02's pair unresolved", got, a.Unresolved)
	}
	if notes := strings.Join(a.Notes, " "); !strings.Contains(notes, "record of ancestor MUM01, whose lineage lists one parent, could not be read") {
		t.Errorf("notes %q; want MUM01's unread record named", a.Notes)
	}
	var m analysistest.MatingAnswer
	analysistest.MustRunSource(t, mating.CheckMating, src, map[string]any{"sire_lpn_id": "RAM02", "dam_lpn_id": "EWE01"}, &m)
	if m.COI == nil || *m.COI != 1.0/16 || !strings.HasPrefix(m.Basis, "lower bound: NSIP's lineages show MUM01 within the window with one parent") {
		t.Errorf("check_mating: coi %v basis %q; want 1/16 as a lower bound naming MUM01", analysistest.FmtPtr(m.COI), m.Basis)
	}
}
