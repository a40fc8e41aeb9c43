package gateway

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// The two group questions of specs/answers.md, asked of the stand-in that
// nsip-stub and nsip-load serve by default (seed 1, 4,000 animals): before,
// with the lookups alone, reading every page as an assistant must for an
// exact answer; after, with one nsip_flock_summary call. Both answers are
// checked against the stand-in's data, and the calls and tokens of the
// answers read are logged for specs/answers.md.
//
// Run: go test ./gateway -run TestGroupQuestionsInOneCall -v
func TestGroupQuestionsInOneCall(t *testing.T) {
	up := nsiptest.NewServer(t, nsiptest.Options{Seed: 1, Animals: 4000})
	e := newEnv(t, func(_ *Config, o *[]nsip.Option) { *o = append(*o, nsip.WithBaseURL(up.URL())) })
	d := up.Data()
	ram := d.MostProgeny()

	// How many of this ram's lambs are ewes?
	kids := d.Progeny(ram)
	ewes := 0
	for _, id := range kids {
		if a, _ := d.Animal(id); a.Gender == "Female" {
			ewes++
		}
	}
	want := fmt.Sprintf("%d of %d", ewes, len(kids))

	before := &asker{t: t, e: e}
	total, females := 0, 0
	for page := 0; page == 0 || page*100 < total; page++ {
		args := map[string]any{"lpn_id": ram, "page": page, "page_size": 100, "traits": []any{"BWT"}}
		for {
			r := before.call("nsip_get_progeny", args)
			total = r.metaInt(t, "total_count")
			var m struct {
				Sex     *struct{ F int } `json:"sex"`
				Records []map[string]any `json:"records"`
			}
			_ = json.Unmarshal([]byte(r.text), &m)
			if m.Sex != nil {
				females += m.Sex.F // the summary's split covers its whole page
				break
			}
			for _, rec := range m.Records {
				if sexLetter(text(firstOf(rec, "sex", "gender"))) == "F" {
					females++
				}
			}
			_, next := nextOf(r)
			if next == nil || fmt.Sprint(next["page"]) != fmt.Sprint(page) {
				break
			}
			args = next
		}
	}
	if got := fmt.Sprintf("%d of %d", females, total); got != want {
		t.Errorf("ewes, with the lookups: %s, want %s", got, want)
	}

	after := &asker{t: t, e: e}
	r := after.call("nsip_flock_summary", map[string]any{"progeny_of": ram})
	var g groupAnswer
	if err := json.Unmarshal([]byte(r.text), &g); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%d of %d", g.BySex["female"], g.Animals); got != want || !g.Computed.Complete {
		t.Errorf("ewes, in one call: %s (complete %v), want %s", got, g.Computed.Complete, want)
	}
	report(t, "lambs-ewes", fmt.Sprintf("%d lambs of %s", len(kids), ram), before, after)

	// Which Katahdin rams have WWT at least +1.5, BWT at most 0 and FEC at
	// most -0.5: how many, born when, and each trait's range among them?
	crit := map[string]any{"gender": "Male", "trait_ranges": map[string]any{
		"WWT": map[string]any{"min": 1.5}, "BWT": map[string]any{"max": 0.0}, "FEC": map[string]any{"max": -0.5}}}
	var match []nsiptest.Animal
	for _, id := range d.AnimalIDs() {
		a, _ := d.Animal(id)
		v := map[string]float64{}
		for _, tr := range a.Traits {
			v[tr.Code] = tr.Value
		}
		w, okw := v["WWT"]
		b, okb := v["BWT"]
		f, okf := v["FEC"]
		if a.BreedID == 640 && a.Gender == "Male" && okw && okb && okf && w >= 1.5 && b <= 0 && f <= -0.5 {
			match = append(match, a)
		}
	}
	wantYears := map[string]int{}
	wantRange := map[string][2]float64{}
	for _, a := range match {
		wantYears[fmt.Sprint(a.Born.Year())]++
		for _, tr := range a.Traits {
			if r, ok := wantRange[tr.Code]; ok {
				wantRange[tr.Code] = [2]float64{math.Min(r[0], tr.Value), math.Max(r[1], tr.Value)}
			} else {
				wantRange[tr.Code] = [2]float64{tr.Value, tr.Value}
			}
		}
	}

	before = &asker{t: t, e: e}
	var rows []seenRow
	for page := 0; ; page++ {
		args := map[string]any{"breed_id": 640, "page": page, "page_size": 100, "search_criteria": crit, "traits": []any{"WWT", "BWT", "FEC"}}
		got := before.wholePage("nsip_search_animals", args)
		rows = append(rows, got...)
		if len(got) < 100 {
			break
		}
	}
	years := map[string]int{}
	for _, r := range rows {
		// Live rows carry no birth date: an assistant reads the year from
		// the LPN ID, as the analyses do.
		y, _ := nsip.AnimalRow{LPNID: r.lpn, DateOfBirth: r.dob}.BirthYear()
		years[fmt.Sprint(y)]++
	}
	if len(rows) != len(match) || !maps.Equal(years, wantYears) {
		t.Errorf("rams, with the lookups: %d rows, years %v; want %d, %v", len(rows), years, len(match), wantYears)
	}

	after = &asker{t: t, e: e}
	r = after.call("nsip_flock_summary", map[string]any{"search": map[string]any{"breed_id": 640, "search_criteria": crit}})
	g = groupAnswer{}
	if err := json.Unmarshal([]byte(r.text), &g); err != nil {
		t.Fatal(err)
	}
	if g.Animals != len(match) || !maps.Equal(g.ByYear, wantYears) || !g.Computed.Complete {
		t.Errorf("rams, in one call: %d, years %v, complete %v; want %d, %v", g.Animals, g.ByYear, g.Computed.Complete, len(match), wantYears)
	}
	for _, code := range []string{"WWT", "BWT", "FEC"} {
		i := slices.IndexFunc(g.Traits, func(tr groupTrait) bool { return tr.Trait == code })
		if i < 0 || g.Traits[i].Min != wantRange[code][0] || g.Traits[i].Max != wantRange[code][1] {
			t.Errorf("rams, %s: %v, want range %v", code, g.Traits, wantRange[code])
		}
	}
	if r.meta["full"] == nil {
		t.Errorf("the answer links no full data: %v", r.meta)
	}
	report(t, "rams-wwt-bwt-fec", fmt.Sprintf("%d Katahdin rams match", len(match)), before, after)
}

type groupTrait struct {
	Trait string  `json:"trait"`
	N     int     `json:"n"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
}

type groupAnswer struct {
	Animals  int            `json:"animals"`
	BySex    map[string]int `json:"by_sex"`
	ByYear   map[string]int `json:"by_birth_year"`
	Traits   []groupTrait   `json:"traits"`
	Computed struct {
		Complete bool `json:"complete"`
	} `json:"computed"`
}

// report logs a question's cost before and after, and holds the one call
// under 2,000 tokens.
func report(t *testing.T, id, what string, before, after *asker) {
	t.Helper()
	t.Logf("| %s | %s | %d | %d | %d | %d |", id, what, before.calls, before.tokens, after.calls, after.tokens)
	if after.calls != 1 || after.tokens >= 2000 {
		t.Errorf("%s: %d calls, %d tokens; want one call under 2,000 tokens", id, after.calls, after.tokens)
	}
}
