// Tests of nsip_compare_animals (compare.go): its runs over a fake NSIP: the best
// per trait by its direction, chosen traits, indexes, not-found named by
// its list entry, and whole animals kept when the answer is fitted to the
// budget. Its contract and arguments are in compare_test.go.

package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"

	"github.com/nsip-tools/nsip-mcp/gateway/full"
)

func TestCompareBestByDirection(t *testing.T) {
	f := analysistest.CompareHerd()
	var a analysistest.CompareAnswer
	analysistest.MustRun(t, Compare, f, map[string]any{"lpn_ids": []any{"ANIM1", "ANIM2", "ANIM3"}}, &a)
	// NSIP's site order for the first thirteen (BWT WWT YWT EMD NWT).
	if want := []string{"BWT", "WWT", "YWT", "EMD", "NWT"}; !slices.Equal(a.Traits, want) {
		t.Fatalf("traits %v, want %v", a.Traits, want)
	}
	// WWT: higher is better, 7 twice, so both; BWT: lower is better, 0.2;
	// EMD: higher, 1.0 (ANIM2 has none); YWT all 3, so no best; NWT has
	// no documented direction, so none either.
	want := map[string][]string{"WWT": {"ANIM2", "ANIM3"}, "BWT": {"ANIM2"}, "EMD": {"ANIM1"}}
	if !maps.EqualFunc(a.Best, want, slices.Equal) {
		t.Errorf("best %v, want %v", a.Best, want)
	}
	if !slices.Equal(a.NotRanked.Traits, []string{"NWT"}) || !slices.Equal(a.Unknown, []string{"ANIM2:EMD"}) {
		t.Errorf("not ranked %v, unknown %v; want NWT and ANIM2:EMD", a.NotRanked.Traits, a.Unknown)
	}
	// The table row: [value, accuracy] per trait in the traits' order,
	// null where the animal has no EBV.
	r := a.Animals[1]
	if r.LPNID != "ANIM2" || r.Sire != "SIRE2" || *r.EBV[0] != [2]float64{0.2, 70} || *r.EBV[1] != [2]float64{7, 70} || r.EBV[3] != nil {
		t.Errorf("ANIM2's row %+v", r)
	}
	if n := f.CallsOf("details"); n != 3 {
		t.Errorf("details read %d times, want 3", n)
	}
}

func TestCompareChosenTraitsAndBudget(t *testing.T) {
	f := analysistest.CompareHerd()
	var a analysistest.CompareAnswer
	analysistest.MustRun(t, Compare, f, map[string]any{"lpn_ids": []any{"ANIM1", "ANIM3"}, "traits": []any{"bwt", "WWT"}}, &a)
	want := map[string][]string{"BWT": {"ANIM1"}, "WWT": {"ANIM3"}}
	if !slices.Equal(a.Traits, []string{"BWT", "WWT"}) || !maps.EqualFunc(a.Best, want, slices.Equal) {
		t.Errorf("traits %v best %v, want BWT WWT and %v", a.Traits, a.Best, want)
	}

	// Over the budget: one header, values only, the shared breed once.
	f.OverIf = onlyCompact
	var b struct {
		Columns    []string            `json:"columns"`
		Animals    [][]any             `json:"animals"`
		Breed      string              `json:"breed"`
		Best       map[string][]string `json:"best"`
		Accuracies string              `json:"accuracies"`
	}
	analysistest.MustRun(t, Compare, f, map[string]any{"lpn_ids": []any{"ANIM1", "ANIM3"}, "traits": []any{"BWT", "WWT"}}, &b)
	if !slices.Equal(b.Columns, []string{"lpn_id", "sex", "born", "sire", "dam", "BWT", "WWT"}) || b.Breed != "Breed 640" || b.Accuracies == "" {
		t.Errorf("compact answer: columns %v breed %q accuracies %q", b.Columns, b.Breed, b.Accuracies)
	}
	if len(b.Animals) != 2 || b.Animals[1][0] != "ANIM3" || b.Animals[1][5] != 0.6 || b.Animals[1][6] != 7.0 {
		t.Errorf("compact rows %v", b.Animals)
	}
	if !maps.EqualFunc(b.Best, want, slices.Equal) {
		t.Errorf("compact best %v, want %v", b.Best, want)
	}

	// Breeds differ: the breed becomes a column.
	f.Animals["ANIM3"].Breed = 641
	analysistest.MustRun(t, Compare, f, map[string]any{"lpn_ids": []any{"ANIM1", "ANIM3"}, "traits": []any{"BWT"}}, &b)
	if !slices.Equal(b.Columns, []string{"lpn_id", "sex", "born", "sire", "dam", "breed", "BWT"}) || b.Animals[1][5] != "Breed 641" {
		t.Errorf("mixed breeds: columns %v rows %v", b.Columns, b.Animals)
	}
}

func TestCompareNotFoundNamesTheEntry(t *testing.T) {
	f := analysistest.CompareHerd()
	_, err := analysistest.Run(t, Compare, f, map[string]any{"lpn_ids": []any{"ANIM1", "NOBODY1", "ANIM3"}})
	var ab *analysis.AboutError
	if !errors.As(err, &ab) || ab.Field != "lpn_ids[1]" || ab.Value != "NOBODY1" {
		t.Errorf("unknown animal: %v, want not found about lpn_ids[1]", err)
	}
}

// Every index NSIP sends is shown for each animal, the highest marked
// best, checked against a direct reading of the records; genotyped is
// shown as sent and null, explained, where a record does not say.
func TestCompareIndexesAndGenotyped(t *testing.T) {
	f := analysistest.Indexed(11, 400)
	ids := slices.Sorted(maps.Keys(f.Animals))[:20]
	var a struct {
		Animals []struct {
			LPNID     string             `json:"lpn_id"`
			Indexes   map[string]float64 `json:"indexes"`
			Genotyped *string            `json:"genotyped"`
		} `json:"animals"`
		Indexes   []string            `json:"indexes"`
		BestIndex map[string][]string `json:"best_index"`
		Unknown   []string            `json:"unknown"`
		Genotyped string              `json:"genotyped"`
	}
	sent := []any{}
	for _, id := range ids {
		sent = append(sent, id)
	}
	analysistest.MustRun(t, Compare, f, map[string]any{"lpn_ids": sent, "traits": []any{"WWT"}}, &a)
	if !slices.Equal(a.Indexes, []string{"SRC$ Index", "US Hair Index"}) {
		t.Fatalf("indexes %v", a.Indexes)
	}
	for _, name := range a.Indexes {
		best, top := []string(nil), math.Inf(-1)
		for _, id := range ids {
			v, ok := f.Animals[id].Index[name]
			switch {
			case !ok:
				if !slices.Contains(a.Unknown, id+":"+name) {
					t.Errorf("%s has no %s, not listed as unknown", id, name)
				}
			case v > top:
				best, top = []string{id}, v
			case v == top:
				best = append(best, id)
			}
		}
		if !slices.Equal(a.BestIndex[name], best) {
			t.Errorf("best %s = %v, want %v", name, a.BestIndex[name], best)
		}
	}
	for i, row := range a.Animals {
		an := f.Animals[ids[i]]
		if !maps.Equal(row.Indexes, an.Index) && (len(row.Indexes) > 0 || len(an.Index) > 0) {
			t.Errorf("%s indexes %v, want %v", row.LPNID, row.Indexes, an.Index)
		}
		if (row.Genotyped == nil) != (an.Genotyped == "") || row.Genotyped != nil && *row.Genotyped != an.Genotyped {
			t.Errorf("%s genotyped %v, want %q", row.LPNID, row.Genotyped, an.Genotyped)
		}
	}
	if !strings.Contains(a.Genotyped, "not 'not genotyped'") {
		t.Errorf("genotyped note %q, want the nulls explained", a.Genotyped)
	}
}

// Over the budget even without accuracies: percentiles give way first,
// then whole animals, the rest named with the call for them.
func TestCompareFitsWholeAnimals(t *testing.T) {
	f := analysistest.Indexed(12, 300)
	ids := slices.Sorted(maps.Keys(f.Animals))[:12]
	var sent []any
	for _, id := range ids {
		sent = append(sent, id)
	}
	var whole struct {
		Animals [][]any `json:"animals"`
	}
	f.OverIf = onlyCompact // the compact form, whole
	v, err := analysistest.Run(t, Compare, f, map[string]any{"lpn_ids": sent, "percentiles": true})
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Decode(t, v, &whole)
	b, _ := json.Marshal(v)
	f.OverIf, f.OverAt = nil, len(b)*2/3
	var a struct {
		Animals     [][]any        `json:"animals"`
		Percentiles map[string]any `json:"percentiles"`
		TopPercent  any            `json:"top_percent"`
		NotShown    struct {
			Animals int      `json:"animals"`
			LPNIDs  []string `json:"lpn_ids"`
		} `json:"not_shown"`
	}
	v, err = analysistest.Run(t, Compare, f, map[string]any{"lpn_ids": sent, "percentiles": true})
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Decode(t, v, &a)
	n := len(a.Animals)
	if n == 0 || n == len(ids) || a.NotShown.Animals != len(ids)-n || !slices.Equal(a.NotShown.LPNIDs, ids[n:]) {
		t.Fatalf("%d animals shown, not shown %+v", n, a.NotShown)
	}
	for i, row := range a.Animals {
		if fmt.Sprint(row) != fmt.Sprint(whole.Animals[i]) {
			t.Errorf("row %d = %v, want %v", i, row, whole.Animals[i])
		}
	}
	// Every animal, shown or not, is the answer's complete data.
	_, table := full.Split(v)
	if table == nil || len(table.Rows) != len(ids) {
		t.Fatalf("complete data %+v; want all %d animals", table, len(ids))
	}
	for i, cells := range table.Rows {
		var row []any
		analysistest.Decode(t, cells, &row)
		if row[0] != ids[i] || (i < n && fmt.Sprint(row) != fmt.Sprint(whole.Animals[i])) {
			t.Errorf("complete row %d = %v, want %s as compared", i, row, ids[i])
		}
	}
	if a.TopPercent != nil || a.Percentiles["left_out"] == nil {
		t.Errorf("percentiles %v top_percent %v: want them left out, and said so", a.Percentiles, a.TopPercent)
	}
}

// onlyCompact is a budget only the compact comparison, with its column
// header, fits.
func onlyCompact(v any) bool {
	_, compact := v.(*CompactCompareAnswer)
	return !compact
}

// A parent NSIP does not record is null in the comparison, in the full
// answer and in the compact one, never "" (an animal of no name) nor left
// out; a recorded one is as sent.
func TestCompareUnrecordedParentIsNull(t *testing.T) {
	for _, compact := range []bool{false, true} {
		f := analysistest.CompareHerd() // sires recorded, no dams
		if compact {
			f.OverIf = onlyCompact
		}
		args := map[string]any{"lpn_ids": []any{"ANIM1", "ANIM2", "ANIM3"}}
		var raw map[string]any
		analysistest.MustRun(t, Compare, f, args, &raw)
		var sire, dam any
		var hasDam bool
		switch rows := raw["animals"].([]any); row := rows[1].(type) {
		case map[string]any:
			sire = row["sire"]
			dam, hasDam = row["dam"]
		case []any: // compact: lpn_id, sex, born, sire, dam, ...
			sire, dam, hasDam = row[3], row[4], true
		}
		if sire != "SIRE2" || !hasDam || dam != nil {
			t.Errorf("compact %v: ANIM2's sire %v, dam %v (present %v); want SIRE2 and null", compact, sire, dam, hasDam)
		}
	}
}
