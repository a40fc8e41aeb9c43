package nsip

import (
	"slices"
	"testing"
)

// Every word of the table reads as its meaning, in any case, and is sent
// to NSIP as NSIP can take it: its one status, or none for several.
func TestStatusWords(t *testing.T) {
	all := []string{"CURRENT", "SOLD", "DEAD", "COMMERCIAL", "CULL", "EXPORTED"}
	want := map[string][]string{
		"living": {"CURRENT", "SOLD", "COMMERCIAL", "EXPORTED"}, "alive": {"CURRENT", "SOLD", "COMMERCIAL", "EXPORTED"},
		"usable": {"CURRENT"}, "available": {"CURRENT"}, "current": {"CURRENT"}, "active": {"CURRENT"},
		"dead": {"DEAD"}, "culled": {"CULL"}, "cull": {"CULL"}, "sold": {"SOLD"}, "exported": {"EXPORTED"}, "commercial": {"COMMERCIAL"},
		"any": all,
	}
	if words := StatusWords(); len(words) != len(want) {
		t.Fatalf("words %v; want the %d of this test", words, len(want))
	}
	for _, w := range StatusWords() {
		m, ok := StatusWord(" " + string(w[0]-32) + w[1:] + " ")
		if !ok || m.Word != w {
			t.Fatalf("%q: %+v %v", w, m, ok)
		}
		var held []string
		for _, s := range all {
			if m.Holds(s) && m.Holds(" "+s) {
				held = append(held, s)
			}
		}
		if !slices.Equal(held, want[w]) {
			t.Errorf("%s holds %v, want %v", w, held, want[w])
		}
		sent := StatusSent(w)
		if (len(want[w]) == 1 && sent != want[w][0]) || (len(want[w]) > 1 && sent != "") || m.Several() != (len(want[w]) > 1) {
			t.Errorf("%s is sent as %q (several %v)", w, sent, m.Several())
		}
	}
	if m, _ := StatusWord("living"); m.Note() != `status "living" read as every status but DEAD and CULL` || m.Holds("") {
		t.Errorf("living: note %q, holds a row of no status %v", m.Note(), m.Holds(""))
	}
	if m, _ := StatusWord("any"); m.Reading() != "every status" || !m.Holds("") {
		t.Errorf("any: reading %q, holds a row of no status %v", m.Reading(), m.Holds(""))
	}
	if _, ok := StatusWord("alvie"); ok || StatusSent("SOLD") != "SOLD" || StatusSent("alvie") != "alvie" {
		t.Errorf("a word not in the table is read as %v, sent as %q", ok, StatusSent("alvie"))
	}
	if got := StatusWordsTable(); got != "living/alive (every status but DEAD and CULL), usable/available/current/active (CURRENT), dead (DEAD), culled/cull (CULL), sold (SOLD), exported (EXPORTED), commercial (COMMERCIAL), any (every status)" {
		t.Errorf("table %q", got)
	}
}
