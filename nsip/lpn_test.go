package nsip

import "testing"

func TestParseLPN(t *testing.T) {
	cases := []struct {
		id   string
		want LPNParts
		ok   bool
	}{
		{"6402382024NCS310", LPNParts{640, "640238", 2024}, true},
		{"6400462020VPI007", LPNParts{640, "640046", 2020}, true},
		{"4868532015OJY001", LPNParts{486, "486853", 2015}, true},
		{"6402382024ncs310", LPNParts{640, "640238", 2024}, true},
		{"1000871", LPNParts{}, false},          // a registration number
		{"640238NCS310", LPNParts{}, false},     // no birth year
		{"6402389924NCS310", LPNParts{}, false}, // 9924 is no year
		{"6402382099NCS310", LPNParts{}, false}, // born in the future
		{"", LPNParts{}, false},
	}
	for _, c := range cases {
		got, ok := ParseLPN(c.id)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseLPN(%q) = %+v, %v; want %+v, %v", c.id, got, ok, c.want, c.ok)
		}
	}
}

func TestRowBirthYearAndFlock(t *testing.T) {
	live := AnimalRow{LPNID: "6402382024NCS310"}
	if y, lpn := live.BirthYear(); y != 2024 || !lpn {
		t.Errorf("live row: birth year %d (from LPN %v), want 2024 from the LPN ID", y, lpn)
	}
	if f, lpn := live.Flock(); f != "640238" || !lpn {
		t.Errorf("live row: flock %q (from LPN %v), want 640238 from the LPN ID", f, lpn)
	}
	rich := AnimalRow{LPNID: "6402382024NCS310", DateOfBirth: "2/13/2023", FlockCode: "640999"}
	if y, lpn := rich.BirthYear(); y != 2023 || lpn {
		t.Errorf("rich row: birth year %d (from LPN %v), want the row's 2023", y, lpn)
	}
	if f, lpn := rich.Flock(); f != "640999" || lpn {
		t.Errorf("rich row: flock %q (from LPN %v), want the row's 640999", f, lpn)
	}
	odd := AnimalRow{LPNID: "1000871"}
	if y, _ := odd.BirthYear(); y != 0 {
		t.Errorf("registration-number row: birth year %d, want 0 (unknown)", y)
	}
	if f, _ := odd.Flock(); f != "" {
		t.Errorf("registration-number row: flock %q, want unknown", f)
	}
}
