package nsiptest

import (
	"fmt"
	"strings"
)

// Format selects which JSON dialect the stand-in speaks: the shapes live
// NSIP answers were captured in (the default), or one of the shapes other
// clients assumed without a capture.
type Format int

const (
	// FormatLive is what captures of the live API show: camelCase, the
	// {"success":true,"data":…} envelope for details, lineage and breed
	// groups, progeny pages with their members beside "success" and a
	// numberOfPages, progeny sex as "1"/"2" and birth dates as
	// "2025-02-16T00:00:00", accuracies as fractions (0.8).
	FormatLive Format = iota
	// FormatCurrent is the camelCase dialect assumed before the progeny
	// capture: progeny pages bare, sex as "M"/"F", dates as "05/12/2022".
	FormatCurrent
	// FormatLegacy is the flat PascalCase dialect an early client assumed
	// and no capture ever showed: TotalCount/Results pages, details with
	// Traits {"BWT":{"Value":…,"Accuracy":80}} and ContactInfo, accuracies
	// as whole percents, bare breed group lists.
	FormatLegacy
)

// Formats lists every dialect, live first.
func Formats() []Format { return []Format{FormatLive, FormatCurrent, FormatLegacy} }

func (f Format) String() string {
	switch f {
	case FormatLegacy:
		return "legacy"
	case FormatCurrent:
		return "current"
	}
	return "live"
}

// lean reports whether answers in f carry only the members live captures
// show: the live format does unless the stand-in was asked for rich rows.
// The other formats are other clients' assumptions and keep theirs.
func (f Format) lean(rich bool) bool { return f == FormatLive && !rich }

// ParseFormat reads "live", "current" or "legacy".
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if strings.EqualFold(s, f.String()) {
			return f, nil
		}
	}
	return 0, fmt.Errorf("format %q: want live, current or legacy", s)
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
// bwt/accbwt (fraction) in the camelCase formats, Bwt/AccBwt (percent) in
// the legacy one. A trait without accuracy is its value alone.
func traitPairs(w *jw, f Format, ts []Trait) {
	for _, t := range ts {
		lc := strings.ToLower(t.Code)
		value := func(k string) {
			if t.text != "" {
				w.key(k)
				w.b = append(w.b, t.text...)
				return
			}
			w.num(k, t.Value)
		}
		if f == FormatLegacy {
			tc := name(f, lc)
			value(tc)
			if t.Accuracy >= 0 {
				w.int("Acc"+tc, t.Accuracy)
			}
			continue
		}
		value(lc)
		if t.Accuracy >= 0 {
			w.num("acc"+lc, float64(t.Accuracy)/100)
		}
	}
}

// row writes the flat searchResultViewModel of an animal. In the live
// format it carries what the live captures show (LPN ID, parents, status,
// registration number, traits and indexes) unless rich asks for the members
// other clients assumed (birth date, sex, breed, flock, genotyped, progeny
// count), which no live capture has shown in a row.
func row(w *jw, f Format, a *animal, rich bool) {
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
	if f.lean(rich) {
		traitPairs(w, f, a.Traits)
		for _, ix := range a.Indexes {
			w.num(name(f, ix.Field), ix.Value)
		}
		w.close('}')
		return
	}
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

func renderLastUpdated(date string) []byte {
	w := &jw{}
	w.open('{')
	w.str("date", date)
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

func renderTraitRanges(codes []string, ranges map[string][2]float64) []byte {
	w := &jw{}
	w.open('{')
	for _, code := range codes {
		r := ranges[code]
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
	pageBody(w, listKey, n, each)
	w.close('}')
	return w.b
}

func pageBody(w *jw, listKey string, n int, each func(w *jw, i int)) {
	w.key(listKey)
	w.open('[')
	for i := range n {
		w.sep()
		each(w, i)
	}
	w.close(']')
}

func renderSearch(f Format, total int, rows []*animal, rich bool) []byte {
	return page(f, total, len(rows), func(w *jw, i int) { row(w, f, rows[i], rich) })
}

// renderProgeny writes a progeny page. Live pages carry the page's members
// beside "success", no "data", as captured for 6402382024NCS310:
// {"success":true,"records":[…],"recordCount":25,"numberOfPages":1}, whose
// rows hold an LPN ID, a birth date and a sex code and nothing more; rich
// adds each offspring's traits, as other clients assumed.
func renderProgeny(f Format, total, pageSize int, kids []*animal, rich bool) []byte {
	each := func(w *jw, i int) {
		a := kids[i]
		w.open('{')
		w.str(name(f, "lpnId"), a.LPNID)
		if f == FormatLive {
			w.str("dob", a.Born.Format("2006-01-02T15:04:05"))
			w.str("sex", map[string]string{"Male": "1", "Female": "2"}[a.Gender])
		} else {
			w.str(name(f, "sex"), a.Gender[:1])
			w.str(name(f, "dob"), a.Born.Format("01/02/2006"))
		}
		if !f.lean(rich) {
			traitPairs(w, f, a.Traits)
		}
		w.close('}')
	}
	if f != FormatLive {
		return page(f, total, len(kids), each)
	}
	w := &jw{}
	w.open('{')
	w.bool("success", true)
	pageBody(w, "records", len(kids), each)
	w.int("recordCount", total)
	w.int("numberOfPages", (total+max(pageSize, 1)-1)/max(pageSize, 1))
	w.close('}')
	return w.b
}

func renderDetails(a *animal, f Format, rich bool) []byte {
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
	row(w, f, a, rich)
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
		if t.text != "" {
			w.key("Value")
			w.b = append(w.b, t.text...)
		} else {
			w.num("Value", t.Value)
		}
		if t.Accuracy >= 0 {
			w.int("Accuracy", t.Accuracy)
		}
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
// the subject, as live sessions were seen to show; deeper ancestors are cut
// off with an empty children list.
const LineageDepth = 4

// renderLineage writes a's lineage; with loneDam, a node with both parents
// lists its dam alone (Irregular.OneChildLineages).
func renderLineage(d *Dataset, a *animal, f Format, loneDam bool) []byte {
	w := &jw{}
	end := envelope(w, f)
	var node func(a *animal, gen int)
	node = func(a *animal, gen int) {
		w.open('{')
		w.str(name(f, "lpnId"), a.LPNID)
		w.str(name(f, "content"), content(a, int(a.variant)))
		w.key(name(f, "children"))
		w.open('[')
		if a.Sire != "" && gen < LineageDepth {
			if !loneDam {
				w.sep()
				node(d.byID[a.Sire], gen+1)
			}
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
