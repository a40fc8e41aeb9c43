//go:build e2e

package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The official TypeScript SDK client answering this server's requests
// (elicitation, sampling, roots, ping) on every transport. For stdio the
// test binary itself is the server, started with askStdioEnv set.

const askStdioEnv = "NSIP_TRANSPORT_TEST_ASK_STDIO"

func init() {
	if os.Getenv(askStdioEnv) != "1" {
		return
	}
	err := ServeStdio(context.Background(), newAskingServer(nil), os.Stdin, os.Stdout, Options{})
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(0)
}

// featuresReport is the part of features.mjs's report these tests read.
type featuresReport struct {
	Steps []struct {
		Op        string `json:"op"`
		Exception string `json:"exception"`
		Result    struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	} `json:"steps"`
	ServerRequests []struct {
		Method string         `json:"method"`
		Params map[string]any `json:"params"`
	} `json:"serverRequests"`
	TransportErrors []string `json:"transportErrors"`
	Fatal           string   `json:"fatal"`
}

func runFeatures(t *testing.T, report any, args ...string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not found on PATH: install Node.js 20 or newer and run `cd transport/testdata/jsclient && npm ci`")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"features.mjs"}, args...)...)
	cmd.Dir = "testdata/jsclient"
	cmd.Env = append(os.Environ(), askStdioEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if derr := json.Unmarshal(stdout.Bytes(), report); err != nil || derr != nil {
		t.Fatalf("node features.mjs: %v (report: %v)\nstdout:\n%s\nstderr:\n%s", err, derr, stdout.String(), stderr.String())
	}
}

func TestTypeScriptClientAnswersServerRequests(t *testing.T) {
	answers := `{"elicit":{"action":"accept","content":{"breed":"Katahdin"}},"sample":"Dorper","roots":["file:///flocks/north"]}`
	plan := `[{"op":"call","name":"ask","arguments":{"what":"elicit"}},` +
		`{"op":"call","name":"ask","arguments":{"what":"sample"}},` +
		`{"op":"call","name":"ask","arguments":{"what":"roots"}},` +
		`{"op":"call","name":"ask","arguments":{"what":"ping"}},` +
		`{"op":"ping"}]`
	works := []string{
		"elicited accept map[breed:Katahdin]",
		"sampled Dorper from e2e-model",
		"roots file:///flocks/north",
	}
	// mcp-go offers server requests on stdio and streamable HTTP, and a
	// ping to the client only here on WebSocket; its legacy SSE transport
	// offers none, and says so.
	cases := []struct {
		transport string
		want      []string
	}{
		{"websocket", append(works, "pong")},
		{"streamable", append(works, "ask failed: this session cannot ping its client")},
		{"stdio", append(works, "ask failed: this session cannot ping its client")},
		{"sse", []string{
			"ask failed: session does not support elicitation",
			"ask failed: session does not support sampling",
			"ask failed: session does not support roots",
			"ask failed: this session cannot ping its client",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.transport, func(t *testing.T) {
			var target string
			switch tc.transport {
			case "websocket":
				target = wsURL(serveNetwork(t, KindWebSocket, newAskingServer(nil), Options{}).base)
			case "streamable":
				target = serveNetwork(t, KindHTTPSSE, newAskingServer(nil), Options{}).base + "/mcp"
			case "sse":
				target = serveNetwork(t, KindHTTPSSE, newAskingServer(nil), Options{}).base + "/sse"
			case "stdio":
				target = os.Args[0]
			}
			var rep featuresReport
			runFeatures(t, &rep, "--answers", answers, tc.transport, target, plan)
			if rep.Fatal != "" || len(rep.TransportErrors) > 0 {
				t.Fatalf("client failed: %s %v", rep.Fatal, rep.TransportErrors)
			}
			if len(rep.Steps) != 5 {
				t.Fatalf("%d steps reported, want 5: %+v", len(rep.Steps), rep.Steps)
			}
			for i, want := range tc.want {
				s := rep.Steps[i]
				got := s.Exception
				if len(s.Result.Content) > 0 {
					got = s.Result.Content[0].Text
				}
				if got != want {
					t.Errorf("step %d answered %q, want %q", i, got, want)
				}
			}
			if e := rep.Steps[4].Exception; e != "" {
				t.Errorf("the client's own ping failed: %s", e)
			}
			if tc.transport != "sse" {
				if len(rep.ServerRequests) < 3 || rep.ServerRequests[0].Params["message"] != "Which breed?" {
					t.Errorf("the client saw server requests %+v, want the breed question first", rep.ServerRequests)
				}
			}
			for _, r := range rep.ServerRequests {
				if tc.transport == "sse" || strings.HasPrefix(r.Method, "ping") {
					t.Errorf("unexpected server request %s on %s", r.Method, tc.transport)
				}
			}
		})
	}
}
