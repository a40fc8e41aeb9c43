package analysis

import (
	"strings"
	"testing"
	"time"
)

// The cache's keeping time reads as an operator would write it.
func TestCachedNoteSaysTheKeepingTime(t *testing.T) {
	for ttl, want := range map[time.Duration]string{
		time.Hour: "1h", 2 * time.Hour: "2h", 30 * time.Minute: "30m", 10 * time.Minute: "10m",
		90 * time.Minute: "1h30m", 90 * time.Second: "1m30s", 45 * time.Second: "45s", 25*time.Hour + 10*time.Second: "25h0m10s",
	} {
		if got := CachedNote(3, ttl); !strings.HasPrefix(got, "the 3 cached are up to "+want+" old:") {
			t.Errorf("%v: %q, want it to say up to %s", ttl, got, want)
		}
	}
}
