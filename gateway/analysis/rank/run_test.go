// Tests of nsip_rank_animals (rank.go): its runs over a fake NSIP: the top N
// equal to a brute-force ranking of every animal, whatever order NSIP's
// pages come in, errors named by their argument, weights asked of the user,
// rows that contradict the criteria left out, and answers fitted to the
// budget. Its contract and arguments are in rank_test.go.

package rank

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

func TestRankMatchesBruteForce(t *testing.T) {
	for _, c := range []struct {
		seed    uint64
		n       int
		weights map[string]any
		topN    int
		sex     string
	}{
		{1, 600, map[string]any{"WWT": 1.0, "BWT": -0.5}, 10, ""},
		// The heaviest weight is negative: the scan must read BWT lowest
		// first, which NSIP gives only reversed.
		{2, 2500, map[string]any{"BWT": -2.0, "WWT": 1.0, "YWT": 0.3}, 25, ""},
		{3, 1800, map[string]any{"YWT": 1.0, "FAT": -1.0}, 50, "Female"},
		// More animals than the 30 pages read: exact only through the
		// bound, which a dominant WWT weight makes reachable.
		{4, 4000, map[string]any{"WWT": 5.0, "BWT": -0.1}, 5, "Male"},
		{5, 3500, map[string]any{"FAT": -3.0, "BWT": -0.2}, 3, ""},
	} {
		t.Run(fmt.Sprint("seed", c.seed), func(t *testing.T) {
			f := analysistest.Population(c.seed, c.n)
			sent := map[string]any{"breed_id": 640, "weights": c.weights, "top_n": c.topN}
			if c.sex != "" {
				sent["search_criteria"] = map[string]any{"gender": c.sex}
			}
			var a analysistest.RankAnswer
			analysistest.MustRun(t, Rank, f, sent, &a)
			w := breeding.Weights{}
			for k, v := range c.weights {
				w[k] = v.(float64)
			}
			want := analysistest.BruteTop(f, 640, c.sex, w, c.topN)
			if !a.Computed.Exact {
				t.Fatalf("not exact: %+v", a.Computed)
			}
			if len(a.Top) != len(want) {
				t.Fatalf("%d rows, want %d", len(a.Top), len(want))
			}
			for i, row := range a.Top {
				if row[0] != float64(i+1) || row[1] != want[i].ID || row[2] != facts.Round4(want[i].Score) {
					t.Errorf("row %d = %v, want %s %v", i+1, row[:3], want[i].ID, facts.Round4(want[i].Score))
				}
			}
			if a.Computed.SortedBy != w.Codes()[0] {
				t.Errorf("sorted by %q, want the heaviest weight %q", a.Computed.SortedBy, w.Codes()[0])
			}
			// Exact because everything was read, or because the bound
			// proved the rest could not enter; either way it says which.
			switch a.Computed.Stopped {
			case "all read":
				if a.Computed.AnimalsRead != a.Computed.Population {
					t.Errorf("all read, yet %d of %d animals", a.Computed.AnimalsRead, a.Computed.Population)
				}
			case "bound":
				if a.Computed.AnimalsRead >= a.Computed.Population {
					t.Errorf("stopped by the bound after reading all %d", a.Computed.Population)
				}
			default:
				t.Errorf("stopped %q", a.Computed.Stopped)
			}
			if c.n > 3000 && a.Computed.Stopped != "bound" {
				t.Errorf("%d animals, stopped %q; want the bound", c.n, a.Computed.Stopped)
			}
			if got := f.CallsOf("search") + f.CallsOf("ranges"); got > Rank.Ceiling {
				t.Errorf("%d lookups, over the ceiling of %d", got, Rank.Ceiling)
			}
		})
	}
}

// A server that ignores the sort: no early stop, so a population larger
// than the scan is not called exact, and a smaller one is read whole.
func TestRankUnsortedServer(t *testing.T) {
	for _, c := range []struct {
		n     int
		exact bool
	}{{2000, true}, {3500, false}} {
		f := analysistest.Population(7, c.n)
		f.Unsorted = true
		w := map[string]any{"WWT": 1.0, "BWT": -1.0}
		var a analysistest.RankAnswer
		analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "weights": w, "top_n": 10}, &a)
		if a.Computed.Exact != c.exact || a.Computed.Sort == "" {
			t.Errorf("%d animals, unsorted: %+v; want exact %v and a note on the order", c.n, a.Computed, c.exact)
		}
		if c.exact {
			want := analysistest.BruteTop(f, 640, "", breeding.Weights{"WWT": 1, "BWT": -1}, 10)
			for i, row := range a.Top {
				if row[1] != want[i].ID {
					t.Errorf("row %d = %v, want %s", i+1, row[1], want[i].ID)
				}
			}
		} else if a.Computed.Stopped != "scan limit" || a.Computed.Pages != rankPages {
			t.Errorf("stopped %q after %d pages, want the scan limit of %d", a.Computed.Stopped, a.Computed.Pages, rankPages)
		}
	}
}

func TestRankAnswerShape(t *testing.T) {
	f := analysistest.NewFake(
		&analysistest.FakeAnimal{ID: "RANK1", Sex: "Male", Status: "CURRENT", Born: "2/13/2022", EBV: map[string]float64{"WWT": 2, "BWT": 0.5}, Genotyped: "50K Genotyped"},
		&analysistest.FakeAnimal{ID: "RANK2", EBV: map[string]float64{"WWT": 3, "BWT": 0.1}},
		&analysistest.FakeAnimal{ID: "RANK3", EBV: map[string]float64{"WWT": 9}},
	)
	// Index = -2 WWT - BWT, WWT's weight negative on purpose: RANK1
	// -2(2) - 0.5 = -4.5, RANK2 -2(3) - 0.1 = -6.1; RANK3 has no BWT and
	// so no index.
	var a analysistest.RankAnswer
	analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": -2.0, "BWT": -1.0}, "top_n": 5}, &a)
	if !slices.Equal(a.Columns, []string{"rank", "lpn_id", "index", "sex", "status", "birth_year", "genotyped", "WWT", "WWT_acc", "BWT", "BWT_acc"}) {
		t.Errorf("columns %v", a.Columns)
	}
	if len(a.Top) != 2 || fmt.Sprint(a.Top[0]) != "[1 RANK1 -4.5 Male CURRENT 2022 50K Genotyped 2 70 0.5 70]" || fmt.Sprint(a.Top[1]) != "[2 RANK2 -6.1 unknown unknown <nil> <nil> 3 70 0.1 70]" {
		t.Errorf("top %v", a.Top)
	}
	if a.Computed.WithoutIndex != 1 || !strings.HasPrefix(a.Unranked, "1 animals lack") {
		t.Errorf("without index %d, unranked %q; want RANK3 counted", a.Computed.WithoutIndex, a.Unranked)
	}
	if len(a.Warnings) != 1 || !strings.HasPrefix(a.Warnings[0], "WWT is usually selected higher") {
		t.Errorf("warnings %q, want WWT's negative weight flagged", a.Warnings)
	}
}

func TestRankErrors(t *testing.T) {
	f := analysistest.Population(8, 50)
	sent := func(breed int, w map[string]any) map[string]any {
		return map[string]any{"breed_id": breed, "weights": w}
	}
	var ae *analysis.ArgError
	if _, err := analysistest.Run(t, Rank, f, sent(999, map[string]any{"WWT": 1.0})); !errors.As(err, &ae) || ae.Field != "breed_id" {
		t.Errorf("breed without ranges: %v, want an argument error on breed_id", err)
	}
	if _, err := analysistest.Run(t, Rank, f, sent(640, map[string]any{"EMD": 1.0})); !errors.As(err, &ae) || ae.Field != "weights.EMD" || !strings.Contains(ae.Expected, "BWT, FAT, WWT, YWT") {
		t.Errorf("weight on a trait the breed lacks: %v, want weights.EMD naming the breed's traits", err)
	}
	f.Fail = map[string]error{"breed 777": analysistest.NotFound("777")}
	var ab *analysis.AboutError
	if _, err := analysistest.Run(t, Rank, f, sent(777, map[string]any{"WWT": 1.0})); !errors.As(err, &ab) || ab.Field != "breed_id" || ab.What != "trait ranges for breed" {
		t.Errorf("ranges failing: %v, want about breed_id", err)
	}
	if f.CallsOf("search") != 0 {
		t.Errorf("searched %d times before the arguments held", f.CallsOf("search"))
	}
}

// Weights left out are asked of the user, over the breed's traits.
func TestRankAsksForWeights(t *testing.T) {
	f := analysistest.Population(9, 300)
	noWeights := map[string]any{"breed_id": 640, "top_n": 3}
	args, errs := Rank.Validate(param.SentOf(noWeights))
	if len(errs) != 1 || errs[0].Field != "weights" {
		t.Fatalf("validate without weights: %v, want weights required", errs)
	}

	// A client that cannot be asked: weights are required.
	_, err := analysis.Run(t.Context(), Rank, f, analysistest.Discard(), param.SentOf(noWeights), args)
	var ae *analysis.ArgError
	if !errors.As(err, &ae) || ae.Field != "weights" {
		t.Errorf("cannot ask: %v, want weights required", err)
	}

	// The user weights WWT and BWT and leaves YWT at 0.
	f.Answers = map[string]any{"WWT": 1.0, "BWT": -1.0, "YWT": 0.0}
	v, err := analysis.Run(t.Context(), Rank, f, analysistest.Discard(), param.SentOf(noWeights), args)
	if err != nil {
		t.Fatal(err)
	}
	var a analysistest.RankAnswer
	analysistest.Decode(t, v, &a)
	want := analysistest.BruteTop(f, 640, "", breeding.Weights{"WWT": 1, "BWT": -1}, 3)
	if len(a.Top) != 3 || a.Top[0][1] != want[0].ID || !slices.Equal(a.Columns[7:], []string{"BWT", "BWT_acc", "WWT", "WWT_acc"}) {
		t.Errorf("ranked on the answer: %v %v, want %s first over BWT and WWT", a.Columns, a.Top, want[0].ID)
	}
	form := f.Forms[len(f.Forms)-1]
	var names []string
	for _, p := range form.Fields {
		names = append(names, p.Name)
	}
	if form.Arg != "weights" || !slices.Equal(names, []string{"BWT", "WWT", "YWT", "FAT"}) {
		t.Errorf("form for %q with fields %v, want weights over the breed's traits in the glossary's order", form.Arg, names)
	}

	// An answer that weights nothing fails as the user's answer (one
	// that is no number never reaches the analysis: gateway/elicit).
	f.Answers = map[string]any{"WWT": 0.0}
	_, err = analysis.Run(t.Context(), Rank, f, analysistest.Discard(), param.SentOf(noWeights), args)
	var ue *analysis.AnswerError
	if !errors.As(err, &ue) || ue.Errs[0].Field != "weights" || ue.Errs[0].Problem != "has 0 traits; give 1..20" {
		t.Errorf("empty answer: %v, want the user's answer on weights", err)
	}

	// The user declining comes back as it is.
	declined := errors.New("the user declined")
	f.AskErr = declined
	if _, err = analysis.Run(t.Context(), Rank, f, analysistest.Discard(), param.SentOf(noWeights), args); !errors.Is(err, declined) {
		t.Errorf("declined: %v", err)
	}
}

// The early stop must not skip an animal whose sort trait is middling but
// whose other trait lifts it to the top. Index 2 WWT - BWT, so the scan is
// sorted by WWT. WWT runs 10.00, 9.99, ... 0.01 down the pages (100 a
// page, so the last WWT read after page k is 9.01 - k), BWT is 0, except
// the sleeper's: WWT 4.8 (on page 5), BWT -10.5, index 9.6 + 10.5 = 20.1,
// the best. BWT's range is -10.5..0, so an unread animal can reach at most
// 2 (9.01 - k) + 10.5 = 28.52 - 2k. After page 4 that is 20.52, above the
// best so far (20, the first animal), so the scan goes on; after page 5 it
// is 18.52, below the sleeper's 20.1: six pages, the sleeper first.
func TestRankBoundKeepsTheSleeper(t *testing.T) {
	f := analysistest.NewFake()
	for i := range 1000 {
		f.Add(&analysistest.FakeAnimal{ID: fmt.Sprintf("SLOPE%04d", i), EBV: map[string]float64{"WWT": float64(1000-i) / 100, "BWT": 0}})
	}
	f.Add(&analysistest.FakeAnimal{ID: "SLEEPER1", EBV: map[string]float64{"WWT": 4.8, "BWT": -10.5}})
	var a analysistest.RankAnswer
	analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 2.0, "BWT": -1.0}, "top_n": 1}, &a)
	if len(a.Top) != 1 || a.Top[0][1] != "SLEEPER1" || a.Top[0][2] != 20.1 {
		t.Errorf("top %v, want SLEEPER1 at 20.1", a.Top)
	}
	if a.Computed.Stopped != "bound" || a.Computed.Pages != 6 || !a.Computed.Exact {
		t.Errorf("%+v, want an exact stop by the bound after 6 pages", a.Computed)
	}
}

// A search for rams that returns a ewe (NSIP ignoring gender) and a ram
// of another status: neither is ranked, though the ewe has the best
// index, and both are counted and named. The rest is the brute force top
// of the rams, each row saying Male.
func TestRankDropsRowsContradictingCriteria(t *testing.T) {
	f := analysistest.Population(7, 300)
	f.Pages = func(page int, rows []nsip.AnimalRow) []nsip.AnimalRow {
		if page > 0 {
			return rows
		}
		return append([]nsip.AnimalRow{
			{LPNID: "EWE99", Sex: "Female", BreedID: 640, Traits: analysistest.TraitsOf(map[string]float64{"WWT": 99})},
			{LPNID: "RAM99", Sex: "Male", Status: "SOLD", BreedID: 640, Traits: analysistest.TraitsOf(map[string]float64{"WWT": 98})},
		}, rows[:len(rows)-2]...)
	}
	for _, a := range f.Animals {
		a.Status = "CURRENT"
	}
	var raw map[string]any
	analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}, "top_n": 5,
		"search_criteria": map[string]any{"gender": "Male", "status": "CURRENT"}}, &raw)
	var a analysistest.RankAnswer
	analysistest.Decode(t, raw, &a)
	want := analysistest.BruteTop(f, 640, "Male", breeding.Weights{"WWT": 1}, 5)
	for i, row := range a.Top {
		if i >= len(want) || row[1] != want[i].ID || row[3] != "Male" {
			t.Errorf("row %d = %v, want %s, Male", i+1, row, want[min(i, len(want)-1)].ID)
		}
	}
	c, _ := raw["contradicting_criteria"].(map[string]any)
	if c == nil || c["count"] != 2.0 || !strings.Contains(fmt.Sprint(c["lpn_ids"]), "EWE99 (sex Female, gender Male asked)") ||
		!strings.Contains(fmt.Sprint(c["lpn_ids"]), "RAM99 (status SOLD, CURRENT asked)") {
		t.Errorf("contradicting_criteria %v; want EWE99 and RAM99 named", c)
	}
}

// NSIP ignoring trait_ranges, and sending a row of another breed: a row
// the ranges or the breed rule out is not ranked, however good its index,
// and is counted; the ranking is the brute-force top of the rest.
func TestRankDropsRowsOutsideTraitRangesOrBreed(t *testing.T) {
	f := analysistest.Population(8, 300)
	f.Pages = func(page int, rows []nsip.AnimalRow) []nsip.AnimalRow {
		if page > 0 {
			return rows
		}
		return append([]nsip.AnimalRow{{LPNID: "OTHER99", Sex: "Male", BreedID: 641, Traits: analysistest.TraitsOf(map[string]float64{"WWT": 4})}}, rows[:len(rows)-1]...)
	}
	var raw map[string]any
	analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}, "top_n": 5,
		"search_criteria": map[string]any{"trait_ranges": map[string]any{"WWT": map[string]any{"max": 4.5}}}}, &raw)
	var a analysistest.RankAnswer
	analysistest.Decode(t, raw, &a)
	var within []breeding.Scored
	outside := 0
	for _, an := range f.Animals {
		if v, ok := an.EBV["WWT"]; ok && an.Breed == 640 {
			if v > 4.5 {
				outside++
				continue
			}
			within = append(within, breeding.Scored{ID: an.ID, Score: v})
		}
	}
	slices.SortFunc(within, func(x, y breeding.Scored) int {
		if c := cmp.Compare(y.Score, x.Score); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	if outside == 0 {
		t.Fatal("the population has no WWT over 4.5: the test would prove nothing")
	}
	for i, row := range a.Top {
		if i >= len(within) || row[1] != within[i].ID {
			t.Errorf("row %d = %v, want %s", i+1, row, within[i].ID)
		}
	}
	c, _ := raw["contradicting_criteria"].(map[string]any)
	named := fmt.Sprint(c["lpn_ids"])
	if c == nil || c["count"] != float64(outside+1) || !strings.Contains(named, "OTHER99 (breed 641, breed_id 640 asked)") || !strings.Contains(named, "WWT") {
		t.Errorf("contradicting_criteria %v; want %d rows, OTHER99 by breed and the rest by WWT", c, outside+1)
	}
}

// Over the budget a ranking keeps its first rows whole, its weights and
// computed block, and gives the call for the rest.
func TestRankFitsItsOwnAnswer(t *testing.T) {
	f := analysistest.Population(3, 400)
	sent := map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}, "top_n": 30}
	var full analysistest.RankAnswer
	analysistest.MustRun(t, Rank, f, sent, &full)
	f.OverAt = 1500
	var raw map[string]any
	analysistest.MustRun(t, Rank, f, sent, &raw)
	var a analysistest.RankAnswer
	analysistest.Decode(t, raw, &a)
	rest, _ := raw["not_shown"].(map[string]any)
	if len(a.Top) == 0 || len(a.Top) >= 30 || rest == nil || rest["rows"] != float64(30-len(a.Top)) || raw["weights"] == nil || a.Computed.Exact != full.Computed.Exact {
		t.Fatalf("fitted ranking: %d rows, rest %v, weights %v; want some of 30 rows and the rest counted", len(a.Top), rest, raw["weights"])
	}
	for i, row := range a.Top {
		if fmt.Sprint(row) != fmt.Sprint(full.Top[i]) {
			t.Errorf("row %d = %v, want %v", i+1, row, full.Top[i])
		}
	}
	set := rest["call"].(map[string]any)["set"].(map[string]any)
	if set["max_tokens"] != 8000.0 || len(set) != 1 {
		t.Errorf("call for the rest %v; want the same call at max_tokens 8000", set)
	}
}

// The call for the rest of a ranking sets the weights the user chose in
// the form, so that the form is not asked again (and answered otherwise),
// also when the call sent weights as null; weights the call sent are not
// repeated.
func TestRankRestCallSetsTheChosenWeights(t *testing.T) {
	f := analysistest.Population(3, 400)
	f.Answers = map[string]any{"WWT": 1.0}
	f.OverAt = 1500
	for _, c := range []struct {
		sent map[string]any
		want string
	}{
		{map[string]any{"breed_id": 640, "top_n": 30}, `{"max_tokens":8000,"weights":{"WWT":1}}`},
		{map[string]any{"breed_id": 640, "top_n": 30, "weights": nil}, `{"max_tokens":8000,"weights":{"WWT":1}}`},
		{map[string]any{"breed_id": 640, "top_n": 30, "weights": map[string]any{"WWT": 2.0}}, `{"max_tokens":8000}`},
	} {
		args, _ := Rank.Validate(param.SentOf(c.sent)) // weights left out is left to the form
		v, err := analysis.Run(t.Context(), Rank, f, analysistest.Discard(), param.SentOf(c.sent), args)
		if err != nil {
			t.Fatalf("%v: %v", c.sent, err)
		}
		if got := analysistest.RestCallSet(t, v); got != c.want {
			t.Errorf("%v: the rest's call sets %s, want %s", c.sent, got, c.want)
		}
	}
}
