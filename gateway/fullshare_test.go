package gateway

import (
	"strings"
	"testing"
	"time"
)

// A link lives its hour whatever another client does (the attack: 40
// cached breed summaries from another client left an honest link "not
// found" within minutes). The flood here pushes the honest answer out of
// a small answer cache and fills the link store past its bound; the
// honest client's link still reads, with every row, until the hour, and
// the flood's own oldest link is the one that gave way.
func TestAnotherClientsCallsLeaveALinkItsHour(t *testing.T) {
	e := newEnv(t, withConfig(func(c *Config) {
		c.CacheMaxEntries = 8
		c.FullMaxBytes = 64 << 10 // the store holds 4 × this
	}))
	lpn := e.up.Data().MostProgeny()
	r := e.call("nsip_get_progeny", map[string]any{"lpn_id": lpn, "page_size": 100}).mustOK(t)
	_, csvURI := fullOf(t, r)
	want, err := readFull(e.client, csvURI)
	if err != nil {
		t.Fatal(err)
	}

	flood := connect(t, e.srv)
	var first, last string
	for page := range 40 {
		e.clock.Advance(time.Minute)
		r := callTool(t, flood, "nsip_search_animals", map[string]any{"page": page, "page_size": 30, "max_tokens": 600}).mustOK(t)
		_, uri := fullOf(t, r)
		if page == 0 {
			first = uri
		}
		last = uri
	}
	if _, held := e.gw.full.Len(); held > 4*(64<<10) {
		t.Errorf("the link store holds %d bytes, over its bound", held)
	}
	e.clock.Advance(DefaultConfig().CacheTTL - 40*time.Minute - time.Second)
	if got, err := readFull(e.client, csvURI); err != nil || got != want {
		t.Errorf("the honest link after another client's 40 calls: %d bytes, %v; want the %d bytes it read at first", len(got), err, len(want))
	}
	if _, err := readFull(flood, last); err != nil {
		t.Errorf("the flood's newest link: %v", err)
	}
	if _, err := readFull(flood, first); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("the flood's oldest link: %v, want not found: its own newer links took its room", err)
	}
	e.clock.Advance(time.Second)
	if _, err := readFull(e.client, csvURI); err == nil {
		t.Error("the honest link outlived its hour")
	}
}
