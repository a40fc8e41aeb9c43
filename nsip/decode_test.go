package nsip

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func extraOf(t *testing.T, m map[string]json.RawMessage) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

// TestDecodeRowTraits covers how trait pairs, accuracy scales, indexes and
// leftovers of one row are read.
func TestDecodeRowTraits(t *testing.T) {
	cases := []struct {
		name    string
		row     string
		traits  []Trait
		indexes []Index
		extra   map[string]string
	}{
		{
			name:   "current format: fractions become percents, known order, unknown pair kept",
			row:    `{"lpnId":"6402382024NCS310","zzz":1.5,"acczzz":0.25,"wwt":-0.628,"accwwt":0.75,"bwt":-0.227,"accbwt":0.8,"aaa":1,"accaaa":0}`,
			traits: []Trait{{"BWT", -0.227, 80, true}, {"WWT", -0.628, 75, true}, {"AAA", 1, 0, true}, {"ZZZ", 1.5, 25, true}},
		},
		{
			name:   "old format: percents stay",
			row:    `{"LpnId":"6402382024NCS310","Bwt":0.5,"AccBwt":89,"Fec":-12.5,"AccFec":1,"Wwt":1,"AccWwt":101}`,
			traits: []Trait{{"BWT", 0.5, 89, true}, {"WWT", 1, 0, false}, {"FEC", -12.5, 1, true}},
			extra:  map[string]string{"AccWwt": "101"},
		},
		{
			name:   "camelCase row already on the percent scale is not multiplied",
			row:    `{"lpnId":"6402382024NCS310","bwt":0.1,"accbwt":80,"wwt":0.2,"accwwt":1}`,
			traits: []Trait{{"BWT", 0.1, 80, true}, {"WWT", 0.2, 1, true}},
		},
		{
			name:   "known trait without accuracy, null accuracy, null value",
			row:    `{"lpnId":"6402382024NCS310","bwt":0.1,"wwt":2,"accwwt":null,"fat":null,"accfat":null,"emd":null}`,
			traits: []Trait{{"BWT", 0.1, 0, false}, {"WWT", 2, 0, false}},
		},
		{
			name:   "accuracy off the scale and non-numeric values go to Extra",
			row:    `{"lpnId":"6402382024NCS310","bwt":0.1,"accbwt":-0.1,"wwt":"n/a","accwwt":0.5,"ywt":"3.5","accywt":"0.9"}`,
			traits: []Trait{{"BWT", 0.1, 0, false}, {"YWT", 3.5, 90, true}},
			extra:  map[string]string{"accbwt": "-0.1", "wwt": `"n/a"`, "accwwt": "0.5"},
		},
		{
			name:    "index fields by any spelling; other fields kept as spelled",
			row:     `{"lpnId":"6402382024NCS310","usHairIndex":102.03,"srcIndex":116.56,"maternalIndex":"88.5","breedIndex":null,"flockCode":"640238","acc":0.5,"accounts":3}`,
			indexes: []Index{{"SRC$ Index", 116.56}, {"US Hair Index", 102.03}, {"maternalIndex", 88.5}},
			extra:   map[string]string{"flockCode": `"640238"`, "acc": "0.5", "accounts": "3", "breedIndex": "null"},
		},
		{
			name:    "nested traits and indexes",
			row:     `{"LpnId":"6402382024NCS310","Traits":{"BWT":{"Value":0.5,"Accuracy":89,"Note":"x"},"WWT":2.5,"Fec":{"Value":-1,"Accuracy":140},"Bad":{"v":1},"n1":1},"Indexes":{"US Index":101.5}}`,
			traits:  []Trait{{"BWT", 0.5, 89, true}, {"WWT", 2.5, 0, false}, {"FEC", -1, 0, false}},
			indexes: []Index{{"US Index", 101.5}},
			extra:   map[string]string{"Traits.BWT.Note": `"x"`, "Traits.Fec.Accuracy": "140", "Traits.Bad": `{"v":1}`, "Traits.n1": "1"},
		},
		{
			name:    "index list; a second spelling of a trait is kept, not merged",
			row:     `{"lpnId":"6402382024NCS310","indexes":[{"name":"US Index","value":"99.5"}],"bwt":1,"BWT":2,"usIndex":98}`,
			traits:  []Trait{{"BWT", 2, 0, false}},
			indexes: []Index{{"US Index", 99.5}},
			extra:   map[string]string{"bwt": "1", "usIndex": "98"},
		},
		{
			name:  "an index collection that is not understood stays whole",
			row:   `{"lpnId":"6402382024NCS310","indexes":"none"}`,
			extra: map[string]string{"indexes": `"none"`},
		},
		{
			name:  "an index object with a non-number stays whole",
			row:   `{"lpnId":"6402382024NCS310","indexes":{"US Index":"high"}}`,
			extra: map[string]string{"indexes": `{"US Index":"high"}`},
		},
		{
			name:  "an index list with a nameless entry stays whole",
			row:   `{"lpnId":"6402382024NCS310","indexes":[{"value":1}]}`,
			extra: map[string]string{"indexes": `[{"value":1}]`},
		},
		{
			name:   "nested traits in a camelCase row are fractions",
			row:    `{"lpnId":"6402382024NCS310","traits":{"bwt":{"value":0.5,"accuracy":0.89}}}`,
			traits: []Trait{{"BWT", 0.5, 89, true}},
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
			if tc.extra == nil {
				tc.extra = map[string]string{}
			}
			if got := extraOf(t, r.Extra); !reflect.DeepEqual(got, tc.extra) {
				t.Errorf("extra = %v, want %v", got, tc.extra)
			}
		})
	}
}

// TestDecodePageRows checks that rows of one page are read independently of
// each other, whatever their layouts, and that what a row keeps does not
// share memory with the body.
func TestDecodePageRows(t *testing.T) {
	rows := []string{
		`{"lpnId":"A1","bwt":0.1,"accbwt":0.5,"status":"x","flockCode":"1"}`,
		`{"lpnId":"A2","bwt":0.2,"accbwt":0.6,"status":"y","flockCode":"2"}`,
		`{"bwt":0.3,"lpnId":"A3","BWT":0.4,"flockCode":"3","flockCode":"4","\u0062wt":0.5}`,
		`{"lpnId":"A4","bwt":0.2,"accbwt":0.6,"status":"y","flockCode":"5"}`,
		`{"lpnId":"A5","Traits":{"WWT":1},"usIndex":1}`,
		`{"lpnId":"A6","bwt":0.2,"accbwt":0.6,"status":"y","flockCode":"6"}`,
	}
	body := []byte(`{"recordCount":6,"records":[` + strings.Join(rows, ",") + `]}`)
	page, e := decodeSearch(body)
	if e != nil {
		t.Fatal(e)
	}
	for i, r := range rows {
		alone, e := decodeSearch([]byte(`{"recordCount":1,"records":[` + r + `]}`))
		if e != nil {
			t.Fatal(e)
		}
		got, want := page.Results[i], alone.Results[0]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("row %d in a page =\n%+v\nalone\n%+v", i, got, want)
		}
	}
	if got := extraOf(t, page.Results[2].Extra); !reflect.DeepEqual(got, map[string]string{"bwt": "0.5", "flockCode": `"4"`}) {
		t.Errorf("row with repeated names: extra %v", got)
	}
	for i := range body {
		body[i] = ' '
	}
	if got := string(page.Results[0].Extra["flockCode"]); got != `"1"` {
		t.Errorf("Extra changed with the body: %q", got)
	}
}

func TestDecodeDetailsVariants(t *testing.T) {
	t.Run("current with conflicts and odd members", func(t *testing.T) {
		body := `{"success":true,"data":{"progenyCount":25,"dateOfBirth":"2/13/2024","gender":"Male","flockCount":1,
			"breed":{"breedName":"Katahdin","breedId":640,"breedDisplayString":"640 - Katahdin"},
			"breedGroup":{"breedGroupName":"Hair","breedGroupId":64},
			"contactInfo":{"flockCode":"640238","farmName":"Günther's Flock","customerName":"Zoë","phone":null,"fax":"1"},
			"searchResultViewModel":{"lpnId":"6402382024NCS310","lpnSre":"6400462020VPI007","lpnDam":null,"status":"CURRENT",
				"regNumber":"","progenyCount":26,"breedId":640,"bwt":-0.227,"accbwt":0.8,"usHairIndex":102.03}}}`
		d, e := decodeDetails([]byte(body))
		if e != nil {
			t.Fatal(e)
		}
		want := AnimalDetails{LPNID: "6402382024NCS310", Breed: "Katahdin", BreedID: 640, BreedGroup: "Hair", DateOfBirth: "2/13/2024",
			Gender: "Male", Status: "CURRENT", Sire: "6400462020VPI007", TotalProgeny: 25, FlockCount: "1",
			Traits:  []Trait{{"BWT", -0.227, 80, true}},
			Indexes: []Index{{"US Hair Index", 102.03}},
			Contact: ContactInfo{FlockCode: "640238", FarmName: "Günther's Flock", ContactName: "Zoë"}}
		gotExtra := extraOf(t, d.Extra)
		d.Extra, d.Raw = nil, nil
		if !reflect.DeepEqual(*d, want) {
			t.Errorf("details =\n%+v\nwant\n%+v", *d, want)
		}
		wantExtra := map[string]string{"breed.breedDisplayString": `"640 - Katahdin"`, "breedGroup.breedGroupId": "64",
			"contactInfo.fax": `"1"`, "searchResultViewModel.progenyCount": "26"}
		if !reflect.DeepEqual(gotExtra, wantExtra) {
			t.Errorf("extra = %v, want %v", gotExtra, wantExtra)
		}
	})
	t.Run("old flat with plain breed strings", func(t *testing.T) {
		body := `{"LpnId":"6402382024NCS310","Breed":"Katahdin","BreedGroup":"Hair","Sire":"S1234","Dam":"D1234",
			"TotalProgeny":3,"Traits":{"BWT":{"Value":0.5,"Accuracy":89}},"UsHairIndex":101,"ContactInfo":null,"Extra1":true}`
		d, e := decodeDetails([]byte(body))
		if e != nil {
			t.Fatal(e)
		}
		if d.Breed != "Katahdin" || d.BreedGroup != "Hair" || d.Sire != "S1234" || d.Dam != "D1234" || d.TotalProgeny != 3 ||
			!reflect.DeepEqual(d.Traits, []Trait{{"BWT", 0.5, 89, true}}) || !reflect.DeepEqual(d.Indexes, []Index{{"US Hair Index", 101}}) ||
			!d.Contact.IsZero() || string(d.Extra["Extra1"]) != "true" || len(d.Extra) != 1 {
			t.Errorf("got %+v", d)
		}
	})
	t.Run("a searchResultViewModel that is not an object is kept", func(t *testing.T) {
		d, e := decodeDetails([]byte(`{"success":true,"data":{"lpnId":"6402382024NCS310","searchResultViewModel":"n/a"}}`))
		if e != nil || d.LPNID != "6402382024NCS310" || string(d.Extra["searchResultViewModel"]) != `"n/a"` {
			t.Errorf("got %+v, %v", d, e)
		}
	})
}

func TestDecodeSmallEndpoints(t *testing.T) {
	t.Run("statuses", func(t *testing.T) {
		for body, want := range map[string][]string{
			`["CURRENT","SOLD"]`:                         {"CURRENT", "SOLD"},
			`{"success":true,"data":["CURRENT",null,7]}`: {"CURRENT", "7"},
			`[{"name":"X"}, ""]`:                         {`{"name":"X"}`, `""`},
			`{"success":false}`:                          {},
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
		if _, e := decodeSearch([]byte(`{"recordCount":"many","records":[]}`)); e == nil || !strings.Contains(e.Reason, "no record count") {
			t.Errorf("non-numeric count: %v", e)
		}
		if _, e := decodeSearch([]byte(`{"recordCount":2,"records":null}`)); e == nil || !strings.Contains(e.Reason, "no records list") {
			t.Errorf("null records with a count: %v", e)
		}
	})
}

func TestValueParsing(t *testing.T) {
	floats := map[string]struct {
		v  float64
		ok bool
	}{
		`1.5`: {1.5, true}, `-2`: {-2, true}, `" 3e2 "`: {300, true}, `"x"`: {0, false}, `"`: {0, false},
		`true`: {0, false}, ``: {0, false}, `"NaN"`: {0, false}, `1e999`: {0, false}, `"1`: {0, false},
	}
	for in, want := range floats {
		if v, ok := asFloat(json.RawMessage(in)); v != want.v || ok != want.ok {
			t.Errorf("asFloat(%s) = %v %v, want %v %v", in, v, ok, want.v, want.ok)
		}
	}
	ints := map[string]struct {
		v  int
		ok bool
	}{`7`: {7, true}, `7.5`: {0, false}, `1e20`: {0, false}, `"12"`: {12, true}}
	for in, want := range ints {
		if v, ok := asInt(json.RawMessage(in)); v != want.v || ok != want.ok {
			t.Errorf("asInt(%s) = %v %v, want %v %v", in, v, ok, want.v, want.ok)
		}
	}
	strs := map[string]struct {
		v  string
		ok bool
	}{`"a b "`: {"a b", true}, `12`: {"12", true}, `false`: {"false", true}, `null`: {"", false}, `[1]`: {"", false},
		``: {"", false}, `"\x"`: {"", false}}
	for in, want := range strs {
		if v, ok := asString(json.RawMessage(in)); v != want.v || ok != want.ok {
			t.Errorf("asString(%s) = %q %v, want %q %v", in, v, ok, want.v, want.ok)
		}
	}
	if _, e := payload([]byte(`{"a":`)); e == nil {
		t.Error("payload accepted broken JSON")
	}
	if _, ok := asArray(json.RawMessage(`[1,`)); ok {
		t.Error("asArray accepted broken JSON")
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
