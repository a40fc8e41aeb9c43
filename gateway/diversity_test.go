package gateway

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding/tabular"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

type diversityReply struct {
	Animals   int `json:"animals"`
	COIByYear struct {
		Columns []string `json:"columns"`
		Rows    [][]any  `json:"rows"`
	} `json:"coi_by_birth_year"`
	Reference struct {
		BirthYears []int `json:"birth_years"`
		Animals    int   `json:"animals"`
	} `json:"reference"`
	Ne struct {
		Value *float64 `json:"value"`
	} `json:"ne"`
	Fe struct {
		Value *float64 `json:"value"`
	} `json:"fe"`
	Fa struct {
		Value *float64 `json:"value"`
	} `json:"fa"`
	TopAncestors struct {
		Rows [][]any `json:"rows"`
	} `json:"top_ancestors"`
	Computed struct {
		BreedPass string `json:"breed_pass"`
	} `json:"computed"`
	// A pending answer's.
	BreedPass string `json:"breed_pass"`
	TaskID    string `json:"task_id"`
}

// tabularCOI is every animal's COI of the pass by the tabular method
// (nsip/breeding/tabular) over the rows' parents, numbered parents first by a
// walk of its own; a parent no row holds is a founder. Independent of the
// pedigree code it checks.
func tabularCOI(p *breedpass.BreedPass) map[string]float64 {
	parents := map[string][2]string{}
	for j, id := range p.IDs {
		if _, ok := parents[id]; !ok {
			parents[id] = [2]string{p.Parents[p.Sire[j]], p.Parents[p.Dam[j]]}
		}
	}
	known := func(s string) bool { return s != "" && s != "0" }
	var order []string
	at := map[string]int{}
	var place func(id string)
	place = func(id string) {
		if _, ok := at[id]; ok {
			return
		}
		at[id] = -1 // being placed
		for _, q := range parents[id] {
			if known(q) {
				place(q)
			}
		}
		at[id] = len(order)
		order = append(order, id)
	}
	for _, id := range p.IDs {
		place(id)
	}
	a := tabular.Float(len(order), func(i int32) (int32, int32) {
		s, d := int32(-1), int32(-1)
		if q := parents[order[i]]; known(q[0]) {
			s = int32(at[q[0]])
		}
		if q := parents[order[i]]; known(q[1]) {
			d = int32(at[q[1]])
		}
		return s, d
	})
	out := map[string]float64{}
	for id, i := range at {
		out[id] = a(int32(i), int32(i)) - 1
	}
	return out
}

// A breed not yet read is read as the caller's task, and the answer says
// so; once read, a later call within the recheck window sends NSIP no
// request, and one after it the date alone; the answer's mean COI
// of each birth year is the tabular method's over the same rows, and its
// CSV gives every animal's.
func TestBreedDiversityFromThePass(t *testing.T) {
	e := newEnv(t)
	filled := make(chan string, 2)
	e.gw.passFilled = func(key string) { filled <- key }
	ctx := passSession(t, e, true)
	res := rpc(t, e, ctx, "tools/call", map[string]any{"name": "nsip_breed_diversity", "arguments": map[string]any{"breed_id": 640}})
	b, _ := json.Marshal(res["structuredContent"])
	var first diversityReply
	if err := json.Unmarshal(b, &first); err != nil || first.TaskID == "" || !strings.Contains(first.BreedPass, "being read in the background as task "+first.TaskID) {
		t.Fatalf("first call: %s (%v); want the pass read as a task", b, err)
	}
	d := e.up.Data()
	if key := <-filled; key != breedpass.PassKey(640, d.LastUpdated()) {
		t.Fatalf("filled %q", key)
	}
	// tasks/result waits for the task's end, which follows the pass's.
	res = rpc(t, e, ctx, "tasks/result", map[string]any{"taskId": first.TaskID})
	if b, _ := json.Marshal(res["structuredContent"]); !strings.Contains(string(b), `"breed":640`) {
		t.Errorf("tasks/result: %s", b)
	}
	if got := rpc(t, e, ctx, "tasks/get", map[string]any{"taskId": first.TaskID}); got["status"] != "completed" {
		t.Errorf("tasks/get once read: %v", got)
	}
	e.up.ResetCounts()
	r := e.call("nsip_breed_diversity", map[string]any{"breed_id": 640}).mustOK(t)
	// NSIP's date, read as the pass closed moments ago, stands for the
	// recheck window: the answer is the pass's alone.
	if n := e.up.TotalRequests(); n != 0 {
		t.Errorf("the call after the read sent NSIP %d requests; want none within the recheck window", n)
	}
	// Past it the date is asked of NSIP again, so that a pass of a
	// replaced evaluation is never answered from for longer.
	e.clock.Advance(DefaultConfig().EvaluationRecheck)
	e.call("nsip_breed_diversity", map[string]any{"breed_id": 640}).mustOK(t)
	if n, dates := e.up.TotalRequests(), e.up.Requests(nsiptest.EndpointLastUpdated); n != 1 || dates != 1 {
		t.Errorf("the call past the recheck window sent NSIP %d requests, %d of them the date; want the date alone", n, dates)
	}
	var a diversityReply
	if err := json.Unmarshal([]byte(r.text), &a); err != nil || !strings.HasPrefix(a.Computed.BreedPass, "kept") {
		t.Fatalf("%v: %.600s", err, r.text)
	}
	p := e.gw.passes.Load(t.Context(), 640, d.LastUpdated())
	coi := tabularCOI(p)
	// The mean by birth year, the year from the date of birth else the LPN ID.
	type acc struct {
		n   int
		sum float64
	}
	byYear := map[int]*acc{}
	seen := map[string]bool{}
	for j, id := range p.IDs {
		if seen[id] {
			continue
		}
		seen[id] = true
		y := 0
		if dt, ok := nsip.ParseDate(p.Dates[p.Born[j]]); ok {
			y = dt.Year()
		} else if l, ok := nsip.ParseLPN(id); ok {
			y = l.Year
		}
		if y == 0 {
			continue
		}
		if byYear[y] == nil {
			byYear[y] = &acc{}
		}
		byYear[y].n++
		byYear[y].sum += coi[id]
	}
	if a.Animals != len(seen) || len(a.COIByYear.Rows) != len(byYear) {
		t.Fatalf("%d animals in %d years; the pass has %d in %d", a.Animals, len(a.COIByYear.Rows), len(seen), len(byYear))
	}
	inbred := false
	for _, row := range a.COIByYear.Rows {
		y, n, mean := int(row[0].(float64)), int(row[1].(float64)), row[2].(float64)
		w := byYear[y]
		if w == nil || w.n != n || math.Abs(mean-w.sum/float64(w.n)) > 1e-9 {
			t.Errorf("%d: %d animals, mean COI %.12f; tabular %+v", y, n, mean, w)
		}
		inbred = inbred || mean > 0
	}
	if !inbred {
		t.Error("no year's mean COI above 0: the stand-in's breed proves nothing")
	}
	if a.Fe.Value == nil || a.Fa.Value == nil || *a.Fa.Value > *a.Fe.Value || len(a.TopAncestors.Rows) != 10 || a.Reference.Animals == 0 {
		t.Errorf("f_e %v, f_a %v, %d ancestors, reference %+v; want f_a <= f_e and ten ancestors", a.Fe.Value, a.Fa.Value, len(a.TopAncestors.Rows), a.Reference)
	}
	_, csvURI := fullOf(t, r)
	text, err := readFull(e.client, csvURI)
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := csv.NewReader(strings.NewReader(text)).ReadAll()
	if len(recs) != a.Animals+1 || strings.Join(recs[0], ",") != "lpn_id,birth_year,sire,dam,coi,equivalent_generations" {
		t.Fatalf("CSV of %d lines, header %v; want %d animals", len(recs), recs[0], a.Animals)
	}
	for _, rec := range recs[1:] {
		got, err := strconv.ParseFloat(rec[4], 64)
		if err != nil || math.Abs(got-coi[rec[0]]) > 1e-9 {
			t.Errorf("%s: CSV COI %q, tabular %.12f", rec[0], rec[4], coi[rec[0]])
		}
	}
}
