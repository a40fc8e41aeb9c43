package livecheck

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/nsip/shape"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func check(t *testing.T, base string, breed, pages int) *Report {
	t.Helper()
	r, err := Run(context.Background(), Config{BaseURL: base, Breed: breed, Pages: pages, Rate: 1000, Timeout: 5 * time.Second, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// richRow are the members the stand-in's rich rows (Options.RichRows)
// carry that the live search capture does not.
var richRow = []string{"breedId", "dateOfBirth", "flockCode", "gender", "genotyped", "progenyCount"}

func prefixed(p string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p + n
	}
	return out
}

// TestDefaultStandInIsTheContract: the default stand-in sends what the
// live captures show, so no answer drifts.
func TestDefaultStandInIsTheContract(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
	r := check(t, srv.URL(), 640, 2)
	if r.Outcome != NoDrift || r.ExitCode != 0 || r.Drifted != 0 || r.Requests != 9 {
		t.Fatalf("outcome %s, exit %d, %d drifted of %d requests; want no drift", r.Outcome, r.ExitCode, r.Drifted, r.Requests)
	}
	for _, a := range r.Answers {
		if len(a.New)+len(a.Missing)+len(a.Changed) > 0 {
			t.Errorf("%s %s: new %v, missing %v, changed %v", a.Endpoint, a.Asked, a.New, a.Missing, a.Changed)
		}
	}
}

// TestStandInRowsDrift: the stand-in's rich search rows, and the row in
// its details, carry six members no live capture shows, and the check names
// exactly those; every other answer is as its contract. The breed's counts
// are the stand-in's own.
func TestStandInRowsDrift(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1, RichRows: true})
	r := check(t, srv.URL(), 640, 2)
	if r.Outcome != Drift || r.ExitCode != ExitDrift || r.Drifted != 3 || r.Requests != 9 || r.RateLimited != 0 || r.CouldNotReach != "" {
		t.Fatalf("report %+v", r)
	}
	ids, _ := srv.Data().Search(640, nsiptest.Criteria{}, "", false)
	want := map[string][]string{
		"getPageOfSearchResults breedId=640 page=0": prefixed("records[].", richRow),
		"getPageOfSearchResults breedId=640 page=1": prefixed("records[].", richRow),
		"getAnimalDetails searchString=" + ids[0]:   prefixed("data.searchResultViewModel.", richRow),
	}
	for _, a := range r.Answers {
		key := a.Endpoint + " " + a.Asked
		if a.Status != 200 || a.Attempts != 1 || a.Error != "" || len(a.Missing)+len(a.Changed) > 0 || !reflect.DeepEqual(a.New, orEmpty(want[key])) {
			t.Errorf("%s: %+v, want new %v", key, a, want[key])
		}
		delete(want, key)
	}
	if len(r.Answers) != 9 || len(want) > 0 {
		t.Errorf("%d answers; never asked %v", len(r.Answers), want)
	}
	sires, dams := 0, 0
	for _, id := range ids[:200] {
		a, _ := srv.Data().Animal(id)
		sires += min(len(a.Sire), 1)
		dams += min(len(a.Dam), 1)
	}
	b := r.Breed
	if b.ID != 640 || b.Rows != 200 || b.Pages != 2 || b.RecordCount != len(ids) || b.SirePct != pct(sires, 200) || b.DamPct != pct(dams, 200) {
		t.Errorf("breed %+v, want 200 rows of %d, sires %d, dams %d", b, len(ids), sires, dams)
	}
	if b.Fields[0] != (Field{"lpnId", 200, 100}) || b.Fields[1].Name != "lpnSre" || b.Fields[1].Rows != sires || field(b, "gender").Rows != 200 {
		t.Errorf("fields %+v", b.Fields)
	}
	if r.EvaluationDate != srv.Data().LastUpdated() || b.AccuracyMax <= 0.5 || b.AccuracyMax > 1 {
		t.Errorf("evaluation %q, accuracies up to %v: want the stand-in's date and fractions", r.EvaluationDate, b.AccuracyMax)
	}
}

// TestEvaluationDateForm: an evaluation date in a form the server cannot
// read is drift, though it is still a string.
func TestEvaluationDateForm(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
	srv.SetLastUpdated("2025.09.23")
	r := check(t, srv.URL(), 640, 1)
	want := []string{`date: "2025.09.23" is in no form the server reads (9/23/2025, 2025-02-16T00:00:00)`}
	if a := r.Answers[0]; !a.Drift || !reflect.DeepEqual(a.Changed, want) || r.EvaluationDate != "2025.09.23" {
		t.Errorf("answer %+v", a)
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func field(b Breed, name string) Field {
	for _, f := range b.Fields {
		if f.Name == name {
			return f
		}
	}
	return Field{}
}

// TestLegacyDrift: the flat PascalCase shape no capture ever showed is
// drift on every endpoint whose envelope or members it renames.
func TestLegacyDrift(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1, Format: nsiptest.FormatLegacy})
	r := check(t, srv.URL(), 640, 1)
	got := map[string]bool{}
	for _, a := range r.Answers {
		got[a.Endpoint] = a.Drift
	}
	want := map[string]bool{"getDateLastUpdated": false, "getAvailableBreedGroups": true, "getStatusesByBreedGroup": false,
		"getTraitRangesByBreed": false, "getPageOfSearchResults": true, "getAnimalDetails": true, "getLineage": true, "getPageOfProgeny": true}
	if r.Outcome != Drift || !reflect.DeepEqual(got, want) {
		t.Errorf("drift by endpoint %v, want %v", got, want)
	}
	search := r.Answers[4]
	if !reflect.DeepEqual(search.Missing, []string{"recordCount", "records"}) || !reflect.DeepEqual(search.New, []string{"Results", "TotalCount"}) {
		t.Errorf("search %+v", search)
	}
	// The rows are still counted under the names they were sent with.
	if r.Breed.Rows != 100 || field(r.Breed, "LpnId").Rows != 100 || r.Breed.SirePct == 0 || r.Breed.AccuracyMax <= 1 {
		t.Errorf("breed %+v", r.Breed)
	}
}

// TestFaults: answers that fail or arrive in another shape are reported
// each as what it is, and the check goes on past them.
func TestFaults(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
	srv.SetFault(nsiptest.EndpointLastUpdated, nsiptest.Fault{Kind: nsiptest.FaultWrongShape})
	srv.SetFault(nsiptest.EndpointStatuses, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 503})
	srv.SetFault(nsiptest.EndpointTraitRanges, nsiptest.Fault{Kind: nsiptest.FaultRateLimit, Times: 1})
	srv.SetFault(nsiptest.EndpointLineage, nsiptest.Fault{Kind: nsiptest.FaultHTML200})
	r := check(t, srv.URL(), 640, 1)
	date, statuses, ranges, lineage := r.Answers[0], r.Answers[2], r.Answers[3], r.Answers[6]
	if !date.Drift || !reflect.DeepEqual(date.Changed, []string{"date: a number where a string belongs"}) || date.Error != "" {
		t.Errorf("a date sent as a number: %+v", date)
	}
	if statuses.Drift || statuses.ErrorKind != "upstream_error" || statuses.Status != 503 || statuses.Attempts != 3 {
		t.Errorf("statuses failing with 503: %+v", statuses)
	}
	if ranges.Drift || ranges.Error != "" || ranges.RateLimited != 1 || ranges.Attempts != 2 || r.RateLimited != 1 {
		t.Errorf("trait ranges answered 429 once, then the answer: %+v", ranges)
	}
	if !lineage.Drift || len(lineage.Changed) != 1 || !strings.HasPrefix(lineage.Changed[0], "the answer: ") {
		t.Errorf("lineage answered with a web page: %+v", lineage)
	}
	if r.Outcome != Drift || r.Answers[7].Skipped != "" || r.Answers[7].Status != 200 {
		t.Errorf("the check stopped early: %+v", r.Answers[7])
	}
}

// TestStopsWhenAskedForFewer: a 429 that outlasts the retries stops the
// check; nothing after it is asked.
func TestStopsWhenAskedForFewer(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
	srv.SetFault(nsiptest.EndpointBreedGroups, nsiptest.Fault{Kind: nsiptest.FaultRateLimit})
	r := check(t, srv.URL(), 640, 2)
	if r.Outcome != Incomplete || r.ExitCode != ExitIncomplete || r.RateLimited != 3 || r.Answers[1].ErrorKind != "rate_limited" {
		t.Fatalf("report %+v, answer %+v", r, r.Answers[1])
	}
	if srv.TotalRequests() != 4 || len(r.Answers) != 8 || r.Answers[2].Skipped == "" || r.Answers[7].Skipped == "" {
		t.Errorf("%d requests, answers %+v", srv.TotalRequests(), r.Answers)
	}
}

// closedPort is a base URL nothing listens at.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/api"
}

// TestCouldNotReach: a refused connection is reported where it happened,
// and nothing more is asked.
func TestCouldNotReach(t *testing.T) {
	base := closedPort(t)
	r := check(t, base, 640, 2)
	first := r.Answers[0]
	if r.Outcome != CouldNotReach || r.ExitCode != ExitIncomplete || !first.Unreachable || first.ErrorKind != "connection_failed" || first.Status != 0 {
		t.Fatalf("report %+v, first answer %+v", r, first)
	}
	if want := "could not reach NSIP at " + base + " asking getDateLastUpdated: connection refused (dial tcp " +
		strings.TrimSuffix(strings.TrimPrefix(base, "http://"), "/api") + ": connect: connection refused)"; r.CouldNotReach != want {
		t.Errorf("could_not_reach %q, want %q", r.CouldNotReach, want)
	}
	for _, a := range r.Answers[1:] {
		if a.Skipped != "not asked: NSIP could not be reached" {
			t.Errorf("%s was asked: %+v", a.Endpoint, a)
		}
	}
	if r.Breed.Rows != 0 || r.Breed.Pages != 0 || r.Breed.Fields == nil || r.Answers[7].Asked != "" {
		t.Errorf("breed %+v, progeny asked as %q", r.Breed, r.Answers[7].Asked)
	}
}

// TestTimeoutIsUnreachable: NSIP accepting the connection and never
// answering is no more reachable than a refusal. The first endpoint asked
// is the one that hangs: the short time limit applies to every request,
// and a loaded machine can take longer than it to answer one that does
// not hang, which would then be reported in its place.
func TestTimeoutIsUnreachable(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
	srv.SetFault(nsiptest.EndpointLastUpdated, nsiptest.Fault{Kind: nsiptest.FaultHang})
	r, err := Run(context.Background(), Config{BaseURL: srv.URL(), Breed: 640, Pages: 1, Rate: 1000, Timeout: 50 * time.Millisecond, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	want := "could not reach NSIP at " + srv.URL() + " asking getDateLastUpdated: no answer within the time limit"
	if r.Outcome != CouldNotReach || r.CouldNotReach != want || r.Answers[0].ErrorKind != "timeout" || r.Answers[1].Skipped == "" {
		t.Errorf("report %+v\nwant %q", r, want)
	}
}

// TestRateBoundsRequests: requests are spaced by the rate, so n of them
// take at least (n-1)/rate.
func TestRateBoundsRequests(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
	start := time.Now()
	r, err := Run(context.Background(), Config{BaseURL: srv.URL(), Breed: 640, Pages: 1, Rate: 40, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if took, least := time.Since(start), time.Duration(r.Requests-1)*time.Second/40; took < least {
		t.Errorf("%d requests in %s, under the %s the rate allows", r.Requests, took, least)
	}
}

func TestConfigRefused(t *testing.T) {
	for _, c := range []Config{{BaseURL: "http://127.0.0.1:1/api", Breed: 0, Pages: 1},
		{BaseURL: "http://127.0.0.1:1/api", Breed: 640, Pages: MaxPages + 1},
		{BaseURL: "http://127.0.0.1:1/api", Breed: 640, Pages: 1, Rate: -1},
		{BaseURL: "ftp://x", Breed: 640, Pages: 1}} {
		if _, err := Run(context.Background(), c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// TestConclude: drift outranks a failure to reach NSIP, which outranks an
// endpoint that answered with an error.
func TestConclude(t *testing.T) {
	for _, tc := range []struct {
		answers []*Answer
		want    Outcome
		code    int
	}{
		{[]*Answer{{}, {}}, NoDrift, 0},
		{[]*Answer{{Drift: true}, {Unreachable: true}}, Drift, 1},
		{[]*Answer{{Error: "503"}, {Unreachable: true}}, CouldNotReach, 2},
		{[]*Answer{{Error: "503"}, {}}, Incomplete, 2},
		{[]*Answer{{Skipped: "not asked"}}, Incomplete, 2},
	} {
		r := &Report{Answers: tc.answers}
		r.conclude()
		if r.Outcome != tc.want || r.ExitCode != tc.code {
			t.Errorf("%+v: %s %d, want %s %d", tc.answers, r.Outcome, r.ExitCode, tc.want, tc.code)
		}
	}
}

// TestText checks the text report line by line.
func TestText(t *testing.T) {
	r := &Report{BaseURL: "http://nsip.example/api", CheckedAt: time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC), Requests: 5, RateLimited: 1,
		Answers: []*Answer{
			{Endpoint: "getDateLastUpdated", Status: 200, LatencyMS: 12.4, Attempts: 1},
			{Endpoint: "getPageOfSearchResults", Asked: "breedId=640 page=0", Status: 200, LatencyMS: 401, Attempts: 2, RateLimited: 1, Drift: true,
				Diff: shape.Diff{Missing: []string{"records[].lpnDam"}, New: []string{"success"}}},
			{Endpoint: "getAnimalDetails", Asked: "searchString=x", Status: 503, Attempts: 3, Error: "nsip: upstream_error"},
			{Endpoint: "getLineage", Skipped: "not asked: NSIP could not be reached"},
		},
		EvaluationDate: "09/23/2025",
		Breed: Breed{ID: 640, RecordCount: 1523, Pages: 1, Rows: 2, SirePct: 50, DamPct: 50, AccuracyMax: 0.8,
			Fields: []Field{{"lpnId", 2, 100}, {"lpnSre", 1, 50}}}}
	r.conclude()
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"check-nsip: drift: 1 of 4 answers differ from the contract (exit 1)",
		"NSIP at http://nsip.example/api, 2026-11-30T06:00:00Z: 5 requests, 1 answered 429; evaluation of 09/23/2025",
		"  getDateLastUpdated                                   200      12 ms  as the contract",
		"  getPageOfSearchResults breedId=640 page=0            200     401 ms  missing: records[].lpnDam; new: success (2 attempts) (1 answered 429)",
		"  getAnimalDetails searchString=x                      503       0 ms  nsip: upstream_error (3 attempts)",
		"  getLineage                                             -       0 ms  not asked: NSIP could not be reached",
		"breed 640: 2 rows read of 1523, in 1 page; 50% with a sire, 50% with a dam; accuracies up to 0.8 (fractions)",
		"row members (share of rows with a value): lpnId 100%, lpnSre 50%",
	}
	if got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n"); !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestNoRows: a breed NSIP has no rows for leaves nothing to ask the
// details of, which is said, and the check is incomplete rather than clean.
func TestNoRows(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
	r := check(t, srv.URL(), 9999, 2)
	if r.Outcome != Incomplete || r.Answers[3].ErrorKind != "not_found" || r.Breed.Rows != 0 || r.Breed.Pages != 1 ||
		r.Answers[5].Skipped != "not asked: no search row to take an LPN ID from" {
		t.Errorf("report %+v\nanswers %+v", r, r.Answers)
	}
	// A breed with too few evaluated animals has rows but no trait ranges.
	r = check(t, srv.URL(), nsiptest.NoTraitDataBreed, 1)
	if r.Answers[3].Drift || r.Answers[3].ErrorKind != "no_data" || r.Answers[3].Status != 400 || r.Breed.Rows == 0 {
		t.Errorf("breed %d: %+v", nsiptest.NoTraitDataBreed, r.Answers[3])
	}
}

// TestPageRows: rows are found under data too, and what is not an object
// is no row.
func TestPageRows(t *testing.T) {
	rows, total := pageRows([]byte(`{"success":true,"data":{"Records":[{"LPNID":"a"},7,null],"RecordCount":3}}`), 0)
	if len(rows) != 1 || total != 3 || string(memberOf(rows[0], "lpnId")) != `"a"` || memberOf(rows[0], "lpnSre") != nil {
		t.Errorf("rows %v, total %d", rows, total)
	}
	if rows, total := pageRows([]byte(`[1]`), 0); rows != nil || total != 0 {
		t.Errorf("a list: %v %d", rows, total)
	}
}

// TestVerdicts: each outcome's first line, and the JSON of a report read
// back as it was.
func TestVerdicts(t *testing.T) {
	for _, tc := range []struct {
		r    Report
		want string
	}{
		{Report{Outcome: NoDrift}, "no drift: every answer has its contract's shape"},
		{Report{Outcome: Incomplete}, "incomplete: NSIP answered, but not every endpoint could be checked"},
		{Report{Outcome: CouldNotReach, CouldNotReach: "could not reach NSIP at x"}, "could not reach NSIP at x"},
		{Report{Outcome: Drift, Drifted: 1, Answers: []*Answer{{}, {}}, CouldNotReach: "could not reach NSIP at x"},
			"drift: 1 of 2 answers differ from the contract; could not reach NSIP at x"},
	} {
		if got := tc.r.verdict(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.r.Outcome, got, tc.want)
		}
	}
	r := Report{Outcome: Drift, ExitCode: 1, Answers: []*Answer{{Endpoint: "getLineage", Drift: true, Diff: shape.Diff{New: []string{"x"}}}},
		Breed: Breed{ID: 640, Pages: 2, Fields: []Field{{"lpnId", 1, 100}}}}
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || !reflect.DeepEqual(back, r) || plural(2, "page") != "2 pages" ||
		(Breed{AccuracyMax: 97}).scale() != "; accuracies up to 97 (percents)" {
		t.Errorf("%v: %+v\n%s", err, back, b.String())
	}
}
