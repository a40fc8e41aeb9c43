package summarize

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// encodingName is the tokenizer the spec fixes for every budget decision.
const encodingName = "cl100k_base"

// cl100kFile is the name tiktoken-go asks its loader for; the offline
// loader serves it from the binary.
const cl100kFile = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"

// The encoder is built once per process: building it parses a 1.6 MB rank
// table, and every Counter can share it because encoding only reads it.
var (
	encOnce sync.Once
	enc     *tiktoken.Tiktoken
	encErr  error
)

func loadEncoding() (*tiktoken.Tiktoken, error) {
	encOnce.Do(func() {
		// The offline loader serves the rank table from the binary itself,
		// so counting never reaches for the network or a cache directory.
		capture := &rankCapture{inner: tiktoken_loader.NewOfflineLoader()}
		tiktoken.SetBpeLoader(capture)
		enc, encErr = tiktoken.GetEncoding(encodingName)
		if encErr != nil {
			encErr = fmt.Errorf("summarize: loading %s: %w", encodingName, encErr)
			return
		}
		ranks = capture.ranks
		if ranks == nil {
			// tiktoken-go had the encoding already and did not load it
			// again: read the table once more for the long pieces.
			ranks, encErr = capture.inner.LoadTiktokenBpe(cl100kFile)
		}
	})
	return enc, encErr
}

// Counter counts cl100k_base tokens. It is safe for concurrent use; all
// Counters share one encoder. NewCounter loads the table before it returns;
// StartCounter returns at once and the first count waits for the table.
type Counter struct {
	enc   *tiktoken.Tiktoken
	calls atomic.Int64 // encodings made, which tests bound

	// A Counter made by until counts for base and stops at deadline.
	base     *Counter
	deadline time.Time
}

// NewCounter returns a Counter, loading the cl100k_base table on first use.
func NewCounter() (*Counter, error) {
	e, err := loadEncoding()
	if err != nil {
		return nil, err
	}
	return &Counter{enc: e}, nil
}

// StartCounter returns a Counter without waiting for the table, which loads
// in the background. A server can then answer its first messages (most are
// not tool results) while the table is still being parsed; Err reports
// whether the load worked.
func StartCounter() *Counter {
	go func() { _, _ = loadEncoding() }()
	return &Counter{}
}

// Err waits for the table and reports whether it loaded.
func (c *Counter) Err() error {
	if c.enc != nil {
		return nil
	}
	_, err := loadEncoding()
	return err
}

// encoder is nil only when the table failed to load.
func (c *Counter) encoder() *tiktoken.Tiktoken {
	if c.enc != nil {
		return c.enc
	}
	e, _ := loadEncoding()
	return e
}

// Count returns the number of cl100k_base tokens in s. Special-token text
// such as "<|endoftext|>" is counted as ordinary text, which is how it
// reaches the client.
func (c *Counter) Count(s string) int {
	if s == "" {
		return 0
	}
	if c.base != nil {
		return c.base.countBy(s, c.deadline)
	}
	return c.countBy(s, time.Time{})
}

// countBy is Count, stopping at deadline unless it is zero.
func (c *Counter) countBy(s string, deadline time.Time) int {
	c.calls.Add(1)
	e := c.encoder()
	if e == nil {
		// Without the table, the byte length bounds the count of valid
		// UTF-8 from above, so budgets still hold.
		return len(s)
	}
	if !utf8.ValidString(s) {
		// tiktoken-go splits and encodes []rune(s), in which every byte
		// that is not UTF-8 became U+FFFD; counting that text is exact.
		s = string([]rune(s))
	}
	return countPieces(e, s, deadline)
}

// countPieces splits s as the cl100k_base pattern does and adds up the
// byte-pair tokens of each piece. A piece encodes the same alone as in its
// text (byte-pair merges never cross pieces), so each distinct piece is
// encoded once and its count kept in pieceCounts.
func countPieces(e *tiktoken.Tiktoken, s string, deadline time.Time) int {
	n := 0
	for i, pieces := 0, 0; i < len(s); pieces++ {
		if pieces%deadlineEvery == 0 && past(deadline) {
			return n + len(s) - i // the rest at one token per byte at most
		}
		j := nextPiece(s, i)
		n += pieceCounts.count(e, s[i:j])
		i = j
	}
	return n
}

// AtMost reports whether s has at most n tokens. Every token of valid UTF-8
// covers at least one byte, so a text no longer than n bytes needs no
// encoding; invalid UTF-8 is re-encoded by the tokenizer and so is counted.
func (c *Counter) AtMost(s string, n int) bool {
	if len(s) <= n && utf8.ValidString(s) {
		return true
	}
	if n < 0 {
		return false
	}
	return c.Count(s) <= n
}
