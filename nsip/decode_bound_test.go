package nsip

import (
	"fmt"
	"strings"
	"testing"
)

// TestDecodeBoundsTextMembers: a row's text members are kept to
// MaxTextBytes, each cut one listed among the ignored values, and a page
// whose LPN ID is longer than any is refused rather than cut into another
// animal's.
func TestDecodeBoundsTextMembers(t *testing.T) {
	pad := strings.Repeat("é", 100_000) // two bytes each: the cut keeps whole characters
	body := fmt.Sprintf(`{"success":true,"data":{"recordCount":2,"results":[`+
		`{"lpnId":"A1","regNumber":"R1","status":"CURRENT","wwt":1.5},`+
		`{"lpnId":"A2","regNumber":%q,"status":%q,"dateOfBirth":"1/2/2020","wwt":2.5,"acc%s":50,"%s":3}]}}`,
		pad, "CUR"+pad, strings.Repeat("q", 1000), strings.Repeat("q", 1000))
	res, e := decodeSearch([]byte(body))
	if e != nil {
		t.Fatal(e)
	}
	a, b := res.Results[0], res.Results[1]
	if a.RegistrationNumber != "R1" || a.Status != "CURRENT" {
		t.Errorf("an honest row changed: %+v", a)
	}
	if len(b.RegistrationNumber) != MaxTextBytes || b.RegistrationNumber != pad[:MaxTextBytes] {
		t.Errorf("regNumber kept %d bytes, want the first %d", len(b.RegistrationNumber), MaxTextBytes)
	}
	if !strings.HasPrefix(b.Status, "CUR") || len(b.Status) > MaxTextBytes {
		t.Errorf("status kept %d bytes, want at most %d", len(b.Status), MaxTextBytes)
	}
	if b.DateOfBirth != "1/2/2020" || len(b.Traits) != 1 || b.Traits[0].Code != "WWT" {
		t.Errorf("the padded row's other members: born %q, traits %+v", b.DateOfBirth, b.Traits)
	}
	names := map[string]string{}
	for _, x := range res.Ignored {
		if x.LPNID == "A2" {
			names[x.Name] = x.Raw
		}
	}
	if r := names["regnumber"]; !strings.Contains(r, "(200000 bytes; the first 256 kept)") {
		t.Errorf("regNumber's cut is listed as %q", r)
	}
	if _, ok := names["status"]; !ok || len(names) != 3 {
		t.Errorf("ignored values of A2: %v, want regnumber, status and the long-named number", names)
	}
	long13 := strings.Repeat("Q", 300)
	nested := fmt.Sprintf(`{"success":true,"data":{"recordCount":1,"results":[{"lpnId":"A3","traits":{"WWT":1.5,%q:2},"indexes":{"US Index":90,%q:3}}]}}`, long13, long13)
	res, e = decodeSearch([]byte(nested))
	if e != nil {
		t.Fatal(e)
	}
	if r := res.Results[0]; len(r.Traits) != 1 || r.Traits[0].Code != "WWT" || len(r.Indexes) != 1 || r.Indexes[0].Name != "US Index" {
		t.Errorf("nested members under 300-byte names: traits %+v, indexes %+v; want WWT and US Index alone", r.Traits, r.Indexes)
	}
	if len(res.Ignored) != 2 || res.Ignored[0].Raw == res.Ignored[1].Raw || len(res.Ignored[0].Name) > 50 {
		t.Errorf("ignored %+v, want the trait and the index under 300-byte names, each named in part", res.Ignored)
	}
	long := fmt.Sprintf(`{"success":true,"data":{"recordCount":1,"results":[{"lpnId":%q}]}}`, strings.Repeat("9", MaxTextBytes+1))
	if _, e := decodeSearch([]byte(long)); e == nil || !strings.Contains(e.Error(), "longer than any LPN ID") {
		t.Errorf("a page with a 257-byte LPN ID: %v", e)
	}
}
