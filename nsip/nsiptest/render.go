package nsiptest

import (
	"fmt"
	"strings"
)

// Format selects which of the API's two JSON dialects the stand-in speaks.
type Format int

const (
	// FormatCurrent is camelCase with the {"success":true,"data":…}
	// envelope where the API uses one, recordCount/records pages and
	// accuracies as fractions (0.8).
	FormatCurrent Format = iota
	// FormatLegacy is the older flat PascalCase dialect: TotalCount/Results
	// pages, details with Traits {"BWT":{"Value":…,"Accuracy":80}} and
	// ContactInfo, accuracies as whole percents, bare breed group lists.
	FormatLegacy
)

func (f Format) String() string {
	if f == FormatLegacy {
		return "legacy"
	}
	return "current"
}

// ParseFormat reads "current" or "legacy".
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "current":
		return FormatCurrent, nil
	case "legacy":
		return FormatLegacy, nil
	}
	return 0, fmt.Errorf("format %q: want current or legacy", s)
}

// name spells a current-format key in the given format: the legacy dialect
// capitalises the first letter.
func name(f Format, camel string) string {
	if f == FormatLegacy {
		return strings.ToUpper(camel[:1]) + camel[1:]
	}
	return camel
}

// traitPairs writes value and accuracy of every trait as flat pairs:
// bwt/accbwt (fraction) in the current format, Bwt/AccBwt (percent) in the
// legacy one.
func traitPairs(w *jw, f Format, ts []Trait) {
	for _, t := range ts {
		lc := strings.ToLower(t.Code)
		if f == FormatLegacy {
			tc := name(f, lc)
			w.num(tc, t.Value)
			w.int("Acc"+tc, t.Accuracy)
			continue
		}
		w.num(lc, t.Value)
		w.num("acc"+lc, float64(t.Accuracy)/100)
	}
}

// row writes the flat searchResultViewModel of an animal.
func row(w *jw, f Format, a *animal) {
	w.open('{')
	w.str(name(f, "lpnId"), a.LPNID)
	parent := w.strOrNull
	if f == FormatLegacy {
		parent = w.str
	}
	parent(name(f, "lpnSre"), a.Sire)
	parent(name(f, "lpnDam"), a.Dam)
	w.str(name(f, "status"), a.Status)
	w.str(name(f, "regNumber"), a.RegNumber)
	w.str(name(f, "dateOfBirth"), a.DateOfBirth())
	w.str(name(f, "gender"), a.Gender)
	w.int(name(f, "breedId"), a.BreedID)
	w.str(name(f, "flockCode"), a.FlockCode)
	w.str(name(f, "genotyped"), a.Genotyped)
	w.int(name(f, "progenyCount"), a.ProgenyCount)
	traitPairs(w, f, a.Traits)
	for _, ix := range a.Indexes {
		w.num(name(f, ix.Field), ix.Value)
	}
	w.close('}')
}

// envelope opens {"success":true,"data": for the current format; the legacy
// format sends the payload bare. The returned func closes what was opened.
func envelope(w *jw, f Format) func() {
	if f == FormatLegacy {
		return func() {}
	}
	w.open('{')
	w.bool("success", true)
	w.key("data")
	return func() { w.close('}') }
}

func renderLastUpdated(d *Dataset) []byte {
	w := &jw{}
	w.open('{')
	w.str("date", d.lastUpdated)
	w.close('}')
	return w.b
}

func renderBreedGroups(d *Dataset, f Format) []byte {
	w := &jw{}
	end := envelope(w, f)
	w.open('[')
	for _, g := range d.groups {
		w.sep()
		w.open('{')
		if f == FormatLegacy {
			w.int("Id", g.ID)
			w.str("Name", g.Name)
			w.close('}')
			continue
		}
		w.int("breedGroupId", g.ID)
		w.str("breedGroupName", g.Name)
		w.key("breeds")
		w.open('[')
		for _, b := range g.Breeds {
			w.sep()
			w.open('{')
			w.int("breedId", b.ID)
			w.str("breedName", b.Name)
			w.close('}')
		}
		w.close(']')
		w.close('}')
	}
	w.close(']')
	end()
	return w.b
}

func renderStatuses() []byte {
	w := &jw{}
	w.open('[')
	for _, s := range statuses {
		w.sep()
		w.quote(s)
	}
	w.close(']')
	return w.b
}

func renderTraitRanges(d *Dataset, breedID int) []byte {
	w := &jw{}
	w.open('{')
	for _, code := range traitCodes {
		r := d.ranges[breedID][code]
		w.key(code)
		w.open('{')
		w.num("min", r[0])
		w.num("max", r[1])
		w.close('}')
	}
	w.close('}')
	return w.b
}

// page writes {"recordCount":n,"records":[…]} (TotalCount/Results in the
// legacy format) with one call of each per record.
func page(f Format, total int, n int, each func(w *jw, i int)) []byte {
	countKey, listKey := "recordCount", "records"
	if f == FormatLegacy {
		countKey, listKey = "TotalCount", "Results"
	}
	w := &jw{}
	w.open('{')
	w.int(countKey, total)
	w.key(listKey)
	w.open('[')
	for i := range n {
		w.sep()
		each(w, i)
	}
	w.close(']')
	w.close('}')
	return w.b
}

func renderSearch(f Format, total int, rows []*animal) []byte {
	return page(f, total, len(rows), func(w *jw, i int) { row(w, f, rows[i]) })
}

func renderProgeny(f Format, total int, kids []*animal) []byte {
	return page(f, total, len(kids), func(w *jw, i int) {
		a := kids[i]
		w.open('{')
		w.str(name(f, "lpnId"), a.LPNID)
		w.str(name(f, "sex"), a.Gender[:1])
		w.str(name(f, "dob"), a.Born.Format("01/02/2006"))
		traitPairs(w, f, a.Traits)
		w.close('}')
	})
}

func renderDetails(a *animal, f Format) []byte {
	w := &jw{}
	if f == FormatLegacy {
		legacyDetails(w, a)
		return w.b
	}
	end := envelope(w, f)
	w.open('{')
	w.int("progenyCount", a.ProgenyCount)
	w.str("dateOfBirth", a.DateOfBirth())
	w.str("gender", a.Gender)
	w.str("genotyped", a.Genotyped)
	w.str("flockCount", a.FlockCount)
	w.key("breed")
	w.open('{')
	w.str("breedName", a.BreedName)
	w.str("breedDisplayString", fmt.Sprintf("%d - %s", a.BreedID, a.BreedName))
	w.int("breedId", a.BreedID)
	w.close('}')
	w.key("searchResultViewModel")
	row(w, f, a)
	c := a.Contact
	w.key("contactInfo")
	w.open('{')
	w.str("flockCode", c.FlockCode)
	for _, kv := range [][2]string{{"farmName", c.FarmName}, {"customerName", c.ContactName},
		{"phone", c.Phone}, {"email", c.Email}, {"address", c.Address}, {"city", c.City},
		{"state", c.State}, {"zipCode", c.ZipCode}} {
		w.strOrNull(kv[0], kv[1])
	}
	w.close('}')
	w.close('}')
	end()
	return w.b
}

func legacyDetails(w *jw, a *animal) {
	w.open('{')
	w.str("LpnId", a.LPNID)
	w.str("Breed", a.BreedName)
	w.str("BreedGroup", a.BreedGroupName)
	w.str("DateOfBirth", a.DateOfBirth())
	w.str("Gender", a.Gender)
	w.str("Status", a.Status)
	w.str("Sire", a.Sire)
	w.str("Dam", a.Dam)
	w.str("RegistrationNumber", a.RegNumber)
	w.int("TotalProgeny", a.ProgenyCount)
	w.str("FlockCount", a.FlockCount)
	w.str("Genotyped", a.Genotyped)
	w.key("Traits")
	w.open('{')
	for _, t := range a.Traits {
		w.key(t.Code)
		w.open('{')
		w.num("Value", t.Value)
		w.int("Accuracy", t.Accuracy)
		w.close('}')
	}
	w.close('}')
	for _, ix := range a.Indexes {
		w.num(name(FormatLegacy, ix.Field), ix.Value)
	}
	c := a.Contact
	w.key("ContactInfo")
	w.open('{')
	for _, kv := range [][2]string{{"FarmName", c.FarmName}, {"ContactName", c.ContactName},
		{"Phone", c.Phone}, {"Email", c.Email}, {"Address", c.Address}, {"City", c.City},
		{"State", c.State}, {"ZipCode", c.ZipCode}} {
		w.str(kv[0], kv[1])
	}
	w.close('}')
	w.close('}')
}

// LineageDepth is how many generations of ancestors getLineage nests below
// the subject; deeper ancestors are cut off with an empty children list.
const LineageDepth = 6

func renderLineage(d *Dataset, a *animal, f Format) []byte {
	w := &jw{}
	end := envelope(w, f)
	var node func(a *animal, gen int)
	node = func(a *animal, gen int) {
		w.open('{')
		w.str(name(f, "lpnId"), a.LPNID)
		w.str(name(f, "content"), a.Content)
		w.key(name(f, "children"))
		w.open('[')
		if a.Sire != "" && gen < LineageDepth {
			w.sep()
			node(d.byID[a.Sire], gen+1)
			w.sep()
			node(d.byID[a.Dam], gen+1)
		}
		w.close(']')
		w.close('}')
	}
	node(a, 0)
	end()
	return w.b
}

// renderError is the body of a 4xx answer.
func renderError(f Format, msg string) []byte {
	w := &jw{}
	w.open('{')
	if f == FormatLegacy {
		w.str("Message", msg)
	} else {
		w.bool("success", false)
		w.str("message", msg)
	}
	w.close('}')
	return w.b
}
