package gateway

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/cache/cachetest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
	"github.com/nsip-tools/nsip-mcp/gateway/passes"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// heapPeak records the live heap at every fourth search request NSIP
// receives: the heap after a collection, so that it is what the server
// holds, not garbage; a reading per so many requests, so that nothing
// depends on time. A pass that kept its pages would grow the heap page
// after page, which a reading every four pages sees as well as one every
// page, at a quarter of the collections (each a long one under -race).
type heapPeak struct {
	mu         sync.Mutex
	base, peak uint64
	readings   int
	requests   int
}

// heapEvery is how many search requests pass between readings.
const heapEvery = 4

func (p *heapPeak) read() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func (p *heapPeak) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, nsiptest.EndpointSearch) {
			p.mu.Lock()
			p.requests++
			due := p.requests%heapEvery == 1
			p.mu.Unlock()
			if due {
				h := p.read()
				p.mu.Lock()
				p.peak, p.readings = max(p.peak, h), p.readings+1
				p.mu.Unlock()
			}
		}
		next.ServeHTTP(w, r)
	})
}

// start takes the live heap now as where it starts.
func (p *heapPeak) start() {
	h := p.read()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.base = h
}

// counts are the readings taken and the search requests seen so far; a
// request still being served may add to them.
func (p *heapPeak) counts() (readings, requests int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.readings, p.requests
}

// grown is how far the live heap rose above where it was at the start.
func (p *heapPeak) grown() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.peak < p.base {
		return 0
	}
	return p.peak - p.base
}

// A breed whose first page is honest and whose later rows each carry 10
// kB (1 MB a page, under the body limit), in a member the pass keeps (its
// parents, a pair of its own per row) or in one it drops (the
// registration number): a compare with percentiles over it is answered
// exactly, and the server's live heap stays within three times the
// cache's bound (24 MiB) wherever it is read. The pass whose kept
// members are padded is refused for its size as its pages come, naming
// NSIP, and the binary search answers; the pass of padded registrations
// keeps what it keeps of the rows, within its bound, and answers. The
// same pass read in the background, whose first page foretells a pass
// within the bound, goes the same way. Before the pages were counted as
// they came and the rows' text members bounded, the pass kept every
// padded page until the last (about 50 MB here) and answered from it;
// before the pages were kept as the pass as they came, the rows of the
// registrations' breed were refused for what the pass would not keep.
func TestBreedPassPaddedPagesBounded(t *testing.T) {
	const (
		animals  = 5000    // 50 pages: one call reads its pass
		cacheMax = 8 << 20 // a pass may hold 2 MiB: more than the first page foretells, less than the padded parents take
		pad      = 10_000
	)
	refused := fmt.Sprintf("NSIP's pages of breed %d came to more than the %d bytes a breed pass may hold", nsiptest.BigBreedID, cacheMax/4)
	for _, c := range []struct {
		name    string
		ir      nsiptest.Irregular
		via     string // how the percentiles were found
		refused bool
	}{
		{"parents", nsiptest.Irregular{PadParents: pad}, "binary search", true},
		{"registrations", nsiptest.Irregular{PadRows: pad}, "breed pass", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, h, peak := paddedEnv(t, animals, cacheMax, c.ir)
			gw := e.gw
			filled := make(chan string, 1)
			gw.passFilled = func(key string) { filled <- key }
			d := h.Data()
			var ids []string
			for _, id := range d.AnimalIDs() {
				if a, _ := d.Animal(id); a.BreedID == nsiptest.BigBreedID && len(ids) < 5 {
					ids = append(ids, id)
				}
			}
			traits := []string{"BWT", "WWT", "PWWT", "YWT", "NLB"}
			peak.start()
			r := e.call("nsip_compare_animals", map[string]any{"lpn_ids": ids, "traits": traits, "percentiles": true, "max_tokens": 8000}).mustOK(t)
			var a passReply
			if err := json.Unmarshal([]byte(r.text), &a); err != nil || len(a.Animals) != len(ids) {
				t.Fatalf("%v: %.400s", err, r.text)
			}
			readings, requests := peak.counts()
			t.Logf("live heap rose by at most %d MiB over %d readings of %d requests to NSIP (cache bound %d MiB)", peak.grown()>>20, readings, requests, cacheMax>>20)
			if g := peak.grown(); g > 3*cacheMax {
				t.Errorf("the live heap rose by %d MiB while the padded pages were read; want at most %d MiB (three times NSIP_CACHE_MAX_BYTES)", g>>20, 3*cacheMax>>20)
			}
			note := a.Percentiles.BreedPass[fmt.Sprint(nsiptest.BigBreedID)]
			if a.Percentiles.Via != c.via || c.refused != strings.HasPrefix(note, "not used: "+refused) {
				t.Errorf("via %q, breed_pass %q; want %s, the pass refused %v", a.Percentiles.Via, note, c.via, c.refused)
			}
			for i, id := range ids {
				an, _ := d.Animal(id)
				for k, code := range a.Traits {
					v, ok := an.Trait(code)
					if !ok {
						continue
					}
					want := countedTopPercent(d, nsiptest.BigBreedID, code, v.Value)
					if got := a.Animals[i].TopPercent[k]; got == nil || *got != want {
						t.Errorf("%s %s: top_percent %v, counted %v (%v)", id, code, got, want, a.Percentiles.Unproven)
					}
				}
			}
			// The same pass read in the background, as a breed too large
			// for a call is, goes the same way within the same bound.
			e.gw.fillPass(t.Context(), nsiptest.BigBreedID, "")
			key := breedpass.PassKey(nsiptest.BigBreedID, "")
			fill := gw.passes.Filling(key) // nil only if it has already ended
			for k := <-filled; k != key; k = <-filled {
				t.Logf("a read of %s ended", k) // another read's end
			}
			why := gw.passes.Why(key)
			if c.refused != strings.Contains(why, refused) {
				t.Errorf("the pass read in the background: %q (%v), want it refused %v", why, filledErr(fill), c.refused)
			}
			if p := gw.passes.Load(t.Context(), nsiptest.BigBreedID, d.LastUpdated()); !c.refused && (p == nil || p.Animals() != animals || p.Bytes() > cacheMax/4) {
				t.Errorf("the pass kept: %v, want all %d animals within %d bytes", p, animals, cacheMax/4)
			}
			if g := peak.grown(); g > 3*cacheMax {
				t.Errorf("the live heap rose by %d MiB while the pass was read in the background; want at most %d MiB", g>>20, 3*cacheMax>>20)
			}
			readings, _ = peak.counts()
			t.Logf("with the background read: live heap rose by at most %d MiB over %d readings", peak.grown()>>20, readings)
		})
	}
}

// paddedEnv is a gateway over a stand-in whose big breed has so many
// animals and whose search rows after the first page are padded as ir
// says, the cache bounded to cacheMax and one lookup at a time (so that
// at each reading of peak no other page is on its way, and the heap holds
// what the server keeps, nothing in transit).
func paddedEnv(t *testing.T, animals int, cacheMax int64, ir nsiptest.Irregular) (*env, *nsiptest.Handler, *heapPeak) {
	t.Helper()
	h := nsiptest.NewHandler(nsiptest.Options{Seed: 7, Animals: 600, BigBreed: animals})
	h.SetIrregular(ir)
	peak := &heapPeak{}
	ts := httptest.NewUnstartedServer(peak.wrap(h))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	ts.Start()
	t.Cleanup(func() { h.Close(); ts.Close() })
	nc, err := nsip.NewClient(nsip.WithBaseURL(ts.URL+"/api"), nsip.WithTimeout(10*time.Minute),
		nsip.WithRetryPolicy(nsip.RetryPolicy{MaxAttempts: 1, MaxRetryAfter: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	clk := cachetest.NewClock()
	cfg.Now, cfg.CallTimeout = clk.Now, 10*time.Minute
	cfg.RateLimit, cfg.RateBurst = 1000, 1000
	cfg.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	cfg.CacheMaxBytes, cfg.MaxConcurrentUpstream = cacheMax, 1
	sum, _ := summarizer(t)
	gw, err := New(nc, sum, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gw.Close)
	e := &env{t: t, gw: gw, clock: clk, srv: gw.NewMCPServer("nsip-mcp-test", "0.0.0")}
	e.client = connect(t, e.srv)
	return e, h, peak
}

// filledErr is the error a background read ended with, once it has.
func filledErr(f *passes.Fill) error {
	if f == nil {
		return nil
	}
	<-f.Done()
	_, err := f.Result()
	return err
}
