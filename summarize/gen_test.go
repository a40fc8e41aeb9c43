package summarize

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// gen makes nsip models together with upstream JSON that decodes to them,
// in the current (wrapped, camelCase) or the old (flat, PascalCase) format.
type gen struct {
	r       *rand.Rand
	old     bool // write the old format
	unicode bool // contact data and farms in several scripts
	sparse  bool // leave fields and accuracies out now and then
	huge    int  // when > 0, some string fields are this many bytes long
}

func newGen(seed int64) *gen { return &gen{r: rand.New(rand.NewSource(seed))} }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) lpn() string {
	return fmt.Sprintf("640%04d%d%s%03d", g.r.Intn(10000), 2015+g.r.Intn(10), g.letters(3), g.r.Intn(1000))
}

func (g *gen) letters(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('A' + g.r.Intn(26))
	}
	return string(b)
}

var (
	farmWords    = []string{"Maple", "Creek", "Ridge", "Hollow", "Valley", "Pine", "Stone", "Meadow"}
	unicodeWords = []string{"Ferme Étoilée", "Schäferei Müller", "牧場さくら", "Овечья ферма", "Ñandú Ranch", "🐑 Woolly Acres", "Ōtautahi Flock"}
)

func (g *gen) farm() string {
	if g.unicode && g.chance(0.6) {
		return unicodeWords[g.r.Intn(len(unicodeWords))]
	}
	return farmWords[g.r.Intn(len(farmWords))] + " " + farmWords[g.r.Intn(len(farmWords))] + " Farm"
}

// text is an ordinary value of a string field, or a huge one now and then.
func (g *gen) text(s string) string {
	if g.huge > 0 && g.chance(0.3) {
		return strings.Repeat(s+" ", g.huge/(len(s)+1)+1)[:g.huge]
	}
	return s
}

func (g *gen) maybe(s string) string {
	if g.sparse && g.chance(0.25) {
		return ""
	}
	return s
}

func (g *gen) contact() nsip.ContactInfo {
	name := "Pat Jones"
	if g.unicode {
		name = []string{"José Núñez", "Zoë Ångström", "李小龙", "Ольга Петрова"}[g.r.Intn(4)]
	}
	return nsip.ContactInfo{
		FlockCode:   g.maybe(fmt.Sprintf("640%03d", g.r.Intn(1000))),
		FarmName:    g.maybe(g.text(g.farm())),
		ContactName: g.maybe(name),
		Phone:       g.maybe(fmt.Sprintf("(%03d) 555-%04d", 200+g.r.Intn(700), g.r.Intn(10000))),
		Email:       g.maybe(fmt.Sprintf("flock%d@example.org", g.r.Intn(1000))),
		Address:     g.maybe(g.text(fmt.Sprintf("%d Old Mill Rd", 1+g.r.Intn(9999)))),
		City:        g.maybe("Raleigh"),
		State:       g.maybe("NC"),
		ZipCode:     g.maybe(fmt.Sprintf("%05d", g.r.Intn(100000))),
	}
}

func (g *gen) traits() []nsip.Trait {
	var ts []nsip.Trait
	for _, c := range nsip.TraitCodes {
		if g.sparse && g.chance(0.2) {
			continue
		}
		t := nsip.Trait{Code: c, Value: float64(g.r.Intn(4000)-2000) / 1000, Accuracy: float64(g.r.Intn(100)), HasAccuracy: true}
		if g.sparse && g.chance(0.2) {
			t.Accuracy, t.HasAccuracy = 0, false
		}
		ts = append(ts, t)
	}
	return ts
}

func (g *gen) indexes() []nsip.Index {
	return []nsip.Index{{Name: "SRC$ Index", Value: float64(g.r.Intn(4000)) / 100}, {Name: "US Hair Index", Value: float64(8000+g.r.Intn(4000)) / 100}}
}

// rowJSON writes an animal row as the upstream does: trait pairs flattened.
func (g *gen) rowJSON(id, sire, dam, status string, ts []nsip.Trait, ix []nsip.Index) map[string]any {
	m := map[string]any{}
	key := func(cur, old string) string {
		if g.old {
			return old
		}
		return cur
	}
	m[key("lpnId", "LpnId")] = id
	m[key("lpnSre", "Sire")] = sire
	m[key("lpnDam", "Dam")] = dam
	m[key("status", "Status")] = status
	for _, t := range ts {
		m[key(strings.ToLower(t.Code), t.Code)] = t.Value
		if t.HasAccuracy {
			acc := t.Accuracy / 100
			if g.old {
				acc = t.Accuracy
			}
			m[key("acc"+strings.ToLower(t.Code), "Acc"+t.Code)] = acc
		}
	}
	for _, i := range ix {
		m[i.Name] = i.Value
	}
	return m
}

func (g *gen) animalRow() nsip.AnimalRow {
	return nsip.AnimalRow{
		LPNID: g.text(g.lpn()), Sire: g.maybe(g.lpn()), Dam: g.maybe(g.lpn()),
		Status: g.maybe("CURRENT"), Traits: g.traits(), Indexes: g.indexes(),
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// search makes a page of n rows at page/size of a result set of total.
func (g *gen) search(n, total, page, size int) *nsip.SearchResults {
	v := &nsip.SearchResults{TotalCount: total, Page: page, PageSize: size, Results: []nsip.AnimalRow{}}
	for range n {
		v.Results = append(v.Results, g.animalRow())
	}
	v.Raw = g.searchRaw(v)
	return v
}

func (g *gen) searchRaw(v *nsip.SearchResults) []byte {
	recs := []any{}
	for _, r := range v.Results {
		recs = append(recs, g.rowJSON(r.LPNID, r.Sire, r.Dam, r.Status, r.Traits, r.Indexes))
	}
	if g.old {
		return mustJSON(map[string]any{"TotalCount": v.TotalCount, "Results": recs})
	}
	return mustJSON(map[string]any{"recordCount": v.TotalCount, "records": recs})
}

func (g *gen) details() *nsip.AnimalDetails {
	v := &nsip.AnimalDetails{
		LPNID: g.lpn(), Breed: "Katahdin", BreedID: 640, BreedGroup: "Hair",
		DateOfBirth: g.maybe("2/13/2024"), Gender: g.maybe("Male"), Status: g.maybe("CURRENT"),
		Sire: g.maybe(g.lpn()), Dam: g.maybe(g.lpn()), TotalProgeny: g.r.Intn(300),
		FlockCount: "1", Genotyped: "50K Genotyped", Traits: g.traits(), Indexes: g.indexes(),
		Contact: g.contact(),
	}
	v.Raw = g.detailsRaw(v)
	return v
}

func (g *gen) detailsRaw(v *nsip.AnimalDetails) []byte {
	c := v.Contact
	if g.old {
		traits := map[string]any{}
		for _, t := range v.Traits {
			traits[t.Code] = map[string]any{"Value": t.Value, "Accuracy": t.Accuracy}
		}
		return mustJSON(map[string]any{
			"LpnId": v.LPNID, "Breed": v.Breed, "BreedGroup": v.BreedGroup, "DateOfBirth": v.DateOfBirth,
			"Gender": v.Gender, "Status": v.Status, "Sire": v.Sire, "Dam": v.Dam, "TotalProgeny": v.TotalProgeny,
			"FlockCount": v.FlockCount, "Genotyped": v.Genotyped, "Traits": traits,
			"ContactInfo": map[string]any{"FarmName": c.FarmName, "ContactName": c.ContactName, "Phone": c.Phone,
				"Email": c.Email, "Address": c.Address, "City": c.City, "State": c.State, "ZipCode": c.ZipCode},
		})
	}
	return mustJSON(map[string]any{"success": true, "data": map[string]any{
		"progenyCount": v.TotalProgeny, "dateOfBirth": v.DateOfBirth, "gender": v.Gender,
		"genotyped": v.Genotyped, "flockCount": v.FlockCount,
		"breed":                 map[string]any{"breedName": v.Breed, "breedDisplayString": "640 - Katahdin", "breedId": v.BreedID},
		"searchResultViewModel": g.rowJSON(v.LPNID, v.Sire, v.Dam, v.Status, v.Traits, v.Indexes),
		"contactInfo": map[string]any{"flockCode": c.FlockCode, "farmName": c.FarmName, "customerName": c.ContactName,
			"phone": c.Phone, "email": c.Email, "address": c.Address, "city": c.City, "state": c.State, "zipCode": c.ZipCode},
	}})
}

func (g *gen) progeny(parent string, n, total, page, size int) *nsip.ProgenyPage {
	v := &nsip.ProgenyPage{LPNID: parent, TotalCount: total, Page: page, PageSize: size, Animals: []nsip.ProgenyRow{}}
	for range n {
		sex := []string{"M", "F", "F", "M", "U"}[g.r.Intn(5)]
		v.Animals = append(v.Animals, nsip.ProgenyRow{LPNID: g.text(g.lpn()), Sex: g.maybe(sex), DateOfBirth: g.maybe("02/17/2022"), Traits: g.traits()})
	}
	v.Raw = g.progenyRaw(v)
	return v
}

func (g *gen) progenyRaw(v *nsip.ProgenyPage) []byte {
	recs := []any{}
	for _, a := range v.Animals {
		m := g.rowJSON(a.LPNID, "", "", "", a.Traits, nil)
		if g.old {
			m["Sex"], m["DateOfBirth"] = a.Sex, a.DateOfBirth
		} else {
			m["sex"], m["dob"] = a.Sex, a.DateOfBirth
		}
		recs = append(recs, m)
	}
	if g.old {
		return mustJSON(map[string]any{"TotalCount": v.TotalCount, "Results": recs})
	}
	return mustJSON(map[string]any{"recordCount": v.TotalCount, "records": recs})
}

// node makes a pedigree of the given depth below it (0: no parents).
func (g *gen) node(depth int) *nsip.LineageNode {
	n := &nsip.LineageNode{LPNID: g.lpn(), Farm: g.maybe(g.text(g.farm())), DOB: g.maybe("2/13/2019"), Sex: "Male", Status: g.maybe("CURRENT")}
	if !g.sparse || g.chance(0.7) {
		n.Indexes = g.indexes()
	}
	n.Content = fmt.Sprintf("<div>%s</div><div>DOB: %s</div><div>Sex: %s</div><div>Status: %s</div>", n.Farm, n.DOB, n.Sex, n.Status)
	if depth > 0 {
		n.Sire = g.node(depth - 1)
		if !g.sparse || g.chance(0.8) {
			n.Dam = g.node(depth - 1)
			n.Dam.Sex = "Female"
		}
	}
	return n
}

func nodeJSON(n *nsip.LineageNode) map[string]any {
	kids := []any{}
	for _, k := range []*nsip.LineageNode{n.Sire, n.Dam} {
		if k != nil {
			kids = append(kids, nodeJSON(k))
		}
	}
	return map[string]any{"lpnId": n.LPNID, "content": n.Content, "children": kids}
}

func (g *gen) lineage(depth int) *nsip.Lineage {
	v := &nsip.Lineage{Subject: *g.node(depth)}
	v.Raw = mustJSON(map[string]any{"success": true, "data": nodeJSON(&v.Subject)})
	return v
}

func (g *gen) profile(progeny, depth int) *nsip.AnimalProfile {
	d := g.details()
	l := g.lineage(depth)
	l.Subject.LPNID = d.LPNID
	p := g.progeny(d.LPNID, progeny, max(progeny, d.TotalProgeny), 0, max(progeny, 10))
	v := &nsip.AnimalProfile{Details: d, Lineage: l, Progeny: p}
	v.Raw = mustJSON(map[string]json.RawMessage{"details": d.Raw, "lineage": l.Raw, "progeny": p.Raw})
	return v
}
