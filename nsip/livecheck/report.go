package livecheck

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip/shape"
)

// Outcome is the check's verdict.
type Outcome string

const (
	// NoDrift: every endpoint answered, each in its contract's shape.
	NoDrift Outcome = "no_drift"
	// Drift: at least one answer differs from its contract (members
	// missing or new, a value of another kind, a 200 that is not the
	// endpoint's answer), whatever else happened.
	Drift Outcome = "drift"
	// CouldNotReach: no answer differed, but NSIP could not be reached
	// (connection refused or reset, DNS, timeout, a base URL that leads
	// elsewhere), so some endpoints were not checked.
	CouldNotReach Outcome = "could_not_reach"
	// Incomplete: NSIP was reached and no answer differed, but some
	// endpoints answered with an error (5xx, 429, 404) or were not asked.
	Incomplete Outcome = "incomplete"
)

// Exit statuses of nsip-mcp check-nsip, one per outcome: drift is 1, a
// check that could not be completed 2, as is a usage error.
const (
	ExitNoDrift    = 0
	ExitDrift      = 1
	ExitIncomplete = 2
)

// Report is what one check found. Its JSON is the check's -format json
// output.
type Report struct {
	BaseURL   string    `json:"base_url"`
	CheckedAt time.Time `json:"checked_at"`
	// EvaluationDate is getDateLastUpdated's date as sent.
	EvaluationDate string  `json:"evaluation_date,omitempty"`
	Outcome        Outcome `json:"outcome"`
	ExitCode       int     `json:"exit_code"`
	// Drifted counts the answers that differ from their contract.
	Drifted int `json:"drifted"`
	// CouldNotReach says where and why NSIP could not be reached; "" when
	// it always answered.
	CouldNotReach string `json:"could_not_reach,omitempty"`
	// Requests counts every HTTP request made (retries and the client's
	// probes of the base URL included); RateLimited those answered 429.
	Requests    int       `json:"requests"`
	RateLimited int       `json:"rate_limited"`
	Answers     []*Answer `json:"answers"`
	Breed       Breed     `json:"breed"`
}

// Answer is one request's result: one per endpoint, one per search page.
type Answer struct {
	Endpoint string `json:"endpoint"`        // e.g. getPageOfSearchResults
	Asked    string `json:"asked,omitempty"` // the arguments, e.g. "breedId=640 page=0"
	Status   int    `json:"status"`          // HTTP status of the last attempt; 0 when none arrived
	// LatencyMS is the call's time in milliseconds, retries and their
	// backoff included, the wait for the rate limit not.
	LatencyMS   float64 `json:"latency_ms"`
	Attempts    int     `json:"attempts"`
	RateLimited int     `json:"rate_limited"` // attempts answered 429
	Drift       bool    `json:"drift"`
	shape.Diff
	Error       string `json:"error,omitempty"`      // the failure, when the answer could not be read
	ErrorKind   string `json:"error_kind,omitempty"` // its kind, e.g. connection_failed, upstream_error
	Unreachable bool   `json:"unreachable,omitempty"`
	Skipped     string `json:"skipped,omitempty"` // why it was not asked
}

// Breed is what the breed's search pages carry.
type Breed struct {
	ID          int     `json:"breed_id"`
	RecordCount int     `json:"record_count"` // NSIP's count of the breed's rows
	Pages       int     `json:"pages_read"`
	Rows        int     `json:"rows_read"`
	SirePct     float64 `json:"sire_pct"` // rows naming a sire (lpnSre), in percent
	DamPct      float64 `json:"dam_pct"`
	// AccuracyMax is the largest accuracy in the rows, as sent: up to 1
	// they are fractions (the live capture's 0.80), above it percents.
	AccuracyMax float64 `json:"accuracy_max"`
	Fields      []Field `json:"fields"` // every member met in a row
}

// Field is one row member and the share of rows carrying a value under it
// (not null, not "").
type Field struct {
	Name string  `json:"name"` // as sent
	Rows int     `json:"rows"`
	Pct  float64 `json:"pct"`
}

// conclude sets the outcome and exit code from the answers.
func (r *Report) conclude() {
	incomplete, unreached := false, false
	for _, a := range r.Answers {
		switch {
		case a.Drift:
			r.Drifted++
		case a.Unreachable:
			unreached = true
		case a.Error != "", a.Skipped != "":
			incomplete = true
		}
	}
	switch {
	case r.Drifted > 0:
		r.Outcome, r.ExitCode = Drift, ExitDrift
	case unreached:
		r.Outcome, r.ExitCode = CouldNotReach, ExitIncomplete
	case incomplete:
		r.Outcome, r.ExitCode = Incomplete, ExitIncomplete
	default:
		r.Outcome, r.ExitCode = NoDrift, ExitNoDrift
	}
}

// WriteJSON writes the report as one JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report in a few lines: the verdict, one line per
// answer, the breed's rows.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "check-nsip: %s (exit %d)\n", r.verdict(), r.ExitCode)
	fmt.Fprintf(&b, "NSIP at %s, %s: %d requests, %d answered 429", r.BaseURL, r.CheckedAt.Format(time.RFC3339), r.Requests, r.RateLimited)
	if r.EvaluationDate != "" {
		fmt.Fprintf(&b, "; evaluation of %s", r.EvaluationDate)
	}
	b.WriteByte('\n')
	for _, a := range r.Answers {
		status := "-"
		if a.Status != 0 {
			status = strconv.Itoa(a.Status)
		}
		fmt.Fprintf(&b, "  %-52s %3s %7.0f ms  %s\n", strings.TrimSpace(a.Endpoint+" "+a.Asked), status, a.LatencyMS, a.summary())
	}
	br := r.Breed
	if br.Pages == 0 {
		fmt.Fprintf(&b, "breed %d: no search page read\n", br.ID)
	} else {
		fmt.Fprintf(&b, "breed %d: %d rows read of %d, in %s; %s%% with a sire, %s%% with a dam%s\n",
			br.ID, br.Rows, br.RecordCount, plural(br.Pages, "page"), num(br.SirePct), num(br.DamPct), br.scale())
	}
	if len(br.Fields) > 0 {
		parts := make([]string, len(br.Fields))
		for i, f := range br.Fields {
			parts[i] = f.Name + " " + num(f.Pct) + "%"
		}
		fmt.Fprintf(&b, "row members (share of rows with a value): %s\n", strings.Join(parts, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// verdict is the outcome in words.
func (r *Report) verdict() string {
	switch r.Outcome {
	case Drift:
		msg := fmt.Sprintf("drift: %d of %d answers differ from the contract", r.Drifted, len(r.Answers))
		if r.CouldNotReach != "" {
			msg += "; " + r.CouldNotReach
		}
		return msg
	case CouldNotReach:
		return r.CouldNotReach
	case Incomplete:
		return "incomplete: NSIP answered, but not every endpoint could be checked"
	}
	return "no drift: every answer has its contract's shape"
}

// summary is what the text says of one answer.
func (a *Answer) summary() string {
	var s string
	switch {
	case a.Skipped != "":
		return a.Skipped
	case a.Drift:
		var parts []string
		for _, p := range []struct {
			what  string
			paths []string
		}{{"missing", a.Missing}, {"new", a.New}, {"changed", a.Changed}} {
			if len(p.paths) > 0 {
				parts = append(parts, p.what+": "+strings.Join(p.paths, ", "))
			}
		}
		s = strings.Join(parts, "; ")
	case a.Unreachable:
		// The first line says where and why.
		s = "could not reach NSIP (" + a.ErrorKind + ")"
	case a.Error != "":
		s = a.Error
	default:
		s = "as the contract"
	}
	if a.Attempts > 1 {
		s += fmt.Sprintf(" (%d attempts)", a.Attempts)
	}
	if a.RateLimited > 0 {
		s += fmt.Sprintf(" (%d answered 429)", a.RateLimited)
	}
	return s
}

// scale says what the largest accuracy shows of the scale, when the rows
// had any.
func (b Breed) scale() string {
	switch {
	case b.AccuracyMax > 1:
		return "; accuracies up to " + num(b.AccuracyMax) + " (percents)"
	case b.AccuracyMax > 0:
		return "; accuracies up to " + num(b.AccuracyMax) + " (fractions)"
	}
	return ""
}

// plural is n things, with an s past one.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// num writes a percent without a needless ".0".
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
