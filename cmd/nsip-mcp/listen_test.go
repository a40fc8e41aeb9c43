package main

import (
	"log"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
)

// runServing runs the command as far as it gets, putting back the process
// logger run replaces.
func runServing(t *testing.T, vars map[string]string) (int, string) {
	t.Helper()
	prev, prevOut, prevFlags := slog.Default(), log.Writer(), log.Flags()
	t.Cleanup(func() {
		slog.SetDefault(prev)
		log.SetOutput(prevOut)
		log.SetFlags(prevFlags)
	})
	vars["NSIP_BASE_URL"] = "http://127.0.0.1:9/api" // never asked: the server stops first
	// Locked: the logger run sets up may still be written to by
	// goroutines of the server that failed to start.
	var out, stderr logbuf.Buffer
	code := run(nil, env(vars), &out, &stderr)
	return code, stderr.String()
}

// problemLine is the plain line run writes for a setting to change.
func problemLine(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "nsip-mcp: ") {
			return l
		}
	}
	return ""
}

// TestListenFailuresNameTheSetting: a server that cannot listen exits 2
// with one line naming the one setting to change.
func TestListenFailuresNameTheSetting(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := strconv.Itoa(taken.Addr().(*net.TCPAddr).Port)

	type tc struct {
		name      string
		env       map[string]string
		names     string // the setting the line names
		notNames  string // and must not blame
		mentioned string
	}
	cases := []tc{
		{"http-sse, port taken", map[string]string{"MCP_TRANSPORT": "http-sse", "MCP_PORT": port}, "MCP_PORT=" + port, "MCP_HOST", "already in use"},
		{"websocket, port taken", map[string]string{"MCP_TRANSPORT": "websocket", "MCP_PORT": port}, "MCP_PORT=" + port, "MCP_HOST", "already in use"},
		{"not an IPv4 address", map[string]string{"MCP_TRANSPORT": "websocket", "MCP_HOST": "999.1.1.1"}, `MCP_HOST="999.1.1.1"`, "MCP_PORT", "IP address or host name"},
		{"stdio health, port taken", map[string]string{"MCP_HEALTH_ADDR": "127.0.0.1:" + port}, "MCP_HEALTH_ADDR=127.0.0.1:" + port, "MCP_PORT", "in use"},
	}
	// An address of no interface here (TEST-NET-1) fails to bind without a
	// packet sent, unless this host allows binding foreign addresses.
	if ln, err := net.Listen("tcp", "192.0.2.1:0"); err == nil {
		ln.Close()
		t.Log("this host binds 192.0.2.1; the foreign-address case is skipped")
	} else {
		cases = append(cases, tc{"address of no interface", map[string]string{"MCP_TRANSPORT": "http-sse", "MCP_HOST": "192.0.2.1", "MCP_PORT": "0"}, "MCP_HOST=192.0.2.1", "MCP_PORT", "not an address of this machine"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stderr := runServing(t, c.env)
			line := problemLine(stderr)
			if code != 2 || !strings.Contains(line, c.names) || strings.Contains(line, c.notNames) || !strings.Contains(line, c.mentioned) {
				t.Fatalf("exit %d, line %q; want exit 2 and a line naming %s (%q), not %s\nstderr:\n%s", code, line, c.names, c.mentioned, c.notNames, stderr)
			}
		})
	}
}
