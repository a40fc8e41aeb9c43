// Tests of nsip_check_mating (mating.go): its runs over a fake NSIP: the COI by Wright's
// method against hand-worked pedigrees, midparents, ratings, not-found and
// failing lineages named by the argument that led to them, and answers
// fitted to the budget. Its contract and arguments are in mating_test.go.

package mating

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

func TestCheckMatingCOI(t *testing.T) {
	for _, c := range analysistest.MatingCases {
		// Lineages of 4 generations (as live) and of 2, which makes the
		// analysis extend the pedigree round by round.
		for _, gens := range []int{4, 2} {
			f := analysistest.Herd(c.Herd...)
			f.LineageGens = gens
			a := checkMating(t, f, "SIRE1", "DAM01")
			if a.COI == nil || *a.COI != c.COI {
				t.Errorf("%s (lineages of %d generations): coi = %v, want %v", c.Name, gens, analysistest.FmtPtr(a.COI), c.COI)
			}
			if a.Rating != c.Rating {
				t.Errorf("%s: rating %q, want %q", c.Name, a.Rating, c.Rating)
			}
			var got []string
			sum := 0.0
			for _, x := range a.CommonAncestors.Top {
				got = append(got, x.LPNID)
				sum += x.Contribution
			}
			if !slices.Equal(got, c.Ancestors) || a.CommonAncestors.Count != len(c.Ancestors) {
				t.Errorf("%s: common ancestors %v (count %d), want %v", c.Name, got, a.CommonAncestors.Count, c.Ancestors)
			}
			if !analysistest.Near(sum, c.COI) {
				t.Errorf("%s: contributions sum to %v, want the COI %v", c.Name, sum, c.COI)
			}
			if len(a.Notes) > 0 {
				t.Errorf("%s: notes %v on a pedigree read whole", c.Name, a.Notes)
			}
		}
	}
	// The inbred ancestor's own F is reported beside his contribution.
	f := analysistest.Herd(analysistest.MatingCases[6].Herd...)
	if a := checkMating(t, f, "SIRE1", "DAM01"); len(a.CommonAncestors.Top) != 1 || a.CommonAncestors.Top[0].AncestorCOI != 0.25 ||
		!slices.Equal(a.CommonAncestors.Top[0].Paths, [][3]int{{1, 1, 1}}) {
		t.Errorf("inbred sire: common ancestors %+v, want XXXXX with F 0.25 over one pair of 1-generation paths", a.CommonAncestors.Top)
	}
}

// The rating words sit on the thresholds the answer states.
func TestRatingThresholds(t *testing.T) {
	for coi, want := range map[float64]string{0: "low", 0.0312: "low", 1.0 / 32: "moderate", 0.0624: "moderate", 1.0 / 16: "high",
		0.1249: "high", 1.0 / 8: "very high", 0.5: "very high"} {
		if got := rating(coi); got != want {
			t.Errorf("rating(%v) = %q, want %q", coi, got, want)
		}
	}
}

func TestCheckMatingMidparentsAndWarnings(t *testing.T) {
	f := analysistest.Herd("SIRE1 GSIR1 GDAM1 Male", "DAM01 GSIR2 GDAM2 Female")
	f.Animals["SIRE1"].EBV = map[string]float64{"WWT": 4, "BWT": 0.5, "YWT": 6}
	f.Animals["DAM01"].EBV = map[string]float64{"WWT": 2.5, "BWT": 0.3, "NLB": 0.1}
	a := checkMating(t, f, "SIRE1", "DAM01")
	// The lamb's expected EBV is the parents' mean: WWT (4 + 2.5)/2 =
	// 3.25, BWT (0.5 + 0.3)/2 = 0.4; YWT and NLB only one parent has.
	if got := a.Midparent["WWT"].EBV; got != 3.25 {
		t.Errorf("midparent WWT = %v, want 3.25", got)
	}
	if got := a.Midparent["BWT"].EBV; got != 0.4 {
		t.Errorf("midparent BWT = %v, want 0.4", got)
	}
	if acc := a.Midparent["WWT"].DamAcc; acc == nil || *acc != 70 {
		t.Errorf("dam accuracy = %v, want 70", analysistest.FmtPtr(acc))
	}
	if len(a.Midparent) != 2 || !slices.Equal(a.MidparentUnknown, []string{"NLB", "YWT"}) {
		t.Errorf("midparents %v, unknown %v; want BWT and WWT, unknown NLB and YWT", a.Midparent, a.MidparentUnknown)
	}
	// Grandparents without parents of their own: 0 is all the record
	// shows, and the answer says it is a lower bound.
	if a.COI == nil || *a.COI != 0 || !strings.HasPrefix(a.Basis, "lower bound") {
		t.Errorf("coi %v basis %q, want 0 as a lower bound", analysistest.FmtPtr(a.COI), a.Basis)
	}
	if len(a.Warnings) != 0 {
		t.Errorf("warnings %v for a ram and a ewe of one breed", a.Warnings)
	}

	f.Animals["SIRE1"].Sex = "Female"
	f.Animals["DAM01"].Breed = 641
	a = checkMating(t, f, "SIRE1", "DAM01")
	if len(a.Warnings) != 2 || !strings.Contains(a.Warnings[0], `"Female", not male`) || !strings.Contains(a.Warnings[1], "crossbred") {
		t.Errorf("warnings %q, want the sire's sex and a crossbred mating", a.Warnings)
	}
}

func TestCheckMatingUnknownAndComplete(t *testing.T) {
	// A sire with no recorded parents and no link to the dam: 0 would be
	// a claim the record cannot support.
	f := analysistest.Herd("SIRE1 - - Male", "DAM01 GSIR2 GDAM2 Female")
	if a := checkMating(t, f, "SIRE1", "DAM01"); a.COI != nil || a.Rating != "unknown" {
		t.Errorf("coi %v rating %q, want null and unknown", analysistest.FmtPtr(a.COI), a.Rating)
	}

	// Every ancestor to 6 generations recorded: a full binary pedigree
	// behind each parent, unrelated, is complete and 0.
	var lines []string
	var grow func(id, sex string, gen int)
	grow = func(id, sex string, gen int) {
		if gen == 7 {
			lines = append(lines, id+" - - "+sex)
			return
		}
		s, d := id+"S", id+"D"
		lines = append(lines, id+" "+s+" "+d+" "+sex)
		grow(s, "Male", gen+1)
		grow(d, "Female", gen+1)
	}
	grow("SIRE1", "Male", 0)
	grow("DAM01", "Female", 0)
	f = analysistest.Herd(lines...)
	a := checkMating(t, f, "SIRE1", "DAM01")
	if a.COI == nil || *a.COI != 0 || a.Basis != "complete to 6 generations" || a.Rating != "low" {
		t.Errorf("coi %v basis %q rating %q, want 0 complete to 6 generations, low", analysistest.FmtPtr(a.COI), a.Basis, a.Rating)
	}
	// Lineages of 4 generations: the parents' own reach their 2 x 8
	// great-grandparents, whose own reach generation 6: 2 + 16 in all.
	if a.Computed.LineagesRead != 18 || f.CallsOf("lineage") != 18 {
		t.Errorf("lineages read %d (calls %d), want 18", a.Computed.LineagesRead, f.CallsOf("lineage"))
	}
}

func TestCheckMatingErrors(t *testing.T) {
	f := analysistest.Herd("SIRE1 XXXXX GDAM1 Male", "DAM01 XXXXX GDAM2 Female")
	_, err := analysistest.Run(t, CheckMating, f, map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "SIRE1"})
	var ae *analysis.ArgError
	if !errors.As(err, &ae) || ae.Field != "dam_lpn_id" {
		t.Errorf("same animal twice: %v, want an argument error on dam_lpn_id", err)
	}
	_, err = analysistest.Run(t, CheckMating, f, map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "NOBODY1"})
	var ab *analysis.AboutError
	if !errors.As(err, &ab) || ab.Field != "dam_lpn_id" || ab.Value != "NOBODY1" {
		t.Errorf("unknown dam: %v, want not found about dam_lpn_id NOBODY1", err)
	}
	// Details but no lineage: named by the argument that sent it.
	lf := &analysistest.LineageFail{FakeSource: f, ID: "DAM01", Err: analysistest.NotFound("DAM01")}
	_, err = analysis.Run(t.Context(), CheckMating, lf, analysistest.Discard(), param.Sent{}, analysistest.Valid(t, CheckMating, map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "DAM01"}))
	if !errors.As(err, &ab) || ab.Field != "dam_lpn_id" {
		t.Errorf("dam without a lineage: %v, want not found about dam_lpn_id", err)
	}
	// A parent's lineage failing otherwise fails the call as it is.
	busy := &nsip.Error{Kind: nsip.KindUpstream, Status: 503}
	lf = &analysistest.LineageFail{FakeSource: f, ID: "SIRE1", Err: busy}
	if _, err = analysis.Run(t.Context(), CheckMating, lf, analysistest.Discard(), param.Sent{}, analysistest.Valid(t, CheckMating, map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "DAM01"})); !errors.Is(err, busy) {
		t.Errorf("sire's lineage failing: %v, want the upstream error", err)
	}
	// An ancestor's lineage failing leaves that branch and says so, with
	// the code the tool would answer.
	f = analysistest.Herd("SIRE1 XXXXX GDAM1 Male", "DAM01 XXXXX GDAM2 Female", "XXXXX PPPPP QQQQQ Male")
	f.LineageGens = 2
	f.Code = "UPSTREAM_UNAVAILABLE"
	lf = &analysistest.LineageFail{FakeSource: f, ID: "XXXXX", Err: busy}
	v, err := analysis.Run(t.Context(), CheckMating, lf, analysistest.Discard(), param.Sent{}, analysistest.Valid(t, CheckMating, map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "DAM01"}))
	if err != nil {
		t.Fatal(err)
	}
	var a analysistest.MatingAnswer
	analysistest.Decode(t, v, &a)
	if a.COI == nil || *a.COI != 1.0/8 || len(a.Notes) != 1 || !strings.Contains(a.Notes[0], "XXXXX could not be read (UPSTREAM_UNAVAILABLE)") {
		t.Errorf("coi %v notes %q, want 1/8 and a note naming XXXXX and the code", analysistest.FmtPtr(a.COI), a.Notes)
	}
	if f.CallsOf("errorcode") != 1 {
		t.Errorf("ErrorCode called %d times, want 1", f.CallsOf("errorcode"))
	}
}

// TestCheckMatingOverBudget: an answer too long for the budget lists
// fewer common ancestors, down to none, and keeps the count and the COI.
func TestCheckMatingOverBudget(t *testing.T) {
	f := analysistest.Herd(analysistest.MatingCases[2].Herd...)
	f.Over = true
	a := checkMating(t, f, "SIRE1", "DAM01")
	if a.COI == nil || *a.COI != 0.25 || a.CommonAncestors.Count != 2 || len(a.CommonAncestors.Top) != 0 || a.CommonAncestors.NotShown != 2 {
		t.Errorf("over budget: coi %v, ancestors %+v; want 0.25, count 2, none listed, 2 not shown", analysistest.FmtPtr(a.COI), a.CommonAncestors)
	}
	if n := f.CallsOf("overbudget"); n != 3 {
		t.Errorf("OverBudget asked %d times, want 3 (5, 2, then 0 ancestors)", n)
	}
}

// otherSire is a fake whose lineage of one animal names another sire than
// its details do, as a registry correction can leave them.
type otherSire struct {
	*analysistest.FakeSource
	id, sire string
}

func (o *otherSire) Lineage(ctx context.Context, id string) (*nsip.Lineage, error) {
	l, err := o.FakeSource.Lineage(ctx, id)
	if err == nil && id == o.id {
		l.Subject.Sire = &nsip.LineageNode{LPNID: o.sire}
	}
	return l, err
}

// Details and lineage disagree on the sire's sire: the details' record,
// read first, stands (half sibs through XXXXX, 1/8), and the answer names
// both records rather than failing.
func TestCheckMatingRecordsDisagree(t *testing.T) {
	f := analysistest.Herd(analysistest.MatingCases[1].Herd...)
	src := &otherSire{FakeSource: f, id: "SIRE1", sire: "ZZZZZ"}
	v, err := analysis.Run(t.Context(), CheckMating, src, analysistest.Discard(), param.Sent{}, analysistest.Valid(t, CheckMating, map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "DAM01"}))
	if err != nil {
		t.Fatal(err)
	}
	var a analysistest.MatingAnswer
	analysistest.Decode(t, v, &a)
	if a.COI == nil || *a.COI != 1.0/8 || len(a.Notes) != 1 || !strings.Contains(a.Notes[0], "SIRE1's parents that contradicts") {
		t.Errorf("coi %v notes %q; want 1/8 and a note on SIRE1's contradicting record", analysistest.FmtPtr(a.COI), a.Notes)
	}
	// Both records are named: the details' sire XXXXX and the lineage's ZZZZZ.
	if len(a.Notes) == 1 && (!strings.Contains(a.Notes[0], "XXXXX") || !strings.Contains(a.Notes[0], "ZZZZZ")) {
		t.Errorf("note %q; want both sires named, XXXXX and ZZZZZ", a.Notes[0])
	}
}

// A lineage node listing one parent as its only child decodes with that
// parent as the sire. DAM01's details say MUMB1 is her dam; read as her
// sire too, she would seem to have MUMB1 as both parents, doubling the
// paths through X: 1/16, "high". The true pedigree: SIRE1's dam MUMA1 and
// DAM01's dam MUMB1 are half sibs through X, n1 = n2 = 2: (1/2)^5 = 1/32.
// MUMA1 and MUMB1 have only a sire recorded, placed by his sex.
func TestCheckMatingOneChildLineage(t *testing.T) {
	for _, gens := range []int{4, 2} {
		f := analysistest.Herd("SIRE1 PAPA1 MUMA1 Male", "DAM01 - MUMB1 Female", "MUMA1 XXXXX - Female", "MUMB1 XXXXX - Female")
		f.OneChild, f.LineageGens = true, gens
		a := checkMating(t, f, "SIRE1", "DAM01")
		if a.COI == nil || *a.COI != 1.0/32 || a.Rating != "moderate" {
			t.Errorf("lineages of %d: coi %v rating %q, want 1/32 moderate", gens, analysistest.FmtPtr(a.COI), a.Rating)
		}
		if len(a.Warnings) > 0 {
			t.Errorf("lineages of %d: warnings %q on a consistent pedigree", gens, a.Warnings)
		}
	}
}

// sameParents is a fake whose lineages show one animal with one animal as
// both its sire and its dam.
type sameParents struct {
	*analysistest.FakeSource
	id, parent string
}

func (o *sameParents) Lineage(ctx context.Context, id string) (*nsip.Lineage, error) {
	l, err := o.FakeSource.Lineage(ctx, id)
	var walk func(n *nsip.LineageNode)
	walk = func(n *nsip.LineageNode) {
		if n == nil {
			return
		}
		if n.LPNID == o.id {
			n.Sire, n.Dam = &nsip.LineageNode{LPNID: o.parent}, &nsip.LineageNode{LPNID: o.parent}
			return
		}
		walk(n.Sire)
		walk(n.Dam)
	}
	if err == nil {
		walk(&l.Subject)
	}
	return l, err
}

// An animal recorded with one animal as both sire and dam is a broken
// record, not a pedigree to compute from: the answer warns and gives no
// COI, rather than doubling the paths through that parent.
func TestCheckMatingSameSireAndDam(t *testing.T) {
	// In the details.
	f := analysistest.Herd("SIRE1 XXXXX GDAM1 Male", "DAM01 XXXXX XXXXX Female")
	a := checkMating(t, f, "SIRE1", "DAM01")
	if a.COI != nil || a.Rating != "unknown" || !strings.Contains(strings.Join(a.Warnings, " "), "DAM01 is recorded with XXXXX as both sire and dam") {
		t.Errorf("details: coi %v rating %q warnings %q; want unknown and a warning naming DAM01 and XXXXX", analysistest.FmtPtr(a.COI), a.Rating, a.Warnings)
	}
	// In an ancestor's lineage.
	f = analysistest.Herd("SIRE1 PAPA1 GDAM1 Male", "DAM01 PAPA1 GDAM2 Female", "PAPA1 GGGG1 GGGG2 Male")
	src := &sameParents{FakeSource: f, id: "PAPA1", parent: "GGGG1"}
	v, err := analysis.Run(t.Context(), CheckMating, src, analysistest.Discard(), param.Sent{}, analysistest.Valid(t, CheckMating, map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "DAM01"}))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Decode(t, v, &a)
	if a.COI != nil || !strings.Contains(strings.Join(a.Warnings, " "), "PAPA1 is recorded with GGGG1 as both sire and dam") {
		t.Errorf("lineage: coi %v warnings %q; want unknown and a warning naming PAPA1 and GGGG1", analysistest.FmtPtr(a.COI), a.Warnings)
	}
	// The parents are half sibs through PAPA1: their common ancestors are
	// not counted, and the answer says so rather than that there are none.
	var raw map[string]any
	analysistest.Decode(t, v, &raw)
	ca := raw["common_ancestors"].(map[string]any)
	if n, ok := ca["count"]; !ok || n != nil || !strings.Contains(fmt.Sprint(ca["unknown"]), "COI is not computed") {
		t.Errorf("lineage: common_ancestors %v; want count null and unknown saying the COI was not computed", ca)
	}
}

// A common ancestor six generations behind each parent is at the edge of
// the window: his own parents are never read, so his COI is unknown, not
// 0 (his parents are in fact full sibs, F = 1/4), and the lamb's COI,
// (1/2)^13 with F_X taken as 0, is said to be a lower bound.
func TestCheckMatingAncestorBeyondWindow(t *testing.T) {
	lines := []string{"PPPPP GGGG1 GGGG2 Male", "QQQQQ GGGG1 GGGG2 Female", "XXXXX PPPPP QQQQQ Male"}
	for _, side := range []string{"S", "D"} {
		prev := "XXXXX"
		for g := 5; g >= 1; g-- {
			id := fmt.Sprintf("%sAN%02d", side, g)
			lines = append(lines, fmt.Sprintf("%s %s - Male", id, prev))
			prev = id
		}
		lines = append(lines, map[string]string{"S": "SIRE1 " + prev + " - Male", "D": "DAM01 " + prev + " - Female"}[side])
	}
	f := analysistest.Herd(lines...)
	f.LineageGens = 2
	var raw map[string]any
	analysistest.MustRun(t, CheckMating, f, map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "DAM01"}, &raw)
	var a analysistest.MatingAnswer
	analysistest.Decode(t, raw, &a)
	if a.COI == nil || *a.COI != 1.0/8192 || !strings.HasPrefix(a.Basis, "lower bound") {
		t.Errorf("coi %v basis %q; want 1/8192 as a lower bound", analysistest.FmtPtr(a.COI), a.Basis)
	}
	top := raw["common_ancestors"].(map[string]any)["top"].([]any)
	if len(top) != 1 || top[0].(map[string]any)["lpn_id"] != "XXXXX" || top[0].(map[string]any)["ancestor_coi"] != nil {
		t.Errorf("common ancestors %v; want XXXXX with ancestor_coi null", top)
	}
	w, _ := raw["window"].(string)
	if !strings.Contains(w, "6 generations") {
		t.Errorf("window %q; want it to say the 6 generations \"complete\" refers to", w)
	}
}

// Mating an animal with itself is an argument error naming dam_lpn_id,
// whatever the case it is written in, before any lookup.
func TestCheckMatingSelf(t *testing.T) {
	f := analysistest.Herd(analysistest.MatingCases[1].Herd...)
	_, err := analysistest.Run(t, CheckMating, f, map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "sire1"})
	var ae *analysis.ArgError
	if !errors.As(err, &ae) || ae.Field != "dam_lpn_id" || !strings.Contains(ae.Problem, "same animal") || f.Lookups != 0 {
		t.Errorf("self-mating: %v after %d lookups; want an argument error on dam_lpn_id before any lookup", err, f.Lookups)
	}
}

func checkMating(t *testing.T, f *analysistest.FakeSource, sire, dam string) analysistest.MatingAnswer {
	t.Helper()
	var a analysistest.MatingAnswer
	analysistest.MustRun(t, CheckMating, f, map[string]any{"sire_lpn_id": sire, "dam_lpn_id": dam}, &a)
	return a
}

// A mating whose pedigree the call's time limit stopped extending opens
// with time_limit_reached: the limit, what it left (the COI rests on what
// was read) and the same call again, which reads on from the cache. The
// fake refuses lookups after the parents' records and lineages (4), as the
// gateway does once the time has passed.
func TestCheckMatingCutByTheTimeLimitSaysSoFirst(t *testing.T) {
	f := analysistest.Herd(analysistest.MatingCases[1].Herd...)
	f.LineageGens = 2
	f.TimeLimitAt = 4
	v, err := analysistest.Run(t, CheckMating, f, map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "DAM01"})
	if err != nil {
		t.Fatal(err)
	}
	text, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"time_limit_reached":{"effect":"the call's time limit of 30 s passed before every lookup was read: the pedigree was extended no further (notes), so the COI and common ancestors rest on what was read; the lookups read are cached, so next goes on from them","next":{"arguments":"as in this call, with","set":{"max_tokens":`
	if !strings.HasPrefix(string(text), want) || !strings.Contains(string(text), `"tool":"nsip_check_mating"},"seconds":30}`) {
		t.Errorf("cut mating: %.600s; want it to open with the time limit and the next call", text)
	}
	// Not cut, no lead.
	f = analysistest.Herd(analysistest.MatingCases[1].Herd...)
	if v, _ := analysistest.Run(t, CheckMating, f, map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "DAM01"}); strings.Contains(fmt.Sprint(v), "time limit") {
		t.Errorf("uncut mating: %v", v)
	}
}
