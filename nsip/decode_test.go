package nsip

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDecodeRowTraits covers how trait values, accuracies, the accuracy
// scale and indexes of one row are read. Accuracy is decided per answer from
// its values; the casing of names decides nothing (no live capture ever
// showed the PascalCase format that earlier tests took to mean percents).
func TestDecodeRowTraits(t *testing.T) {
	cases := []struct {
		name    string
		row     string
		traits  []Trait
		indexes []Index
	}{
		{
			name:   "fractions become percents, thirteen first, other codes after",
			row:    `{"lpnId":"6402382024NCS310","zzz":1.5,"acczzz":0.25,"wwt":-0.628,"accwwt":0.75,"bwt":-0.227,"accbwt":0.8,"aaa":1,"accaaa":0}`,
			traits: []Trait{{"BWT", -0.227, 80, true}, {"WWT", -0.628, 75, true}, {"AAA", 1, 0, true}, {"ZZZ", 1.5, 25, true}},
		},
		{
			name:   "PascalCase names with fractions are fractions",
			row:    `{"LpnId":"6402382024NCS310","Bwt":0.5,"AccBwt":0.89}`,
			traits: []Trait{{"BWT", 0.5, 89, true}},
		},
		{
			name:   "any accuracy above 1 puts the answer on the percent scale; off-scale ones are not reported",
			row:    `{"lpnId":"6402382024NCS310","bwt":0.1,"accbwt":80,"wwt":0.2,"accwwt":1,"fec":-3,"accfec":101}`,
			traits: []Trait{{"BWT", 0.1, 80, true}, {"WWT", 0.2, 1, true}, {"FEC", -3, 0, false}},
		},
		{
			name:   "values without accuracy are kept, whatever the code; null values are not values",
			row:    `{"lpnId":"6402382024NCS310","bwt":0.1,"mwwt":2.31,"wwt":2,"accwwt":null,"fat":null,"accfat":null,"wfec":-0.4,"accwfec":0.5}`,
			traits: []Trait{{"BWT", 0.1, 0, false}, {"WWT", 2, 0, false}, {"MWWT", 2.31, 0, false}, {"WFEC", -0.4, 50, true}},
		},
		{
			name:   "numeric strings are values beside an accuracy; other members are not traits",
			row:    `{"lpnId":"6402382024NCS310","ywt":"3.5","accywt":"0.9","wwt":"n/a","accwwt":0.5,"progenyCount":25,"breedId":640,"flockCode":"640238","sex":"2","numberOfLambs":3}`,
			traits: []Trait{{"YWT", 3.5, 90, true}},
		},
		{
			name:    "index members by any spelling",
			row:     `{"lpnId":"6402382024NCS310","usHairIndex":102.03,"srcIndex":116.56,"maternalIndex":"88.5","breedIndex":null}`,
			indexes: []Index{{"SRC$ Index", 116.56}, {"US Hair Index", 102.03}, {"maternalIndex", 88.5}},
		},
		{
			name:    "nested traits and indexes (an assumed shape)",
			row:     `{"LpnId":"6402382024NCS310","Traits":{"BWT":{"Value":0.5,"Accuracy":89},"WWT":2.5,"Bad":{"v":1}},"Indexes":{"US Index":101.5}}`,
			traits:  []Trait{{"BWT", 0.5, 89, true}, {"WWT", 2.5, 0, false}},
			indexes: []Index{{"US Index", 101.5}},
		},
		{
			name:    "index list; of two spellings of one code the first in byte order is read",
			row:     `{"lpnId":"6402382024NCS310","indexes":[{"name":"US Index","value":"99.5"}],"bwt":1,"BWT":2}`,
			traits:  []Trait{{"BWT", 2, 0, false}},
			indexes: []Index{{"US Index", 99.5}},
		},
		{
			name:   "a row of many members, found through a map, reads as a short one",
			row:    `{"lpnId":"6402382024NCS310","note":"x","NOTE":"y",` + manyNotes(2*longRow) + `"bwt":1,"BWT":2,"wwt":3,"AccWwt":0.5}`,
			traits: []Trait{{"BWT", 2, 0, false}, {"WWT", 3, 50, true}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"recordCount":1,"records":[` + tc.row + `]}`
			got, e := decodeSearch([]byte(body))
			if e != nil {
				t.Fatal(e)
			}
			r := got.Results[0]
			if r.LPNID != "6402382024NCS310" {
				t.Errorf("LPNID %q", r.LPNID)
			}
			if !reflect.DeepEqual(r.Traits, tc.traits) {
				t.Errorf("traits =\n%+v\nwant\n%+v", r.Traits, tc.traits)
			}
			if !reflect.DeepEqual(r.Indexes, tc.indexes) {
				t.Errorf("indexes = %+v, want %+v", r.Indexes, tc.indexes)
			}
		})
	}
}

// manyNotes is n text members, none of them a trait, each ending in a comma.
func manyNotes(n int) string {
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, `"note%03d":"x",`, i)
	}
	return sb.String()
}

// TestAccuracyScaleIsPerAnswer: one row in percents puts the whole page on
// the percent scale; a page of fractions is scaled as a whole.
func TestAccuracyScaleIsPerAnswer(t *testing.T) {
	got, e := decodeSearch([]byte(`{"recordCount":2,"records":[{"lpnId":"A1","bwt":1,"accbwt":0.9},{"lpnId":"A2","bwt":1,"accbwt":72}]}`))
	if e != nil {
		t.Fatal(e)
	}
	if a0, a1 := got.Results[0].Traits[0].Accuracy, got.Results[1].Traits[0].Accuracy; a0 != 0.9 || a1 != 72 {
		t.Errorf("percent page: accuracies %v and %v, want 0.9 and 72", a0, a1)
	}
	got, e = decodeSearch([]byte(`{"recordCount":2,"records":[{"lpnId":"A1","bwt":1,"accbwt":0.9},{"lpnId":"A2","bwt":1,"accbwt":0.72}]}`))
	if e != nil {
		t.Fatal(e)
	}
	if a0, a1 := got.Results[0].Traits[0].Accuracy, got.Results[1].Traits[0].Accuracy; a0 != 90 || a1 != 72 {
		t.Errorf("fraction page: accuracies %v and %v, want 90 and 72", a0, a1)
	}
}

// TestEnvelopes: every endpoint accepts its payload data-wrapped, beside
// success, under data without success, or bare; success=false fails.
func TestEnvelopes(t *testing.T) {
	progeny := `"records":[{"lpnId":"6401492025FLE007","dob":"2025-02-16T00:00:00","sex":"2"}],"recordCount":25,"numberOfPages":3`
	for _, body := range []string{
		`{"success":true,` + progeny + `}`,
		`{"success":true,"data":{` + progeny + `}}`,
		`{"data":{` + progeny + `}}`,
		`{` + progeny + `}`,
	} {
		got, e := decodeProgeny([]byte(body))
		if e != nil {
			t.Errorf("%s: %v", body, e)
			continue
		}
		r := got.Animals[0]
		if got.TotalCount != 25 || got.NumberOfPages != 3 || r.LPNID != "6401492025FLE007" || r.Sex != "Female" || r.DateOfBirth != "2025-02-16T00:00:00" {
			t.Errorf("%s: got %+v", body, got)
		}
	}
	groups := `[{"breedGroupId":64,"breedGroupName":"Hair","breeds":[{"breedId":640,"breedName":"Katahdin"}]}]`
	for _, body := range []string{`{"success":true,"data":` + groups + `}`, `{"data":` + groups + `}`, groups} {
		got, e := decodeBreedGroups([]byte(body))
		if e != nil || len(got.Groups) != 1 || got.Groups[0].Breeds[0].ID != 640 {
			t.Errorf("%s: %+v %v", body, got, e)
		}
	}
	ranges := `{"BWT":{"min":-0.939,"max":1.299}}`
	for _, body := range []string{`{"success":true,"data":` + ranges + `}`, `{"data":` + ranges + `}`, ranges, `{"success":true,` + ranges[1:]} {
		got, e := decodeTraitRanges([]byte(body))
		if e != nil || !reflect.DeepEqual(got.Ranges, []TraitRange{{"BWT", Range{-0.939, 1.299}}}) {
			t.Errorf("%s: %+v %v", body, got, e)
		}
	}
	// Details, lineage and the date in every envelope too.
	details := `"lpnId":"6402382024NCS310","bwt":0.1,"accbwt":0.5`
	lineage := `"lpnId":"6402382024NCS310","content":"<div>Oak Hollow</div>","children":[]`
	for _, wrap := range []func(string) string{
		func(m string) string { return `{"success":true,"data":{` + m + `}}` },
		func(m string) string { return `{"success":true,` + m + `}` },
		func(m string) string { return `{"data":{` + m + `}}` },
		func(m string) string { return `{` + m + `}` },
	} {
		d, e := decodeDetails([]byte(wrap(details)))
		if e != nil || d.LPNID != "6402382024NCS310" || len(d.Traits) != 1 || d.Traits[0].Accuracy != 50 {
			t.Errorf("%s: %+v %v", wrap(details), d, e)
		}
		l, e := decodeLineage([]byte(wrap(lineage)))
		if e != nil || l.Subject.LPNID != "6402382024NCS310" || l.Subject.Farm != "Oak Hollow" {
			t.Errorf("%s: %+v %v", wrap(lineage), l, e)
		}
		u, e := decodeLastUpdate([]byte(wrap(`"date":"09/23/2025"`)))
		if e != nil || u.Date != "09/23/2025" {
			t.Errorf("%s: %+v %v", wrap(`"date":"09/23/2025"`), u, e)
		}
	}
	for _, body := range []string{`{"success":false,` + progeny + `}`, `{"success":false,"data":{` + progeny + `},"message":"down"}`} {
		_, e := decodeProgeny([]byte(body))
		if e == nil || e.Kind != KindUnexpectedResponse || !strings.Contains(e.Reason, "success=false") {
			t.Errorf("%s: %v, want a success=false failure", body, e)
		}
	}
}

// TestFormatChanged: JSON the client cannot read says what was missing, is
// KindFormatChanged (not retryable) and carries the body.
func TestFormatChanged(t *testing.T) {
	cases := map[string]string{
		`{"success":true}`:                          `no "records" list`,
		`{"success":true,"rows":[]}`:                `no "records" list`,
		`{"recordCount":"many","records":[]}`:       `no numeric "recordCount"`,
		`{"recordCount":1,"records":{"a":1}}`:       "holds a JSON object where a list belongs",
		`{"recordCount":1,"records":[{"sex":"1"}]}`: "row 0 has no lpnId",
		`[1,2]`: "not an object",
	}
	for body, want := range cases {
		_, e := decodeProgeny([]byte(body))
		if e == nil || e.Kind != KindFormatChanged || !strings.Contains(e.Reason, want) || string(e.Body) != body || e.Retryable() {
			t.Errorf("%s: %v, want format_changed with %q", body, e, want)
		}
	}
}

func TestDecodeDetailsVariants(t *testing.T) {
	t.Run("live with repeated facts", func(t *testing.T) {
		body := `{"success":true,"data":{"progenyCount":25,"dateOfBirth":"2/13/2024","gender":"Male","flockCount":1,
			"breed":{"breedName":"Katahdin","breedId":640,"breedDisplayString":"640 - Katahdin"},
			"breedGroup":{"breedGroupName":"Hair","breedGroupId":64},
			"contactInfo":{"flockCode":"640238","farmName":"Günther's Flock","customerName":"Zoë","phone":null,"fax":"1"},
			"searchResultViewModel":{"lpnId":"6402382024NCS310","lpnSre":"6400462020VPI007","lpnDam":null,"status":"CURRENT",
				"regNumber":"","progenyCount":26,"breedId":640,"bwt":-0.227,"accbwt":0.8,"mwwt":1.5,"usHairIndex":102.03}}}`
		d, e := decodeDetails([]byte(body))
		if e != nil {
			t.Fatal(e)
		}
		want := AnimalDetails{LPNID: "6402382024NCS310", Breed: "Katahdin", BreedID: 640, BreedGroup: "Hair", DateOfBirth: "2/13/2024",
			Gender: "Male", Status: "CURRENT", Sire: "6400462020VPI007", TotalProgeny: 26, FlockCount: "1",
			Traits:  []Trait{{"BWT", -0.227, 80, true}, {"MWWT", 1.5, 0, false}},
			Indexes: []Index{{"US Hair Index", 102.03}},
			Contact: ContactInfo{FlockCode: "640238", FarmName: "Günther's Flock", ContactName: "Zoë"}}
		d.Raw = nil
		if !reflect.DeepEqual(*d, want) {
			t.Errorf("details =\n%+v\nwant\n%+v", *d, want)
		}
	})
	t.Run("assumed flat with plain breed strings", func(t *testing.T) {
		body := `{"LpnId":"6402382024NCS310","Breed":"Katahdin","BreedGroup":"Hair","Sire":"S1234","Dam":"D1234",
			"TotalProgeny":3,"Traits":{"BWT":{"Value":0.5,"Accuracy":89}},"UsHairIndex":101,"ContactInfo":null,"Extra1":true}`
		d, e := decodeDetails([]byte(body))
		if e != nil {
			t.Fatal(e)
		}
		if d.Breed != "Katahdin" || d.BreedGroup != "Hair" || d.Sire != "S1234" || d.Dam != "D1234" || d.TotalProgeny != 3 ||
			!reflect.DeepEqual(d.Traits, []Trait{{"BWT", 0.5, 89, true}}) || !reflect.DeepEqual(d.Indexes, []Index{{"US Hair Index", 101}}) ||
			!d.Contact.IsZero() {
			t.Errorf("got %+v", d)
		}
	})
	t.Run("a searchResultViewModel that is not an object is a changed format", func(t *testing.T) {
		_, e := decodeDetails([]byte(`{"success":true,"data":{"lpnId":"6402382024NCS310","searchResultViewModel":"n/a"}}`))
		if e == nil || e.Kind != KindFormatChanged || !strings.Contains(e.Reason, "searchResultViewModel") {
			t.Errorf("got %v", e)
		}
	})
}

func TestSexAndDates(t *testing.T) {
	for in, want := range map[string]string{"1": "Male", "2": "Female", " m ": "Male", "Female": "Female", "EWE": "Female", "3": "3", "": ""} {
		if got := NormalizeSex(in); got != want {
			t.Errorf("NormalizeSex(%q) = %q, want %q", in, got, want)
		}
	}
	for _, in := range []string{"2/16/2025", "02/16/2025", "2025-02-16T00:00:00", "2025-02-16", "2025-02-16T00:00:00Z", "2025-02-16T00:00:00.000"} {
		d, ok := ParseDate(in)
		if !ok || d.Format(time.DateOnly) != "2025-02-16" {
			t.Errorf("ParseDate(%q) = %v %v", in, d, ok)
		}
	}
	if _, ok := ParseDate("16.02.2025"); ok {
		t.Error("ParseDate accepted a form NSIP does not send")
	}
}

func TestDecodeSmallEndpoints(t *testing.T) {
	t.Run("statuses", func(t *testing.T) {
		for body, want := range map[string][]string{
			`["CURRENT","SOLD"]`:                         {"CURRENT", "SOLD"},
			`{"success":true,"data":["CURRENT",null,7]}`: {"CURRENT", "7"},
			`[{"name":"X"}, ""]`:                         {`{"name":"X"}`, `""`},
			`null`:                                       {},
			`"CURRENT"`:                                  {},
			`{"success":true,"data":{"status":"CURRENT"}}`: {},
		} {
			got, e := decodeStatuses([]byte(body))
			if e != nil || !reflect.DeepEqual(got.Values, want) {
				t.Errorf("%s: got %q, %v; want %q", body, got.Values, e, want)
			}
		}
	})
	t.Run("success=false fails statuses too", func(t *testing.T) {
		if _, e := decodeStatuses([]byte(`{"success":false,"data":["CURRENT"]}`)); e == nil || e.Kind != KindUnexpectedResponse {
			t.Errorf("got %v", e)
		}
	})
	t.Run("dates", func(t *testing.T) {
		for body, want := range map[string]string{
			`{"date":"09/23/2025"}`:                           "09/23/2025",
			`{"Date":" 09/23/2025 "}`:                         "09/23/2025",
			`"09/23/2025"`:                                    "09/23/2025",
			`{"success":true,"data":{"dateLastUpdated":"x"}}`: "x",
		} {
			got, e := decodeLastUpdate([]byte(body))
			if e != nil || got.Date != want {
				t.Errorf("%s: got %+v, %v; want %q", body, got, e, want)
			}
		}
	})
	t.Run("breed groups, old format with breeds and string ids", func(t *testing.T) {
		got, e := decodeBreedGroups([]byte(`[{"Id":"64","Name":"Hair","Breeds":[{"Id":640,"Name":"Katahdin"}]},{"id":61,"name":"Range","breeds":null}]`))
		want := []BreedGroup{{64, "Hair", []Breed{{640, "Katahdin"}}}, {61, "Range", []Breed{}}}
		if e != nil || !reflect.DeepEqual(got.Groups, want) {
			t.Errorf("got %+v, %v", got, e)
		}
	})
	t.Run("trait ranges as a list, null ranges skipped", func(t *testing.T) {
		got, e := decodeTraitRanges([]byte(`[{"traitName":"wwt","min":-1,"max":"2"},{"code":"ZZ","Min":0,"Max":1},{"code":"BWT","min":-0.7,"max":0}]`))
		want := []TraitRange{{"BWT", Range{-0.7, 0}}, {"WWT", Range{-1, 2}}, {"ZZ", Range{0, 1}}}
		if e != nil || !reflect.DeepEqual(got.Ranges, want) {
			t.Errorf("got %+v, %v", got, e)
		}
		got, e = decodeTraitRanges([]byte(`{"success":true,"data":{"FEC":null,"BWT":{"min":1,"max":2}}}`))
		if e != nil || !reflect.DeepEqual(got.Ranges, []TraitRange{{"BWT", Range{1, 2}}}) {
			t.Errorf("got %+v, %v", got, e)
		}
	})
	t.Run("pages: null records with no count, success that is not a bool", func(t *testing.T) {
		got, e := decodeProgeny([]byte(`{"success":"yes","TotalCount":0,"Results":null}`))
		if e != nil || got.TotalCount != 0 || got.Animals == nil || len(got.Animals) != 0 {
			t.Errorf("got %+v, %v", got, e)
		}
		if _, e := decodeSearch([]byte(`{"recordCount":2,"records":null}`)); e == nil || !strings.Contains(e.Reason, `no "records" list`) {
			t.Errorf("null records with a count: %v", e)
		}
	})
}

func TestValueParsing(t *testing.T) {
	floats := map[string]num{
		`1.5`: {v: 1.5, ok: true}, `-2`: {v: -2, ok: true}, `" 3e2 "`: {v: 300, ok: true}, `"x"`: {}, `"`: {},
		`true`: {}, `"NaN"`: {}, `1e999`: {raw: "1e999"}, `"-1e999"`: {raw: "-1e999"}, `null`: {},
	}
	for in, want := range floats {
		var n num
		if err := n.UnmarshalJSON([]byte(in)); err != nil || n != want {
			t.Errorf("num(%s) = %+v %v, want %+v", in, n, err, want)
		}
	}
	for in, want := range map[string]text{`"a b "`: "a b", `12`: "12", `false`: "false", `null`: "", `[1]`: "", `"\\x"`: "\\x"} {
		var x text
		if err := x.UnmarshalJSON([]byte(in)); err != nil || x != want {
			t.Errorf("text(%s) = %q %v, want %q", in, x, err, want)
		}
	}
	if _, e := unwrap([]byte(`{"a":`)); e == nil || e.Kind != KindUnexpectedResponse {
		t.Errorf("unwrap accepted broken JSON: %v", e)
	}
}

func TestCheckJSON(t *testing.T) {
	cases := map[string]string{
		`{"a":1}`:               "",
		` [1,2] `:               "",
		`{"a":1} {"b":2}`:       "data after the first value",
		`{"records":[{"lpnId":`: "ends early (truncated after 21 bytes)",
		`<!DOCTYPE html><html>`: "not JSON: <!DOCTYPE html><html>",
		"   \n":                 "empty",
		`{"a":tru}`:             "not valid JSON",
		`"unterminated`:         "ends early",
	}
	for in, want := range cases {
		e := checkJSON([]byte(in))
		switch {
		case want == "" && e != nil:
			t.Errorf("%q rejected: %v", in, e)
		case want != "" && (e == nil || !strings.Contains(e.Reason, want)):
			t.Errorf("checkJSON(%q) = %v, want a reason containing %q", in, e, want)
		}
	}
}

func TestTraitOrder(t *testing.T) {
	if TraitOrder("BWT") != 0 || TraitOrder("FEC") != 12 || TraitOrder("ZZZ") != len(TraitCodes) {
		t.Errorf("TraitOrder: %d %d %d", TraitOrder("BWT"), TraitOrder("FEC"), TraitOrder("ZZZ"))
	}
}

// TestSearchRowFacts: a search row's sex, birth date, breed and flock come
// through in whichever spelling NSIP used, on the fast path (known members
// only) and the general one (an unknown member present).
func TestSearchRowFacts(t *testing.T) {
	for name, extra := range map[string]string{"known members": "", "with an unknown member": `,"farmName":"Rocky Acres"`} {
		body := `{"recordCount":2,"records":[` +
			`{"lpnId":"A1","gender":"Male","dateOfBirth":"2/13/2024","breedId":640,"flockCode":640238` + extra + `},` +
			`{"lpnId":"A2","sex":"2","dob":"2025-02-16T00:00:00","breedId":"641"` + extra + `}]}`
		got, e := decodeSearch([]byte(body))
		if e != nil {
			t.Fatalf("%s: %v", name, e)
		}
		a, b := got.Results[0], got.Results[1]
		if a.Sex != "Male" || a.DateOfBirth != "2/13/2024" || a.BreedID != 640 || a.FlockCode != "640238" {
			t.Errorf("%s: first row %+v", name, a)
		}
		if b.Sex != "Female" || b.DateOfBirth != "2025-02-16T00:00:00" || b.BreedID != 641 || b.FlockCode != "" {
			t.Errorf("%s: second row %+v", name, b)
		}
	}
}

// TestKnownRowView: the struct of known members has the layout of an array
// of members on this compiler, so pages of known members take the fast
// path, and what it reads equals what the general path (forced by one
// unknown member) reads from the same rows.
func TestKnownRowView(t *testing.T) {
	if !knownRowIsArray {
		t.Fatal("knownRowType is not laid out as an array of members; every page would take the general path")
	}
	rows := `{"lpnId":"A1","lpnSre":"S1","gender":"1","bwt":0.5,"accbwt":0.8,"wwt":2.25,"mwwt":-1,"accmwwt":0.5,"usIndex":101.5%s},` +
		`{"lpnId":"A2","lpnDam":"D2","yemd":1.5,"accyemd":0.7,"nlb":0.04,"srcIndex":99%s}`
	page := func(extra string) string {
		return `{"recordCount":2,"records":[` + fmt.Sprintf(rows, extra, extra) + `]}`
	}
	if _, ok := fastPage([]byte(page(""))); !ok {
		t.Fatal("a page of known members did not take the fast path")
	}
	if _, ok := fastPage([]byte(page(`,"farmName":"x"`))); ok {
		t.Fatal("a page with an unknown member took the fast path")
	}
	fast, e := decodeSearch([]byte(page("")))
	if e != nil {
		t.Fatal(e)
	}
	general, e := decodeSearch([]byte(page(`,"farmName":"x"`)))
	if e != nil {
		t.Fatal(e)
	}
	// Worked by hand: accuracies are fractions, so they are put on the
	// percent scale; traits in display order, then the others by name.
	want := [][]Trait{
		{{Code: "BWT", Value: 0.5, Accuracy: 80, HasAccuracy: true}, {Code: "WWT", Value: 2.25}, {Code: "MWWT", Value: -1, Accuracy: 50, HasAccuracy: true}},
		{{Code: "NLB", Value: 0.04}, {Code: "YEMD", Value: 1.5, Accuracy: 70, HasAccuracy: true}},
	}
	wantIx := [][]Index{{{Name: "US Index", Value: 101.5}}, {{Name: "SRC$ Index", Value: 99}}}
	for name, got := range map[string]*SearchResults{"fast": fast, "general": general} {
		for i, r := range got.Results {
			if !reflect.DeepEqual(r.Traits, want[i]) || !reflect.DeepEqual(r.Indexes, wantIx[i]) {
				t.Errorf("%s path, row %d: traits %+v indexes %+v, want %+v %+v", name, i, r.Traits, r.Indexes, want[i], wantIx[i])
			}
		}
		if a := got.Results[0]; a.Sire != "S1" || a.Sex != "Male" || got.Results[1].Dam != "D2" {
			t.Errorf("%s path: facts %+v %+v", name, a, got.Results[1])
		}
	}
}

// TestPageTrailingFormFeed: a search page followed by a form feed is not
// JSON (JSON allows only space, tab, CR and LF around a value), on the fast
// path as on the general one.
func TestPageTrailingFormFeed(t *testing.T) {
	for _, body := range []string{`{"recordCount":0,"records":[]}` + "\f", `{"recordCount":0,"records":[],"x":1}` + "\f"} {
		_, e := decodeSearch([]byte(body))
		if e == nil || e.Kind != KindUnexpectedResponse {
			t.Errorf("%q: got %v, want an unexpected-response error", body, e)
		}
	}
}

// NSIP promises nothing about its numbers: a value past MaxPlausibleValue,
// or one no float holds, is left out of the model and named in Ignored, in
// every format; the pass-through body (Raw) is untouched.
func TestAbsurdValuesAreIgnoredAndNamed(t *testing.T) {
	for _, f := range formats {
		t.Run(f.String(), func(t *testing.T) {
			s, c := standIn(t, f)
			ctx := context.Background()
			page, err := c.SearchAnimals(ctx, SearchParams{PageSize: 5})
			if err != nil {
				t.Fatal(err)
			}
			id := page.Results[0].LPNID
			codes := []string{}
			for _, tr := range page.Results[0].Traits {
				codes = append(codes, tr.Code)
			}
			if len(codes) < 2 {
				t.Fatalf("%s has traits %v; want two to spoil", id, codes)
			}
			s.SetTraitText(id, codes[0], "1e154")
			s.SetTraitText(id, codes[1], "-1e999")
			want := []IgnoredValue{{id, codes[0], "1e154"}, {id, codes[1], "-1e999"}}
			check := func(what string, ts []Trait, ignored []IgnoredValue) {
				t.Helper()
				for _, tr := range ts {
					if tr.Code == codes[0] || tr.Code == codes[1] {
						t.Errorf("%s: %s kept as %v", what, tr.Code, tr.Value)
					}
				}
				got := slices.Clone(ignored)
				slices.SortFunc(got, func(a, b IgnoredValue) int { return strings.Compare(a.Raw, b.Raw) })
				slices.SortFunc(want, func(a, b IgnoredValue) int { return strings.Compare(a.Raw, b.Raw) })
				if !slices.Equal(got, want) {
					t.Errorf("%s: ignored %+v, want %+v", what, got, want)
				}
			}
			d, err := c.AnimalDetails(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			check("details", d.Traits, d.Ignored)
			if !bytes.Contains(d.Raw, []byte("1e154")) {
				t.Errorf("details Raw lost the value as sent: %.300s", d.Raw)
			}
			page, err = c.SearchAnimals(ctx, SearchParams{PageSize: 5})
			if err != nil {
				t.Fatal(err)
			}
			check("search", page.Results[0].Traits, page.Ignored)
			if len(page.Results[1].Traits) == 0 {
				t.Error("the other rows lost their traits")
			}
		})
	}
}
