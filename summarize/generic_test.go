package summarize

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// truncNote finds every {"_truncated":{"shown":k,"total":n}} marker and
// object member "_truncated":{...} in a decoded value.
func truncNotes(v any, out *[][2]int) {
	switch x := v.(type) {
	case map[string]any:
		if t, ok := x["_truncated"].(map[string]any); ok {
			*out = append(*out, [2]int{int(t["shown"].(float64)), int(t["total"].(float64))})
		}
		for _, e := range x {
			truncNotes(e, out)
		}
	case []any:
		for _, e := range x {
			truncNotes(e, out)
		}
	}
}

func TestGenericSummaries(t *testing.T) {
	s, c := newTestSummarizer(t)
	var nums []string
	for i := range 3000 {
		nums = append(nums, fmt.Sprint(i*7))
	}
	wide := map[string]any{}
	for i := range 2000 {
		wide[fmt.Sprintf("field%04d", i)] = i
	}
	wide["lpnId"] = "6402382024NCS310" // sorts after the fields: must still be kept
	wide["recordCount"] = 1523
	deep := "0"
	for range 1500 {
		deep = `{"level":` + deep + `}`
	}
	var groups []string
	for i := range 300 {
		groups = append(groups, fmt.Sprintf(`{"breedGroupId":%d,"breedGroupName":"Group %d","breeds":[{"breedId":%d,"breedName":"Breed %d"},{"breedId":%d,"breedName":"Other"}]}`, i, i, 1000+i, i, 2000+i))
	}
	for _, tc := range []struct {
		name string
		raw  string
		keep []string // must survive summarizing
	}{
		{"long array of numbers", "[" + strings.Join(nums, ",") + "]", []string{`"total":3000`}},
		{"wide object", string(mustJSON(wide)), []string{`"lpnId":"6402382024NCS310"`, `"recordCount":1523`, `"total":2002`}},
		{"deep nesting", deep, []string{`"level"`}},
		{"breed groups", `{"success":true,"data":[` + strings.Join(groups, ",") + `]}`, []string{`"breedGroupId":0`, `"breedGroupName":"Group 0"`, `"total":300`}},
		{"one huge string", string(mustJSON(strings.Repeat("Smith & Sons ", 5000))), []string{`Smith & Sons`, `chars)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := Request{Kind: KindGeneric, Raw: json.RawMessage(tc.raw)}
			r := s.Fit(req)
			checkResult(t, c, req, r)
			if !r.Summarized || r.Kind != KindGeneric {
				t.Fatalf("summarized %v as %s", r.Summarized, r.Kind)
			}
			for _, k := range tc.keep {
				if !strings.Contains(r.Text, k) {
					t.Errorf("summary lacks %s: %.300s", k, r.Text)
				}
			}
			var v map[string]any
			if err := json.Unmarshal([]byte(r.Text), &v); err != nil || v["summary"] != true || v["kind"] != "generic" {
				t.Fatalf("head of %.100s", r.Text)
			}
			var notes [][2]int
			truncNotes(v["data"], &notes)
			for _, n := range notes {
				if n[0] >= n[1] || n[0] < 0 {
					t.Errorf("truncation note shown %d of %d", n[0], n[1])
				}
			}
		})
	}
}

// TestGenericKeepsWhatItShows checks that the structural summary of a list
// of records shows the first records as they were, and says how many
// there were in all.
func TestGenericKeepsWhatItShows(t *testing.T) {
	s, _ := newTestSummarizer(t)
	var recs []map[string]any
	for i := range 400 {
		recs = append(recs, map[string]any{"lpnId": fmt.Sprintf("640%013d", i), "bwt": float64(i) / 1000, "status": "CURRENT"})
	}
	raw := mustJSON(map[string]any{"recordCount": 400, "records": recs})
	r := s.Fit(Request{Kind: KindGeneric, Raw: raw})
	var out struct {
		Data struct {
			RecordCount int              `json:"recordCount"`
			Records     []map[string]any `json:"records"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(r.Text), &out); err != nil {
		t.Fatal(err)
	}
	recsOut := out.Data.Records
	if out.Data.RecordCount != 400 || len(recsOut) < 2 {
		t.Fatalf("count %d, %d records", out.Data.RecordCount, len(recsOut))
	}
	last := recsOut[len(recsOut)-1]["_truncated"].(map[string]any)
	shown := len(recsOut) - 1
	if int(last["shown"].(float64)) != shown || int(last["total"].(float64)) != 400 {
		t.Errorf("note %v after %d records", last, shown)
	}
	for i, rec := range recsOut[:shown] {
		if rec["lpnId"] != recs[i]["lpnId"] || rec["bwt"] != recs[i]["bwt"] || rec["status"] != "CURRENT" {
			t.Errorf("record %d = %v, want %v", i, rec, recs[i])
		}
	}
}

// A call an answer offers (an object naming its tool) keeps its arguments
// whole in a structural summary: weights cut short would make the call
// fail, and an answer that must be cut keeps its call as it was.
func TestGenericKeepsACallsArgumentsWhole(t *testing.T) {
	s, _ := newTestSummarizer(t)
	weights := map[string]any{}
	for _, code := range []string{"BWT", "WWT", "PWWT", "YWT", "FAT", "EMD", "NLB", "NWT", "PWT", "DAG", "WGR", "WEC", "FEC", "MWWT", "NLW"} {
		weights[code] = 1.0
	}
	var top [][]any
	for i := range 50 {
		top = append(top, []any{fmt.Sprintf("640%013d", i), float64(i), "CURRENT"})
	}
	raw := mustJSON(map[string]any{"top": top, "not_shown": map[string]any{"rows": 50, "call": map[string]any{
		"tool": "nsip_rank_animals", "arguments": "as in this call, with", "set": map[string]any{"max_tokens": 8000, "weights": weights}}}})
	r := s.Fit(Request{Kind: KindGeneric, Raw: raw, Budget: 400})
	if !r.Summarized {
		t.Fatalf("not summarized: %.300s", r.Text)
	}
	var out struct {
		Data struct {
			NotShown struct {
				Call struct {
					Set struct {
						MaxTokens int            `json:"max_tokens"`
						Weights   map[string]any `json:"weights"`
					} `json:"set"`
				} `json:"call"`
			} `json:"not_shown"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(r.Text), &out); err != nil {
		t.Fatal(err)
	}
	set := out.Data.NotShown.Call.Set
	if len(set.Weights) != len(weights) || set.Weights["_truncated"] != nil || set.MaxTokens != 8000 {
		t.Errorf("the call's set %+v, want its %d weights whole: %.600s", set, len(weights), r.Text)
	}
}
