// Package logbuf is a log destination that tests read while the code under
// test writes to it from other goroutines.
//
// A [Buffer] is an [io.Writer] for [log/slog] handlers or a process's
// stderr; tests read it back whole ([Buffer.String]), count a phrase
// ([Buffer.Count]) or decode its JSON records ([Buffer.Records],
// [Buffer.Messages]):
//
//	logs := &logbuf.Buffer{}
//	log := slog.New(slog.NewJSONHandler(logs, nil))
//	// ... run the code with log ...
//	for _, rec := range logs.Messages(t, "upstream call failed") {
//		// rec["status"], rec["endpoint"], ...
//	}
package logbuf

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// Buffer is a bytes.Buffer behind a mutex. The zero value is ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p; it is safe to call from any goroutine.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Len is the number of bytes written so far.
func (b *Buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Len()
}

// Count is how many times s occurs in what was written so far.
func (b *Buffer) Count(s string) int {
	return strings.Count(b.String(), s)
}

// Records decodes every line written so far as one JSON log record, as
// [log/slog.JSONHandler] writes them. A line that is not a JSON object
// fails t, since a test reading records expects only records.
func (b *Buffer) Records(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(b.String()) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not a JSON record: %q", line)
		}
		out = append(out, m)
	}
	return out
}

// Messages is the records whose "msg" is msg, in the order written.
func (b *Buffer) Messages(t testing.TB, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, rec := range b.Records(t) {
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}
