//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/cache/redistest"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// TestTwoReplicasBehindARoundRobinBalancer runs two server processes with
// NSIP_REDIS_URL and NSIP_REPLICAS=2 on one stand-in, behind a balancer that
// sends each request to the next replica, and talks streamable HTTP through
// it as a client would: sessions are not sticky, answers are shared, and
// losing Redis leaves the replicas degraded but answering.
func TestTwoReplicasBehindARoundRobinBalancer(t *testing.T) {
	watchdog(t, 90*time.Second)
	rd := redistest.Start(t)
	stub := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
	var replicas []*runningServer
	for range 2 {
		port := freePort(t)
		// A stopped Redis refuses at once; a live one counts as slow only
		// past the limit, which a loaded machine must not reach, so that
		// "miss then shared" depends on the sharing, not on the clock.
		p, _ := startProcess(t, serverEnv("http-sse", stub.URL(), port,
			"NSIP_REDIS_URL="+rd.URL(), "NSIP_REDIS_SECRET=5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e", "NSIP_REPLICAS=2",
			"NSIP_REDIS_TIMEOUT=30s"), io.Discard, false)
		s := &runningServer{BaseURL: "http://127.0.0.1:" + strconv.Itoa(port), Stub: stub, Stderr: p.stderr.String, proc: p}
		t.Cleanup(func() {
			if code := s.Stop(t); code != 0 {
				t.Errorf("replica exited with status %d after SIGTERM; stderr:\n%s", code, s.Stderr())
			}
		})
		waitHealthy(t, s)
		replicas = append(replicas, s)
	}
	var next atomic.Uint64
	lb := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			u, _ := url.Parse(replicas[(next.Add(1)-1)%2].BaseURL)
			r.SetURL(u)
			r.Out.Host = u.Host
		},
		FlushInterval: -1,
	})
	defer lb.Close()

	c, err := client.NewStreamableHttpClient(lb.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	initialize(t, c)
	call := func(id string) (string, string) {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name = "nsip_get_animal"
		req.Params.Arguments = map[string]any{"search_string": id}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError {
			t.Fatalf("nsip_get_animal %s through the balancer: %v %+v", id, err, res)
		}
		text := res.Content[0].(mcp.TextContent).Text
		source, _ := res.Meta.AdditionalFields["cache"].(string)
		return text, source
	}

	ids := stub.Data().AnimalIDs()
	// initialize went to replica 0; the calls alternate 1, 0, 1, ...
	first, s1 := call(ids[0])
	second, s2 := call(ids[0])
	if s1 != "miss" || s2 != "shared" || first != second {
		t.Errorf("the same call on each replica: _meta.cache %q then %q, same answer %v; want miss then shared", s1, s2, first == second)
	}
	if n := stub.Requests(nsiptest.EndpointDetails); n != 1 {
		t.Errorf("upstream detail requests = %d, want 1", n)
	}

	rd.Stop()
	for i := 1; i <= 6; i++ {
		call(ids[i])
	}
	for i, s := range replicas {
		if code, body := getReadyz(t, s.BaseURL); code != http.StatusOK || body["status"] != "degraded" {
			t.Errorf("replica %d /readyz with Redis stopped = %d %v, want 200 degraded", i, code, body)
		}
	}
	rd.Restart()
	for i, s := range replicas {
		deadline := time.Now().Add(30 * time.Second)
		for {
			code, body := getReadyz(t, s.BaseURL)
			if code == http.StatusOK && body["status"] == "ready" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("replica %d /readyz after Redis restarted = %d %v, want ready", i, code, body)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	stub.ResetCounts()
	a, sa := call(ids[10])
	b, sb := call(ids[10])
	if sa != "miss" || sb != "shared" || a != b || stub.Requests(nsiptest.EndpointDetails) != 1 {
		t.Errorf("after Redis returned: %q then %q with %d upstream requests; want miss, shared, 1", sa, sb, stub.Requests(nsiptest.EndpointDetails))
	}
}

func getReadyz(t *testing.T, base string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}
