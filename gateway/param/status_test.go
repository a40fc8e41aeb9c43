package param

import "testing"

// Criteria are sent with a word's status, or none for a word of several,
// which StatusMeant then gives for the rows to be held to.
func TestCriteriaSentStatus(t *testing.T) {
	for status, want := range map[string]string{"USABLE": "CURRENT", "LIVING": "", "SOLD": "SOLD", "CULLED": "CULL", "": ""} {
		c := Criteria{Status: status, Gender: "Male"}
		if got := c.Sent(); got.Status != want || got.Gender != "Male" {
			t.Errorf("%q sent as %+v, want status %q", status, got, want)
		}
		m, several := c.StatusMeant()
		if several != (status == "LIVING") || (several && m.Word != "living") {
			t.Errorf("%q: meant %+v %v", status, m, several)
		}
	}
	if _, several := (*Criteria)(nil).StatusMeant(); several {
		t.Errorf("no criteria mean a status")
	}
}
