package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// startCheckLog runs the start-up check against base and returns its one
// log record.
func startCheckLog(t *testing.T, base string) map[string]any {
	t.Helper()
	c, err := nsip.NewClient(nsip.WithBaseURL(base), nsip.WithRetryPolicy(nsip.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	checkUpstream(context.Background(), c, base, 5*time.Second, slog.New(slog.NewJSONHandler(&buf, nil)))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d log lines; want 1: %s", len(lines), buf.String())
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestStartCheckWarnsOfABaseURLWithoutTheAPI(t *testing.T) {
	up := nsiptest.NewServer(t, nsiptest.Options{Seed: 1, Animals: 10})
	rec := startCheckLog(t, strings.TrimSuffix(up.URL(), "/api"))
	if rec["level"] != "WARN" || !strings.Contains(rec["msg"].(string), "NSIP_BASE_URL does not lead to the NSIP API") {
		t.Errorf("record = %v; want a warning naming NSIP_BASE_URL", rec)
	}
	if rec["error"] == nil {
		t.Errorf("record = %v; want the error under \"error\"", rec)
	}
}

func TestStartCheckPassesQuietlyAtTheRightBaseURL(t *testing.T) {
	up := nsiptest.NewServer(t, nsiptest.Options{Seed: 1, Animals: 10})
	if rec := startCheckLog(t, up.URL()); rec["level"] != "INFO" || rec["msg"] != "start-up check: NSIP answered" {
		t.Errorf("record = %v; want the info line", rec)
	}
}

// Offline (nothing listening), the check warns and returns: start-up is not
// held.
func TestStartCheckOfflineWarns(t *testing.T) {
	base := fmt.Sprintf("http://127.0.0.1:%d/api", freePort(t))
	rec := startCheckLog(t, base)
	if rec["level"] != "WARN" || !strings.Contains(rec["msg"].(string), "NSIP did not answer") {
		t.Errorf("record = %v; want a warning that NSIP did not answer", rec)
	}
}
