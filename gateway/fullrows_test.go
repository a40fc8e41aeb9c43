package gateway

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// csvCell is a JSON value as the full-answer CSV writes it.
func csvCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// fullCSV reads the CSV link of r as the env's own session, then checks
// that another session gets a not-found rather than the data.
func fullCSV(t *testing.T, e *env, r reply, secret string) [][]string {
	t.Helper()
	_, csvURI := fullOf(t, r)
	text, err := readFull(e.client, csvURI)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatalf("%v: %s", err, text)
	}
	other := connect(t, e.srv)
	if text, err := readFull(other, csvURI); err == nil || !strings.Contains(err.Error(), "not found") || strings.Contains(err.Error(), secret) {
		t.Errorf("another session read the link: %q, %v; want not found", text, err)
	}
	return recs
}

// A ranking cut to fit a small budget links every ranked row: the CSV has
// the answer's columns and all top_n rows in rank order, the shown ones
// with the very values shown.
func TestRankCutToFitLinksEveryRow(t *testing.T) {
	h, _ := rankHerd(true)
	e := herdEnv(t, h)
	r := e.call("nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1, "BWT": -0.5},
		"top_n": 50, "max_tokens": 1000}).mustOK(t)
	var a struct {
		Columns  []string       `json:"columns"`
		Top      [][]any        `json:"top"`
		NotShown map[string]any `json:"not_shown"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %s", err, r.text)
	}
	if len(a.Top) == 0 || len(a.Top) >= 50 || a.NotShown["rows"] != float64(50-len(a.Top)) {
		t.Fatalf("%d rows shown, not_shown %v; want some of 50 and the rest counted", len(a.Top), a.NotShown)
	}
	recs := fullCSV(t, e, r, a.Top[0][1].(string))
	if len(recs) != 51 || !slices.Equal(recs[0], a.Columns) {
		t.Fatalf("CSV: %d records, header %v; want 50 rows under %v", len(recs), recs[0], a.Columns)
	}
	for i, rec := range recs[1:] {
		if rec[0] != strconv.Itoa(i+1) {
			t.Errorf("CSV row %d ranks %s", i+1, rec[0])
		}
		if i < len(a.Top) {
			for j, v := range a.Top[i] {
				if rec[j] != csvCell(v) {
					t.Errorf("rank %d, %s: CSV %q, answer %v", i+1, a.Columns[j], rec[j], v)
				}
			}
		}
	}
}

// A plan cut to fit a small budget links every mating, one row per mated
// ewe in ewe_lpn_ids order under ram and the answer's columns, lamb EBVs
// included.
func TestPlanCutToFitLinksEveryMating(t *testing.T) {
	// Sixty ewes stay within the plan's lookups; a few rows fill the budget.
	const n = 60
	h := newHerd()
	lines := []string{"R1 P1 Q1"}
	var ewes []string
	for i := range n {
		lines = append(lines, fmt.Sprintf("E%03d S%03d D%03d", i, i, i))
		ewes = append(ewes, lpn(fmt.Sprintf("E%03d", i)))
	}
	h.pedigree(lpnLines(lines)...)
	h.get(lpn("R1")).ebv = map[string][2]float64{"WWT": {4, 0.6}}
	for i, id := range ewes {
		h.get(id).ebv = map[string][2]float64{"WWT": {float64(i), 0.6}}
	}
	e := herdEnv(t, h)
	r := e.call("nsip_plan_matings", map[string]any{"ram_lpn_ids": []string{lpn("R1")}, "ewe_lpn_ids": ewes,
		"weights": map[string]any{"WWT": 1}, "max_ewes_per_ram": 100, "max_tokens": 600}).mustOK(t)
	var a struct {
		Columns  []string           `json:"columns"`
		ByRam    map[string][][]any `json:"by_ram"`
		Mated    int                `json:"mated"`
		NotShown map[string]any     `json:"not_shown"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %s", err, r.text)
	}
	shown := a.ByRam[lpn("R1")]
	if a.Mated != n || len(shown) == 0 || len(shown) >= n || a.NotShown["rows"] != float64(n-len(shown)) {
		t.Fatalf("mated %d, %d rows shown, not_shown %v; want some of %d and the rest counted: %s", a.Mated, len(shown), a.NotShown, n, r.text)
	}
	recs := fullCSV(t, e, r, ewes[0])
	want := []string{"ram", "ewe", "coi", "lamb_index", "lamb_WWT"}
	if len(recs) != n+1 || !slices.Equal(recs[0], want) {
		t.Fatalf("CSV: %d records, header %v; want %d rows under %v", len(recs), recs[0], n, want)
	}
	for i, rec := range recs[1:] {
		// Lamb index = (4 + i)/2, and with one trait of weight 1 so is its WWT.
		idx := csvCell((4 + float64(i)) / 2)
		if rec[0] != lpn("R1") || rec[1] != ewes[i] || rec[2] != "0" || rec[3] != idx || rec[4] != idx {
			t.Errorf("CSV row %d = %v, want %s x %s, COI 0, lamb index and WWT %s", i+1, rec, lpn("R1"), ewes[i], idx)
		}
		if i < len(shown) {
			for j, v := range shown[i] {
				if rec[j+1] != csvCell(v) {
					t.Errorf("mating %d, %s: CSV %q, answer %v", i+1, a.Columns[j], rec[j+1], v)
				}
			}
		}
	}
}
