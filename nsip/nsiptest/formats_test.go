package nsiptest_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

var formats = nsiptest.Formats()

// key spells a camelCase key as format f does.
func key(f nsiptest.Format, camel string) string {
	if f == nsiptest.FormatLegacy {
		return strings.ToUpper(camel[:1]) + camel[1:]
	}
	return camel
}

// emptyAs is how a format writes a value that is not there.
func emptyAs(f nsiptest.Format, v string) any {
	if v == "" && f != nsiptest.FormatLegacy {
		return nil
	}
	return v
}

// traitsWant adds the flat trait pairs of a to m as format f spells them.
func traitsWant(f nsiptest.Format, m map[string]any, a nsiptest.Animal) {
	for _, tr := range a.Traits {
		lc := strings.ToLower(tr.Code)
		switch {
		case f == nsiptest.FormatLegacy:
			m[key(f, lc)] = tr.Value
			if tr.Accuracy >= 0 {
				m["Acc"+key(f, lc)] = float64(tr.Accuracy)
			}
		default:
			m[lc] = tr.Value
			if tr.Accuracy >= 0 {
				m["acc"+lc] = float64(tr.Accuracy) / 100
			}
		}
	}
}

// rowWant is the search row the package documentation promises for a.
// rowWant is a search row as served: in the live format with only the
// members the live capture shows, in the others with what their clients
// assumed as well.
func rowWant(f nsiptest.Format, a nsiptest.Animal) map[string]any {
	m := map[string]any{
		key(f, "lpnId"): a.LPNID, key(f, "lpnSre"): emptyAs(f, a.Sire), key(f, "lpnDam"): emptyAs(f, a.Dam),
		key(f, "status"): a.Status, key(f, "regNumber"): a.RegNumber,
	}
	if f != nsiptest.FormatLive {
		for k, v := range map[string]any{"dateOfBirth": a.DateOfBirth(), "gender": a.Gender, "breedId": float64(a.BreedID),
			"flockCode": a.FlockCode, "genotyped": a.Genotyped, "progenyCount": float64(a.ProgenyCount)} {
			m[key(f, k)] = v
		}
	}
	traitsWant(f, m, a)
	for _, ix := range a.Indexes {
		m[key(f, ix.Field)] = ix.Value
	}
	return m
}

func detailsWant(f nsiptest.Format, a nsiptest.Animal) any {
	c := a.Contact
	if f == nsiptest.FormatLegacy {
		traits := map[string]any{}
		for _, tr := range a.Traits {
			traits[tr.Code] = map[string]any{"Value": tr.Value, "Accuracy": float64(tr.Accuracy)}
			if tr.Accuracy < 0 {
				traits[tr.Code] = map[string]any{"Value": tr.Value}
			}
		}
		m := map[string]any{
			"LpnId": a.LPNID, "Breed": a.BreedName, "BreedGroup": a.BreedGroupName, "DateOfBirth": a.DateOfBirth(),
			"Gender": a.Gender, "Status": a.Status, "Sire": a.Sire, "Dam": a.Dam, "RegistrationNumber": a.RegNumber,
			"TotalProgeny": float64(a.ProgenyCount), "FlockCount": a.FlockCount, "Genotyped": a.Genotyped,
			"Traits": traits,
			"ContactInfo": map[string]any{"FarmName": c.FarmName, "ContactName": c.ContactName, "Phone": c.Phone,
				"Email": c.Email, "Address": c.Address, "City": c.City, "State": c.State, "ZipCode": c.ZipCode},
		}
		for _, ix := range a.Indexes {
			m[key(f, ix.Field)] = ix.Value
		}
		return m
	}
	return map[string]any{"success": true, "data": map[string]any{
		"progenyCount": float64(a.ProgenyCount), "dateOfBirth": a.DateOfBirth(), "gender": a.Gender,
		"genotyped": a.Genotyped, "flockCount": a.FlockCount,
		"breed": map[string]any{"breedName": a.BreedName, "breedId": float64(a.BreedID),
			"breedDisplayString": fmt.Sprintf("%d - %s", a.BreedID, a.BreedName)},
		"searchResultViewModel": rowWant(f, a),
		"contactInfo": map[string]any{"flockCode": c.FlockCode, "farmName": emptyAs(f, c.FarmName),
			"customerName": emptyAs(f, c.ContactName), "phone": emptyAs(f, c.Phone), "email": emptyAs(f, c.Email),
			"address": emptyAs(f, c.Address), "city": emptyAs(f, c.City), "state": emptyAs(f, c.State),
			"zipCode": emptyAs(f, c.ZipCode)},
	}}
}

// lineageWant builds the pedigree tree of id down to the depth cap.
func lineageWant(t *testing.T, f nsiptest.Format, d *nsiptest.Dataset, id string, gen int) map[string]any {
	a := animal(t, d, id)
	kids := []any{}
	if a.Sire != "" && gen < nsiptest.LineageDepth {
		kids = append(kids, lineageWant(t, f, d, a.Sire, gen+1), lineageWant(t, f, d, a.Dam, gen+1))
	}
	return map[string]any{key(f, "lpnId"): a.LPNID, key(f, "content"): a.Content, key(f, "children"): kids}
}

// wrap adds the camelCase formats' envelope.
func wrap(f nsiptest.Format, v any) any {
	if f == nsiptest.FormatLegacy {
		return v
	}
	return map[string]any{"success": true, "data": v}
}

// pageWant is a search or progeny page.
func pageWant(f nsiptest.Format, total int, rows []any) any {
	if f == nsiptest.FormatLegacy {
		return map[string]any{"TotalCount": float64(total), "Results": rows}
	}
	return map[string]any{"recordCount": float64(total), "records": rows}
}

func generic(t *testing.T, r reply) any {
	t.Helper()
	var v any
	decode200(t, r, &v)
	return v
}

func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s:\n got %.1500s\nwant %.1500s", what, g, w)
	}
}

func TestEndpointsInBothFormats(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 3, Animals: 1500})
	d := srv.Data()
	deep, founder, parent := d.DeepPedigree(), d.Founder(), d.MostProgeny()
	for _, f := range formats {
		srv.SetFormat(f)
		t.Run(f.String(), func(t *testing.T) {
			sameJSON(t, "last updated", generic(t, get(t, srv, nsiptest.EndpointLastUpdated)),
				map[string]any{"date": d.LastUpdated()})

			var groups []any
			for _, g := range d.BreedGroups() {
				if f == nsiptest.FormatLegacy {
					groups = append(groups, map[string]any{"Id": float64(g.ID), "Name": g.Name})
					continue
				}
				var breeds []any
				for _, b := range g.Breeds {
					breeds = append(breeds, map[string]any{"breedId": float64(b.ID), "breedName": b.Name})
				}
				groups = append(groups, map[string]any{"breedGroupId": float64(g.ID), "breedGroupName": g.Name, "breeds": breeds})
			}
			sameJSON(t, "breed groups", generic(t, get(t, srv, nsiptest.EndpointBreedGroups)), wrap(f, groups))

			var sts []any
			for _, s := range d.Statuses() {
				sts = append(sts, s)
			}
			sameJSON(t, "statuses", generic(t, get(t, srv, nsiptest.EndpointStatuses)), sts)

			rg, ok := d.TraitRanges(640)
			// Katahdins have the thirteen and four more (MWWT, NLW, WFEC, PFEC).
			if !ok || len(rg) != 17 || len(d.BreedTraitCodes(640)) != 17 {
				t.Fatalf("TraitRanges(640) = %d ranges, %v; want 17", len(rg), ok)
			}
			wantRanges := map[string]any{}
			for code, r := range rg {
				if r.Min > r.Max {
					t.Errorf("%s range %v: min above max", code, r)
				}
				wantRanges[code] = map[string]any{"min": r.Min, "max": r.Max}
			}
			sameJSON(t, "trait ranges", generic(t, get(t, srv, nsiptest.EndpointTraitRanges+"?breedId=640")), wantRanges)

			all, err := d.Search(0, nsiptest.Criteria{}, "", false)
			if err != nil {
				t.Fatal(err)
			}
			var rows []any
			for _, id := range all[15:30] {
				rows = append(rows, rowWant(f, animal(t, d, id)))
			}
			sameJSON(t, "search page 1",
				generic(t, do(t, srv, "POST", nsiptest.EndpointSearch+"?page=1&pageSize=15", "{}")),
				pageWant(f, len(all), rows))

			for _, id := range []string{deep, founder} {
				sameJSON(t, "details of "+id, generic(t, get(t, srv, nsiptest.EndpointDetails+"?searchString="+id)),
					detailsWant(f, animal(t, d, id)))
				sameJSON(t, "lineage of "+id, generic(t, get(t, srv, nsiptest.EndpointLineage+"?lpnId="+id)),
					wrap(f, lineageWant(t, f, d, id, 0)))
			}

			kids := d.Progeny(parent)
			var prows []any
			for _, id := range kids[10:20] {
				a := animal(t, d, id)
				m := map[string]any{key(f, "lpnId"): id, key(f, "sex"): a.Gender[:1],
					key(f, "dob"): a.Born.Format("01/02/2006")}
				if f == nsiptest.FormatLive {
					m["sex"] = map[string]any{"Male": "1", "Female": "2"}[a.Gender]
					m["dob"] = a.Born.Format("2006-01-02") + "T00:00:00"
				} else {
					traitsWant(f, m, a) // the live capture's rows carry no traits
				}
				prows = append(prows, m)
			}
			want := pageWant(f, len(kids), prows)
			if f == nsiptest.FormatLive {
				// Captured live: the page's members beside success, with NSIP's own page count.
				want.(map[string]any)["success"] = true
				want.(map[string]any)["numberOfPages"] = float64((len(kids) + 9) / 10)
			}
			sameJSON(t, "progeny page 1", generic(t, get(t, srv, nsiptest.EndpointProgeny+"?lpnId="+parent+"&page=1&pageSize=10")), want)
		})
	}
}

func TestAnimalFormatOverridesServerFormat(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 3, Animals: 1500})
	d := srv.Data()
	old, cur := d.MostProgeny(), d.DeepPedigree()
	srv.SetAnimalFormat(old, nsiptest.FormatLegacy)

	hasKey := func(r reply, k string) bool {
		var m map[string]json.RawMessage
		decode200(t, r, &m)
		_, ok := m[k]
		return ok
	}
	for _, c := range []struct {
		path, key string
	}{
		{nsiptest.EndpointDetails + "?searchString=" + old, "LpnId"},
		{nsiptest.EndpointLineage + "?lpnId=" + old, "LpnId"},
		{nsiptest.EndpointProgeny + "?page=0&pageSize=5&lpnId=" + old, "TotalCount"},
		{nsiptest.EndpointDetails + "?searchString=" + cur, "success"},
		{nsiptest.EndpointLineage + "?lpnId=" + cur, "success"},
		{nsiptest.EndpointProgeny + "?page=0&pageSize=5&lpnId=" + cur, "recordCount"},
	} {
		if !hasKey(get(t, srv, c.path), c.key) {
			t.Errorf("GET %s: no %q key", c.path, c.key)
		}
	}
	if !hasKey(do(t, srv, "POST", nsiptest.EndpointSearch+"?page=0&pageSize=5", "{}"), "recordCount") {
		t.Error("search left the server's current format")
	}
	srv.SetFormat(nsiptest.FormatLegacy)
	srv.SetAnimalFormat(old, nsiptest.FormatCurrent)
	if !hasKey(get(t, srv, nsiptest.EndpointDetails+"?searchString="+old), "success") {
		t.Error("animal set back to current still answers legacy")
	}
	if !hasKey(get(t, srv, nsiptest.EndpointDetails+"?searchString="+cur), "LpnId") {
		t.Error("server switched to legacy but an animal without its own format answers current")
	}
}

func TestDetailsLookups(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 3, Animals: 1500})
	d := srv.Data()
	var withReg nsiptest.Animal
	for _, id := range d.AnimalIDs() {
		if a := animal(t, d, id); a.RegNumber != "" {
			withReg = a
			break
		}
	}
	if withReg.LPNID == "" {
		t.Fatal("no animal has a registration number")
	}
	for _, s := range []string{withReg.LPNID, strings.ToLower(withReg.LPNID), withReg.RegNumber} {
		got := unwrap[struct {
			View struct {
				LpnID string `json:"lpnId"`
			} `json:"searchResultViewModel"`
		}](t, get(t, srv, nsiptest.EndpointDetails+"?searchString="+s))
		if got.View.LpnID != withReg.LPNID {
			t.Errorf("searchString=%s found %q, want %q", s, got.View.LpnID, withReg.LPNID)
		}
	}
}

// TestExampleAnimals: the ram the README and tool descriptions name is
// served with his sire, dam and 25 offspring, and his progeny page is the
// captured live shape.
func TestExampleAnimals(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
	d := srv.Data()
	ram := animal(t, d, nsiptest.ExampleRam)
	if ram.Sire != nsiptest.ExampleSire || ram.Dam != nsiptest.ExampleDam || ram.Gender != "Male" ||
		ram.DateOfBirth() != "2/13/2024" || ram.Status != "CURRENT" || ram.ProgenyCount != 25 || ram.BreedID != 640 {
		t.Fatalf("example ram = %+v", ram)
	}
	animal(t, d, nsiptest.ExampleSire)
	animal(t, d, nsiptest.ExampleDam)
	var got struct {
		Success       bool `json:"success"`
		RecordCount   int  `json:"recordCount"`
		NumberOfPages int  `json:"numberOfPages"`
		Records       []struct {
			LPNID string `json:"lpnId"`
			Sex   string `json:"sex"`
			DOB   string `json:"dob"`
		} `json:"records"`
	}
	decode200(t, get(t, srv, nsiptest.EndpointProgeny+"?lpnId="+nsiptest.ExampleRam+"&page=0&pageSize=100"), &got)
	if !got.Success || got.RecordCount != 25 || got.NumberOfPages != 1 || len(got.Records) != 25 {
		t.Fatalf("progeny page: success %v, %d records of %d, %d pages", got.Success, len(got.Records), got.RecordCount, got.NumberOfPages)
	}
	for _, r := range got.Records {
		if (r.Sex != "1" && r.Sex != "2") || !strings.HasPrefix(r.LPNID, "6401492025FLE") || !strings.HasSuffix(r.DOB, "T00:00:00") {
			t.Errorf("offspring row %+v is not in the live shape", r)
		}
	}
	if r := get(t, srv, nsiptest.EndpointTraitRanges+"?breedId=641"); r.status != 400 {
		t.Errorf("trait ranges of breed 641: HTTP %d, want 400 (no trait data)", r.status)
	}
}
