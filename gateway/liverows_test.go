package gateway

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// NSIP's live search rows carry no sex, birth date or flock, and its
// progeny rows no EBVs; the stand-in sends them so by default. These tests
// hold each answer that needs what the rows lack to the stand-in's own
// data, and to saying how it read it.

// A flock's birth years come from its animals' LPN IDs, its sexes from
// NSIP's search by gender.
func TestLiveRowsFlockYearsAndSexes(t *testing.T) {
	e := newEnv(t)
	d := e.up.Data()
	years, sexes := map[string]int{}, map[string]int{}
	for _, id := range d.AnimalIDs() {
		if a, _ := d.Animal(id); a.FlockCode == "640238" {
			years[fmt.Sprint(a.Born.Year())]++
			sexes[strings.ToLower(a.Gender)]++
		}
	}
	r := e.call("nsip_flock_summary", map[string]any{"flock_id": "640238"}).mustOK(t)
	var a struct {
		Animals  int            `json:"animals"`
		BySex    map[string]int `json:"by_sex"`
		ByYear   map[string]int `json:"by_birth_year"`
		Computed struct {
			Sex        string `json:"sex"`
			BirthYears string `json:"birth_years"`
			Complete   bool   `json:"complete"`
		} `json:"computed"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %.300s", err, r.text)
	}
	if !a.Computed.Complete || !maps.Equal(a.ByYear, years) || !maps.Equal(a.BySex, sexes) {
		t.Errorf("flock 640238: %d animals, years %v, sexes %v; want %v and %v", a.Animals, a.ByYear, a.BySex, years, sexes)
	}
	if !strings.Contains(a.Computed.BirthYears, "read from the LPN ID") || !strings.Contains(a.Computed.Sex, "gender Male") {
		t.Errorf("computed says birth years %q, sex %q; want each to say how it was read", a.Computed.BirthYears, a.Computed.Sex)
	}
}

// The best CURRENT ewes by an index, where NSIP ignores the status
// criterion and its rows record no sex: the rows returned for gender
// Female are ranked as ewes, those of another status left out, and the
// answer is the true top five.
func TestLiveRowsRankEwesWhereStatusIsIgnored(t *testing.T) {
	e := newEnv(t)
	e.up.SetIrregular(nsiptest.Irregular{IgnoreCriteria: []string{"status"}})
	d := e.up.Data()
	type scored struct {
		id string
		v  float64
	}
	var all []scored
	for _, id := range d.AnimalIDs() {
		a, _ := d.Animal(id)
		nlb, ok1 := a.Trait("NLB")
		nlw, ok2 := a.Trait("NLW")
		if a.BreedID == 640 && a.Gender == "Female" && a.Status == "CURRENT" && ok1 && ok2 {
			all = append(all, scored{id, nlb.Value + nlw.Value})
		}
	}
	slices.SortFunc(all, func(x, y scored) int {
		if c := cmp.Compare(y.v, x.v); c != 0 {
			return c
		}
		return strings.Compare(x.id, y.id)
	})
	r := e.call("nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"NLB": 1, "NLW": 1}, "top_n": 5,
		"search_criteria": map[string]any{"gender": "Female", "status": "CURRENT"}}).mustOK(t)
	var a struct {
		Top           [][]any              `json:"top"`
		SexFromSearch *struct{ Count int } `json:"sex_from_search"`
		Computed      struct {
			Exact bool `json:"exact"`
		} `json:"computed"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %.300s", err, r.text)
	}
	if len(a.Top) != 5 || !a.Computed.Exact || a.SexFromSearch == nil || a.SexFromSearch.Count == 0 {
		t.Fatalf("%d rows, exact %v, sex_from_search %+v; want the top 5 ewes, exact, their sex taken from the search: %.400s", len(a.Top), a.Computed.Exact, a.SexFromSearch, r.text)
	}
	for i, row := range a.Top {
		if row[1] != all[i].id || row[3] != "Female" || row[4] != "CURRENT" {
			t.Errorf("rank %d = %v, want %s (%.3f), Female, CURRENT", i+1, row[:5], all[i].id, all[i].v)
		}
	}
}

// A ranking asked for no sex shows each ranked animal's sex, birth date
// and genotyped status from its record, saying so.
func TestLiveRowsRankSexesFromRecords(t *testing.T) {
	e := newEnv(t)
	r := e.call("nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1}, "top_n": 5}).mustOK(t)
	var a struct {
		Top         [][]any `json:"top"`
		FromRecords string  `json:"from_records"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil || len(a.Top) != 5 {
		t.Fatalf("%v: %.300s", err, r.text)
	}
	for _, row := range a.Top {
		an, _ := e.up.Data().Animal(row[1].(string))
		if row[3] != an.Gender {
			t.Errorf("row %v: sex %v, the record's %s", row[:4], row[3], an.Gender)
		}
	}
	if !strings.Contains(a.FromRecords, "5 of the 5 ranked animals") {
		t.Errorf("from_records %q", a.FromRecords)
	}
}

// A breed's pass over live rows reads the breed as its rams and its ewes,
// so a ranking of rams by index is answered from it with every row a ram.
func TestLiveRowsPassKnowsSexes(t *testing.T) {
	e := newEnv(t)
	d := e.up.Data()
	// A Katahdin's percentiles read the breed's pass.
	var ram string
	for _, id := range d.AnimalIDs() {
		if a, _ := d.Animal(id); a.BreedID == 640 && a.Gender == "Male" && a.Born.Year() == 2024 {
			ram = id
			break
		}
	}
	var p struct {
		Percentiles struct {
			Via string `json:"via"`
		} `json:"percentiles"`
	}
	r := e.call("nsip_get_animal", map[string]any{"search_string": ram, "percentiles": true}).mustOK(t)
	if err := json.Unmarshal([]byte(r.text), &p); err != nil || !strings.Contains(p.Percentiles.Via, "breed pass") {
		t.Fatalf("percentiles via %q (%v); want the breed's pass: %.300s", p.Percentiles.Via, err, r.text)
	}
	r = e.call("nsip_rank_animals", map[string]any{"breed_id": 640, "index": "US Hair Index", "top_n": 10,
		"search_criteria": map[string]any{"gender": "Male"}}).mustOK(t)
	var a struct {
		Top      [][]any `json:"top"`
		Computed struct {
			Via string `json:"via"`
		} `json:"computed"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil || a.Computed.Via != "breed pass" || len(a.Top) != 10 {
		t.Fatalf("via %q, %d rows (%v); want 10 rams from the kept pass: %.300s", a.Computed.Via, len(a.Top), err, r.text)
	}
	for _, row := range a.Top {
		if an, _ := d.Animal(row[1].(string)); an.Gender != "Male" || row[3] != "Male" {
			t.Errorf("row %v: the dataset's sex %s", row[:4], an.Gender)
		}
	}
}

// A sire's progeny summary counts each trait over every offspring, its
// EBVs read from each one's record, as NSIP's progeny rows carry none.
func TestLiveRowsProgenyEBVsFromRecords(t *testing.T) {
	e := newEnv(t)
	d := e.up.Data()
	sire := d.MostProgeny()
	n, best, bestV := 0, "", 0.0
	for _, id := range d.Progeny(sire) {
		a, _ := d.Animal(id)
		if tr, ok := a.Trait("WWT"); ok {
			n++
			if best == "" || tr.Value > bestV {
				best, bestV = id, tr.Value
			}
		}
	}
	r := e.call("nsip_flock_summary", map[string]any{"progeny_of": sire}).mustOK(t)
	var a struct {
		Traits []struct {
			Trait  string   `json:"trait"`
			N      int      `json:"n"`
			MaxIDs []string `json:"max_lpn_ids"`
		} `json:"traits"`
		Computed struct {
			Method string `json:"method"`
		} `json:"computed"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %.300s", err, r.text)
	}
	found := false
	for _, tr := range a.Traits {
		if tr.Trait == "WWT" {
			found = true
			if tr.N != n || len(tr.MaxIDs) == 0 || tr.MaxIDs[0] != best {
				t.Errorf("WWT over %d offspring, best %v; want %d and %s", tr.N, tr.MaxIDs, n, best)
			}
		}
	}
	if !found || !strings.Contains(a.Computed.Method, "own record") {
		t.Errorf("WWT found %v; method %q, want it to say the EBVs are each offspring's record's", found, a.Computed.Method)
	}
}
