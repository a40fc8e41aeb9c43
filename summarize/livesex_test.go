package summarize

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// TestProgenyCodesSpelledOut: a live progeny page says sex as "1"/"2" and
// dates with a time; the summary counts and writes M and F (male, female)
// and the date alone.
func TestProgenyCodesSpelledOut(t *testing.T) {
	s, _ := newTestSummarizer(t)
	v := &nsip.ProgenyPage{LPNID: "6402382024NCS310", TotalCount: 25, PageSize: 25}
	for i := range 25 {
		sex := []string{"1", "2"}[i%2] // 13 males, 12 females
		v.Animals = append(v.Animals, nsip.ProgenyRow{LPNID: fmt.Sprintf("6401492025FLE%03d", i+1), Sex: sex,
			DateOfBirth: "2025-02-16T00:00:00", Traits: []nsip.Trait{{Code: "MWWT", Value: float64(i)}}})
	}
	raw, _ := json.Marshal(v)
	res := s.Fit(Request{Kind: KindProgeny, Value: v, Raw: raw, Budget: 300})
	if !res.Summarized {
		t.Fatalf("not summarized: %s", res.Text)
	}
	var got struct {
		Sex        map[string]int          `json:"sex"`
		Rows       [][]any                 `json:"rows"`
		TraitStats *struct{ Rows [][]any } `json:"trait_stats"`
	}
	if err := json.Unmarshal([]byte(res.Text), &got); err != nil {
		t.Fatal(err)
	}
	if got.Sex["M"] != 13 || got.Sex["F"] != 12 || got.Sex["other"] != 0 {
		t.Errorf("sex split %v, want 13 M and 12 F", got.Sex)
	}
	if len(got.Rows) == 0 || got.Rows[0][1] != "M" || got.Rows[0][2] != "2025-02-16" {
		t.Errorf("first row %v, want M born 2025-02-16", got.Rows)
	}
	// A value without accuracy still reaches the statistics: MWWT 0..24, mean 12.
	if got.TraitStats == nil || len(got.TraitStats.Rows) != 1 || got.TraitStats.Rows[0][0] != "MWWT" || got.TraitStats.Rows[0][2] != 12.0 {
		t.Errorf("trait stats %+v, want MWWT with mean 12", got.TraitStats)
	}
}
