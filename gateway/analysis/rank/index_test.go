package rank

import (
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

func TestRankByIndexMatchesBruteForce(t *testing.T) {
	for _, c := range []struct {
		seed        uint64
		n           int
		name, asked string
		topN        int
		sex         string
	}{
		{1, 600, "US Hair Index", "US Hair Index", 10, ""},
		{2, 2500, "SRC$ Index", "src$  index", 25, "Male"},
		{3, 1200, "US Hair Index", "us hair index", 50, "Female"},
	} {
		t.Run(fmt.Sprint("seed", c.seed), func(t *testing.T) {
			f := analysistest.Indexed(c.seed, c.n)
			sent := map[string]any{"breed_id": 640, "index": c.asked, "top_n": c.topN}
			if c.sex != "" {
				sent["search_criteria"] = map[string]any{"gender": c.sex}
			}
			var a analysistest.RankIndexAnswer
			analysistest.MustRun(t, Rank, f, sent, &a)
			want := analysistest.BruteIndexTop(f, 640, c.sex, c.name, c.topN)
			if !a.Computed.Exact || a.Computed.Stopped != "all read" || a.Computed.AnimalsRead != a.Computed.Population {
				t.Fatalf("computed %+v, want exact after reading all", a.Computed)
			}
			if a.Index != c.name || !slices.Equal(a.Columns, []string{"rank", "lpn_id", "index", "sex", "status", "birth_year", "genotyped"}) {
				t.Errorf("index %q columns %v", a.Index, a.Columns)
			}
			if len(a.Top) != len(want) {
				t.Fatalf("%d rows, want %d", len(a.Top), len(want))
			}
			for i, row := range a.Top {
				an := f.Animals[want[i]]
				var g any
				if an.Genotyped != "" {
					g = an.Genotyped
				}
				if row[0] != float64(i+1) || row[1] != want[i] || row[2] != an.Index[c.name] || row[3] != an.Sex || row[4] != "unknown" || row[5] != nil || row[6] != g {
					t.Errorf("row %d = %v, want %s %v %s %v", i+1, row, want[i], an.Index[c.name], an.Sex, g)
				}
			}
			if a.Computed.WithoutIndex == 0 || !strings.Contains(a.Unranked, c.name) {
				t.Errorf("without index %d, unranked %q: the animals lacking it are not counted", a.Computed.WithoutIndex, a.Unranked)
			}
			if f.CallsOf("ranges") != 0 {
				t.Errorf("read the trait ranges %d times; an index ranking needs none", f.CallsOf("ranges"))
			}
		})
	}
}

// More animals than the scan reads: NSIP cannot sort by an index, so the
// answer is the best of those read and says it is not proven.
func TestRankByIndexScanLimit(t *testing.T) {
	f := analysistest.Indexed(4, 3500)
	var a analysistest.RankIndexAnswer
	analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "index": "US Hair Index", "top_n": 5}, &a)
	if a.Computed.Exact || a.Computed.Stopped != "scan limit" || a.Computed.Pages != rankPages || !strings.Contains(a.Computed.Limit, "cannot sort by an index") {
		t.Errorf("computed %+v, want not exact at the scan limit, saying why", a.Computed)
	}
	if n := f.CallsOf("search"); n != rankPages {
		t.Errorf("%d searches, want %d", n, rankPages)
	}
}

// Repeats across pages (each one an animal skipped) withdraw exactness.
func TestRankByIndexPaging(t *testing.T) {
	f := analysistest.Indexed(5, 450)
	f.Pages = func(page int, rows []nsip.AnimalRow) []nsip.AnimalRow {
		if page == 2 && len(rows) > 3 {
			rows[0] = rows[3] // one animal twice, another never
		}
		return rows
	}
	var a analysistest.RankIndexAnswer
	analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "index": "US Hair Index"}, &a)
	if a.Computed.Exact || !strings.Contains(a.Computed.Paging, "1 animals repeated") {
		t.Errorf("computed %+v, want not exact with the repeat named", a.Computed)
	}
}

func TestRankByIndexArguments(t *testing.T) {
	f := analysistest.Indexed(6, 300)
	_, err := analysistest.Run(t, Rank, f, map[string]any{"breed_id": 640, "index": "US Hiar Index"})
	var ae *analysis.ArgError
	if !errors.As(err, &ae) || ae.Field != "index" || !strings.Contains(ae.Problem, `did you mean "US Hair Index"?`) ||
		!strings.Contains(ae.Expected, "SRC$ Index, US Hair Index") {
		t.Errorf("misspelt index: %v (%+v), want a did-you-mean and the names NSIP sent", err, ae)
	}
	_, err = analysistest.Run(t, Rank, f, map[string]any{"breed_id": 640, "index": "US Hair Index", "weights": map[string]any{"WWT": 1.0}})
	if !errors.As(err, &ae) || ae.Field != "index" || !strings.Contains(ae.Problem, "weights") {
		t.Errorf("index with weights: %v, want refused naming both", err)
	}
	if f.CallsOf("search") != 1 {
		t.Errorf("%d searches; a misspelt index is refused after the first page, and index with weights before any", f.CallsOf("search"))
	}
	// Neither: weights is required; with index it is not.
	if _, errs := Rank.Validate(param.SentOf(map[string]any{"breed_id": 640})); len(errs) != 1 || errs[0].Field != "weights" {
		t.Errorf("neither weights nor index: %v", errs)
	}
	if _, errs := Rank.Validate(param.SentOf(map[string]any{"breed_id": 640, "index": "US Hair Index"})); len(errs) != 0 {
		t.Errorf("index without weights: %v", errs)
	}
	// A breed whose animals carry no index at all.
	for _, a := range f.Animals {
		a.Index = nil
	}
	_, err = analysistest.Run(t, Rank, f, map[string]any{"breed_id": 640, "index": "US Hair Index"})
	if !errors.As(err, &ae) || !strings.Contains(ae.Problem, "NSIP sent no index") {
		t.Errorf("no indexes: %v", err)
	}
}
