package gateway

import (
	"encoding/json"
	"fmt"
	"testing"
)

// NSIP promises no fixed evaluation: an analysis that read cached answers
// says how many and how old they may be, and one that fetched everything
// says nothing of it.
func TestAnalysisSaysWhatItReadFromTheCache(t *testing.T) {
	h := newHerd()
	for i := range 30 {
		h.get(fmt.Sprintf("640C%04d", i)).flock = "640557"
	}
	e := herdEnv(t, h)
	type up struct {
		Computed struct {
			Upstream struct {
				Lookups    int    `json:"lookups"`
				Cached     int    `json:"cached"`
				CachedNote string `json:"cached_note"`
			} `json:"upstream"`
		} `json:"computed"`
	}
	var first, second up
	for _, c := range []*up{&first, &second} {
		r := e.call("nsip_flock_summary", map[string]any{"flock_id": "640557"}).mustOK(t)
		if err := json.Unmarshal([]byte(r.text), c); err != nil {
			t.Fatal(err)
		}
	}
	if u := first.Computed.Upstream; u.Cached != 0 || u.CachedNote != "" {
		t.Errorf("first call: %+v; want nothing cached and no note", u)
	}
	u := second.Computed.Upstream
	want := fmt.Sprintf("%d lookups were NSIP's answers kept by the cache for up to 1h: an NSIP evaluation published since is not in them", u.Lookups)
	if u.Cached != u.Lookups || u.Lookups == 0 || len(u.CachedNote) < len(want) || u.CachedNote[:len(want)] != want {
		t.Errorf("second call: %+v; want every lookup cached and the note %q", u, want)
	}
}
