package shape

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func capture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "contract", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestContractIsTheCaptures holds every endpoint's contract to the file it
// was written from: the capture has every member the contract names and no
// member it does not, and every pattern not marked assumed matches in it.
// Every *.live.json capture is some endpoint's.
func TestContractIsTheCaptures(t *testing.T) {
	used := map[string]bool{}
	for _, ep := range Endpoints() {
		t.Run(ep.Name(), func(t *testing.T) {
			used[ep.Capture] = true
			if ep.Live != strings.HasSuffix(ep.Capture, ".live.json") {
				t.Errorf("%s: Live is %v for capture %s", ep.Path, ep.Live, ep.Capture)
			}
			d, err := Compare(ep.Answer, capture(t, ep.Capture))
			if err != nil {
				t.Fatal(err)
			}
			if d.Drift() {
				t.Errorf("%s differs from its capture %s: %+v", ep.Path, ep.Capture, d)
			}
			for _, p := range patterns(ep.Answer, map[*Shape]bool{}) {
				if p.Assumed == "" && d.Matched[p.Label] == 0 {
					t.Errorf("%s accepts members by pattern %q, which its capture never shows: mark it assumed, with why, or drop it", ep.Path, p.Label)
				}
			}
		})
	}
	live, _ := filepath.Glob(filepath.Join("..", "testdata", "contract", "*.live.json"))
	if len(live) < 5 {
		t.Fatalf("found %d live captures", len(live))
	}
	for _, f := range live {
		if !used[filepath.Base(f)] {
			t.Errorf("the live capture %s is no endpoint's contract", filepath.Base(f))
		}
	}
}

// patterns lists the patterns of s and every shape below it.
func patterns(s *Shape, seen map[*Shape]bool) []Pattern {
	if s == nil || seen[s] {
		return nil
	}
	seen[s] = true
	out := append([]Pattern(nil), s.Patterns...)
	for _, m := range s.Members {
		out = append(out, patterns(m.Value, seen)...)
	}
	for _, p := range s.Patterns {
		out = append(out, patterns(p.Value, seen)...)
	}
	return append(out, patterns(s.Elem, seen)...)
}

// TestRowsAreTheSearchCapture: the row members named are exactly the ones
// both rows of the live search capture carry, and the captured details'
// searchResultViewModel is such a row.
func TestRowsAreTheSearchCapture(t *testing.T) {
	want := []string{"lpnId", "lpnSre", "lpnDam", "status", "regNumber"}
	if !reflect.DeepEqual(RowMembers, want) {
		t.Errorf("RowMembers %v, want %v", RowMembers, want)
	}
	ep, ok := For(PathSearch)
	if !ok || ep.Name() != "getPageOfSearchResults" {
		t.Fatalf("For(%q) = %+v, %v", PathSearch, ep, ok)
	}
	if _, ok := For("search/nothing"); ok {
		t.Error("For found an endpoint NSIP does not have")
	}
}

// TestDriftIsNamed reads answers that differ from their contract and
// checks each difference is named by its path, with the members' names as
// sent.
func TestDriftIsNamed(t *testing.T) {
	search, _ := For(PathSearch)
	details, _ := For(PathDetails)
	statuses, _ := For(PathStatuses)
	ranges, _ := For(PathTraitRanges)
	lineage, _ := For(PathLineage)
	for _, tc := range []struct {
		name  string
		shape *Shape
		body  string
		want  Diff
	}{
		{"rich rows", search.Answer,
			`{"recordCount":1,"records":[{"lpnId":"a","lpnSre":null,"lpnDam":null,"status":"CURRENT","regNumber":"",` +
				`"gender":"Male","dateOfBirth":"2/27/2003","breedId":640,"flockCode":"640032","genotyped":"","progenyCount":0,"bwt":0.1,"accbwt":0.5,"usHairIndex":101}]}`,
			Diff{Missing: []string{}, New: []string{"records[].breedId", "records[].dateOfBirth", "records[].flockCode",
				"records[].gender", "records[].genotyped", "records[].progenyCount"}, Changed: []string{}}},
		{"envelope grows and a row loses its dam", search.Answer,
			`{"success":true,"numberOfPages":3,"recordCount":1,"records":[{"lpnId":"a","lpnSre":"b","status":"CURRENT","regNumber":""}]}`,
			Diff{Missing: []string{"records[].lpnDam"}, New: []string{"numberOfPages", "success"}, Changed: []string{}}},
		{"legacy casing", search.Answer,
			`{"TotalCount":1,"Results":[{"LpnId":"a","Bwt":0.1,"AccBwt":80}]}`,
			Diff{Missing: []string{"recordCount", "records"}, New: []string{"Results", "TotalCount"}, Changed: []string{}}},
		{"payload of another kind", details.Answer, `{"success":true,"data":[]}`,
			Diff{Missing: []string{}, New: []string{}, Changed: []string{"data: an array where an object belongs"}}},
		{"statuses become objects", statuses.Answer, `[{"statusId":1}]`,
			Diff{Missing: []string{}, New: []string{}, Changed: []string{"[]: an object where a string belongs"}}},
		{"statuses wrapped", statuses.Answer, `{"success":true,"data":["CURRENT"]}`,
			Diff{Missing: []string{}, New: []string{}, Changed: []string{"the answer: an object where an array belongs"}}},
		{"a range grows a member and a non-code key", ranges.Answer, `{"BWT":{"min":-1,"max":1,"mean":0},"success":true}`,
			Diff{Missing: []string{}, New: []string{"<trait code>.mean", "success"}, Changed: []string{}}},
		{"a pedigree node two levels down", lineage.Answer,
			`{"success":true,"data":{"lpnId":"a","content":"","children":[{"lpnId":"b","content":"","children":[{"lpnId":"c","children":[],"sex":"1"}]}]}}`,
			Diff{Missing: []string{"data.children[].children[].content"}, New: []string{"data.children[].children[].sex"}, Changed: []string{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Compare(tc.shape, []byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			d.Matched = nil
			if !reflect.DeepEqual(d, tc.want) || !d.Drift() {
				t.Errorf("got  %+v\nwant %+v", d, tc.want)
			}
		})
	}
}

func TestCompareNeedsJSON(t *testing.T) {
	ep, _ := For(PathDateLastUpdated)
	for _, body := range []string{"<html>down</html>", `{"date":"1/1/2025"} {}`, ""} {
		if _, err := Compare(ep.Answer, []byte(body)); !errors.Is(err, ErrNotJSON) {
			t.Errorf("%q: %v, want ErrNotJSON", body, err)
		}
	}
}

// TestPatterns: trait pairs and indexes are recognised by name and value,
// so a breed's own traits pass and a new fact does not.
func TestPatterns(t *testing.T) {
	for name, want := range map[string]bool{"bwt": true, "mwwt": true, "ygfw": true, "gender": false, "id": false, "Bwt": false, "b": false, "breedId": false} {
		if got := isTraitMember(name); got != want {
			t.Errorf("isTraitMember(%q) = %v", name, got)
		}
	}
	for name, want := range map[string]bool{"accbwt": true, "accmwwt": true, "acc": false, "accBwt": false, "AccBwt": false} {
		if got := IsAccuracy(name); got != want {
			t.Errorf("isAccuracyMember(%q) = %v", name, got)
		}
	}
	for name, want := range map[string]bool{"usIndex": true, "usHairIndex": true, "srcIndex": true, "src$Index": true, "Index": false, "UsIndex": false, "us_Index": false} {
		if got := isIndexMember(name); got != want {
			t.Errorf("isIndexMember(%q) = %v", name, got)
		}
	}
	for name, want := range map[string]bool{"BWT": true, "PWWT": true, "bwt": false, "B": false, "BW1": false} {
		if got := isTraitCode(name); got != want {
			t.Errorf("isTraitCode(%q) = %v", name, got)
		}
	}
	search, _ := For(PathSearch)
	d, _ := Compare(search.Answer, []byte(`{"recordCount":1,"records":[{"lpnId":"a","lpnSre":null,"lpnDam":null,"status":"","regNumber":"","gender":1,"sex":"2","bwt":"high"}]}`))
	if want := []string{"records[].bwt", "records[].gender", "records[].sex"}; !reflect.DeepEqual(d.New, want) {
		t.Errorf("new %v, want %v: a fact word or a text value is no trait", d.New, want)
	}
}

func TestKindNames(t *testing.T) {
	if Object.String() != "an object" || Kind(42).String() != "kind(42)" {
		t.Errorf("%s, %s", Object, Kind(42))
	}
}
