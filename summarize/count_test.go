package summarize

import (
	"context"
	"errors"
	"math/rand"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestCountKnownTexts(t *testing.T) {
	_, c := newTestSummarizer(t)
	// Counts published with cl100k_base (OpenAI's tiktoken cookbook).
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"tiktoken is great!", 6},
		// Special-token text is ordinary text to a counter of what the
		// client reads: it must not be taken as one token, nor panic.
		{"<|endoftext|>", 7},
	} {
		if got := c.Count(tc.text); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

// randomText mixes ASCII, JSON punctuation, accents, CJK, emoji and, when
// bad is set, bytes that are not UTF-8.
func randomText(r *rand.Rand, n int, bad bool) string {
	parts := []string{"a", "Z", "7", " ", "{", "\"", ":", ",", "é", "ß", "牧", "場", "🐑", "\n", "0.227", "LPN"}
	var b strings.Builder
	for b.Len() < n {
		if bad && r.Intn(10) == 0 {
			b.WriteByte(byte(0x80 + r.Intn(0x7f)))
			continue
		}
		b.WriteString(parts[r.Intn(len(parts))])
	}
	return b.String()
}

func TestAtMostAgreesWithCount(t *testing.T) {
	_, c := newTestSummarizer(t)
	r := rand.New(rand.NewSource(42))
	for i := range 400 {
		s := randomText(r, r.Intn(300), i%3 == 0)
		tokens := c.Count(s)
		if tokens > len(s) && utf8.ValidString(s) {
			t.Fatalf("%q: %d tokens in %d bytes of UTF-8", s, tokens, len(s))
		}
		for _, n := range []int{0, tokens - 1, tokens, tokens + 1, len(s), len(s) - 1} {
			if n < 0 {
				continue
			}
			if got, want := c.AtMost(s, n), tokens <= n; got != want {
				t.Fatalf("AtMost(%q, %d) = %v, but Count = %d", s, n, got, tokens)
			}
		}
	}
}

func TestAtMostSkipsEncodingShortText(t *testing.T) {
	_, c := newTestSummarizer(t)
	before := c.calls.Load()
	if !c.AtMost(strings.Repeat("x", 500), 500) || !c.AtMost("", 0) {
		t.Fatal("a UTF-8 text of at most n bytes has at most n tokens")
	}
	if n := c.calls.Load() - before; n != 0 {
		t.Errorf("AtMost encoded %d times for texts no longer than the limit", n)
	}
	if c.AtMost("hello world", 1) {
		t.Error("AtMost(\"hello world\", 1) = true, want false (2 tokens)")
	}
}

func TestCounterConcurrent(t *testing.T) {
	_, c := newTestSummarizer(t)
	r := rand.New(rand.NewSource(7))
	texts := make([]string, 32)
	want := make([]int, len(texts))
	for i := range texts {
		texts[i] = randomText(r, 2000, false)
		want[i] = c.Count(texts[i])
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(texts))
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			other, err := NewCounter() // every Counter shares the one encoder
			if err != nil {
				errs <- err.Error()
				return
			}
			for i := range texts {
				j := (i + w) % len(texts)
				if got := other.Count(texts[j]); got != want[j] {
					errs <- "concurrent count differs"
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// offlineChild marks the child process of TestCounterLoadsOffline.
const offlineChild = "SUMMARIZE_OFFLINE_CHILD"

// TestCounterLoadsOffline loads the encoder in a fresh process (the parent
// has loaded it already) whose network use fails the test: the default
// transport and proxy refuse, and the tokenizer's cache directory is empty.
func TestCounterLoadsOffline(t *testing.T) {
	if os.Getenv(offlineChild) == "1" {
		offlineLoad(t)
		return
	}
	cache := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCounterLoadsOffline$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), offlineChild+"=1", "TIKTOKEN_CACHE_DIR="+cache, "DATA_GYM_CACHE_DIR="+cache,
		"HTTP_PROXY=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("offline load failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "counted offline: 2 tokens") {
		t.Fatalf("child did not count:\n%s", out)
	}
	if entries, err := os.ReadDir(cache); err != nil || len(entries) != 0 {
		t.Errorf("the tokenizer wrote to its cache directory: %v %v", entries, err)
	}
}

// refuse is a RoundTripper and dialer that fails whoever reaches it.
type refuse struct {
	mu    sync.Mutex
	tried []string
}

func (r *refuse) note(s string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tried = append(r.tried, s)
	return errors.New("network use during an offline test: " + s)
}

func (r *refuse) RoundTrip(req *http.Request) (*http.Response, error) {
	return nil, r.note(req.URL.String())
}

func offlineLoad(t *testing.T) {
	var r refuse
	http.DefaultTransport = &r
	http.DefaultClient = &http.Client{Transport: &r}
	net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: func(_ context.Context, network, addr string) (net.Conn, error) {
		return nil, r.note("dns " + addr)
	}}
	c, err := NewCounter()
	if err != nil {
		t.Fatalf("NewCounter: %v", err)
	}
	n := c.Count("hello world")
	if len(r.tried) > 0 {
		t.Fatalf("the tokenizer reached for the network: %v", r.tried)
	}
	t.Logf("counted offline: %d tokens", n)
}

func TestStartCounterCountsLikeNewCounter(t *testing.T) {
	loaded, err := NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	lazy := StartCounter()
	text := `{"lpnId":"6402382024NCS310","farmName":"Ferme Bélanger","bwt":-0.227}`
	if got, want := lazy.Count(text), loaded.Count(text); got != want || want < 10 {
		t.Fatalf("StartCounter counts %d tokens, NewCounter %d", got, want)
	}
	if err := lazy.Err(); err != nil {
		t.Fatalf("Err() = %v after a successful load", err)
	}
	if err := loaded.Err(); err != nil {
		t.Fatalf("Err() on a loaded counter = %v", err)
	}
}
