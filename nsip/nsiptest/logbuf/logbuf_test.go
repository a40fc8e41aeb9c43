package logbuf_test

import (
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
)

// TestConcurrentRecords: records written from many goroutines at once all
// come back whole, each with its own attributes.
func TestConcurrentRecords(t *testing.T) {
	logs := &logbuf.Buffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() { log.Info("call", "n", i) })
	}
	wg.Wait()
	log.Warn("other")
	recs := logs.Messages(t, "call")
	if len(recs) != 50 {
		t.Fatalf("%d call records; want 50", len(recs))
	}
	seen := map[float64]bool{}
	for _, r := range recs {
		seen[r["n"].(float64)] = true
	}
	if len(seen) != 50 {
		t.Errorf("%d distinct n among the call records; want 50", len(seen))
	}
	if all := logs.Records(t); len(all) != 51 || all[50]["level"] != "WARN" {
		t.Errorf("%d records, last %v; want 51 ending with the WARN", len(all), all[len(all)-1])
	}
	if n := logs.Count(`"msg":"call"`); n != 50 {
		t.Errorf("Count = %d; want 50", n)
	}
	if logs.Len() != len(logs.String()) {
		t.Errorf("Len %d, String has %d bytes", logs.Len(), len(logs.String()))
	}
}

// TestRecordsRefusesText: a line that is not JSON fails the reading test
// rather than being skipped.
func TestRecordsRefusesText(t *testing.T) {
	logs := &logbuf.Buffer{}
	fmt.Fprintln(logs, `{"msg":"ok"}`)
	fmt.Fprintln(logs, "plain text")
	ft := &fatalT{TB: t}
	func() {
		defer func() { _ = recover() }()
		logs.Records(ft)
	}()
	if ft.msg != `log line is not a JSON record: "plain text"` {
		t.Errorf("Records on a text line failed with %q", ft.msg)
	}
}

// fatalT records the first Fatalf and stops the caller, as testing.T does.
type fatalT struct {
	testing.TB
	msg string
}

func (f *fatalT) Helper() {}
func (f *fatalT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f.msg)
}

func ExampleBuffer() {
	logs := &logbuf.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // a fixed output for the example
			}
			return a
		},
	}))
	log.Info("upstream call failed", "status", 503)
	fmt.Print(logs.String())
	fmt.Println(logs.Count("status=503"))
	// Output:
	// level=INFO msg="upstream call failed" status=503
	// 1
}
