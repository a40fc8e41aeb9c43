package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
)

func TestParseFault(t *testing.T) {
	cases := []struct {
		in   string
		want []endpointFault
		err  string // substring of the error; "" means success
	}{
		{in: "details=status:503:2", want: []endpointFault{{nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 503, Times: 2}}}},
		{in: "search/getPageOfSearchResults=rate-limit:3", want: []endpointFault{{nsiptest.EndpointSearch, nsiptest.Fault{Kind: nsiptest.FaultRateLimit, RetryAfter: 3 * time.Second}}}},
		{in: "/api/details/getLineage=hang", want: []endpointFault{{nsiptest.EndpointLineage, nsiptest.Fault{Kind: nsiptest.FaultHang}}}},
		{in: "progeny=oversize:1", want: []endpointFault{{nsiptest.EndpointProgeny, nsiptest.Fault{Kind: nsiptest.FaultOversize, Bytes: 1 << 20}}}},
		{in: "statuses=reset::4", want: []endpointFault{{nsiptest.EndpointStatuses, nsiptest.Fault{Kind: nsiptest.FaultReset, Times: 4}}}},
		{in: "details", err: "ENDPOINT=KIND"},
		{in: "details=", err: "ENDPOINT=KIND"},
		{in: "animals=status", err: `unknown endpoint "animals"`},
		{in: "details=explode", err: `"explode"`},
		{in: "details=status:abc", err: `N "abc"`},
		{in: "details=status:503:-1", err: `TIMES "-1"`},
		{in: "details=status:42", err: "not an HTTP status"},
		{in: "details=truncated:5", err: "takes no N"},
		{in: "details=status:500:1:9", err: "too many fields"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := parseFault(c.in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil || len(got) != 1 || got[0] != c.want[0] {
				t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
	all, err := parseFault("all=status-html")
	if err != nil || len(all) != len(nsiptest.Endpoints()) {
		t.Errorf("all: %d faults, %v; want one per endpoint", len(all), err)
	}
}

func TestBadFlagsExitTwoNamingTheFlag(t *testing.T) {
	cases := []struct {
		args    []string
		mention string
	}{
		{[]string{"--format", "xml"}, "-format"},
		{[]string{"--seed", "one"}, "-seed"},
		{[]string{"--latency", "fast"}, "-latency"},
		{[]string{"--latency", "-5ms"}, "-latency"},
		{[]string{"--animals", "10"}, "-animals"},
		{[]string{"--big-breed", "-1"}, "-big-breed"},
		{[]string{"--big-breed", "300000"}, "-big-breed"},
		{[]string{"--addr", "8089"}, "-addr"},
		{[]string{"--fault", "details=boom"}, "-fault"},
		{[]string{"--verbose"}, "-verbose"},
		{[]string{"serve"}, `"serve"`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), c.args, &out, &errOut)
			if code != 2 || !strings.Contains(errOut.String(), c.mention) || out.Len() != 0 {
				t.Errorf("exit %d, stderr %q, stdout %d bytes; want 2 and a message naming %s", code, errOut.String(), out.Len(), c.mention)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, &out, &errOut); code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	for _, want := range []string{"test double", "--fault", "-addr", "-seed", "-format", "-latency", "-animals", "-big-breed", "NSIP_BASE_URL"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
	if errOut.Len() != 0 {
		t.Errorf("help wrote to stderr: %q", errOut.String())
	}
}

func TestServesUntilCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	var errOut logbuf.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--seed", "4", "--animals", "300", "--format", "legacy",
			"--fault", "details=status:503:1"}, &out, &errOut)
	}()
	urlRE := regexp.MustCompile(`NSIP_BASE_URL=(http://\S+/api)\n`)
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := urlRE.FindStringSubmatch(errOut.String()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		t.Fatalf("no base URL line on stderr: %q", errOut.String())
	}
	if n := strings.Count(errOut.String(), "\n"); n != 1 {
		t.Errorf("stderr has %d lines, want one: %q", n, errOut.String())
	}
	id := nsiptest.NewDataset(4, 300).AnimalIDs()[0]
	status := func() (int, string) {
		resp, err := http.Get(base + "/" + nsiptest.EndpointDetails + "?searchString=" + id)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := status(); code != 503 {
		t.Errorf("first request: %d, want the injected 503", code)
	}
	if code, body := status(); code != 200 || !strings.Contains(body, `"LpnId":"`+id+`"`) {
		t.Errorf("second request: %d %.80s, want 200 in the legacy format", code, body)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after cancel, want 0", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still serving 10 s after cancel")
	}
	if out.Len() != 0 {
		t.Errorf("wrote to stdout: %q", out.String())
	}
}

func TestBusyAddressExitsOne(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"--addr", ln.Addr().String(), "--animals", "200"}, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), ln.Addr().String()) {
		t.Errorf("exit %d, stderr %q; want 1 naming the address", code, errOut.String())
	}
}

// TestDefaultIsLiveWithTheExampleRam: a newcomer's first offline call, the
// README's example ram, finds him and his 25 offspring in the live shape.
func TestDefaultIsLiveWithTheExampleRam(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errOut logbuf.Buffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"--addr", "127.0.0.1:0"}, io.Discard, &errOut) }()
	urlRE := regexp.MustCompile(`NSIP_BASE_URL=(http://\S+/api)\n`)
	var base string
	for deadline := time.Now().Add(20 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := urlRE.FindStringSubmatch(errOut.String()); m != nil {
			base = m[1]
		}
	}
	if base == "" || !strings.Contains(errOut.String(), "live format") {
		t.Fatalf("stderr %q: want the base URL and the live format", errOut.String())
	}
	resp, err := http.Get(base + "/" + nsiptest.EndpointProgeny + "?lpnId=" + nsiptest.ExampleRam + "&page=0&pageSize=30")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(string(b), `{"success":true,"records":[`) ||
		!strings.HasSuffix(string(b), `"recordCount":25,"numberOfPages":1}`) {
		t.Errorf("progeny of the example ram: %d %.120s…%s", resp.StatusCode, b, b[max(0, len(b)-60):])
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after cancel, want 0", code)
	}
}

// TestBigBreedServed: --big-breed adds the breed, counted in the startup
// line and in a search of the breed.
func TestBigBreedServed(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errOut logbuf.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--animals", "200", "--big-breed", "1200"}, io.Discard, &errOut)
	}()
	urlRE := regexp.MustCompile(`NSIP_BASE_URL=(http://\S+/api)\n`)
	var base string
	for deadline := time.Now().Add(20 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := urlRE.FindStringSubmatch(errOut.String()); m != nil {
			base = m[1]
		}
	}
	if !strings.Contains(errOut.String(), "of which 1200 in breed 649") {
		t.Fatalf("startup line %q does not count the big breed", errOut.String())
	}
	resp, err := http.Post(base+"/"+nsiptest.EndpointSearch+"?page=0&pageSize=1&breedId=649&sortedBreedTrait=BWT", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"recordCount":1200`) {
		t.Errorf("search of breed 649: %d %.120s; want 200 with recordCount 1200", resp.StatusCode, b)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after cancel, want 0", code)
	}
}
