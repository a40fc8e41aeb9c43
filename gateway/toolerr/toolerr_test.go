package toolerr

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/health"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

const lpn = "6402382024NCS310"

// lineage is a tool looked up by LPN ID, without pages.
var lineage = About{
	Subject: "lpn_id", What: "pedigree for LPN ID", Next: "check the LPN ID",
	Specs: []param.Spec{{Name: "lpn_id", Kind: param.String, Required: true, Example: lpn}},
}

// paged is a tool that takes a page size.
var paged = About{
	Subject: "lpn_id", What: "progeny for LPN ID", Next: "check the LPN ID",
	Specs: []param.Spec{
		{Name: "lpn_id", Kind: param.String, Required: true, Example: lpn},
		{Name: "page_size", Kind: param.Integer, Example: 10},
	},
	PageSize: "page_size",
}

func capacity() health.Capacity {
	return health.Capacity{TokensAvailable: 2, LimitPerSecond: 5, Burst: 10}
}

// TestFitWaitErrors: an answer that ran out of time waiting to be
// summarized is a timeout that does not blame NSIP, with advice that fits
// the tool; joined with what NSIP said about another part of a profile,
// NSIP's word wins.
func TestFitWaitErrors(t *testing.T) {
	env := Env{CallTimeout: 30 * time.Second}
	waited := fmt.Errorf("%w: %w", ErrFitWait, context.DeadlineExceeded)
	tests := []struct {
		name       string
		about      About
		err        error
		code, next string
	}{
		{"paged tool", paged, waited, CodeTimeout, "retry in a few seconds; a smaller page_size needs less summarizing"},
		{"tool without pages", lineage, waited, CodeTimeout, "retry in a few seconds"},
		{"cancelled while waiting", lineage, fmt.Errorf("%w: %w", ErrFitWait, context.Canceled), CodeCanceled, ""},
		{"a profile part not found", lineage,
			errors.Join(&nsip.Error{Kind: nsip.KindNotFound, Param: "searchString", Value: lpn}, waited), CodeNotFound, "check the LPN ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			te, note := Map(tt.err, tt.about, param.SentOf(map[string]any{"lpn_id": lpn}), env)
			if te.Code != tt.code || te.Next != tt.next || note.Msg != "" || note.Misconfigured {
				t.Errorf("Map = %+v, %+v; want code %s, next %q and nothing to log", te, note, tt.code, tt.next)
			}
			if tt.code == CodeTimeout && te.Problem != "NSIP answered, but the server was busy summarizing other large answers "+
				"and did not reach this one before the call's deadline (30s)" {
				t.Errorf("problem %q", te.Problem)
			}
		})
	}
}

// Map keeps no state and logs nothing: what the operator should know
// comes back as a note, and the configuration it showed wrong as a flag,
// for its caller to act on.
func TestMapReturnsWhatToLog(t *testing.T) {
	refused := &nsip.Error{Kind: nsip.KindConnection, Reason: "connection refused", Endpoint: "/search", Err: syscall.ECONNREFUSED}
	env := Env{CallTimeout: time.Minute, BaseURL: "http://10.0.0.7:9000/api"}
	te, note := Map(refused, lineage, param.SentOf(map[string]any{"lpn_id": lpn}), env)
	if te.Code != CodeUpstreamError || !strings.Contains(te.Problem, "set to a server other than the public NSIP API") || strings.Contains(te.Problem, "10.0.0.7") {
		t.Errorf("error = %+v; want upstream_error naming the setting and not its address", te)
	}
	if !note.Misconfigured || note.Level != slog.LevelWarn || note.Msg != "nsip connection failed" {
		t.Errorf("note = %+v; want a warning and the configuration flagged", note)
	}
	env.BaseURL = nsip.DefaultBaseURL // the public API refuses only when NSIP is down
	if _, note := Map(refused, lineage, param.Sent{}, env); note.Misconfigured {
		t.Errorf("a refusal at the public API flagged the configuration: %+v", note)
	}
	env.Misconfigured, env.RetryIn = true, 30*time.Second
	te, note = Map(ErrBreakerOpen, lineage, param.Sent{}, env)
	if te.Code != CodeUpstreamUnavailable || te.RetryInSeconds != 30 || te.Next != MisconfiguredNext || note.Msg != "" {
		t.Errorf("breaker open after a misconfiguration = %+v, %+v", te, note)
	}
}

// TestMapWording pins the body the model sees for each kind of failure.
func TestMapWording(t *testing.T) {
	env := Env{Capacity: capacity, RetryIn: 12 * time.Second, CallTimeout: 30 * time.Second, RequestTimeout: 10 * time.Second}
	args := map[string]any{"lpn_id": lpn, "page_size": 5}
	tests := []struct {
		name string
		err  error
		want Error
	}{
		{"our rate limit", &upstream.RateLimited{Reason: "local limit", RetryAfter: 1500 * time.Millisecond},
			Error{Code: CodeRateLimited, Problem: "too many NSIP requests (local limit); retry after 2 s", RetryAfterSeconds: 2,
				Next: "wait, then repeat the same call"}},
		{"NSIP's rate limit", &nsip.Error{Kind: nsip.KindRateLimited, RetryAfter: 3 * time.Second},
			Error{Code: CodeRateLimited, Problem: "NSIP asked us to slow down; retry after 3 s", RetryAfterSeconds: 3,
				Next: "wait, then repeat the same call"}},
		{"breaker open", ErrBreakerOpen,
			Error{Code: CodeUpstreamUnavailable, Problem: "NSIP is unavailable after repeated failures; retry in 12 s", RetryInSeconds: 12,
				Next: "retry later; answers already fetched stay available from the cache"}},
		{"cancelled", context.Canceled, Error{Code: CodeCanceled, Problem: "the call was cancelled before NSIP answered"}},
		{"NSIP cancelled", &nsip.Error{Kind: nsip.KindCanceled}, Error{Code: CodeCanceled, Problem: "the call was cancelled before NSIP answered"}},
		{"other failure", errors.New("boom"), Error{Code: CodeUpstreamError, Problem: "NSIP request failed: boom", Next: "retry in a few seconds"}},
		{"not found", &nsip.Error{Kind: nsip.KindNotFound},
			Error{Code: CodeNotFound, Field: "lpn_id", Value: lpn, Problem: `NSIP has no progeny for LPN ID "` + lpn + `"`, Next: "check the LPN ID"}},
		{"rejected parameter", &nsip.Error{Kind: nsip.KindInvalidArgument, Param: "pageSize", Reason: "too big"},
			Error{Code: CodeInvalidArgument, Field: "page_size", Problem: "NSIP rejected the request: too big",
				Example: callOf(`{"lpn_id":"` + lpn + `","page_size":5}`)}},
		{"rejected, parameter unknown", &nsip.Error{Kind: nsip.KindInvalidArgument, Param: "other", Reason: "bad"},
			Error{Code: CodeInvalidArgument, Field: "lpn_id", Problem: "NSIP rejected the request: bad",
				Example: callOf(`{"lpn_id":"` + lpn + `","page_size":5}`)}},
		{"no data", &nsip.Error{Kind: nsip.KindNoData, Reason: "too few animals"},
			Error{Code: CodeNoData, Field: "lpn_id", Value: lpn, Problem: "too few animals",
				Next: "the breed ID is valid: search its animals with nsip_search_animals (without trait filters), or pick another breed from nsip_list_breeds"}},
		{"format changed", &nsip.Error{Kind: nsip.KindFormatChanged, Endpoint: "search", Reason: "field x"},
			Error{Code: CodeUnexpectedResponse, Problem: "NSIP's answer format changed: search sent JSON this server cannot read (field x)",
				Next: "retrying will not help until this server understands NSIP's new format; tell the server's operator (its /healthz lists the change)"}},
		{"not JSON", &nsip.Error{Kind: nsip.KindUnexpectedResponse, Reason: "an HTML page"},
			Error{Code: CodeUnexpectedResponse, Problem: "NSIP answered with something that is not the expected JSON: an HTML page",
				Next: "retry later; NSIP may be serving an error page"}},
		{"server error", &nsip.Error{Kind: nsip.KindUpstream, Status: 502},
			Error{Code: CodeUpstreamError, Problem: "NSIP failed: " + (&nsip.Error{Kind: nsip.KindUpstream, Status: 502}).Error(), Next: "retry in a few seconds"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			te, note := Map(tt.err, paged, param.SentOf(args), env)
			if tt.want.Code == CodeRateLimited {
				c := capacity()
				tt.want.Capacity = &c
			}
			got, _ := json.Marshal(te)
			want, _ := json.Marshal(&tt.want)
			if string(got) != string(want) {
				t.Errorf("Map =\n %s\nwant\n %s", got, want)
			}
			if note.Msg != "" {
				t.Errorf("note %+v; want nothing to log", note)
			}
		})
	}
}

// A server error with its cause is logged for the operator; the model
// gets NSIP's message without the cause.
func TestServerErrorLogsItsCause(t *testing.T) {
	ne := &nsip.Error{Kind: nsip.KindUpstream, Status: 500, Endpoint: "details/getAnimalDetails",
		Err: errors.New("dial http://10.1.2.3:80")}
	te, note := Map(ne, lineage, param.Sent{}, Env{})
	if strings.Contains(te.Problem, "10.1.2.3") || te.Code != CodeUpstreamError {
		t.Errorf("error = %+v; want upstream_error without the address", te)
	}
	if note.Level != slog.LevelWarn || note.Msg != "nsip request failed" || len(note.Attrs) != 3 || note.Attrs[1].Value.String() != "get_animal_details" {
		t.Errorf("note = %+v; want a warning with kind, endpoint and error", note)
	}
}

// TestTimeoutWording names the deadline that ran out.
func TestTimeoutWording(t *testing.T) {
	env := Env{CallTimeout: 30 * time.Second, RequestTimeout: 10 * time.Second}
	tests := []struct {
		name    string
		err     error
		problem string
	}{
		{"outside the client", context.DeadlineExceeded,
			"NSIP did not answer before this call's deadline passed; the gateway allows each call up to 30s"},
		{"NSIP's 408", &nsip.Error{Kind: nsip.KindTimeout, Status: 408, Attempts: 2},
			"NSIP gave up on the request itself (HTTP 408 Request Timeout), on any of 2 attempts"},
		{"per-request limit", &nsip.Error{Kind: nsip.KindTimeout, Attempts: 1, Err: errors.New("i/o timeout")},
			"NSIP did not answer within 10s, the time limit for one request"},
		{"call deadline", &nsip.Error{Kind: nsip.KindTimeout, Attempts: 3, Err: context.DeadlineExceeded},
			"NSIP did not answer within 30s, the time limit for one call (3 attempts made)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			te, _ := Map(tt.err, lineage, param.Sent{}, env)
			if te.Code != CodeTimeout || te.Problem != tt.problem || te.Next != "retry; for searches, a smaller page_size answers faster" {
				t.Errorf("error = %s %q next %q; want timeout %q", te.Code, te.Problem, te.Next, tt.problem)
			}
		})
	}
}

// TestMisconfiguredNamesTheSetting: NSIP_BASE_URL shown wrong is named,
// with why, and the address goes to the log only.
func TestMisconfiguredNamesTheSetting(t *testing.T) {
	tests := []struct {
		name string
		ne   *nsip.Error
		why  string
	}{
		{"404", &nsip.Error{Status: 404}, "answers 404 for endpoints NSIP has"},
		{"400", &nsip.Error{Status: 400}, "it says http, but the server there speaks HTTPS"},
		{"web pages", &nsip.Error{Status: 200}, "sends web pages where NSIP sends JSON"},
		{"scheme", &nsip.Error{Err: http.ErrSchemeMismatch}, "it says https, but the server there speaks plain HTTP"},
		{"certificate", &nsip.Error{Err: x509.UnknownAuthorityError{}}, "the TLS certificate of the server there is not trusted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.ne.Kind, tt.ne.Endpoint, tt.ne.Reason = nsip.KindMisconfigured, "search", "at http://10.0.0.9"
			te, note := Map(tt.ne, lineage, param.Sent{}, Env{})
			if te.Code != CodeMisconfigured || !strings.Contains(te.Problem, "NSIP_BASE_URL") || !strings.Contains(te.Problem, tt.why) ||
				strings.Contains(te.Problem, "10.0.0.9") || te.Next != MisconfiguredNext {
				t.Errorf("error = %+v; want misconfigured naming the setting and %q", te, tt.why)
			}
			if !note.Misconfigured || note.Level != slog.LevelError || note.Msg != "NSIP_BASE_URL does not lead to the NSIP API" {
				t.Errorf("note = %+v", note)
			}
		})
	}
}

// TestConnectionWording says why NSIP was not reached without its address,
// and blames the setting only when it is to blame.
func TestConnectionWording(t *testing.T) {
	dns := &net.DNSError{Err: "no such host", Name: "nsip.example", IsNotFound: true}
	tests := []struct {
		name, baseURL string
		ne            *nsip.Error
		problem       string
		misconfigured bool
	}{
		{"DNS", "", &nsip.Error{Err: dns},
			"could not connect to NSIP: its host name could not be resolved (DNS); the server's NSIP_BASE_URL setting or its machine's network is wrong", true},
		{"DNS by reason", nsip.DefaultBaseURL + "/", &nsip.Error{Reason: "cannot resolve the API host"},
			"could not connect to NSIP: its host name could not be resolved (DNS); the server's NSIP_BASE_URL setting (unset or set to the public NSIP API, " +
				nsip.DefaultBaseURL + ") or its machine's network is wrong", true},
		{"refused at the public API", nsip.DefaultBaseURL, &nsip.Error{Err: syscall.ECONNREFUSED}, "could not connect to NSIP: connection refused", false},
		{"refused, base URL unknown", "", &nsip.Error{Reason: "connection refused"}, "could not connect to NSIP: connection refused", false},
		{"reset", "http://10.0.0.1", &nsip.Error{Err: syscall.ECONNRESET}, "could not connect to NSIP: connection reset", false},
		{"reset by reason", "", &nsip.Error{Reason: "connection reset"}, "could not connect to NSIP: connection reset", false},
		{"other", "", &nsip.Error{Err: syscall.ENETUNREACH}, "could not connect to NSIP: the network connection failed", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.ne.Kind = nsip.KindConnection
			te, note := Map(tt.ne, lineage, param.Sent{}, Env{BaseURL: tt.baseURL})
			wantNext := "retry in a minute; if it keeps failing, NSIP or the network to it is down"
			if tt.misconfigured {
				wantNext = MisconfiguredNext
			}
			if te.Code != CodeUpstreamError || te.Problem != tt.problem || te.Next != wantNext || note.Misconfigured != tt.misconfigured {
				t.Errorf("error = %+v, misconfigured %v; want %q, next %q, misconfigured %v", te, note.Misconfigured, tt.problem, wantNext, tt.misconfigured)
			}
		})
	}
}

// TestInvalidArgsListsEveryProblem: the first problem in full, the others
// under also, the example as given.
func TestInvalidArgsListsEveryProblem(t *testing.T) {
	te := InvalidArgs(callOf(`{"lpn_id":"`+lpn+`"}`), []param.FieldError{
		{Field: "lpn_id", Problem: "is required", Expected: "an LPN ID"},
		{Field: "page", Problem: "must be at least 0"},
	})
	if te.Code != CodeInvalidArgument || te.Field != "lpn_id" || te.Problem != "lpn_id is required" || te.Expected != "an LPN ID" ||
		te.Example.String() != `{"lpn_id":"`+lpn+`"}` || len(te.Also) != 1 || te.Also[0].Field != "page" {
		t.Errorf("InvalidArgs = %+v", te)
	}
	te = InvalidArgs(nil, []param.FieldError{{Field: "arguments", Problem: "must be an object"}})
	if te.Problem != "arguments must be an object" || len(te.Also) != 0 {
		t.Errorf("InvalidArgs(arguments) = %+v", te)
	}
}

// callOf is the example call js, read as a client reads an error's.
func callOf(js string) *param.Call {
	c := new(param.Call)
	if err := json.Unmarshal([]byte(js), c); err != nil {
		panic(err)
	}
	return c
}

// An error's example is written as the object of its arguments was: left
// out when it has none, with no HTML escaped in the text of a result, and
// every member in name order.
func TestResultWritesTheExampleAsAnObject(t *testing.T) {
	specs := []param.Spec{{Name: "index", Kind: param.String, Example: "A&B <1>"}, {Name: "page", Kind: param.Integer, Example: 2}}
	body := func(te *Error) string { return te.Result().Content[0].(mcp.TextContent).Text }
	none := InvalidArgs(param.Example(specs, param.SentOf(map[string]any{"colour": "red"})), []param.FieldError{{Field: "colour", Problem: "is not an argument"}})
	if got := body(none); got != `{"error":{"code":"invalid_argument","field":"colour","problem":"colour is not an argument"}}` {
		t.Errorf("no example: %s", got)
	}
	te := InvalidArgs(param.Example(specs, param.SentOf(map[string]any{"page": 1.0, "index": 7})), []param.FieldError{{Field: "index", Problem: "must be a string"}})
	want := `{"error":{"code":"invalid_argument","field":"index","problem":"index must be a string","example":{"index":"A&B <1>","page":1}}}`
	if got := body(te); got != want {
		t.Errorf("example:\n %s\nwant\n %s", got, want)
	}
	if b, _ := json.Marshal(te.Example); string(b) != `{"index":"A\u0026B \u003c1\u003e","page":1}` {
		t.Errorf("json.Marshal escapes the example as it did an object: %s", b)
	}
}

// TestResultIsTheErrorBody: an error renders as {"error": {...}} in an
// IsError result, and a question to the user as itself.
func TestResultIsTheErrorBody(t *testing.T) {
	r := (&Error{Code: CodeNotFound, Field: "lpn_id", Value: "a<b", Problem: "NSIP has no x"}).Result()
	text := r.Content[0].(mcp.TextContent).Text
	if !r.IsError || text != `{"error":{"code":"not_found","field":"lpn_id","value":"a<b","problem":"NSIP has no x"}}` {
		t.Errorf("Result = %v %s", r.IsError, text)
	}
	ask := &mcp.CallToolResult{}
	if got := (&Error{Code: "input_required", Input: ask}).Result(); got != ask {
		t.Errorf("Result with input = %+v; want the input itself", got)
	}
	if len(Codes) != 10 {
		t.Errorf("Codes = %v; want the ten codes", Codes)
	}
}

func TestStaleIsServedOnlyForUpstreamTrouble(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&nsip.Error{Kind: nsip.KindNotFound}, false},
		{&nsip.Error{Kind: nsip.KindInvalidArgument}, false},
		{&nsip.Error{Kind: nsip.KindCanceled}, false},
		{&nsip.Error{Kind: nsip.KindUpstream}, true},
		{&nsip.Error{Kind: nsip.KindRateLimited}, true},
		{ErrBreakerOpen, true},
		{&upstream.RateLimited{Reason: "busy"}, true},
		{context.Canceled, false},
		{context.DeadlineExceeded, true},
	}
	for _, tt := range tests {
		if got := ServesStale(tt.err); got != tt.want {
			t.Errorf("ServesStale(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// TestAnalysisFailures pins the body of each of an analysis's own
// failures, and leaves NSIP's to Map.
func TestAnalysisFailures(t *testing.T) {
	example := func() *param.Call { return callOf(`{"lpn_id":"bad","breed_id":640}`) }
	fixed := &analysis.FixedArgError{
		ArgError: analysis.ArgError{FieldError: param.FieldError{Field: "lpn_id", Problem: "is not of breed 640"}},
		Fix:      []param.Edit{param.Assign("lpn_id", lpn)},
	}
	tests := []struct {
		name string
		err  error
		want Error
	}{
		{"argument", fmt.Errorf("run: %w", &analysis.ArgError{FieldError: param.FieldError{Field: "breed_id", Problem: "is unknown"}}),
			Error{Code: CodeInvalidArgument, Field: "breed_id", Problem: "breed_id is unknown", Example: example()}},
		{"argument with its fix", fixed,
			Error{Code: CodeInvalidArgument, Field: "lpn_id", Problem: "lpn_id is not of breed 640", Example: callOf(`{"lpn_id":"` + lpn + `","breed_id":640}`)}},
		{"user's answer", &analysis.AnswerError{Errs: []param.FieldError{{Field: "weight", Problem: "must be a number"}}},
			Error{Code: CodeInvalidArgument, Field: "weight", Problem: "the user's answer: weight must be a number", Example: example()}},
		{"pedigree too large", fmt.Errorf("%w: 9000 ancestors", breeding.ErrTooComplex),
			Error{Code: CodeUnexpectedResponse,
				Problem: "the pedigree NSIP gave behind these animals is too large to compute inbreeding from (" + breeding.ErrTooComplex.Error() + ": 9000 ancestors)",
				Next:    "check pairs one at a time with nsip_check_mating, which answers without the COI when it cannot compute it"}},
		{"time limit", analysis.ErrTimeLimit,
			Error{Code: CodeTimeout, Problem: "the analysis reached the time limit of one call (1m0s) before it had what it needs to answer",
				Next: "call again: the NSIP answers read so far are cached, so the next call gets further; or narrow the request (fewer animals, tighter filters)"}},
		{"lookup ceiling", analysis.ErrCeiling,
			Error{Code: CodeInvalidArgument, Problem: "the analysis needs more than its ceiling of 50 NSIP lookups",
				Next: "narrow the request (fewer animals, tighter filters)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := json.Marshal(Analysis(tt.err, example, 50, time.Minute))
			want, _ := json.Marshal(&tt.want)
			if string(got) != string(want) {
				t.Errorf("Analysis =\n %s\nwant\n %s", got, want)
			}
		})
	}
	if te := Analysis(&nsip.Error{Kind: nsip.KindNotFound}, example, 50, time.Minute); te != nil {
		t.Errorf("Analysis(not found) = %+v; want nil, for Map", te)
	}
}

// TestAboutFailed: NSIP's failure about one argument names it, with the
// analysis's wording or an animal's.
func TestAboutFailed(t *testing.T) {
	sent := map[string]any{"lpn_ids": []any{"a", "b"}}
	about, args := AboutFailed(lineage, param.SentOf(sent), errors.New("boom"))
	if about.Subject != "lpn_id" || !args.Has("lpn_ids") {
		t.Errorf("plain failure: %+v %v; want the tool and what was sent", about, args)
	}
	nf := &nsip.Error{Kind: nsip.KindNotFound}
	about, args = AboutFailed(lineage, param.SentOf(sent), &analysis.AboutError{Field: "sire", Value: "X1", Err: nf})
	te, _ := Map(nf, about, args, Env{})
	if te.Field != "sire" || te.Value != "X1" || te.Problem != `NSIP has no animal with LPN ID "X1"` ||
		te.Next != "check the LPN ID, or find animals with nsip_search_animals" {
		t.Errorf("about an animal: %+v", te)
	}
	about, args = AboutFailed(lineage, param.SentOf(sent), &analysis.AboutError{Field: "breed_id", Value: 9, What: "breed", Next: "list the breeds", Err: nf})
	te, _ = Map(nf, about, args, Env{})
	if te.Field != "breed_id" || te.Problem != "NSIP has no breed 9" || te.Next != "list the breeds" {
		t.Errorf("about a breed: %+v", te)
	}
}

// A tool's not-found wording and arguments come from its definition, and
// a paging tool's page size is named only for the tools that take it.
func TestAboutToolReadsTheDefinition(t *testing.T) {
	progeny := &tooldef.Def{Name: "nsip_get_progeny", Subject: "lpn_id", What: "progeny for LPN ID", Next: "check the LPN ID",
		Args: param.Args{Specs: []param.Spec{{Name: "lpn_id"}, {Name: "page_size"}}}}
	a := AboutTool(progeny, "page_size")
	if a.Subject != "lpn_id" || a.What != "progeny for LPN ID" || a.Next != "check the LPN ID" || a.PageSize != "page_size" || len(a.Specs) != 2 {
		t.Errorf("a paging tool: %+v", a)
	}
	lineage := &tooldef.Def{Name: "nsip_get_lineage", Subject: "lpn_id", Args: param.Args{Specs: []param.Spec{{Name: "lpn_id"}}}}
	if a := AboutTool(lineage, "page_size"); a.PageSize != "" {
		t.Errorf("a tool without pages names page size %q", a.PageSize)
	}
}
