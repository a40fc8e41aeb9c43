package main

import (
	"net/netip"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/transport"
)

// TestDeployExampleConfigLoads keeps deploy/compose.yaml in step with the
// settings: every MCP_ and NSIP_ variable it gives a replica is one Load
// knows, and together they load without error into the shared mode.
func TestDeployExampleConfigLoads(t *testing.T) {
	b, err := os.ReadFile("deploy/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, s := range settings {
		known[s.name] = true
	}
	env := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^\s+((?:MCP|NSIP)_[A-Z_]+):\s*"?([^"\n]*)"?\s*$`).FindAllStringSubmatch(string(b), -1) {
		if !known[m[1]] {
			t.Errorf("compose.yaml sets %s, which nsip-mcp does not read", m[1])
		}
		env[m[1]] = strings.TrimSpace(m[2])
		// ${NAME:?...}: the operator gives it when starting compose.
		if strings.HasPrefix(env[m[1]], "${"+m[1]+":?") {
			env[m[1]] = strings.Repeat("5e", 32)
		}
	}
	if len(env) < 5 {
		t.Fatalf("found only %d settings in compose.yaml (%v); has its layout changed?", len(env), env)
	}
	c, err := Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("the replicas' environment does not load: %v", err)
	}
	if c.RedisURL != "redis://redis:6379/0" || c.RedisSecret == "" || c.Gateway.Replicas != 2 || c.Transport != "http-sse" {
		t.Errorf("replica config = Redis %q (secret given: %v), replicas %d, transport %q; want the shared Redis with a secret, 2 and http-sse",
			c.RedisURL, c.RedisSecret != "", c.Gateway.Replicas, c.Transport)
	}
	// Behind the load balancer every client connects from its address:
	// the replicas must believe its X-Forwarded-For, and only its, for
	// each client to be bounded on its own rather than all together.
	lb := regexp.MustCompile(`(?m)^\s+ipv4_address:\s*(\S+)\s*$`).FindStringSubmatch(string(b))
	if lb == nil {
		t.Fatal("compose.yaml gives the load balancer no fixed address to trust")
	}
	addr := netip.MustParseAddr(lb[1])
	if len(c.Serve.TrustedProxies) != 1 || !c.Serve.TrustedProxies[0].Contains(addr) || c.Serve.TrustedProxies[0].Bits() != 32 {
		t.Errorf("replicas trust %v as proxies; want exactly the load balancer, %s", c.Serve.TrustedProxies, addr)
	}
	if c.Serve.MaxSessionsPerClient != 0 && c.Serve.MaxSessionsPerClient >= transport.DefaultMaxSessions {
		t.Errorf("replicas allow %d sessions per client: one client could take every place", c.Serve.MaxSessionsPerClient)
	}
}
