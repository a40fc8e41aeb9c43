package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/livecheck"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/nsip/shape"
)

// serveCaptures answers each endpoint with the capture its contract was
// written from (nsip/testdata/contract): NSIP exactly as it was seen.
func serveCaptures(t *testing.T) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ep, ok := shape.For(strings.TrimPrefix(r.URL.Path, "/api/"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		b, err := os.ReadFile(filepath.Join(repoRoot, "nsip", "testdata", "contract", ep.Capture))
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/api"
}

// checkRun runs nsip-mcp check-nsip against base and returns its exit
// status and stdout, having checked that stderr holds JSON log lines only.
func checkRun(t *testing.T, base string, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"check-nsip"}, args...), env(map[string]string{"NSIP_BASE_URL": base, "NSIP_RATE_LIMIT": "1000"}), &out, &errb)
	for _, l := range strings.Split(strings.TrimSpace(errb.String()), "\n") {
		if !json.Valid([]byte(l)) {
			t.Errorf("stderr line is no JSON log record: %q", l)
		}
	}
	return code, out.String()
}

// checkJSON runs the check with -format json and reads its one object.
func checkJSON(t *testing.T, base string, args ...string) (int, livecheck.Report) {
	t.Helper()
	code, out := checkRun(t, base, append([]string{"-format", "json"}, args...)...)
	var r livecheck.Report
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil || dec.More() {
		t.Fatalf("stdout is not one report object (%v): %s", err, out)
	}
	return code, r
}

// masked is the text report with what changes between runs (the time, the
// latencies) replaced.
func masked(text string) []string {
	text = regexp.MustCompile(`, \d{4}-\d\d-\d\dT[0-9:]+Z:`).ReplaceAllString(text, ", TIME:")
	text = regexp.MustCompile(` +\d+ ms  `).ReplaceAllString(text, " N ms  ")
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// TestCheckNSIPCaptures: NSIP answering exactly as captured is no drift,
// exit 0, in both formats.
func TestCheckNSIPCaptures(t *testing.T) {
	base := serveCaptures(t)
	code, r := checkJSON(t, base)
	if code != 0 || r.Outcome != livecheck.NoDrift || r.ExitCode != 0 || r.Drifted != 0 || r.Requests != 8 || r.BaseURL != base || len(r.Answers) != 8 {
		t.Fatalf("exit %d, report %+v", code, r)
	}
	for _, a := range r.Answers {
		if a.Drift || a.Status != 200 || a.Attempts != 1 || a.Error != "" || len(a.Missing)+len(a.New)+len(a.Changed) != 0 {
			t.Errorf("%s: %+v", a.Endpoint, a)
		}
	}
	wantFields := []livecheck.Field{{Name: "lpnId", Rows: 2, Pct: 100}, {Name: "lpnSre", Rows: 1, Pct: 50}, {Name: "lpnDam", Rows: 1, Pct: 50},
		{Name: "status", Rows: 2, Pct: 100}, {Name: "regNumber", Rows: 1, Pct: 50}, {Name: "accbwt", Rows: 2, Pct: 100},
		{Name: "accwfec", Rows: 1, Pct: 50}, {Name: "accwwt", Rows: 2, Pct: 100}, {Name: "bwt", Rows: 2, Pct: 100},
		{Name: "mwwt", Rows: 1, Pct: 50}, {Name: "srcIndex", Rows: 1, Pct: 50}, {Name: "usHairIndex", Rows: 2, Pct: 100},
		{Name: "wfec", Rows: 1, Pct: 50}, {Name: "wwt", Rows: 2, Pct: 100}}
	if b := r.Breed; b.ID != 640 || b.RecordCount != 1523 || b.Rows != 2 || b.Pages != 1 || b.SirePct != 50 || b.DamPct != 50 ||
		b.AccuracyMax != 0.8 || r.EvaluationDate != "09/23/2025" || !reflect.DeepEqual(b.Fields, wantFields) {
		t.Errorf("breed %+v", b)
	}
	code, text := checkRun(t, base)
	want := []string{
		"check-nsip: no drift: every answer has its contract's shape (exit 0)",
		"NSIP at " + base + ", TIME: 8 requests, 0 answered 429; evaluation of 09/23/2025",
		"  getDateLastUpdated                                   200 N ms  as the contract",
		"  getAvailableBreedGroups                              200 N ms  as the contract",
		"  getStatusesByBreedGroup                              200 N ms  as the contract",
		"  getTraitRangesByBreed breedId=640                    200 N ms  as the contract",
		"  getPageOfSearchResults breedId=640 page=0            200 N ms  as the contract",
		"  getAnimalDetails searchString=6402382024NCS310       200 N ms  as the contract",
		"  getLineage lpnId=6402382024NCS310                    200 N ms  as the contract",
		"  getPageOfProgeny lpnId=6402382024NCS310 page=0       200 N ms  as the contract",
		"breed 640: 2 rows read of 1523, in 1 page; 50% with a sire, 50% with a dam; accuracies up to 0.8 (fractions)",
		"row members (share of rows with a value): lpnId 100%, lpnSre 50%, lpnDam 50%, status 100%, regNumber 50%, accbwt 100%, " +
			"accwfec 50%, accwwt 100%, bwt 100%, mwwt 50%, srcIndex 50%, usHairIndex 100%, wfec 50%, wwt 100%",
	}
	if got := masked(text); code != 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("exit %d, text\n%s\nwant\n%s", code, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// richRow are the members the stand-in's rich rows carry and no live
// capture shows.
var richRow = []string{"breedId", "dateOfBirth", "flockCode", "gender", "genotyped", "progenyCount"}

// TestCheckNSIPDrift: the stand-in's rich rows and its legacy shape are
// drift, exit 1, naming the members in both formats.
func TestCheckNSIPDrift(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1, RichRows: true})
	code, r := checkJSON(t, srv.URL(), "-pages", "1")
	search, details := r.Answers[4], r.Answers[5]
	rows := make([]string, len(richRow))
	for i, n := range richRow {
		rows[i] = "records[]." + n
	}
	if code != 1 || r.Outcome != livecheck.Drift || r.Drifted != 2 || !reflect.DeepEqual(search.New, rows) || len(search.Missing) != 0 ||
		details.Endpoint != "getAnimalDetails" || len(details.New) != 6 || details.New[3] != "data.searchResultViewModel.gender" {
		t.Fatalf("exit %d, report %+v\nsearch %+v\ndetails %+v", code, r, search, details)
	}
	if f := r.Breed.Fields; r.Breed.Rows != 100 || f[0].Name != "lpnId" || f[0].Pct != 100 {
		t.Errorf("breed %+v", r.Breed)
	}
	code, text := checkRun(t, srv.URL(), "-pages", "1")
	lines := masked(text)
	if code != 1 || lines[0] != "check-nsip: drift: 2 of 8 answers differ from the contract (exit 1)" ||
		lines[6] != "  getPageOfSearchResults breedId=640 page=0            200 N ms  new: "+strings.Join(rows, ", ") {
		t.Errorf("exit %d, text\n%s", code, text)
	}

	srv.SetFormat(nsiptest.FormatLegacy)
	code, r = checkJSON(t, srv.URL(), "-pages", "1")
	lineage := r.Answers[6]
	if code != 1 || r.Drifted != 5 || !reflect.DeepEqual(lineage.Missing, []string{"data", "success"}) ||
		!reflect.DeepEqual(lineage.New, []string{"Children", "Content", "LpnId"}) {
		t.Errorf("legacy: exit %d, lineage %+v", code, lineage)
	}
}

// TestCheckNSIPCouldNotReach: nothing listening at the base URL is said in
// so many words, exit 2, and only the first endpoint is tried.
func TestCheckNSIPCouldNotReach(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	base := "http://" + addr + "/api"
	reason := "could not reach NSIP at " + base + " asking getDateLastUpdated: connection refused (dial tcp " + addr + ": connect: connection refused)"
	code, r := checkJSON(t, base)
	if code != 2 || r.Outcome != livecheck.CouldNotReach || r.CouldNotReach != reason || r.Requests != 3 ||
		!r.Answers[0].Unreachable || r.Answers[1].Skipped != "not asked: NSIP could not be reached" {
		t.Errorf("exit %d, report %+v", code, r)
	}
	code, text := checkRun(t, base)
	if lines := masked(text); code != 2 || lines[0] != "check-nsip: "+reason+" (exit 2)" || lines[len(lines)-1] != "breed 640: no search page read" {
		t.Errorf("exit %d, text\n%s", code, text)
	}
}

// TestCheckNSIPUsage: each bad flag is refused naming it, with nothing on
// stdout; -h describes the exit statuses.
func TestCheckNSIPUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"-format", "xml"}, `invalid value "xml" for flag -format: want text or json`},
		{[]string{"-pages", "0"}, "invalid value 0 for flag -pages: want 1 to 10"},
		{[]string{"-pages", "11"}, "invalid value 11 for flag -pages: want 1 to 10"},
		{[]string{"-breed", "-3"}, "invalid value -3 for flag -breed"},
		{[]string{"-breed", "katahdin"}, `invalid value "katahdin" for flag -breed`},
		{[]string{"-verbose"}, "flag provided but not defined: -verbose"},
		{[]string{"now"}, `unexpected argument "now"`},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"check-nsip"}, tc.args...), env(nil), &out, &errb); code != 2 || out.Len() != 0 ||
			!strings.Contains(errb.String(), tc.err) || !strings.Contains(errb.String(), "Run nsip-mcp check-nsip -h for usage.") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.args, code, out.String(), errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"check-nsip"}, env(map[string]string{"NSIP_BASE_URL": "ftp://nsip"}), &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), `invalid NSIP_BASE_URL="ftp://nsip"`) || out.Len() != 0 {
		t.Errorf("a bad NSIP_BASE_URL: exit %d, stderr %q", code, errb.String())
	}
	out.Reset()
	if code := run([]string{"check-nsip", "-h"}, env(nil), &out, &errb); code != 0 || !strings.Contains(out.String(), "-pages int") ||
		!strings.Contains(out.String(), "1  drift: some answer differs from its contract") {
		t.Errorf("-h: exit %d, stdout %s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"--help"}, env(nil), &out, &errb); code != 0 || !strings.Contains(out.String(), "nsip-mcp check-nsip  compare") {
		t.Errorf("--help does not name check-nsip: %s", out.String())
	}
}
