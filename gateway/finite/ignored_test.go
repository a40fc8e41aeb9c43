package finite

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

type answer struct {
	Rank int `json:"rank"`
	analysis.Ignored
}

// Each animal's trait is named once, in the order first read, however
// often and from however many lookups at once it arrives.
func TestIgnoredNamesEachValueOnce(t *testing.T) {
	var ig Ignored
	ig.Note(nil)
	vs := []nsip.IgnoredValue{{LPNID: "A", Name: "WWT", Raw: "1e154"}, {LPNID: "A", Name: "BWT", Raw: "1e999"}}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); ig.Note(vs) }()
	}
	wg.Wait()
	ig.Note([]nsip.IgnoredValue{{LPNID: "B", Name: "WWT", Raw: "-1e154"}})
	a := ig.AddTo(&answer{Rank: 1}).(*answer)
	b, _ := json.Marshal(a)
	want := `{"rank":1,"ignored_values":{"note":"` + IgnoredNote + `","values":[{"lpn_id":"A","raw":"1e154","trait":"WWT"},{"lpn_id":"A","raw":"1e999","trait":"BWT"},{"lpn_id":"B","raw":"-1e154","trait":"WWT"}]}}`
	if string(b) != want {
		t.Errorf("answer\n%s\nwant\n%s", b, want)
	}
}

// Twenty values are listed; the rest are counted.
func TestIgnoredListsTwentyAndCountsTheRest(t *testing.T) {
	var ig Ignored
	for i := range 23 {
		ig.Note([]nsip.IgnoredValue{{LPNID: fmt.Sprint(i), Name: "WWT", Raw: "1e200"}})
	}
	a := ig.AddTo(&answer{}).(*answer)
	if iv := a.IgnoredValues; iv == nil || len(iv.Values) != 20 || iv.NotShown != 3 || iv.Values[19].LPNID != "19" {
		t.Errorf("ignored_values = %+v", a.IgnoredValues)
	}
}

// An answer that takes no ignored values, or a call that met none, is
// returned as it was.
func TestIgnoredLeavesOtherAnswersAlone(t *testing.T) {
	var ig Ignored
	if a := ig.AddTo(&answer{Rank: 2}).(*answer); a.IgnoredValues != nil {
		t.Errorf("with nothing noted the answer got %+v", a.IgnoredValues)
	}
	ig.Note([]nsip.IgnoredValue{{LPNID: "A", Name: "WWT", Raw: "1e154"}})
	plain := map[string]int{"rank": 3}
	if got := ig.AddTo(plain); fmt.Sprint(got) != fmt.Sprint(plain) {
		t.Errorf("AddTo(map) = %v", got)
	}
}
