package main

import (
	"errors"
	"flag"
	"strings"
	"testing"
	"time"
)

func TestParseArgsDefaults(t *testing.T) {
	c, err := parseArgs([]string{"--spawn"}, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	if c.transport != transportWebSocket || c.scenario != scenarioMix || c.sessions != 50 ||
		c.duration != 10*time.Second || c.calls != 1_000_000 || c.latency != 50*time.Millisecond || c.hot != 0.8 {
		t.Errorf("defaults: %+v", c)
	}
}

func TestParseArgsAcceptsLoopbackTargets(t *testing.T) {
	tests := []struct {
		args    []string
		wantURL string
	}{
		{[]string{"--url", "http://127.0.0.1:8000/"}, "http://127.0.0.1:8000"},
		{[]string{"--url", "http://localhost:9000", "--transport", "streamable"}, "http://localhost:9000"},
		{[]string{"--url", "http://[::1]:8000", "--transport", "sse"}, "http://[::1]:8000"},
		{[]string{"--url", "http://127.1.2.3:8000"}, "http://127.1.2.3:8000"},
	}
	for _, tt := range tests {
		c, err := parseArgs(tt.args, &strings.Builder{})
		if err != nil {
			t.Errorf("%v: %v", tt.args, err)
			continue
		}
		if c.url != tt.wantURL {
			t.Errorf("%v: url %q, want %q", tt.args, c.url, tt.wantURL)
		}
	}
	c, err := parseArgs([]string{"--transport", "stdio", "--upstream", "http://127.0.0.1:8089/api/"}, &strings.Builder{})
	if err != nil || c.upstream != "http://127.0.0.1:8089/api" {
		t.Errorf("stdio with --upstream: %q, %v", c.upstream, err)
	}
}

func TestParseArgsRejects(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // part of the error, naming the flag or the conflict
	}{
		{"remote url", []string{"--url", "http://nsipsearch.nsip.org"}, "--url"},
		{"remote ip", []string{"--url", "http://10.0.0.5:8000"}, "not on loopback"},
		{"any address", []string{"--url", "http://0.0.0.0:8000"}, "not on loopback"},
		{"remote upstream", []string{"--transport", "stdio", "--upstream", "http://nsipsearch.nsip.org/api"}, "--upstream"},
		{"not a url", []string{"--url", "127.0.0.1:8000"}, "--url"},
		{"no target", []string{}, "--spawn"},
		{"spawn and url", []string{"--spawn", "--url", "http://127.0.0.1:1"}, "leave out --url"},
		{"versus odd phases", []string{"--spawn", "--versus-bare", "3"}, "--versus-bare"},
		{"versus without spawn", []string{"--url", "http://127.0.0.1:1", "--versus-bare", "4"}, "add --spawn"},
		{"versus over sse", []string{"--spawn", "--transport", "sse", "--versus-bare", "4"}, "websocket or streamable"},
		{"versus breeder", []string{"--spawn", "--scenario", "breeder", "--versus-bare", "4"}, "mix scenario"},
		{"unknown bare server", []string{"--spawn", "--transport", "streamable", "--versus-bare", "4", "--bare-server", "gin"}, "--bare-server"},
		{"mcp-go bare over websocket", []string{"--spawn", "--versus-bare", "4", "--bare-server", "mcp-go"}, "--transport streamable"},
		{"bare server without versus", []string{"--spawn", "--transport", "streamable", "--bare-server", "mcp-go"}, "add --versus-bare"},
		{"stdio with url", []string{"--transport", "stdio", "--url", "http://127.0.0.1:1"}, "stdio"},
		{"stdio without upstream", []string{"--transport", "stdio"}, "--upstream"},
		{"upstream over network", []string{"--upstream", "http://127.0.0.1:1/api", "--url", "http://127.0.0.1:2"}, "stdio only"},
		{"unknown transport", []string{"--spawn", "--transport", "grpc"}, "--transport"},
		{"unknown scenario", []string{"--spawn", "--scenario", "soak"}, "--scenario"},
		{"no sessions", []string{"--spawn", "--sessions", "0"}, "--sessions"},
		{"too many sessions", []string{"--spawn", "--sessions", "5001"}, "--sessions"},
		{"endless", []string{"--spawn", "--duration", "31m"}, "--duration"},
		{"zero duration", []string{"--spawn", "--duration", "0s"}, "--duration"},
		{"no calls", []string{"--spawn", "--calls", "0"}, "--calls"},
		{"replicas of a running server", []string{"--url", "http://127.0.0.1:1", "--replicas", "2"}, "--replicas"},
		{"replicas over stdio", []string{"--spawn", "--transport", "stdio", "--replicas", "2"}, "network transport"},
		{"too many replicas", []string{"--spawn", "--replicas", "17"}, "1..16"},
		{"too many calls", []string{"--spawn", "--calls", "5000001"}, "--calls"},
		{"hot over one", []string{"--spawn", "--hot", "1.5"}, "--hot"},
		{"negative think", []string{"--spawn", "--think", "-1s"}, "--think"},
		{"few animals", []string{"--spawn", "--animals", "100"}, "--animals"},
		{"bad server env", []string{"--spawn", "--server-env", "NOEQUALS"}, "--server-env"},
		{"server env upstream", []string{"--spawn", "--server-env", "NSIP_BASE_URL=http://nsipsearch.nsip.org/api"}, "NSIP_BASE_URL"},
		{"server env host", []string{"--spawn", "--server-env", "MCP_HOST=0.0.0.0"}, "loopback"},
		{"pid with spawn", []string{"--spawn", "--server-pid", "12"}, "--server-pid"},
		{"unknown attack", []string{"--spawn", "--attack", "ddos"}, "--attack"},
		{"attack over stdio", []string{"--spawn", "--transport", "stdio", "--attack", "slow-body"}, "network transport"},
		{"no attackers", []string{"--spawn", "--attack", "init-flood", "--attackers", "0"}, "--attackers"},
		{"unread links over websocket", []string{"--spawn", "--attack", "unread-links"}, "--transport streamable or sse"},
		{"unknown tool", []string{"--spawn", "--tools", "nsip_get_animal,nsip_get_sheep"}, "nsip_get_sheep"},
		{"tools outside the mix", []string{"--spawn", "--scenario", "breeder", "--tools", "nsip_get_animal"}, "--tools"},
		{"stray argument", []string{"--spawn", "extra"}, "extra"},
		{"unknown flag", []string{"--spawn", "--rps", "5"}, "rps"},
		{"negative rate", []string{"--spawn", "--rate", "-5"}, "--rate"},
		{"rate too high", []string{"--spawn", "--rate", "100001"}, "--rate"},
		{"rate not a number", []string{"--spawn", "--rate", "NaN"}, "--rate"},
		{"rate with think", []string{"--spawn", "--rate", "100", "--think", "100ms"}, "leave out --think"},
		{"rate with collapse", []string{"--spawn", "--rate", "100", "--scenario", "collapse"}, "--rate"},
		{"rate too low for the sessions", []string{"--spawn", "--rate", "0.01", "--sessions", "50"}, "--rate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseArgs(tt.args, &strings.Builder{})
			if err == nil {
				t.Fatalf("%v: accepted", tt.args)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%v: error %q does not mention %q", tt.args, err, tt.want)
			}
		})
	}
}

func TestParseArgsToolList(t *testing.T) {
	c, err := parseArgs([]string{"--spawn", "--tools", " nsip_get_animal, nsip_get_lineage ,"}, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.tools, "|") != "nsip_get_animal|nsip_get_lineage" {
		t.Errorf("tools = %q, want the two names trimmed", c.tools)
	}
}

func TestParseArgsHelp(t *testing.T) {
	var out strings.Builder
	_, err := parseArgs([]string{"--help"}, &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help: %v, want flag.ErrHelp", err)
	}
	for _, want := range []string{"loopback", "-spawn", "-sessions", "-duration", "-calls", "Exit status"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help text lacks %q", want)
		}
	}
}

func TestMergeEnvOverridesByKey(t *testing.T) {
	got := mergeEnv([]string{"A=1", "B=2"}, []string{"B=3", "C=4"})
	want := []string{"A=1", "B=3", "C=4"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("mergeEnv = %v, want %v", got, want)
	}
}

func TestCleanEnvironDropsServerSettings(t *testing.T) {
	t.Setenv("NSIP_BASE_URL", "http://nsipsearch.nsip.org/api")
	t.Setenv("MCP_TRANSPORT", "stdio")
	t.Setenv("LOG_LEVEL", "debug")
	t.Setenv("NSIP_LOAD_TEST_KEEP", "") // the prefix is NSIP_: dropped too
	t.Setenv("HOME_FOR_TEST", "kept")
	env := strings.Join(cleanEnviron(), "\n")
	for _, gone := range []string{"NSIP_BASE_URL=", "MCP_TRANSPORT=", "LOG_LEVEL=", "NSIP_LOAD_TEST_KEEP="} {
		if strings.Contains(env, gone) {
			t.Errorf("cleanEnviron kept %s", gone)
		}
	}
	if !strings.Contains(env, "HOME_FOR_TEST=kept") {
		t.Error("cleanEnviron dropped an unrelated variable")
	}
}
