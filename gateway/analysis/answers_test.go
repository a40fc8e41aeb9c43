package analysis

import (
	"strings"
	"testing"
	"time"
)

// The cache's keeping time reads as an operator would write it (30m once
// read "3").
func TestCachedNoteSaysTheKeepingTime(t *testing.T) {
	for ttl, want := range map[time.Duration]string{time.Hour: "1h", 30 * time.Minute: "30m"} {
		if got := CachedNote(3, ttl); !strings.HasPrefix(got, "the 3 cached are up to "+want+" old:") {
			t.Errorf("%v: %q, want it to say up to %s", ttl, got, want)
		}
	}
}
