package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// Bad flags of the analyses mode exit 2 with a message naming the flag.
func TestAnalysesBadFlags(t *testing.T) {
	for args, mention := range map[string]string{
		"--latency -1s":      "--latency",
		"--big-breed 300000": "--big-breed",
		"--only rank,nope":   `"rank"`,
		"--animals 10":       "--animals",
		"--call-timeout 0s":  "--call-timeout",
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

// The analyses mode asks its questions of a server each and reports what
// the answers say they read, and the requests that reached the stand-in.
func TestAnalysesRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out strings.Builder
	code := run(ctx, []string{analysesCommand, "--server-bin", serverBin, "--animals", "300", "--big-breed", "1500",
		"--only", "check_mating,group_rams", "--json"}, &out, io.Discard)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	var got []Answered
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(got) != 2 {
		t.Fatalf("%d answers, want 2: %s", len(got), out.String())
	}
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
// page: its lookups are the date and the ranked animals' records, whose
// rows state no sex or genotyped status (those rank_index read come from
// the cache).
func TestAnalysesAfterSharesTheServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out strings.Builder
	code := run(ctx, []string{analysesCommand, "--server-bin", serverBin, "--animals", "300", "--big-breed", "1500",
		"--only", "rank_index_current", "--json"}, &out, io.Discard)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	var got []Answered
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil || len(got) != 1 {
		t.Fatalf("%v: %s", err, out.String())
	}
	if a := got[0]; a.After != "rank_index" || a.Via != "breed pass" || a.Lookups != 11 || a.NSIPRequests != a.Fetched || a.Exact != "yes" {
		t.Errorf("%+v; want the kept pass, 11 lookups (the date and 10 records, some kept by rank_index) and exact", a)
	}
}
