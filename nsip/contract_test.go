package nsip

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The contract fixtures in testdata/contract hold answers in the shapes
// specs/upstream.md records: *.live.json as captured from the live API
// (with our own values), *.assumed.json as other clients assumed them,
// plain ones for endpoints only ever assumed. Each is served as the
// endpoint's answer and read through the client; the values expected were
// written by hand from the fixture.

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "contract", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// serveFixture answers every request with the named fixture.
func serveFixture(t testing.TB, name string) *Client {
	body := fixture(t, name)
	return fakeUpstream(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
}

func TestContractFixtures(t *testing.T) {
	ctx := context.Background()
	const ram = "6402382024NCS310"
	t.Run("details live", func(t *testing.T) {
		c := serveFixture(t, "details.live.json")
		d, err := c.AnimalDetails(ctx, ram)
		if err != nil {
			t.Fatal(err)
		}
		want := []Trait{{"BWT", -0.227, 80, true}, {"WWT", -0.628, 75, true}, {"PWWT", 1.913, 71, true},
			{"MWWT", 0.412, 0, false}, {"NLW", 1.25, 55, true}, {"PFEC", -8.1, 58, true}, {"WFEC", -12.5, 60, true}}
		if d.LPNID != ram || d.Sire != "6400462020VPI007" || d.Dam != "6402382022NCS087" || d.TotalProgeny != 25 ||
			d.Breed != "Katahdin" || d.BreedID != 640 || d.Gender != "Male" || d.Contact.City != "Raleigh" || d.Contact.ContactName != "Ada Lane" {
			t.Errorf("details %+v", d)
		}
		if !reflect.DeepEqual(d.Traits, want) {
			t.Errorf("traits\n%+v\nwant\n%+v", d.Traits, want)
		}
		if !reflect.DeepEqual(d.Indexes, []Index{{"SRC$ Index", 116.56}, {"US Hair Index", 102.03}}) {
			t.Errorf("indexes %+v", d.Indexes)
		}
		sameBytes(t, "Raw", d.Raw, fixture(t, "details.live.json"))
	})
	t.Run("details in the assumed PascalCase shape: fractions stay fractions", func(t *testing.T) {
		d, err := serveFixture(t, "details.pascal.assumed.json").AnimalDetails(ctx, ram)
		if err != nil {
			t.Fatal(err)
		}
		if d.LPNID != ram || d.TotalProgeny != 25 || !reflect.DeepEqual(d.Traits, []Trait{{"BWT", -0.227, 80, true}, {"MWWT", 0.412, 0, false}}) {
			t.Errorf("details %+v", d)
		}
	})
	t.Run("lineage live", func(t *testing.T) {
		l, err := serveFixture(t, "lineage.live.json").Lineage(ctx, ram)
		if err != nil {
			t.Fatal(err)
		}
		s := l.Subject
		if s.LPNID != ram || s.Farm != "Oak Hollow Farm" || s.DOB != "2/13/2024" || s.Sex != "Male" || s.Status != "CURRENT" ||
			s.Sire == nil || s.Sire.LPNID != "6400462020VPI007" || s.Dam == nil || s.Dam.LPNID != "6402382022NCS087" || s.Dam.Status != "CURRENT" ||
			!reflect.DeepEqual(s.Indexes, []Index{{"US Hair Index", 102.03}, {"SRC$ Index", 116.56}}) {
			t.Errorf("lineage %+v", s)
		}
	})
	for _, tc := range []struct {
		file      string
		total     int
		pages     int
		first     ProgenyRow
		rows      int
		femaleFor string
	}{
		{"progeny.live.json", 25, 9, ProgenyRow{LPNID: "6401492025FLE007", Sex: "Female", DateOfBirth: "2025-02-16T00:00:00"}, 3, ""},
		{"progeny.data.assumed.json", 1, 0, ProgenyRow{LPNID: "6401492025FLE007", Sex: "Female", DateOfBirth: "2025-02-16T00:00:00"}, 1, ""},
		{"progeny.wrapped.assumed.json", 1, 0, ProgenyRow{LPNID: "6401492025FLE007", Sex: "Female", DateOfBirth: "02/16/2025"}, 1, ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			p, err := serveFixture(t, tc.file).Progeny(ctx, ram, 0, 3)
			if err != nil {
				t.Fatal(err)
			}
			if p.TotalCount != tc.total || p.NumberOfPages != tc.pages || len(p.Animals) != tc.rows || !reflect.DeepEqual(p.Animals[0], tc.first) {
				t.Errorf("page %+v", p)
			}
			if d, ok := ParseDate(p.Animals[0].DateOfBirth); !ok || d.Format("2006-01-02") != "2025-02-16" {
				t.Errorf("date %q not understood", p.Animals[0].DateOfBirth)
			}
		})
	}
	t.Run("progeny live sexes", func(t *testing.T) {
		p, _ := serveFixture(t, "progeny.live.json").Progeny(ctx, ram, 0, 3)
		if got := []string{p.Animals[0].Sex, p.Animals[1].Sex, p.Animals[2].Sex}; !reflect.DeepEqual(got, []string{"Female", "Male", "Female"}) {
			t.Errorf("sexes %v, want the codes 2, 1, 2 spelled out", got)
		}
	})
	t.Run("search live", func(t *testing.T) {
		r, err := serveFixture(t, "search.live.json").SearchAnimals(ctx, SearchParams{PageSize: 2})
		if err != nil {
			t.Fatal(err)
		}
		a, b := r.Results[0], r.Results[1]
		if r.TotalCount != 1523 || len(r.Results) != 2 || a.Sire != "6400462020VPI007" || b.Sire != "" || b.RegistrationNumber != "1000871" ||
			!reflect.DeepEqual(a.Traits, []Trait{{"BWT", -0.227, 80, true}, {"WWT", -0.628, 75, true}, {"MWWT", 0.412, 0, false}}) ||
			!reflect.DeepEqual(b.Traits, []Trait{{"BWT", 0.105, 62, true}, {"WWT", 1.44, 58, true}, {"WFEC", -20.1, 41, true}}) {
			t.Errorf("search %+v", r)
		}
	})
	t.Run("search with success beside it and percents", func(t *testing.T) {
		r, err := serveFixture(t, "search.success.assumed.json").SearchAnimals(ctx, SearchParams{PageSize: 2})
		if err != nil {
			t.Fatal(err)
		}
		if r.TotalCount != 2 || r.NumberOfPages != 1 || r.Results[0].Traits[0].Accuracy != 80 || r.Results[1].Traits[0].Accuracy != 62 {
			t.Errorf("search %+v", r)
		}
	})
	for _, file := range []string{"breedgroups.live.json", "breedgroups.bare.assumed.json"} {
		t.Run(file, func(t *testing.T) {
			g, err := serveFixture(t, file).BreedGroups(ctx)
			if err != nil {
				t.Fatal(err)
			}
			hair := g.Groups[len(g.Groups)-1]
			if hair.ID != 64 || hair.Name != "Hair" || hair.Breeds[0] != (Breed{640, "Katahdin"}) {
				t.Errorf("groups %+v", g.Groups)
			}
		})
	}
	t.Run("trait ranges: the breed's own codes", func(t *testing.T) {
		r, err := serveFixture(t, "traitranges.json").TraitRanges(ctx, 640)
		if err != nil {
			t.Fatal(err)
		}
		want := []TraitRange{{"BWT", Range{-0.939, 1.299}}, {"WWT", Range{-3.2, 5.81}}, {"MWWT", Range{-1.4, 2.2}},
			{"PFEC", Range{-55, 52.75}}, {"WFEC", Range{-60.5, 48.2}}}
		if !reflect.DeepEqual(r.Ranges, want) {
			t.Errorf("ranges %+v", r.Ranges)
		}
	})
	t.Run("statuses and last update", func(t *testing.T) {
		s, err := serveFixture(t, "statuses.json").Statuses(ctx)
		if err != nil || len(s.Values) != 6 || s.Values[5] != "EXPORTED" {
			t.Errorf("statuses %+v %v", s, err)
		}
		d, err := serveFixture(t, "lastupdated.json").DateLastUpdated(ctx)
		if err != nil || d.Date != "09/23/2025" {
			t.Errorf("date %+v %v", d, err)
		}
	})
	t.Run("success false fails every endpoint", func(t *testing.T) {
		c := serveFixture(t, "failure.json")
		for name, err := range map[string]error{
			"progeny": func() error { _, err := c.Progeny(ctx, ram, 0, 3); return err }(),
			"search":  func() error { _, err := c.SearchAnimals(ctx, SearchParams{PageSize: 2}); return err }(),
			"details": func() error { _, err := c.AnimalDetails(ctx, ram); return err }(),
		} {
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindUnexpectedResponse || e.Retryable() {
				t.Errorf("%s: %v, want a success=false failure", name, err)
			}
		}
	})
}
