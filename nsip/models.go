package nsip

import (
	"encoding/json"
)

// Accuracy in the models is always a percentage on the 0..100 scale. Live
// answers send fractions (0.80), other clients' mocks percents (72); the
// scale is decided per answer from its values (any accuracy above 1 means
// percent), never from the spelling of names. An accuracy that still falls
// outside 0..100 is not reported (HasAccuracy is false). Raw keeps NSIP's
// own numbers.

// Trait is one estimated breeding value, with its accuracy when NSIP sent
// one: a value without accuracy (live answers have some, e.g. MWWT) has
// HasAccuracy false.
type Trait struct {
	Code        string  `json:"code"`     // upper case, e.g. "BWT"
	Value       float64 `json:"value"`    // the EBV in the trait's own unit
	Accuracy    float64 `json:"accuracy"` // percent, 0..100; meaningful only when HasAccuracy
	HasAccuracy bool    `json:"hasAccuracy"`
}

// MaxPlausibleValue bounds the magnitude of an EBV or index the models
// keep. NSIP promises nothing about its numbers; the largest real EBVs are
// in the hundreds (fleece and milk traits), indexes in the hundreds too, so
// a value past a million is a broken record, and one past 1e154 overflows
// as soon as it is squared. Such a value, or one no float holds (1e999), is
// left out of the model and listed in its Ignored.
const MaxPlausibleValue = 1e6

// IgnoredValue is a number NSIP sent that a model leaves out as absurd,
// or a text member of a row cut to MaxTextBytes.
type IgnoredValue struct {
	LPNID string `json:"lpnId"`
	Name  string `json:"name"` // the trait code (e.g. "WWT") or index name; for a cut text, the member's name
	Raw   string `json:"raw"`  // the value as sent, e.g. "1e154"; for a cut text, its start and length
}

// Index is a selection index value such as "US Hair Index" or "SRC$ Index".
type Index struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// ContactInfo is the breeder's contact block. It is passed on to users in
// full: breeders look animals up precisely to contact their owners.
type ContactInfo struct {
	FlockCode   string `json:"flockCode,omitempty"`
	FarmName    string `json:"farmName,omitempty"`
	ContactName string `json:"contactName,omitempty"`
	Phone       string `json:"phone,omitempty"`
	Email       string `json:"email,omitempty"`
	Address     string `json:"address,omitempty"`
	City        string `json:"city,omitempty"`
	State       string `json:"state,omitempty"`
	ZipCode     string `json:"zipCode,omitempty"`
}

// IsZero reports whether no contact field is set.
func (c ContactInfo) IsZero() bool { return c == ContactInfo{} }

// LastUpdate is the date of the most recent genetic evaluation run.
type LastUpdate struct {
	Date string          `json:"date"` // as the API sends it, e.g. "09/23/2025"
	Raw  json.RawMessage `json:"-"`
}

// Breed is one breed inside a breed group.
type Breed struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// BreedGroup is a family of breeds (Range, Maternal Wool, Hair, Terminal).
type BreedGroup struct {
	ID     int     `json:"id"`
	Name   string  `json:"name"`
	Breeds []Breed `json:"breeds"`
}

// BreedGroups is the answer of getAvailableBreedGroups.
type BreedGroups struct {
	Groups []BreedGroup    `json:"groups"`
	Raw    json.RawMessage `json:"-"`
}

// Statuses is the answer of getStatusesByBreedGroup.
type Statuses struct {
	Values []string        `json:"values"`
	Raw    json.RawMessage `json:"-"`
}

// Range is a closed interval of trait values.
type Range struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// TraitRange is the range of one trait within a breed.
type TraitRange struct {
	Code string `json:"code"`
	Range
}

// TraitRanges is the answer of getTraitRangesByBreed.
type TraitRanges struct {
	BreedID int             `json:"breedId"`
	Ranges  []TraitRange    `json:"ranges"` // sorted as TraitCodes, unknown codes after, alphabetically
	Raw     json.RawMessage `json:"-"`
}

// AnimalRow is one animal in a search page.
type AnimalRow struct {
	LPNID              string `json:"lpnId"`
	Sire               string `json:"sire,omitempty"`
	Dam                string `json:"dam,omitempty"`
	Status             string `json:"status,omitempty"`
	RegistrationNumber string `json:"registrationNumber,omitempty"`
	Sex                string `json:"sex,omitempty"`         // Male or Female (NSIP's codes spelled out), else as sent
	DateOfBirth        string `json:"dateOfBirth,omitempty"` // as sent
	BreedID            int    `json:"breedId,omitempty"`
	BreedName          string `json:"breedName,omitempty"`
	FlockCode          string `json:"flockCode,omitempty"`
	// Genotyped is as sent ("50K Genotyped"); "" when the row does not say.
	// Details carry it in live answers; search rows are not known to.
	Genotyped string  `json:"genotyped,omitempty"`
	Traits    []Trait `json:"traits,omitempty"`  // sorted as TraitCodes, unknown codes after, alphabetically
	Indexes   []Index `json:"indexes,omitempty"` // sorted by name
}

// SearchCriteria is the JSON body of getPageOfSearchResults. Zero values are
// omitted, so an empty criteria encodes as {}.
type SearchCriteria struct {
	BreedGroupID int              `json:"breedGroupId,omitempty"`
	BreedID      int              `json:"breedId,omitempty"`
	BornAfter    string           `json:"bornAfter,omitempty"`  // YYYY-MM-DD
	BornBefore   string           `json:"bornBefore,omitempty"` // YYYY-MM-DD
	Gender       string           `json:"gender,omitempty"`     // Male, Female or Both
	ProvenOnly   bool             `json:"provenOnly,omitempty"`
	Status       string           `json:"status,omitempty"`
	FlockID      string           `json:"flockId,omitempty"`
	TraitRanges  map[string]Range `json:"traitRanges,omitempty"`
}

// SearchParams selects one page of search results.
type SearchParams struct {
	Page        int    // 0-based
	PageSize    int    // 1..MaxPageSize
	BreedID     int    // 0 means any breed
	SortedTrait string // trait code to sort by; empty for the API's order
	Reverse     bool
	Criteria    SearchCriteria
}

// SearchResults is one page of getPageOfSearchResults. Page and PageSize are
// filled in by the client: the API does not echo them.
type SearchResults struct {
	TotalCount int `json:"totalCount"`
	Page       int `json:"page"`
	PageSize   int `json:"pageSize"`
	// NumberOfPages is the API's own page count when it sends one, else 0.
	NumberOfPages int             `json:"numberOfPages,omitempty"`
	Results       []AnimalRow     `json:"results"`
	Ignored       []IgnoredValue  `json:"ignoredValues,omitempty"` // absurd values left out of Results
	Raw           json.RawMessage `json:"-"`
}

// AnimalDetails is the answer of getAnimalDetails.
type AnimalDetails struct {
	LPNID              string          `json:"lpnId"`
	Breed              string          `json:"breed,omitempty"`
	BreedID            int             `json:"breedId,omitempty"`
	BreedGroup         string          `json:"breedGroup,omitempty"`
	DateOfBirth        string          `json:"dateOfBirth,omitempty"`
	Gender             string          `json:"gender,omitempty"`
	Status             string          `json:"status,omitempty"`
	Sire               string          `json:"sire,omitempty"`
	Dam                string          `json:"dam,omitempty"`
	RegistrationNumber string          `json:"registrationNumber,omitempty"`
	TotalProgeny       int             `json:"totalProgeny"`
	FlockCount         string          `json:"flockCount,omitempty"`
	Genotyped          string          `json:"genotyped,omitempty"`
	Traits             []Trait         `json:"traits,omitempty"`  // sorted as TraitCodes, unknown codes after, alphabetically
	Indexes            []Index         `json:"indexes,omitempty"` // sorted by name
	Contact            ContactInfo     `json:"contact"`
	Ignored            []IgnoredValue  `json:"ignoredValues,omitempty"` // absurd values left out of Traits and Indexes
	Raw                json.RawMessage `json:"-"`
}

// LineageNode is one animal in a pedigree. Its details come from the HTML
// fragment the API sends; any of them may be missing, and then stays empty.
type LineageNode struct {
	LPNID   string       `json:"lpnId"`
	Farm    string       `json:"farm,omitempty"`
	DOB     string       `json:"dob,omitempty"`
	Sex     string       `json:"sex,omitempty"`
	Status  string       `json:"status,omitempty"`
	Indexes []Index      `json:"indexes,omitempty"` // e.g. "US Hair Index", "SRC$ Index", in the order the fragment gives them
	Content string       `json:"content,omitempty"` // the HTML fragment as received
	Sire    *LineageNode `json:"sire,omitempty"`    // children[0]
	Dam     *LineageNode `json:"dam,omitempty"`     // children[1]
	// Others holds any children beyond the first two, which the API has not
	// been seen to send but which are kept if it ever does.
	Others []*LineageNode `json:"others,omitempty"`
}

// Lineage is the answer of getLineage: the subject at the root of its pedigree.
type Lineage struct {
	Subject LineageNode     `json:"subject"`
	Raw     json.RawMessage `json:"-"`
}

// ProgenyRow is one offspring in a progeny page.
type ProgenyRow struct {
	LPNID       string  `json:"lpnId"`
	Sex         string  `json:"sex,omitempty"`     // "Male" or "Female" for NSIP's codes ("1", "2", M, F), else as sent
	DateOfBirth string  `json:"dob,omitempty"`     // as sent, e.g. "2025-02-16T00:00:00"; see ParseDate
	Traits      []Trait `json:"traits,omitempty"`  // sorted as TraitCodes, unknown codes after, alphabetically
	Indexes     []Index `json:"indexes,omitempty"` // sorted by name
}

// ProgenyPage is one page of getPageOfProgeny. Page and PageSize are filled in
// by the client.
type ProgenyPage struct {
	LPNID      string `json:"lpnId"`
	TotalCount int    `json:"totalCount"`
	Page       int    `json:"page"`
	PageSize   int    `json:"pageSize"`
	// NumberOfPages is the API's own page count when it sends one, else 0.
	NumberOfPages int             `json:"numberOfPages,omitempty"`
	Animals       []ProgenyRow    `json:"animals"`
	Ignored       []IgnoredValue  `json:"ignoredValues,omitempty"` // absurd values left out of Animals
	Raw           json.RawMessage `json:"-"`
}

// AnimalProfile is what ByLPN assembles: details, lineage and the first page
// of progeny of one animal. Raw is {"details":…,"lineage":…,"progeny":…} with
// each member the exact upstream body.
type AnimalProfile struct {
	Details *AnimalDetails  `json:"details"`
	Lineage *Lineage        `json:"lineage"`
	Progeny *ProgenyPage    `json:"progeny"`
	Raw     json.RawMessage `json:"-"`
}
