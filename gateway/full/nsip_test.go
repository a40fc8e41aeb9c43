package full

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// readAs offers the table FromAnswer builds for v and raw to one caller
// and returns the body of its link in format ("json" or "csv"), as that
// caller reads it.
func readAs(t *testing.T, v any, raw json.RawMessage, format string) string {
	t.Helper()
	s := New(Config{})
	l := s.Offer(as("token:a"), Data{Size: 1, Build: FromAnswer(v, raw)})
	uri := l.JSON
	if format == "csv" {
		uri = l.CSV
	}
	text, err := read(t, s, as("token:a"), uri)
	if err != nil {
		t.Fatalf("reading %s: %v", uri, err)
	}
	return text
}

// Each upstream answer's link reads as the table of its records:
//   - a search page has the row's own columns, then each trait the page
//     has as CODE and CODE_acc in the glossary's order (codes outside it
//     last, alphabetically); a value a row lacks is an empty field, and an
//     accuracy NSIP did not send is empty rather than 0;
//   - a progeny page is one row per offspring, its traits as a search
//     page has them;
//   - a pedigree is one row per animal, the subject first, then depth
//     first by sire before dam; each row's path says how it is reached
//     (S sire, D dam) and its generation is that path's length;
//   - an animal's profile (from its exact upstream bodies), and any other
//     answer, is every value of its JSON with its path, keys in order.
func TestAnswerTables(t *testing.T) {
	for _, c := range []struct {
		name string
		v    any
		raw  json.RawMessage
		want string
	}{{
		name: "search page", v: searchPage,
		want: "lpn_id,sex,dob,status,breed,breed_id,flock_id,sire,dam,registration_number,BWT,BWT_acc,WWT,WWT_acc,FAT,FAT_acc,ZZZ,ZZZ_acc\n" +
			"6401492020FLE249,Female,2020-03-01,CURRENT,Katahdin,640,640149,6401492018FLE001,6401492017FLE010,R-17,,,3.25,71,,,9,\n" +
			"6401492021FLE002,,,,,,,,,,-0.5,60,,,0.02,,,\n",
	}, {
		name: "progeny page",
		v: &nsip.ProgenyPage{LPNID: "6401492018FLE001", Animals: []nsip.ProgenyRow{
			{LPNID: "6401492020FLE249", Sex: "Female", DateOfBirth: "2020-03-01", Traits: []nsip.Trait{{Code: "PWWT", Value: 5, Accuracy: 40, HasAccuracy: true}}},
			{LPNID: "6401492020FLE250", Traits: []nsip.Trait{{Code: "BWT", Value: 0.1}}},
		}},
		want: "lpn_id,sex,dob,BWT,BWT_acc,PWWT,PWWT_acc\n" +
			"6401492020FLE249,Female,2020-03-01,,,5,40\n" +
			"6401492020FLE250,,,0.1,,,\n",
	}, {
		name: "pedigree",
		v: &nsip.Lineage{Subject: nsip.LineageNode{LPNID: "C", Sex: "Female", DOB: "2022-01-01", Status: "CURRENT", Farm: "Hill",
			Sire: &nsip.LineageNode{LPNID: "S", Sire: &nsip.LineageNode{LPNID: "SS"}},
			Dam:  &nsip.LineageNode{LPNID: "D"}}},
		want: "path,generation,lpn_id,sex,dob,status,farm,sire,dam\n" +
			",0,C,Female,2022-01-01,CURRENT,Hill,S,D\n" +
			"S,1,S,,,,,SS,\n" +
			"SS,2,SS,,,,,,\n" +
			"D,1,D,,,,,,\n",
	}, {
		name: "animal profile",
		v:    &nsip.AnimalProfile{Raw: json.RawMessage(`{"progeny":{"animals":[{"lpnId":"K1"},{"lpnId":"K2"}]},"details":{"lpnId":"P","breedId":640,"genotyped":true,"sire":null}}`)},
		want: "path,value\n" +
			"details.breedId,640\n" +
			"details.genotyped,true\n" +
			"details.lpnId,P\n" +
			"details.sire,\n" +
			"progeny.animals[0].lpnId,K1\n" +
			"progeny.animals[1].lpnId,K2\n",
	}, {
		name: "other answer", v: map[string]any{"ignored": true},
		raw:  json.RawMessage(`[{"breedGroupId":61,"breeds":[{"name":"Katahdin"}]}]`),
		want: "path,value\n[0].breedGroupId,61\n[0].breeds[0].name,Katahdin\n",
	}} {
		if got := readAs(t, c.v, c.raw, "csv"); got != c.want {
			t.Errorf("%s CSV:\n%s\nwant:\n%s", c.name, got, c.want)
		}
	}
}

var searchPage = &nsip.SearchResults{Results: []nsip.AnimalRow{
	{LPNID: "6401492020FLE249", Sex: "Female", DateOfBirth: "2020-03-01", Status: "CURRENT", BreedName: "Katahdin", BreedID: 640,
		FlockCode: "640149", Sire: "6401492018FLE001", Dam: "6401492017FLE010", RegistrationNumber: "R-17",
		Traits: []nsip.Trait{{Code: "ZZZ", Value: 9}, {Code: "WWT", Value: 3.25, Accuracy: 71, HasAccuracy: true}}},
	{LPNID: "6401492021FLE002",
		Traits: []nsip.Trait{{Code: "BWT", Value: -0.5, Accuracy: 60, HasAccuracy: true}, {Code: "FAT", Value: 0.02}}},
}}

// The JSON of a link says null where its CSV leaves a field empty, and
// keeps numbers as numbers.
func TestAnswerTableJSON(t *testing.T) {
	var j struct {
		Count int              `json:"count"`
		Rows  []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(readAs(t, searchPage, nil, "json")), &j); err != nil {
		t.Fatal(err)
	}
	if j.Count != 2 || j.Rows[0]["breed_id"] != 640.0 || j.Rows[1]["breed_id"] != nil || j.Rows[1]["sex"] != nil || j.Rows[0]["WWT_acc"] != 71.0 || j.Rows[1]["FAT_acc"] != nil {
		t.Errorf("search JSON: %+v", j)
	}
}

// An answer whose body is not JSON has no table: it gets no links and a
// note saying so, rather than an empty table.
func TestFlatTableOfNonJSON(t *testing.T) {
	s := New(Config{})
	l := s.Offer(as("token:a"), Data{Size: 1, Build: FromAnswer(nil, json.RawMessage(`<html>busy</html>`))})
	if l.JSON != "" || !strings.Contains(l.Note, "the complete data could not be built, so no link is given: the answer is not JSON") {
		t.Errorf("non-JSON answer: %+v, want no links and a note saying it is not JSON", l)
	}
}
