package nsiptest

import (
	"fmt"
	"strings"
	"unicode"
)

// Farm names are built from a first part and a kind; a share of flocks use
// names with accents so that clients are exercised on non-ASCII text.
var (
	farmFirst = []string{"Willow Creek", "Cedar Hollow", "Prairie Wind", "Blue Ridge", "Stony Brook",
		"Red Barn", "Maple Leaf", "Twin Oaks", "Hickory Hill", "Sunny Slope", "Pine Knob", "Rocky Ford",
		"Clover Valley", "Meadowlark", "Copper Kettle", "Little Bear", "Bent Fence", "Silver Spring",
		"Foxtail", "High Plains", "Timberline", "Whispering Pines", "Sandhill", "Deer Run"}
	farmKind = []string{"Farm", "Ranch", "Sheep Co.", "Acres", "Homestead", "Livestock", "Flock"}
	// Names used for every ninth flock: accents, an ampersand and an
	// apostrophe, which clients must carry through untouched.
	farmSpecial = []string{"Ferme Bélanger", "Núñez Ranch", "Smith & Sons Sheep", "Søndergaard Hof",
		"Rancho Peña Blanca", "Müller Family Farm", "O'Brien's Hair Sheep", "Bergère du Québec"}
	givenNames = []string{"Mary", "John", "Linda", "Robert", "Karen", "James", "Susan", "David",
		"Amélie", "José", "Björn", "Zoë", "Aoife", "Tomás", "Ruth", "Wayne"}
	familyNames = []string{"Miller", "Johnson", "Schmidt", "Yoder", "Anderson", "Bélanger", "Núñez",
		"Hoffman", "Larsen", "Okafor", "Nguyen", "Peña", "Carter", "Whitfield", "Sørensen", "Brooks"}
	streets = []string{"Old Mill Rd", "County Road 12", "Sheep Barn Ln", "Route 9", "Hollow Rd",
		"Prairie Ave", "Church St", "Ridge Pike", "Quarry Rd", "Valley View Dr"}
	places = []struct{ city, state, zip, area string }{
		{"Raleigh", "NC", "276", "919"}, {"Blacksburg", "VA", "240", "540"}, {"Wooster", "OH", "446", "330"},
		{"Ames", "IA", "500", "515"}, {"Bozeman", "MT", "597", "406"}, {"San Angelo", "TX", "769", "325"},
		{"Ithaca", "NY", "148", "607"}, {"Pendleton", "OR", "978", "541"}, {"Columbia", "MO", "652", "573"},
		{"Lancaster", "PA", "176", "717"}, {"Stillwater", "OK", "740", "405"}, {"Rapid City", "SD", "577", "605"},
		{"Frederick", "MD", "217", "301"}, {"Athens", "GA", "306", "706"}, {"Laramie", "WY", "820", "307"},
	}
)

// contact makes the breeder record of a new flock. Every seventh flock lacks
// an email, every eleventh a phone, every thirteenth its street address.
func (g *gen) contact(breedID, number int) *Contact {
	r := g.r
	n := len(g.d.flocks)
	name := farmFirst[r.IntN(len(farmFirst))] + " " + farmKind[r.IntN(len(farmKind))]
	if n%9 == 3 {
		name = farmSpecial[(n/9)%len(farmSpecial)]
	}
	given, family := givenNames[r.IntN(len(givenNames))], familyNames[r.IntN(len(familyNames))]
	p := places[r.IntN(len(places))]
	c := &Contact{
		FlockCode:   fmt.Sprintf("%03d%03d", breedID, number),
		FarmName:    name,
		ContactName: given + " " + family,
		Phone:       fmt.Sprintf("(%s) 555-%04d", p.area, r.IntN(10000)),
		Email:       fmt.Sprintf("%s.%s@%s.example.com", slug(given), slug(family), slug(name)),
		Address:     fmt.Sprintf("%d %s", 100+r.IntN(9800), streets[r.IntN(len(streets))]),
		City:        p.city,
		State:       p.state,
		ZipCode:     fmt.Sprintf("%s%02d", p.zip, r.IntN(100)),
	}
	if n%7 == 2 {
		c.Email = ""
	}
	if n%11 == 6 {
		c.Phone = ""
	}
	if n%13 == 8 {
		c.Address = ""
	}
	if n%17 == 10 {
		c.ContactName = ""
	}
	g.d.flocks = append(g.d.flocks, c)
	return c
}

// slug lowers s to ASCII letters and digits for an email address.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if a, ok := asciiFold[r]; ok {
			r = a
		}
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// asciiFold maps the accented letters the name lists use to plain ones.
var asciiFold = map[rune]rune{'é': 'e', 'è': 'e', 'ú': 'u', 'ñ': 'n', 'ø': 'o', 'ü': 'u', 'ö': 'o',
	'ë': 'e', 'á': 'a', 'í': 'i', 'ó': 'o'}
