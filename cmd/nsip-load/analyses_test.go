package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Bad flags of the analyses mode exit 2 with a message naming the flag.
func TestAnalysesBadFlags(t *testing.T) {
	for args, mention := range map[string]string{
		"--latency -1s":      "--latency",
		"--big-breed 300000": "--big-breed",
		"--only rank,nope":   `"rank"`,
		"--animals 10":       "--animals",
		"--call-timeout 0s":  "--call-timeout",
		"--pass-timeout -1m": "--pass-timeout",
		"extra":              `"extra"`,
	} {
		var out, errOut strings.Builder
		code := run(context.Background(), append([]string{analysesCommand}, strings.Fields(args)...), &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), mention) {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming %s", args, code, errOut.String(), mention)
		}
	}
}

// walkAnswer counts percentiles wherever an answer holds them: a table's
// top_percent column, a list of values, a compact table's rows; null is a
// value not computed. An exact false anywhere wins over a true.
func TestWalkAnswerCountsCompleteness(t *testing.T) {
	const body = `{
	  "ebv_columns": ["code", "value", "accuracy", "top_percent"],
	  "ebvs": [["BWT", 0.1, 40, 12.5], ["WWT", 1.2, 50, null], ["MWWT", 0.3, null, 7]],
	  "animals": [{"top_percent": [1.5, null, 3]}],
	  "percentiles": {"top_percent": {"cells": "row per animal", "rows": [[2, null]]}, "not_computed": "2 values: the time limit"},
	  "computed": {"exact": true, "inner": {"exact": false}, "upstream": {"time_limit_reached": true}}
	}`
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	var a Answered
	walkAnswer(&a, v)
	if a.PercentilesComputed != 5 || a.PercentilesTotal != 8 {
		t.Errorf("percentiles %d of %d, want 5 of 8", a.PercentilesComputed, a.PercentilesTotal)
	}
	if a.Exact != "no" || !a.TimeLimitReached || a.NotComputed != "2 values: the time limit" {
		t.Errorf("exact %q, time limit %v, not computed %q", a.Exact, a.TimeLimitReached, a.NotComputed)
	}
	var m Answered
	readMeta(&m, map[string]any{"summarized": true, "upstream": map[string]any{"lookups": 12, "fetched": 9, "ceiling": 60}})
	if !m.Summarized || m.Lookups != 12 || m.Fetched != 9 || m.Ceiling != 60 {
		t.Errorf("from _meta: %+v", m)
	}
}

// askAnalyses runs the analyses mode's questions only (a comma-separated
// list) on small data, 1,500 animals in the big breed, and wants n
// answers.
func askAnalyses(t *testing.T, only string, n int) []Answered {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out strings.Builder
	// NSIP's date read by one question stands for the next on the same
	// server however slowly this machine runs them.
	code := run(ctx, []string{analysesCommand, "--server-bin", serverBin, "--animals", "300", "--big-breed", "1500",
		"--server-env", "NSIP_EVALUATION_RECHECK=1h", "--only", only, "--json"}, &out, io.Discard)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	var got []Answered
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil || len(got) != n {
		t.Fatalf("%v: want %d answers: %s", err, n, out.String())
	}
	return got
}

// The analyses mode asks its questions of a server each and reports what
// the answers say they read, and the requests that reached the stand-in.
func TestAnalysesRun(t *testing.T) {
	got := askAnalyses(t, "check_mating,group_rams", 2)
	for _, a := range got {
		if a.Error != "" || a.Lookups == 0 || a.Fetched == 0 || a.NSIPRequests == 0 || a.PeakInFlight == 0 {
			t.Errorf("%s: %+v; want an answer with its lookups counted", a.Name, a)
		}
		if b, _ := a.Args["breed_id"].(float64); a.Name == "group_rams" && b != 0 {
			t.Errorf("group_rams asked with breed_id at the top: %v", a.Args)
		}
	}
	if ram := got[1]; ram.Name != "group_rams" || ram.Lookups < 3 || ram.Exact != "yes" || ram.Via != "search pages" {
		t.Errorf("%s: %d lookups, complete %q, via %q; want a page each of the breed's rams, complete", ram.Name, ram.Lookups, ram.Exact, ram.Via)
	}
	if s, _ := got[1].Args["search"].(map[string]any); s["breed_id"] != float64(649) {
		t.Errorf("group_rams asked about %v, want the big breed 649", got[1].Args)
	}
}

// A question named after another is asked on the server that answered
// that other one: the ranking of the breed's CURRENT animals by index
// finds the pass the ranking of the whole breed kept, and reads no search
// page: its lookups are the date, as rank_index read it, and the ranked
// animals' records, whose rows state no sex or genotyped status, from the
// cache. What NSIP is sent is the statuses the status is checked against,
// before the analysis.
func TestAnalysesAfterSharesTheServer(t *testing.T) {
	got := askAnalyses(t, "rank_index_current", 1)
	if a := got[0]; a.After != "rank_index" || a.Via != "breed pass" || a.Lookups != 11 || a.Fetched != 0 ||
		a.NSIPReads != "getStatusesByBreedGroup 1" || a.Exact != "yes" {
		t.Errorf("%+v; want the kept pass, 11 lookups (the date and 10 records) none fetched, the statuses alone read, and exact", a)
	}
}

// The breed's pass is read as the caller's task and followed to its end;
// the questions after it share its server, so the diversity asked again
// sends NSIP nothing, the date read as the pass closed standing for now
// (a server of its own would read the pass again), and the animal's percentiles come from the pass. The memory and
// the pass's bytes are the server's.
func TestAnalysesHeldPassSharesTheServer(t *testing.T) {
	got := askAnalyses(t, "breed_pass,held_get_animal_pct,held_diversity", 3)
	pass, animal, again := got[0], got[1], got[2]
	if pass.Server == 0 || animal.Server != pass.Server || again.Server != pass.Server {
		t.Errorf("servers %d, %d, %d; want the one that read the pass for all three", pass.Server, animal.Server, again.Server)
	}
	// 1,500 animals are 15 pages of 100.
	if pass.Error != "" || !strings.HasPrefix(pass.Pass, "task ") || !strings.Contains(pass.Pass, " completed ") || pass.NSIPRequests < 15 {
		t.Errorf("breed_pass: %+v; want its task followed to completion over at least 15 pages", pass)
	}
	if pass.RSSKiB <= 0 || pass.PeakKiB < pass.RSSKiB || pass.PassBytes <= 0 {
		t.Errorf("breed_pass: rss %d KiB, peak %d KiB, pass %d bytes; want the server's memory and its kept pass", pass.RSSKiB, pass.PeakKiB, pass.PassBytes)
	}
	if again.Error != "" || again.NSIPRequests != 0 || again.Pass != "" || again.PassBytes != pass.PassBytes {
		t.Errorf("held_diversity: %+v; want nothing asked of NSIP, and the same pass kept", again)
	}
	if animal.Error != "" || animal.Via != "breed pass" || animal.PercentilesTotal == 0 || animal.PercentilesComputed != animal.PercentilesTotal {
		t.Errorf("held_get_animal_pct: %+v; want every percentile from the kept pass", animal)
	}
}

// pendingOf tells the diversity's answer while its pass is read from the
// answer itself, which names its pass inside "computed".
func TestPendingOf(t *testing.T) {
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent{Type: "text", Text: s}}}
	}
	p, pending := pendingOf(text(`{"breed_id":649,"breed_pass":"being read in the background as task ab (task_id)","task_id":"ab","next":"ask again"}`))
	if !pending || p.TaskID != "ab" {
		t.Errorf("pending answer: %+v, %v", p, pending)
	}
	if _, pending := pendingOf(text(`{"breed_id":649,"animals":1500,"computed":{"breed_pass":"kept from an earlier read"}}`)); pending {
		t.Error("an answer from the pass taken for a pending one")
	}
	if _, pending := pendingOf(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.TextContent{Type: "text", Text: `{"breed_pass":"x","next":"y"}`}}}); pending {
		t.Error("an error taken for a pending answer")
	}
}

// gauge reads an unlabelled metric's value, not another whose name it
// begins.
func TestGauge(t *testing.T) {
	const body = `# HELP nsip_mcp_breed_pass_bytes What the kept breed passes take.
# TYPE nsip_mcp_breed_pass_bytes gauge
nsip_mcp_breed_pass_bytes_total 5
nsip_mcp_breed_pass_bytes 1.2345678e+07
nsip_mcp_breed_passes 1
`
	if n, ok := gauge(strings.NewReader(body), passBytesMetric); !ok || n != 12345678 {
		t.Errorf("gauge = %d, %v; want 12345678", n, ok)
	}
	if _, ok := gauge(strings.NewReader(body), "nsip_mcp_missing"); ok {
		t.Error("a missing metric found")
	}
}
