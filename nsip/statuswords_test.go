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

// Criteria are sent with a word's status, or none for a word of several,
// which StatusSeveral then gives for the rows to be held to.
func TestCriteriaAsSent(t *testing.T) {
	for status, want := range map[string]string{"USABLE": "CURRENT", "LIVING": "", "SOLD": "SOLD", "CULLED": "CULL", "": ""} {
		c := SearchCriteria{Status: status, Gender: "Male"}
		if got := c.AsSent(); got.Status != want || got.Gender != "Male" {
			t.Errorf("%q sent as %+v, want status %q", status, got, want)
		}
		m, several := StatusSeveral(status)
		if several != (status == "LIVING") || (several && m.Word != "living") {
			t.Errorf("%q: meant %+v %v", status, m, several)
		}
	}
}
