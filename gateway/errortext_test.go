package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
)

// TestUnusualNamesAreQuotedInErrors sends argument and trait-range keys that
// would otherwise vanish or garble the error (empty, blank, control
// characters, dots, very long) and checks that the field and the problem
// still show which key was wrong, while ordinary names stay bare.
func TestUnusualNamesAreQuotedInErrors(t *testing.T) {
	long := strings.Repeat("k", 500)
	longShown := `"` + strings.Repeat("k", param.MaxShown) + `"…`
	ranges := func(k string, r map[string]any) map[string]any {
		return map[string]any{"search_criteria": map[string]any{"trait_ranges": map[string]any{k: r}}}
	}
	ok := map[string]any{"min": 0, "max": 1}
	tests := []struct {
		name     string
		tool     string
		args     map[string]any
		field    string
		problem  string
		expected string // prefix
	}{
		{"empty argument name", "nsip_list_breeds", map[string]any{"": ""},
			`""`, `"" is not an argument of this tool`, "one of max_tokens"},
		{"blank argument name", "nsip_get_progeny", map[string]any{"lpn_id": nsiparg.ExampleLPN, "  ": 1},
			`"  "`, `"  " is not an argument of this tool`, "one of lpn_id, page, page_size, traits, skip, max_tokens"},
		{"control characters", "nsip_get_progeny", map[string]any{"lpn_id": nsiparg.ExampleLPN, "a\x00\nb": 1},
			`"a\x00\nb"`, `"a\x00\nb" is not an argument of this tool`, "one of lpn_id, page, page_size"},
		{"dotted name", "nsip_get_progeny", map[string]any{"lpn_id": nsiparg.ExampleLPN, "page.size": 1},
			`"page.size"`, `"page.size" is not an argument of this tool; did you mean "page_size"?`, "page_size"},
		{"very long name", "nsip_get_progeny", map[string]any{"lpn_id": nsiparg.ExampleLPN, long: 1},
			longShown, longShown + " is not an argument of this tool", "one of lpn_id, page, page_size"},
		{"ordinary misspelling stays bare", "nsip_get_progeny", map[string]any{"lpn_id": nsiparg.ExampleLPN, "pagesize": 1},
			"pagesize", `pagesize is not an argument of this tool; did you mean "page_size"?`, "page_size"},
		{"empty nested name", "nsip_search_animals", map[string]any{"search_criteria": map[string]any{"": true}},
			`search_criteria.""`, `search_criteria."" is not a field of search_criteria`, "one of "},
		{"empty trait code", "nsip_search_animals", ranges("", ok),
			`search_criteria.trait_ranges.""`, `search_criteria.trait_ranges."" is not a trait code (1 to 16 letters) nor a trait's name`, "a trait code such as WWT"},
		{"blank trait code", "nsip_search_animals", ranges(" \t", ok),
			`search_criteria.trait_ranges." \t"`, `search_criteria.trait_ranges." \t" is not a trait code (1 to 16 letters) nor a trait's name`, "a trait code such as WWT"},
		{"padded trait code keeps its padding visible", "nsip_search_animals", ranges(" bwt ", map[string]any{"min": 2, "max": 1}),
			`search_criteria.trait_ranges." bwt "`, `search_criteria.trait_ranges." bwt " min 2 is greater than max 1`, "min <= max"},
		{"bound under an empty code", "nsip_search_animals", ranges("\u200b", map[string]any{"min": 0}),
			`search_criteria.trait_ranges."\u200b"`, `search_criteria.trait_ranges."\u200b" is not a trait code (1 to 16 letters) nor a trait's name`, "a trait code such as WWT"},
		{"very long trait code", "nsip_search_animals", ranges(long, ok),
			"search_criteria.trait_ranges." + longShown, "search_criteria.trait_ranges." + longShown + " is not a trait code (1 to 16 letters) nor a trait's name", "a trait code such as WWT"},
	}
	e := stubEnv(t, &stubUpstream{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := e.call(tt.tool, tt.args).errorBody(t)
			if b.Code != toolerr.CodeInvalidArgument || b.Field != tt.field || b.Problem != tt.problem || !strings.HasPrefix(b.Expected, tt.expected) {
				t.Errorf("error = code %s, field %q, problem %q, expected %q;\nwant invalid_argument, field %q, problem %q, expected starting %q",
					b.Code, b.Field, b.Problem, b.Expected, tt.field, tt.problem, tt.expected)
			}
		})
	}
}

// TestLongValuesAreCutInErrors checks that a huge rejected value is repeated
// only in part, with the cut marked, so one bad argument cannot flood the
// model's context.
func TestLongValuesAreCutInErrors(t *testing.T) {
	e := stubEnv(t, &stubUpstream{})
	huge := strings.Repeat("z", 100000)
	shown := `"` + strings.Repeat("z", param.MaxShown) + `"…`
	b := e.call("nsip_search_animals", map[string]any{"traits": []any{huge}}).errorBody(t)
	want := "traits[0] " + shown + " is not a trait code (1 to 16 letters) nor a trait's name"
	if b.Field != "traits[0]" || b.Problem != want {
		t.Errorf("error = field %q, problem %q; want field traits[0], problem %q", b.Field, b.Problem, want)
	}
	// Trait codes are open-ended, so a huge one is refused as malformed,
	// and named in part.
	b = e.call("nsip_search_animals", map[string]any{"search_criteria": map[string]any{
		"trait_ranges": map[string]any{huge: map[string]any{"min": 0, "max": 1}}}}).errorBody(t)
	field := "search_criteria.trait_ranges." + shown
	if b.Field != field || !strings.HasPrefix(b.Problem, field+" is not a trait code") {
		t.Errorf("error = field %q, problem %q; want field %s, problem saying it is not a trait code", b.Field, b.Problem, field)
	}
	b = e.call("nsip_search_animals", map[string]any{"search_criteria": map[string]any{"gender": "m\x00"}}).errorBody(t)
	if want := `search_criteria.gender "m\x00" is not one of Male, Female, Both`; !strings.HasPrefix(b.Problem, want) {
		t.Errorf("problem = %q, want it to start %q", b.Problem, want)
	}
}

// TestErrorTextKeepsMarkupCharacters checks that <, > and & reach the model
// as themselves, in a compact, valid JSON body.
func TestErrorTextKeepsMarkupCharacters(t *testing.T) {
	e := stubEnv(t, &stubUpstream{})
	tests := []struct {
		name string
		args map[string]any
		want []string // fragments the raw text must hold
	}{
		{"bounds rule", map[string]any{"search_criteria": map[string]any{"trait_ranges": map[string]any{"BWT": map[string]any{"min": 2, "max": 1}}}},
			[]string{`"expected":"min <= max"`}},
		{"unknown name with markup", map[string]any{"<b>&amp;": 1},
			[]string{`"field":"\"<b>&amp;\""`, `"problem":"\"<b>&amp;\" is not an argument of this tool`}},
		{"rejected value with markup", map[string]any{"page_size": "<&>"},
			[]string{`"problem":"page_size must be an integer, got string \"<&>\""`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.call("nsip_search_animals", tt.args)
			if !r.isError {
				t.Fatalf("want an error result, got %.200s", r.text)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.text, w) {
					t.Errorf("body %s does not contain %s", r.text, w)
				}
			}
			for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
				if strings.Contains(r.text, esc) {
					t.Errorf("body escapes markup as %s: %s", esc, r.text)
				}
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, []byte(r.text)); err != nil || compact.String() != r.text {
				t.Errorf("body is not compact valid JSON (%v): %q", err, r.text)
			}
		})
	}
}

// TestTimeoutNamesTheDeadlineThatRanOut drives a hanging NSIP through the
// real client and checks that the timeout message states the limit that
// actually ended the call.
func TestTimeoutNamesTheDeadlineThatRanOut(t *testing.T) {
	tests := []struct {
		name        string
		callTimeout time.Duration
		perRequest  time.Duration
		attempts    int
		fault       nsiptest.Fault
		problem     string
	}{
		{"per-request limit, one attempt", 10 * time.Second, 150 * time.Millisecond, 1,
			nsiptest.Fault{Kind: nsiptest.FaultHang},
			"NSIP did not answer within 150ms, the time limit for one request"},
		{"per-request limit on each retry", 10 * time.Second, 100 * time.Millisecond, 2,
			nsiptest.Fault{Kind: nsiptest.FaultHang},
			"NSIP did not answer within 100ms, the time limit for one request, on any of 2 attempts"},
		{"call deadline shorter than the request limit", 300 * time.Millisecond, 10 * time.Second, 1,
			nsiptest.Fault{Kind: nsiptest.FaultHang},
			"NSIP did not answer within 300ms, the time limit for one call"},
		{"NSIP's own timeout", 10 * time.Second, 10 * time.Second, 1,
			nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 408},
			"NSIP gave up on the request itself (HTTP 408 Request Timeout)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, func(c *Config, o *[]nsip.Option) {
				c.CallTimeout = tt.callTimeout
				*o = append(*o, nsip.WithTimeout(tt.perRequest),
					nsip.WithRetryPolicy(nsip.RetryPolicy{MaxAttempts: tt.attempts, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxRetryAfter: time.Second}))
			})
			e.up.SetFault(nsiptest.EndpointDetails, tt.fault)
			b := e.call("nsip_get_animal", map[string]any{"search_string": nsiparg.ExampleLPN}).errorBody(t)
			if b.Code != toolerr.CodeTimeout || b.Problem != tt.problem {
				t.Errorf("error = %s %q; want timeout %q", b.Code, b.Problem, tt.problem)
			}
		})
	}
}

// TestTimeoutWithoutTheClientsLimit covers timeouts the gateway cannot pin
// on the client's per-request limit: a context that ended outside the
// client, and the call deadline reached after retries.
func TestTimeoutWithoutTheClientsLimit(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		problem string
	}{
		{"context ended outside the client", context.DeadlineExceeded,
			"NSIP did not answer before this call's deadline passed; the gateway allows each call up to 30s"},
		{"call deadline after retries", &nsip.Error{Kind: nsip.KindTimeout, Attempts: 2, Err: context.DeadlineExceeded},
			"NSIP did not answer within 30s, the time limit for one call (2 attempts made)"},
		{"client without a known limit", &nsip.Error{Kind: nsip.KindTimeout, Attempts: 1, Err: errors.New("read: i/o timeout")},
			"NSIP did not answer within 30s, the time limit for one call"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := stubEnv(t, &stubUpstream{err: tt.err})
			b := e.call("nsip_get_animal", map[string]any{"search_string": nsiparg.ExampleLPN}).errorBody(t)
			if b.Code != toolerr.CodeTimeout || b.Problem != tt.problem {
				t.Errorf("error = %s %q; want timeout %q", b.Code, b.Problem, tt.problem)
			}
		})
	}
}

// TestConnectionFailureHidesTheAddress checks that a failure to reach NSIP
// tells the model why and what to do without naming the upstream's URL,
// host or port, and that the operator's log has the full error.
func TestConnectionFailureHidesTheAddress(t *testing.T) {
	const (
		host = "10.9.8.7"
		port = "8443"
		link = "https://" + host + ":" + port + "/api/details/getAnimalDetails?searchString=X"
	)
	dial := func(cause error) error {
		return &url.Error{Op: "Get", URL: link, Err: &net.OpError{Op: "dial", Net: "tcp",
			Addr: &net.TCPAddr{IP: net.ParseIP(host), Port: 8443}, Err: cause}}
	}
	// The stub upstream has no base URL, so a refused connection is taken
	// for an outage; a host name that does not resolve is configuration.
	const outage = "retry in a minute; if it keeps failing, NSIP or the network to it is down"
	tests := []struct {
		name          string
		err           *nsip.Error
		problem, next string
	}{
		{"refused", &nsip.Error{Kind: nsip.KindConnection, Reason: "connection refused",
			Err: dial(os.NewSyscallError("connect", syscall.ECONNREFUSED))},
			"could not connect to NSIP: connection refused", outage},
		{"reset", &nsip.Error{Kind: nsip.KindConnection, Reason: "connection reset",
			Err: dial(os.NewSyscallError("read", syscall.ECONNRESET))},
			"could not connect to NSIP: connection reset", outage},
		{"DNS", &nsip.Error{Kind: nsip.KindConnection, Reason: "cannot resolve the API host",
			Err: dial(&net.DNSError{Err: "no such host", Name: "nsip-" + host + ".example", IsNotFound: true})},
			"could not connect to NSIP: its host name could not be resolved (DNS); the server's NSIP_BASE_URL setting or its machine's network is wrong", configNext},
		{"other network failure", &nsip.Error{Kind: nsip.KindConnection, Reason: "cannot reach the API",
			Err: dial(os.NewSyscallError("connect", syscall.ENETUNREACH))},
			"could not connect to NSIP: the network connection failed", outage},
		{"reason only", &nsip.Error{Kind: nsip.KindConnection, Reason: "connection reset"},
			"could not connect to NSIP: connection reset", outage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.err.Endpoint, tt.err.Attempts = "details/getAnimalDetails", 3
			e, logs := loggedStubEnv(t, &stubUpstream{err: tt.err})
			r := e.call("nsip_get_animal", map[string]any{"search_string": nsiparg.ExampleLPN})
			b := r.errorBody(t)
			if b.Code != toolerr.CodeUpstreamError || b.Problem != tt.problem || b.Next != tt.next {
				t.Errorf("error = %s %q next %q; want upstream_error %q next %q", b.Code, b.Problem, b.Next, tt.problem, tt.next)
			}
			for _, secret := range []string{host, port, "https:", "nsip-"} {
				if strings.Contains(r.text, secret) {
					t.Errorf("result shows %q to the model: %s", secret, r.text)
				}
			}
			rec := findLog(t, logs, "nsip connection failed")
			if rec["level"] != "WARN" || rec["endpoint"] != "get_animal_details" || rec["attempts"] != 3.0 ||
				rec["reason"] != tt.err.Reason || rec["error"] != tt.err.Error() {
				t.Errorf("log record = %v; want a WARN with endpoint, attempts, reason and the full error %q", rec, tt.err.Error())
			}
		})
	}
}

// What the model is told when NSIP_BASE_URL, or the network, is to blame.
const (
	configProblem = "; the server's NSIP_BASE_URL setting (set to a server other than the public NSIP API; the server's log names it) or its machine's network is wrong"
	configNext    = "a retry will not help until that is fixed: tell the user to check NSIP_BASE_URL where this server " +
		"is configured, and that its machine is online; the server's log shows the address it tried"
)

// TestConnectionRefusedThroughTheClient points the real client at a port
// nobody listens on: a base URL someone set that nothing serves, so the
// model is told to have NSIP_BASE_URL checked rather than to retry.
func TestConnectionRefusedThroughTheClient(t *testing.T) {
	addr := closedPort(t)
	e := newEnv(t, func(_ *Config, o *[]nsip.Option) {
		*o = append(*o, nsip.WithBaseURL("http://"+addr+"/api"))
	})
	r := e.call("nsip_get_animal", map[string]any{"search_string": nsiparg.ExampleLPN})
	b := r.errorBody(t)
	if b.Code != toolerr.CodeUpstreamError || b.Problem != "could not connect to NSIP: connection refused"+configProblem || b.Next != configNext {
		t.Errorf("error = %s %q next %q; want upstream_error, connection refused naming NSIP_BASE_URL, no retry", b.Code, b.Problem, b.Next)
	}
	if strings.Contains(strings.ToLower(b.Next), "retry in") {
		t.Errorf("next %q advises a retry for a configuration error", b.Next)
	}
	_, port, _ := net.SplitHostPort(addr)
	if strings.Contains(r.text, "127.0.0.1") || strings.Contains(r.text, port) {
		t.Errorf("result shows the upstream address %s: %s", addr, r.text)
	}
	if rec := findLog(t, e.logs, "nsip connection failed"); !strings.Contains(rec["error"].(string), addr) {
		t.Errorf("log error = %q; want the full cause with %s for the operator", rec["error"], addr)
	}
}

// loggedStubEnv is stubEnv with a JSON log the test can read.
func loggedStubEnv(t *testing.T, up *stubUpstream) (*env, *logbuf.Buffer) {
	t.Helper()
	logs := &logbuf.Buffer{}
	sum, _ := summarizer(t)
	gw, err := New(up, sum, Config{Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, gw: gw, srv: gw.NewMCPServer("stub", "0"), logs: logs}
	e.client = connect(t, e.srv)
	return e, logs
}

// findLog returns the first log record with message msg.
func findLog(t *testing.T, logs *logbuf.Buffer, msg string) map[string]any {
	t.Helper()
	for _, rec := range logs.Records(t) {
		if rec["msg"] == msg {
			return rec
		}
	}
	t.Fatalf("no %q log record", msg)
	return nil
}

// TestConnectionRefusedAtTheDefaultBaseURL: with NSIP_BASE_URL unset, a
// refused connection means the public NSIP is down, not misconfigured, so
// the model is told to retry later. The dialer refuses without touching the
// network.
func TestConnectionRefusedAtTheDefaultBaseURL(t *testing.T) {
	refuse := &http.Client{Transport: &http.Transport{
		DialContext: func(context.Context, string, string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
		},
	}}
	e := newEnv(t, func(_ *Config, o *[]nsip.Option) {
		*o = append(*o, nsip.WithBaseURL(nsip.DefaultBaseURL), nsip.WithHTTPClient(refuse))
	})
	b := e.call("nsip_get_animal", map[string]any{"search_string": nsiparg.ExampleLPN}).errorBody(t)
	const next = "retry in a minute; if it keeps failing, NSIP or the network to it is down"
	if b.Code != toolerr.CodeUpstreamError || b.Problem != "could not connect to NSIP: connection refused" || b.Next != next {
		t.Errorf("error = %s %q next %q; want upstream_error, connection refused, retry later", b.Code, b.Problem, b.Next)
	}
}

// TestBreakerOpenedByMisconfiguration: once refused connections at a
// configured base URL open the breaker, the fail-fast answer still names
// NSIP_BASE_URL instead of suggesting that waiting will help.
func TestBreakerOpenedByMisconfiguration(t *testing.T) {
	addr := closedPort(t)
	e := newEnv(t, func(c *Config, o *[]nsip.Option) {
		c.BreakerFailures = 2
		*o = append(*o, nsip.WithBaseURL("http://"+addr+"/api"))
	})
	for i := range 2 {
		b := e.call("nsip_get_animal", map[string]any{"search_string": nsiparg.ExampleLPN}).errorBody(t)
		if b.Code != toolerr.CodeUpstreamError || !strings.Contains(b.Problem, "NSIP_BASE_URL") {
			t.Fatalf("call %d: %s %q; want the configuration error", i+1, b.Code, b.Problem)
		}
	}
	b := e.call("nsip_get_animal", map[string]any{"search_string": nsiparg.ExampleLPN}).errorBody(t)
	const problem = "NSIP could not be reached at the address in the server's NSIP_BASE_URL setting " +
		"(set to a server other than the public NSIP API; the server's log names it) on recent calls, so calls fail at once for the next 30 s"
	if b.Code != toolerr.CodeUpstreamUnavailable || b.Problem != problem || b.Next != configNext || b.RetryInSeconds != 30 {
		t.Errorf("with the breaker open: %s %q next %q retry_in %d; want upstream_unavailable %q, next %q, 30 s",
			b.Code, b.Problem, b.Next, b.RetryInSeconds, problem, configNext)
	}
}

// closedPort returns a loopback host:port nobody listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// TestUnknownToolNamesTheNearest: a misspelt tool name is answered as the
// other mistakes are, an error result naming the tools meant, not a
// JSON-RPC error; the tool the call was handed to does not run.
func TestUnknownToolNamesTheNearest(t *testing.T) {
	e := newEnv(t)
	before := e.up.TotalRequests()
	b := e.call("nsip_get_animals", map[string]any{"search_string": "6402382024NCS310"}).errorBody(t)
	if b.Code != toolerr.CodeInvalidArgument || b.Field != "name" || b.Value != "nsip_get_animals" ||
		b.Problem != `this server has no tool "nsip_get_animals"; did you mean "nsip_get_animal"?` {
		t.Errorf("unknown tool: %+v", b)
	}
	if !strings.HasPrefix(b.Expected, "a tool this server offers, the nearest being nsip_get_animal, ") ||
		!strings.Contains(b.Expected, "nsip_rank_animals") || !strings.HasPrefix(b.Next, "call nsip_get_animal ") {
		t.Errorf("expected %q, next %q", b.Expected, b.Next)
	}
	// Nothing near: the nearest by edits are still named, without a guess.
	b = e.call("frobnicate", nil).errorBody(t)
	if strings.Contains(b.Problem, "did you mean") || !strings.Contains(b.Expected, "the nearest being nsip_") {
		t.Errorf("far name: %+v", b)
	}
	// A huge name is repeated cut short, in the value as in the problem.
	b = e.call(strings.Repeat("nsip_", 20000), nil).errorBody(t)
	if v, _ := b.Value.(string); len(v) > 2*param.MaxShown || len(b.Problem) > 4*param.MaxShown {
		t.Errorf("huge name repeated whole: value %d bytes, problem %d bytes", len(v), len(b.Problem))
	}
	if n := e.up.TotalRequests() - before; n != 0 {
		t.Errorf("%d requests to NSIP for calls of unknown tools", n)
	}
	// A known tool is untouched.
	e.call("nsip_get_last_update", nil).mustOK(t)
}
