package nsip

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// Every method, in both formats, against the stand-in: the decoded values
// must be the stand-in's data, and Raw its exact body.

func TestDateLastUpdated(t *testing.T) {
	for _, f := range formats {
		t.Run(f.String(), func(t *testing.T) {
			s, c := standIn(t, f)
			got, err := c.DateLastUpdated(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			if got.Date != s.Data().LastUpdated() {
				t.Errorf("Date = %q, want %q", got.Date, s.Data().LastUpdated())
			}
			sameBytes(t, "LastUpdate", got.Raw, upstreamBody(t, s, "GET", pathDateLastUpdated, nil, ""))
		})
	}
}

func TestBreedGroups(t *testing.T) {
	for _, f := range formats {
		t.Run(f.String(), func(t *testing.T) {
			s, c := standIn(t, f)
			got, err := c.BreedGroups(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			var want []BreedGroup
			for _, g := range s.Data().BreedGroups() {
				bg := BreedGroup{ID: g.ID, Name: g.Name, Breeds: []Breed{}}
				if f != nsiptest.FormatLegacy { // the PascalCase format lists groups only
					for _, b := range g.Breeds {
						bg.Breeds = append(bg.Breeds, Breed{ID: b.ID, Name: b.Name})
					}
				}
				want = append(want, bg)
			}
			if len(want) < 4 {
				t.Fatalf("stand-in serves %d breed groups; the test needs several", len(want))
			}
			if !reflect.DeepEqual(got.Groups, want) {
				t.Errorf("Groups =\n%+v\nwant\n%+v", got.Groups, want)
			}
			sameBytes(t, "BreedGroups", got.Raw, upstreamBody(t, s, "GET", pathBreedGroups, nil, ""))
		})
	}
}

func TestStatuses(t *testing.T) {
	for _, f := range formats {
		t.Run(f.String(), func(t *testing.T) {
			s, c := standIn(t, f)
			got, err := c.Statuses(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			if want := s.Data().Statuses(); !slices.Equal(got.Values, want) || len(want) == 0 {
				t.Errorf("Values = %q, want %q", got.Values, want)
			}
			sameBytes(t, "Statuses", got.Raw, upstreamBody(t, s, "GET", pathStatuses, nil, ""))
		})
	}
}

func TestTraitRanges(t *testing.T) {
	for _, f := range formats {
		t.Run(f.String(), func(t *testing.T) {
			s, c := standIn(t, f)
			ids := s.Data().BreedIDs()
			breed := ids[len(ids)/2+1]
			got, err := c.TraitRanges(ctxT(t), breed)
			if err != nil {
				t.Fatal(err)
			}
			ranges, _ := s.Data().TraitRanges(breed)
			var want []TraitRange
			for _, code := range s.Data().BreedTraitCodes(breed) {
				r, ok := ranges[code]
				if !ok {
					t.Fatalf("stand-in has no %s range", code)
				}
				want = append(want, TraitRange{Code: code, Range: Range{Min: r.Min, Max: r.Max}})
			}
			slices.SortFunc(want, func(a, b TraitRange) int { return compareTraitCodes(a.Code, b.Code) })
			if got.BreedID != breed || !reflect.DeepEqual(got.Ranges, want) {
				t.Errorf("got breed %d ranges %+v\nwant breed %d ranges %+v", got.BreedID, got.Ranges, breed, want)
			}
			q := url.Values{"breedId": {strconv.Itoa(breed)}}
			sameBytes(t, "TraitRanges", got.Raw, upstreamBody(t, s, "GET", pathTraitRanges, q, ""))
		})
	}
}

// TestTraitRangesNoData: NSIP's 400 for a breed with too few evaluated
// animals is no data, not a bad breed ID.
func TestTraitRangesNoData(t *testing.T) {
	_, c := standIn(t, nsiptest.FormatLive)
	_, err := c.TraitRanges(ctxT(t), nsiptest.NoTraitDataBreed)
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindNoData || e.Status != 400 || e.Retryable() || !strings.Contains(e.Reason, "no trait data for breed 641") {
		t.Fatalf("got %v, want no_data for breed 641", err)
	}
}

// checkRow compares a search row with the generated animal it stands for.
func checkRow(t *testing.T, got AnimalRow, a nsiptest.Animal, f nsiptest.Format) {
	t.Helper()
	if got.LPNID != a.LPNID || got.Sire != a.Sire || got.Dam != a.Dam || got.Status != a.Status || got.RegistrationNumber != a.RegNumber {
		t.Errorf("row %s = {%s %s %s %s %q}, want {%s %s %s %s %q}", a.LPNID, got.LPNID, got.Sire, got.Dam, got.Status,
			got.RegistrationNumber, a.LPNID, a.Sire, a.Dam, a.Status, a.RegNumber)
	}
	if want := wantTraits(a.Traits); !reflect.DeepEqual(got.Traits, want) {
		t.Errorf("row %s traits =\n%+v\nwant\n%+v", a.LPNID, got.Traits, want)
	}
	if want := wantIndexes(a.Indexes); !reflect.DeepEqual(got.Indexes, want) {
		t.Errorf("row %s indexes = %+v, want %+v", a.LPNID, got.Indexes, want)
	}
}

func TestSearchAnimals(t *testing.T) {
	for _, f := range formats {
		t.Run(f.String(), func(t *testing.T) {
			s, c := standIn(t, f)
			d := s.Data()
			breed := d.BreedIDs()[0]
			cases := []struct {
				name   string
				p      SearchParams
				crit   nsiptest.Criteria
				minHit int
			}{
				{"first page, no criteria", SearchParams{Page: 0, PageSize: 10}, nsiptest.Criteria{}, 1000},
				{"breed, sorted, reversed, second page", SearchParams{Page: 1, PageSize: 25, BreedID: breed, SortedTrait: "WWT", Reverse: true}, nsiptest.Criteria{}, 50},
				{"criteria", SearchParams{Page: 0, PageSize: 100, Criteria: SearchCriteria{Gender: "female", BornAfter: "2015-01-01", ProvenOnly: true,
					TraitRanges: map[string]Range{"BWT": {Min: -1, Max: 0.5}}}},
					nsiptest.Criteria{Gender: "Female", BornAfter: "2015-01-01", ProvenOnly: true, TraitRanges: map[string]nsiptest.Range{"BWT": {Min: -1, Max: 0.5}}}, 100},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					got, err := c.SearchAnimals(ctxT(t), tc.p)
					if err != nil {
						t.Fatal(err)
					}
					all, err := d.Search(tc.p.BreedID, tc.crit, tc.p.SortedTrait, tc.p.Reverse)
					if err != nil {
						t.Fatal(err)
					}
					if len(all) < tc.minHit {
						t.Fatalf("only %d animals match; the case needs %d", len(all), tc.minHit)
					}
					want := all[tc.p.Page*tc.p.PageSize : (tc.p.Page+1)*tc.p.PageSize]
					if got.TotalCount != len(all) || got.Page != tc.p.Page || got.PageSize != tc.p.PageSize || len(got.Results) != len(want) {
						t.Fatalf("total %d page %d size %d rows %d; want %d %d %d %d", got.TotalCount, got.Page, got.PageSize, len(got.Results),
							len(all), tc.p.Page, tc.p.PageSize, len(want))
					}
					for i, id := range want {
						a, _ := d.Animal(id)
						checkRow(t, got.Results[i], a, f)
					}
				})
			}
		})
	}
}

// TestSearchRequest checks what goes on the wire: the query, and a JSON body
// even without criteria.
func TestSearchRequest(t *testing.T) {
	var gotQuery url.Values
	var gotBody, gotCT, gotAccept, gotUA string
	c := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		gotQuery, gotCT, gotAccept, gotUA = r.URL.Query(), r.Header.Get("Content-Type"), r.Header.Get("Accept"), r.Header.Get("User-Agent")
		b := make([]byte, 512)
		n, _ := r.Body.Read(b)
		gotBody = string(b[:n])
		fmt.Fprint(w, `{"recordCount":0,"records":[]}`)
	}, WithUserAgent("nsip-test/9"))
	cases := []struct {
		p         SearchParams
		wantQuery url.Values
		wantBody  string
	}{
		{SearchParams{PageSize: 5}, url.Values{"page": {"0"}, "pageSize": {"5"}}, `{}`},
		{SearchParams{Page: 2, PageSize: 100, BreedID: 640, SortedTrait: "BWT", Reverse: true,
			Criteria: SearchCriteria{Status: "CURRENT & SOLD", FlockID: "640238", Gender: "BOTH"}},
			url.Values{"page": {"2"}, "pageSize": {"100"}, "breedId": {"640"}, "sortedBreedTrait": {"BWT"}, "reverse": {"true"}},
			`{"gender":"Both","status":"CURRENT & SOLD","flockId":"640238"}`},
	}
	for _, tc := range cases {
		r, err := c.SearchAnimals(ctxT(t), tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotQuery, tc.wantQuery) || gotBody != tc.wantBody {
			t.Errorf("sent query %v body %s, want %v %s", gotQuery, gotBody, tc.wantQuery, tc.wantBody)
		}
		if gotCT != "application/json" || gotAccept != "application/json, text/plain, */*" || gotUA != "nsip-test/9" {
			t.Errorf("headers: Content-Type %q Accept %q User-Agent %q", gotCT, gotAccept, gotUA)
		}
		if r.TotalCount != 0 || r.Results == nil || len(r.Results) != 0 {
			t.Errorf("empty page decoded as %+v", r)
		}
	}
}

func TestAnimalDetails(t *testing.T) {
	for _, f := range formats {
		t.Run(f.String(), func(t *testing.T) {
			s, c := standIn(t, f)
			d := s.Data()
			var withReg nsiptest.Animal
			for _, id := range d.AnimalIDs() {
				if a, _ := d.Animal(id); a.RegNumber != "" && a.Sire != "" && a.Genotyped != "" {
					withReg = a
					break
				}
			}
			founder, _ := d.Animal(d.Founder())
			for _, tc := range []struct {
				name, search string
				a            nsiptest.Animal
			}{
				{"by LPN ID", withReg.LPNID, withReg},
				{"by LPN ID in lower case with spaces", "  " + strings.ToLower(founder.LPNID) + " ", founder},
				{"by registration number", withReg.RegNumber, withReg},
			} {
				t.Run(tc.name, func(t *testing.T) {
					got, err := c.AnimalDetails(ctxT(t), tc.search)
					if err != nil {
						t.Fatal(err)
					}
					checkDetails(t, got, tc.a, f)
					q := url.Values{"searchString": {strings.TrimSpace(tc.search)}}
					sameBytes(t, "AnimalDetails", got.Raw, upstreamBody(t, s, "GET", pathDetails, q, ""))
				})
			}
		})
	}
}

func checkDetails(t *testing.T, got *AnimalDetails, a nsiptest.Animal, f nsiptest.Format) {
	t.Helper()
	want := AnimalDetails{
		LPNID: a.LPNID, Breed: a.BreedName, DateOfBirth: a.DateOfBirth(), Gender: a.Gender, Status: a.Status,
		Sire: a.Sire, Dam: a.Dam, RegistrationNumber: a.RegNumber, TotalProgeny: a.ProgenyCount,
		FlockCount: a.FlockCount, Genotyped: a.Genotyped, Contact: ContactInfo{
			FarmName: a.Contact.FarmName, ContactName: a.Contact.ContactName, Phone: a.Contact.Phone, Email: a.Contact.Email,
			Address: a.Contact.Address, City: a.Contact.City, State: a.Contact.State, ZipCode: a.Contact.ZipCode},
	}
	if f != nsiptest.FormatLegacy {
		// The camelCase formats name the breed id and flock, not the group.
		want.BreedID, want.Contact.FlockCode = a.BreedID, a.FlockCode
	} else {
		want.BreedGroup = a.BreedGroupName
	}
	gotCore := *got
	gotCore.Traits, gotCore.Indexes, gotCore.Raw = nil, nil, nil
	if !reflect.DeepEqual(gotCore, want) {
		t.Errorf("details =\n%+v\nwant\n%+v", gotCore, want)
	}
	if w := wantTraits(a.Traits); !reflect.DeepEqual(got.Traits, w) {
		t.Errorf("traits =\n%+v\nwant\n%+v", got.Traits, w)
	}
	if w := wantIndexes(a.Indexes); !reflect.DeepEqual(got.Indexes, w) {
		t.Errorf("indexes = %+v, want %+v", got.Indexes, w)
	}
}

// checkNode walks a decoded pedigree alongside the stand-in's animals.
func checkNode(t *testing.T, d *nsiptest.Dataset, n *LineageNode, id string, gen int) (nodes, depth int) {
	t.Helper()
	a, ok := d.Animal(id)
	if n == nil || !ok || n.LPNID != id {
		t.Fatalf("generation %d: node %+v, want animal %q", gen, n, id)
	}
	farm := strings.Join(strings.Fields(a.Contact.FarmName), " ")
	if n.Content != a.Content || n.Farm != farm || n.Sex != a.Gender {
		t.Errorf("node %s: farm %q sex %q, want %q %q", id, n.Farm, n.Sex, farm, a.Gender)
	}
	// Some fragments leave out DOB, Status or the indexes; what is there
	// must match.
	if (n.DOB != "" || strings.Contains(a.Content, "DOB:")) && n.DOB != a.DateOfBirth() {
		t.Errorf("node %s: DOB %q, want %q", id, n.DOB, a.DateOfBirth())
	}
	if (n.Status != "" || strings.Contains(a.Content, "Status:")) && n.Status != a.Status {
		t.Errorf("node %s: status %q, want %q", id, n.Status, a.Status)
	}
	if (len(n.Indexes) > 0 || strings.Contains(a.Content, "Index:")) && !reflect.DeepEqual(sortedIndexes(n.Indexes), wantIndexes(a.Indexes)) {
		t.Errorf("node %s: indexes %+v, want %+v", id, n.Indexes, a.Indexes)
	}
	nodes, depth = 1, gen
	if gen == nsiptest.LineageDepth || a.Sire == "" {
		if n.Sire != nil || n.Dam != nil {
			t.Errorf("node %s (generation %d) has parents beyond the served tree", id, gen)
		}
		return nodes, depth
	}
	for _, p := range []struct {
		n  *LineageNode
		id string
	}{{n.Sire, a.Sire}, {n.Dam, a.Dam}} {
		k, dp := checkNode(t, d, p.n, p.id, gen+1)
		nodes, depth = nodes+k, max(depth, dp)
	}
	return nodes, depth
}

func TestLineage(t *testing.T) {
	for _, f := range formats {
		t.Run(f.String(), func(t *testing.T) {
			s, c := standIn(t, f)
			id := s.Data().DeepPedigree()
			got, err := c.Lineage(ctxT(t), id)
			if err != nil {
				t.Fatal(err)
			}
			nodes, depth := checkNode(t, s.Data(), &got.Subject, id, 0)
			if depth != nsiptest.LineageDepth || nodes != 1<<(nsiptest.LineageDepth+1)-1 {
				t.Errorf("tree of %d nodes, %d generations deep; want the full %d-generation tree", nodes, depth, nsiptest.LineageDepth)
			}
			sameBytes(t, "Lineage", got.Raw, upstreamBody(t, s, "GET", pathLineage, url.Values{"lpnId": {id}}, ""))
		})
	}
}

func TestProgeny(t *testing.T) {
	for _, f := range formats {
		t.Run(f.String(), func(t *testing.T) {
			s, c := standIn(t, f)
			d := s.Data()
			for _, tc := range []struct {
				id             string
				page, pageSize int
			}{{d.MostProgeny(), 2, 30}, {d.NoProgeny(), 0, 10}} {
				got, err := c.Progeny(ctxT(t), tc.id, tc.page, tc.pageSize)
				if err != nil {
					t.Fatal(err)
				}
				all := d.Progeny(tc.id)
				want := all[min(len(all), tc.page*tc.pageSize):min(len(all), (tc.page+1)*tc.pageSize)]
				wantPages := 0
				if f == nsiptest.FormatLive {
					wantPages = (len(all) + tc.pageSize - 1) / tc.pageSize
				}
				if got.NumberOfPages != wantPages {
					t.Errorf("NumberOfPages %d, want %d", got.NumberOfPages, wantPages)
				}
				if got.LPNID != tc.id || got.TotalCount != len(all) || got.Page != tc.page || got.PageSize != tc.pageSize || len(got.Animals) != len(want) {
					t.Fatalf("page %+v, want %s total %d page %d size %d with %d rows", got, tc.id, len(all), tc.page, tc.pageSize, len(want))
				}
				for i, kid := range want {
					a, _ := d.Animal(kid)
					r := got.Animals[i]
					dob := a.Born.Format("01/02/2006")
					if f == nsiptest.FormatLive {
						dob = a.Born.Format("2006-01-02T15:04:05")
					}
					// The sex is Male or Female whether NSIP sent 1/2 or M/F.
					if r.LPNID != kid || r.Sex != a.Gender || r.DateOfBirth != dob {
						t.Errorf("row %d = %s %s %s, want %s %s %s", i, r.LPNID, r.Sex, r.DateOfBirth, kid, a.Gender, dob)
					}
					// Live progeny rows carry no traits, as captured.
					w := wantTraits(a.Traits)
					if f == nsiptest.FormatLive {
						w = nil
					}
					if !reflect.DeepEqual(r.Traits, w) {
						t.Errorf("row %d traits = %+v, want %+v", i, r.Traits, w)
					}
				}
				q := url.Values{"lpnId": {tc.id}, "page": {strconv.Itoa(tc.page)}, "pageSize": {strconv.Itoa(tc.pageSize)}}
				sameBytes(t, "Progeny", got.Raw, upstreamBody(t, s, "GET", pathProgeny, q, ""))
			}
		})
	}
}

// TestMixedFormats: one server speaking both dialects, per animal.
func TestMixedFormats(t *testing.T) {
	s, c := standIn(t, nsiptest.FormatCurrent)
	d := s.Data()
	id := d.MostProgeny()
	s.SetAnimalFormat(id, nsiptest.FormatLegacy)
	a, _ := d.Animal(id)
	got, err := c.AnimalDetails(ctxT(t), id)
	if err != nil {
		t.Fatal(err)
	}
	checkDetails(t, got, a, nsiptest.FormatLegacy)
}

func TestByLPN(t *testing.T) {
	for _, f := range formats {
		t.Run(f.String(), func(t *testing.T) {
			s, c := standIn(t, f)
			d := s.Data()
			id := d.MostProgeny()
			a, _ := d.Animal(id)
			got, err := c.ByLPN(ctxT(t), " "+id+" ")
			if err != nil {
				t.Fatal(err)
			}
			checkDetails(t, got.Details, a, f)
			if got.Lineage.Subject.LPNID != id || got.Progeny.LPNID != id || got.Progeny.TotalCount != a.ProgenyCount ||
				got.Progeny.PageSize != ProfilePageSize || len(got.Progeny.Animals) != ProfilePageSize {
				t.Errorf("lineage of %s, progeny %s total %d size %d rows %d; want %s, %d, %d", got.Lineage.Subject.LPNID, got.Progeny.LPNID,
					got.Progeny.TotalCount, got.Progeny.PageSize, len(got.Progeny.Animals), id, a.ProgenyCount, ProfilePageSize)
			}
			if first := d.Progeny(id)[0]; got.Progeny.Animals[0].LPNID != first {
				t.Errorf("first offspring %s, want %s", got.Progeny.Animals[0].LPNID, first)
			}
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(got.Raw, &raw); err != nil || len(raw) != 3 {
				t.Fatalf("Raw is not a three-member object: %v %s", err, got.Raw)
			}
			sameBytes(t, "profile details", raw["details"], upstreamBody(t, s, "GET", pathDetails, url.Values{"searchString": {id}}, ""))
			sameBytes(t, "profile lineage", raw["lineage"], upstreamBody(t, s, "GET", pathLineage, url.Values{"lpnId": {id}}, ""))
			sameBytes(t, "profile progeny", raw["progeny"], upstreamBody(t, s, "GET", pathProgeny,
				url.Values{"lpnId": {id}, "page": {"0"}, "pageSize": {strconv.Itoa(ProfilePageSize)}}, ""))
		})
	}
}
