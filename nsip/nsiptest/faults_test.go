package nsiptest_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

func TestFaultsAsAClientSeesThem(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 9, Animals: 800})
	id := srv.Data().MostProgeny()
	details := nsiptest.EndpointDetails + "?searchString=" + id
	normal := get(t, srv, details)

	cases := []struct {
		name  string
		ep    string
		path  string
		fault nsiptest.Fault
		check func(t *testing.T, r reply)
	}{
		{"status default 500 with JSON", nsiptest.EndpointDetails, details, nsiptest.Fault{Kind: nsiptest.FaultStatus},
			func(t *testing.T, r reply) {
				var e map[string]any
				if r.status != 500 || json.Unmarshal(r.body, &e) != nil || e["success"] != false {
					t.Errorf("got %d %s, want 500 with a JSON error", r.status, r.body)
				}
			}},
		{"status 502", nsiptest.EndpointStatuses, nsiptest.EndpointStatuses, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 502},
			func(t *testing.T, r reply) { wantStatus(t, r, 502) }},
		{"status 400", nsiptest.EndpointDetails, details, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 400},
			func(t *testing.T, r reply) { wantStatus(t, r, 400) }},
		{"status 404", nsiptest.EndpointDetails, details, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 404},
			func(t *testing.T, r reply) { wantStatus(t, r, 404) }},
		{"503 with HTML", nsiptest.EndpointDetails, details, nsiptest.Fault{Kind: nsiptest.FaultStatusHTML},
			func(t *testing.T, r reply) {
				wantStatus(t, r, 503)
				wantHTML(t, r)
			}},
		{"429 with Retry-After", nsiptest.EndpointLineage, nsiptest.EndpointLineage + "?lpnId=" + id,
			nsiptest.Fault{Kind: nsiptest.FaultRateLimit, RetryAfter: 1500 * time.Millisecond},
			func(t *testing.T, r reply) {
				wantStatus(t, r, 429)
				if got := r.header.Get("Retry-After"); got != "2" {
					t.Errorf("Retry-After %q, want 2 (1.5 s rounded up)", got)
				}
			}},
		{"200 with HTML", nsiptest.EndpointDetails, details, nsiptest.Fault{Kind: nsiptest.FaultHTML200},
			func(t *testing.T, r reply) {
				wantStatus(t, r, 200)
				wantHTML(t, r)
			}},
		{"truncated JSON", nsiptest.EndpointDetails, details, nsiptest.Fault{Kind: nsiptest.FaultTruncated},
			func(t *testing.T, r reply) {
				wantStatus(t, r, 200)
				if json.Valid(r.body) || string(r.body) != string(normal.body[:len(normal.body)/2]) {
					t.Errorf("body %.100s… (%d bytes), want the first half of the %d-byte answer", r.body, len(r.body), len(normal.body))
				}
			}},
		{"wrong shape details", nsiptest.EndpointDetails, details, nsiptest.Fault{Kind: nsiptest.FaultWrongShape},
			func(t *testing.T, r reply) {
				var e struct{ Data any }
				decode200(t, r, &e)
				if _, isString := e.Data.(string); !isString {
					t.Errorf("data is %T, want a string where the object belongs", e.Data)
				}
			}},
		{"wrong shape search", nsiptest.EndpointSearch, "", nsiptest.Fault{Kind: nsiptest.FaultWrongShape},
			func(t *testing.T, r reply) {
				var m map[string]json.RawMessage
				decode200(t, r, &m)
				if _, ok := m["recordCount"]; ok {
					t.Errorf("wrong-shape page still has recordCount: %s", r.body)
				}
				if _, ok := m["records"]; ok {
					t.Errorf("wrong-shape page still has records: %s", r.body)
				}
			}},
		{"oversize body", nsiptest.EndpointProgeny, nsiptest.EndpointProgeny + "?lpnId=" + id + "&page=0&pageSize=5",
			nsiptest.Fault{Kind: nsiptest.FaultOversize},
			func(t *testing.T, r reply) {
				wantStatus(t, r, 200)
				b := string(r.body)
				if len(b) != 20<<20 || !strings.HasPrefix(b, `{"success":true,"data":{"padding":"xxx`) || !strings.HasSuffix(b, `xxx"}}`) {
					t.Errorf("body of %d bytes (%.40s…), want 20 MiB of JSON", len(b), b)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv.ClearFaults()
			srv.SetFault(c.ep, c.fault)
			if c.ep == nsiptest.EndpointSearch {
				c.check(t, do(t, srv, "POST", nsiptest.EndpointSearch+"?page=0&pageSize=5", "{}"))
			} else {
				c.check(t, get(t, srv, c.path))
			}
		})
	}
}

func wantStatus(t *testing.T, r reply, status int) {
	t.Helper()
	if r.status != status {
		t.Errorf("status %d, want %d; body %.200s", r.status, status, r.body)
	}
}

func wantHTML(t *testing.T, r reply) {
	t.Helper()
	if !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") || !strings.HasPrefix(string(r.body), "<!DOCTYPE html>") {
		t.Errorf("Content-Type %q body %.60s, want an HTML page", r.header.Get("Content-Type"), r.body)
	}
}

func TestFaultForNextRequestsThenRecovery(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 9, Animals: 800})
	srv.SetFault(nsiptest.EndpointBreedGroups, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 503, Times: 2})
	var got []int
	for range 4 {
		got = append(got, get(t, srv, nsiptest.EndpointBreedGroups).status)
	}
	if want := []int{503, 503, 200, 200}; !equalInts(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	if n := srv.Requests(nsiptest.EndpointBreedGroups); n != 4 {
		t.Errorf("Requests = %d, want 4", n)
	}
	// A fault on one endpoint leaves the others alone.
	srv.SetFault(nsiptest.EndpointBreedGroups, nsiptest.Fault{Kind: nsiptest.FaultStatus})
	wantStatus(t, get(t, srv, nsiptest.EndpointStatuses), 200)
	wantStatus(t, get(t, srv, nsiptest.EndpointBreedGroups), 500)
	srv.ClearFaults()
	wantStatus(t, get(t, srv, nsiptest.EndpointBreedGroups), 200)
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestResetClosesTheConnection(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 9, Animals: 800})
	srv.SetFault(nsiptest.EndpointLastUpdated, nsiptest.Fault{Kind: nsiptest.FaultReset, Times: 1})
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	_, err := send(c, srv, "GET", nsiptest.EndpointLastUpdated, "")
	if err == nil {
		t.Fatal("request over a reset connection succeeded")
	}
	if r := get(t, srv, nsiptest.EndpointLastUpdated); r.status != 200 {
		t.Errorf("after the one reset: status %d, want 200", r.status)
	}
	if n := srv.Requests(nsiptest.EndpointLastUpdated); n != 2 {
		t.Errorf("Requests = %d, want 2", n)
	}
}

// TestHangEndsWhenTheClientGivesUp: a hung request is let go when its
// client gives up, and the next request is answered. The client gives up
// only once the stand-in has the request: one that gave up before sending
// it would leave the hang unused, for the next request to fall into.
func TestHangEndsWhenTheClientGivesUp(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 9, Animals: 800})
	srv.SetFault(nsiptest.EndpointLineage, nsiptest.Fault{Kind: nsiptest.FaultHang, Times: 1})
	path := nsiptest.EndpointLineage + "?lpnId=" + srv.Data().Founder()
	ctx, giveUp := context.WithCancel(context.Background())
	defer giveUp()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL()+"/"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	sent := make(chan error, 1)
	go func() {
		resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
		if err == nil {
			resp.Body.Close()
		}
		sent <- err
	}()
	for deadline := time.Now().Add(20 * time.Second); srv.Requests(nsiptest.EndpointLineage) < 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the request never reached the stand-in")
		}
	}
	giveUp()
	if err := <-sent; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the client's giving up", err)
	}
	wantStatus(t, get(t, srv, path), 200)
}

func TestCloseReleasesHungRequests(t *testing.T) {
	srv := nsiptest.Start(nsiptest.Options{Seed: 9, Animals: 800})
	srv.SetFault(nsiptest.EndpointStatuses, nsiptest.Fault{Kind: nsiptest.FaultHang})
	srv.SetLatency(nsiptest.EndpointLastUpdated, time.Hour)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, ep := range []string{nsiptest.EndpointStatuses, nsiptest.EndpointLastUpdated} {
		wg.Go(func() {
			_, err := send(&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}, srv, "GET", ep, "")
			errs <- err
		})
	}
	for srv.TotalRequests() < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close still waiting for held requests after 10 s")
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err == nil {
			t.Error("a held request got an answer; want the connection dropped")
		}
	}
}

func TestLatencyDelaysAnswers(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 9, Animals: 800, Latency: 120 * time.Millisecond})
	start := time.Now()
	wantStatus(t, get(t, srv, nsiptest.EndpointStatuses), 200)
	if el := time.Since(start); el < 120*time.Millisecond {
		t.Errorf("answer after %v, want at least the 120 ms of Options.Latency", el)
	}
	srv.SetLatency("", 0)
	srv.SetLatency(nsiptest.EndpointLastUpdated, 150*time.Millisecond)
	srv.SetFault(nsiptest.EndpointStatuses, nsiptest.Fault{Kind: nsiptest.FaultNone, Latency: 100 * time.Millisecond, Times: 1})
	for _, c := range []struct {
		ep  string
		min time.Duration
	}{{nsiptest.EndpointLastUpdated, 150 * time.Millisecond}, {nsiptest.EndpointStatuses, 100 * time.Millisecond}} {
		start := time.Now()
		wantStatus(t, get(t, srv, c.ep), 200)
		if el := time.Since(start); el < c.min {
			t.Errorf("%s answered after %v, want at least %v", c.ep, el, c.min)
		}
	}
	// A client that gives up during the delay gets no answer.
	srv.SetLatency(nsiptest.EndpointBreedGroups, time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL()+"/"+nsiptest.EndpointBreedGroups, nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Error("request during an hour of latency answered")
	}
}

func TestFaultKindNames(t *testing.T) {
	for k := nsiptest.FaultNone; k <= nsiptest.FaultOversize; k++ {
		got, err := nsiptest.ParseFaultKind(k.String())
		if err != nil || got != k {
			t.Errorf("ParseFaultKind(%q) = %v, %v; want %v", k.String(), got, err, k)
		}
	}
	if _, err := nsiptest.ParseFaultKind("meltdown"); err == nil || !strings.Contains(err.Error(), "meltdown") {
		t.Errorf("unknown kind: err = %v, want one naming it", err)
	}
}

func TestCounters(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 9, Animals: 800})
	id := srv.Data().Founder()
	get(t, srv, nsiptest.EndpointDetails+"?searchString="+id)
	get(t, srv, nsiptest.EndpointDetails+"?searchString=NOPE12345")
	get(t, srv, nsiptest.EndpointLineage+"?lpnId="+id)
	do(t, srv, "POST", nsiptest.EndpointSearch+"?page=0&pageSize=1", "{}")
	get(t, srv, "no/such/endpoint")
	want := map[string]int{nsiptest.EndpointDetails: 2, nsiptest.EndpointLineage: 1, nsiptest.EndpointSearch: 1}
	for _, ep := range nsiptest.Endpoints() {
		if got := srv.Requests(ep); got != want[ep] {
			t.Errorf("Requests(%s) = %d, want %d", ep, got, want[ep])
		}
	}
	if got := srv.TotalRequests(); got != 5 {
		t.Errorf("TotalRequests = %d, want 5 (the unknown path included)", got)
	}
	srv.ResetCounts()
	if srv.TotalRequests() != 0 || srv.Requests(nsiptest.EndpointDetails) != 0 {
		t.Errorf("after ResetCounts: total %d, details %d; want 0", srv.TotalRequests(), srv.Requests(nsiptest.EndpointDetails))
	}
}

// TestConcurrentUse runs requests while faults, formats and latency change;
// its value is under -race.
func TestConcurrentUse(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 9, Animals: 800})
	id := srv.Data().MostProgeny()
	var wg sync.WaitGroup
	const workers, each = 8, 20
	for w := range workers {
		wg.Go(func() {
			c := &http.Client{}
			for i := range each {
				switch (w + i) % 3 {
				case 0:
					srv.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultStatus, Times: 1})
				case 1:
					srv.SetFormat(nsiptest.Format(i % 2))
					srv.SetAnimalFormat(id, nsiptest.Format(w%2))
				case 2:
					srv.SetLatency(nsiptest.EndpointProgeny, time.Duration(i%2)*time.Millisecond)
				}
				if _, err := send(c, srv, "GET", nsiptest.EndpointDetails+"?searchString="+id, ""); err != nil {
					t.Error(err)
				}
				if _, err := send(c, srv, "GET", nsiptest.EndpointProgeny+"?page=0&pageSize=3&lpnId="+id, ""); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if got := srv.TotalRequests(); got != workers*each*2 {
		t.Errorf("TotalRequests = %d, want %d", got, workers*each*2)
	}
}
