package transport

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		raw     string
		kind    msgKind
		key     string // canonical id of requests and responses
		id      string // id an error would echo; "" for null
		problem string // part of the reason given for msgInvalid
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, msgRequest, "n:1", "1", ""},
		{`{"jsonrpc":"2.0","id":1.0,"method":"tools/list"}`, msgRequest, "n:1", "1.0", ""},
		{`{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{}}`, msgRequest, "s:a-1", `"a-1"`, ""},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":[1]}`, msgRequest, "n:2", "2", ""},
		{`{"jsonrpc":"2.0","id":2,"method":"ping","params":null}`, msgRequest, "n:2", "2", ""},
		{` {"jsonrpc":"2.0","id":-7,"method":"ping"}` + "\r\n\t", msgRequest, "n:-7", "-7", ""},
		{`{"jsonrpc":"2\u002e0","id":8,"method":"ping"}`, msgRequest, "n:8", "8", ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, msgNotification, "", "", ""},
		{`{"jsonrpc":"2.0","id":null,"method":"notifications/cancelled"}`, msgNotification, "", "", ""},
		{`{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}`, msgResponse, "n:3", "3", ""},
		{`{"jsonrpc":"2.0","id":3,"result":null}`, msgResponse, "n:3", "3", ""},
		{`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"m"}}`, msgResponse, "s:x", `"x"`, ""},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}`, msgResponse, "", "", ""},
		{`{"jsonrpc":"2.0","id":3}`, msgInvalid, "", "3", `"method" is missing`},
		{`{"jsonrpc":"2.0"}`, msgInvalid, "", "", `"method" is missing`},
		{`{"jsonrpc":"2.0","id":3,"method":""}`, msgInvalid, "", "3", `"method" must be a non-empty string`},
		{`{"jsonrpc":"2.0","id":3,"method":["ping"]}`, msgInvalid, "", "3", `"method" must be a non-empty string`},
		{`{"jsonrpc":"2.0","method":5}`, msgInvalid, "", "", `"method" must be a non-empty string`},
		{`{"jsonrpc":"1.0","id":4,"method":"ping"}`, msgInvalid, "", "4", `"jsonrpc" must be "2.0"`},
		{`{"jsonrpc":2.0,"id":4,"method":"ping"}`, msgInvalid, "", "4", `"jsonrpc" must be "2.0"`},
		{`{"id":4,"method":"ping"}`, msgInvalid, "", "4", `"jsonrpc" must be "2.0"`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`, msgInvalid, "", "", `"id" must be`},
		{`{"jsonrpc":"2.0","id":false,"method":"x"}`, msgInvalid, "", "", `"id" must be`},
		{`{"jsonrpc":"2.0","id":1e999,"method":"x"}`, msgInvalid, "", "", `"id" must be`},
		{`{"jsonrpc":"2.0","id":5,"method":"x","params":"p"}`, msgInvalid, "", "5", `"params" must be an object or an array`},
		{`{"jsonrpc":"2.0","id":5,"method":"x","params":true}`, msgInvalid, "", "5", `"params" must be an object or an array`},
		{`{"jsonrpc":"2.0","id":6,"method":"ping","result":{}}`, msgInvalid, "", "6", "not both"},
		{`{"jsonrpc":"2.0","id":6,"result":{},"error":{}}`, msgInvalid, "", "6", "not both"},
		{`{"jsonrpc":"2.0","id":7,"Method":"ping"}`, msgInvalid, "", "", `send "method", not "Method"`},
		{`{"jsonrpc":"2.0","id":7,"method":"ping","\u006dethod":"tools/list"}`, msgInvalid, "", "", `"method" appears more than once`},
		{"{\"j\u017fonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}", msgInvalid, "", "", `send "jsonrpc"`},
		{`"just a string"`, msgInvalid, "", "", "expected a JSON-RPC 2.0"},
		{`null`, msgInvalid, "", "", "expected a JSON-RPC 2.0"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, msgBatch, "", "", ""},
		{`[]`, msgBatch, "", "", ""},
		{`{"jsonrpc":"2.0","id":1,"method":`, msgInvalidJSON, "", "", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"} xyz`, msgInvalidJSON, "", "", ""},
		{"0\v", msgInvalidJSON, "", "", ""},
		{"\f{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", msgInvalidJSON, "", "", ""},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\u00a0", msgInvalidJSON, "", "", ""},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\u0085", msgInvalidJSON, "", "", ""},
		{``, msgInvalidJSON, "", "", ""},
	}
	for _, tc := range cases {
		m := classify([]byte(tc.raw))
		if m.kind != tc.kind || m.key != tc.key || string(m.id) != tc.id || !strings.Contains(m.problem, tc.problem) {
			t.Errorf("classify(%q) = kind %d key %q id %q problem %q, want kind %d key %q id %q problem containing %q",
				tc.raw, m.kind, m.key, m.id, m.problem, tc.kind, tc.key, tc.id, tc.problem)
		}
		if tc.problem == "" && m.problem != "" {
			t.Errorf("classify(%q): problem %q for a message that has none", tc.raw, m.problem)
		}
	}
}

func TestErrorResponse(t *testing.T) {
	cases := []struct {
		id   json.RawMessage
		want string
	}{
		{nil, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad \"x\""}}`},
		{json.RawMessage(`"q"`), `{"jsonrpc":"2.0","id":"q","error":{"code":-32700,"message":"bad \"x\""}}`},
	}
	for _, tc := range cases {
		if got := string(errorResponse(tc.id, -32700, `bad "x"`)); got != tc.want {
			t.Errorf("errorResponse(%s) = %s, want %s", tc.id, got, tc.want)
		}
	}
}

func TestTrackerWaitsForEveryCall(t *testing.T) {
	tr := newTracker()
	if !tr.wait(nil) {
		t.Fatal("wait on an idle tracker did not return at once")
	}
	tr.begin("s1/n:1")
	tr.begin("s1/n:1") // a client reusing an id still counts twice
	tr.begin("s2/n:1")
	tr.begin(wsCallKey)
	if tr.count() != 4 {
		t.Fatalf("count = %d, want 4", tr.count())
	}
	tr.end("unknown")
	tr.end("s1/n:1")
	tr.forget("s2/")
	tr.end(wsCallKey)
	if tr.count() != 1 {
		t.Fatalf("count after three ends = %d, want 1", tr.count())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if tr.wait(ctx.Done()) {
		t.Fatal("wait reported idle with a call in flight")
	}
	done := make(chan bool, 1)
	go func() { done <- tr.wait(nil) }()
	tr.end("s1/n:1")
	select {
	case ok := <-done:
		if !ok {
			t.Fatal("wait failed after the last call ended")
		}
	case <-time.After(testTimeout):
		t.Fatal("wait did not return after the last call ended")
	}
}

func TestAnswersInKeepsTheUnfinishedTail(t *testing.T) {
	var got []string
	stream := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}\r\n\r\n" +
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":\"e\",\"error\":{\"code\":-32601,\"message\":\"m\"}}\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":5,"
	rest := answersIn([]byte(stream), "data:", func(key string) { got = append(got, key) })
	if strings.Join(got, ",") != "n:4,s:e" || string(rest) != `data: {"jsonrpc":"2.0","id":5,` {
		t.Fatalf("answers %v rest %q, want [n:4 s:e] and the partial line", got, rest)
	}
}

func TestServeRejectsUnknownTransport(t *testing.T) {
	err := Serve(context.Background(), "carrier-pigeon", newTestServer(newGate()), Options{})
	if err == nil || !strings.Contains(err.Error(), `"carrier-pigeon"`) || !strings.Contains(err.Error(), "http-sse") {
		t.Fatalf("Serve with an unknown kind: %v, want an error naming it and the choices", err)
	}
}

func TestListenFailureIsReported(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{})
	host, port, _ := strings.Cut(srv.addr, ":")
	p, _ := strconv.Atoi(port)
	err := ServeHTTPSSE(context.Background(), newTestServer(newGate()), Options{Host: host, Port: p, Logger: testLogger(t)})
	if err == nil || !strings.Contains(err.Error(), srv.addr) {
		t.Fatalf("serving on a taken port: %v, want an error naming %s", err, srv.addr)
	}
}

// TestTopMembersMatchesDecoding: the hand-written walk over an object finds
// the same JSON-RPC members, with the same values, as encoding/json does.
func TestTopMembersMatchesDecoding(t *testing.T) {
	inputs := append([]string{
		`{ "jsonrpc" : "2.0" , "id" : "a\"}" , "method" : "x" , "params" : { "s" : "]}\\" , "n" : [ 1 , { } ] } }`,
		"{\"other\":[\"}\",{\"id\":1}],\"\\u0069d\":-1.5e3,\"result\":null}",
		`{"error":{"code":1},"id":true,"x":false}`,
		`{}`,
	}, fuzzSeeds...)
	for _, f := range malformedFrames {
		inputs = append(inputs, f.frame)
	}
	checked := 0
	for _, in := range inputs {
		raw := []byte(in)
		if !json.Valid(raw) || len(raw) == 0 || raw[0] != '{' {
			continue
		}
		got, problem := topMembers(raw)
		if problem != "" {
			continue
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		for _, name := range members {
			if v, _ := got.get(name); string(v) != string(want[name]) {
				t.Errorf("%.80q: member %s = %q, encoding/json reads %q", in, name, v, want[name])
			}
		}
		checked++
	}
	if checked < 30 {
		t.Fatalf("only %d objects compared", checked)
	}
}

// BenchmarkClassify is the check every message pays before mcp-go sees it.
func BenchmarkClassify(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"nsip_search_animals",` +
		`"arguments":{"breed_id":640,"page":0,"page_size":15,"sorted_trait":"WWT","search_criteria":{"gender":"Female"}}}}`)
	for b.Loop() {
		if classify(msg).kind != msgRequest {
			b.Fatal("not a request")
		}
	}
}
