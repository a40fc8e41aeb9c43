package shape

import (
	"slices"
	"strings"
)

// The eight endpoints' API paths, relative to the base URL.
const (
	PathDateLastUpdated = "search/getDateLastUpdated"
	PathBreedGroups     = "search/getAvailableBreedGroups"
	PathStatuses        = "search/getStatusesByBreedGroup"
	PathTraitRanges     = "search/getTraitRangesByBreed"
	PathSearch          = "search/getPageOfSearchResults"
	PathDetails         = "details/getAnimalDetails"
	PathLineage         = "details/getLineage"
	PathProgeny         = "details/getPageOfProgeny"
)

// Endpoint is one endpoint's contract and what it rests on.
type Endpoint struct {
	Path string // e.g. "search/getPageOfSearchResults"
	// Capture is the file in nsip/testdata/contract the answer's shape was
	// written from: *.live.json for a shape captured from the live API,
	// a plain name for one only ever assumed.
	Capture string
	Live    bool
	// Evidence says in one sentence what the shape rests on: the capture
	// and its date where it is known, or the assumption and why.
	Evidence string
	Answer   *Shape
}

// Name is the endpoint's method name, the last element of its path, e.g.
// "getPageOfSearchResults".
func (e Endpoint) Name() string { return e.Path[strings.LastIndexByte(e.Path, '/')+1:] }

// Endpoints lists the eight contracts in the order the check asks them.
func Endpoints() []Endpoint {
	return []Endpoint{
		{PathDateLastUpdated, "lastupdated.json", false,
			"assumed from the first client's notes; no capture was ever recorded",
			object(member("date", String))},
		{PathBreedGroups, "breedgroups.live.json", true,
			"live: captured by another client when its bare-list parser failed against it (date not recorded)",
			envelope(array(object(member("breedGroupId", Number), member("breedGroupName", String),
				Member{Name: "breeds", Value: array(object(member("breedId", Number), member("breedName", String)))})))},
		{PathStatuses, "statuses.json", false,
			"assumed by other clients (a list of strings); no capture was ever recorded",
			array(&Shape{Kind: String})},
		{PathTraitRanges, "traitranges.json", false,
			"shape assumed by other clients; the Katahdin values were seen in a live session, not captured",
			&Shape{Kind: Object, Patterns: []Pattern{{Label: "trait code", Name: isTraitCode,
				Value: object(member("min", Number), member("max", Number))}}}},
		{PathSearch, "search.live.json", true,
			"live: captured by another client (date not recorded); it shows no success or numberOfPages beside the rows",
			object(member("recordCount", Number), Member{Name: "records", Value: array(SearchRow())})},
		{PathDetails, "details.live.json", true,
			"live-derived: another client's fixture of a live answer for 6402382024NCS310 (date not recorded)",
			envelope(object(member("progenyCount", Scalar), member("dateOfBirth", String), member("gender", String),
				member("genotyped", String), member("flockCount", Scalar),
				Member{Name: "breed", Value: object(member("breedName", String), member("breedDisplayString", String), member("breedId", Number))},
				Member{Name: "searchResultViewModel", Value: SearchRow()},
				Member{Name: "contactInfo", Value: object(member("flockCode", Scalar), member("farmName", String),
					member("customerName", String), member("phone", String), member("email", String),
					member("address", String), member("city", String), member("state", String), member("zipCode", Scalar))}))},
		{PathLineage, "lineage.live.json", true,
			"live-derived: another client's fixture of a live answer for 6402382024NCS310 (date not recorded)",
			envelope(lineageNode())},
		{PathProgeny, "progeny.live.json", true,
			"live: captured 2025-10-13 for 6402382024NCS310",
			object(member("success", Bool), Member{Name: "records", Value: array(progenyRow())},
				member("recordCount", Number), member("numberOfPages", Number))},
	}
}

// For returns the contract of the endpoint at path.
func For(path string) (Endpoint, bool) {
	eps := Endpoints()
	i := slices.IndexFunc(eps, func(e Endpoint) bool { return e.Path == path })
	if i < 0 {
		return Endpoint{}, false
	}
	return eps[i], true
}

// RowMembers are the members every search row carries, in the live
// capture's order; lpnSre and lpnDam are null for an animal without
// recorded parents. The rest of a row is its breed's trait pairs and
// indexes.
var RowMembers = []string{"lpnId", "lpnSre", "lpnDam", "status", "regNumber"}

// SearchRow is a search page's row, which is also the searchResultViewModel
// of an animal's details.
func SearchRow() *Shape {
	s := &Shape{Kind: Object, Patterns: traitPatterns("")}
	for _, name := range RowMembers {
		s.Members = append(s.Members, Member{Name: name})
	}
	return s
}

// progenyRow is a row of a progeny page: the capture shows three members;
// whether rows carry trait pairs is not known, and the client keeps any.
func progenyRow() *Shape {
	return &Shape{Kind: Object,
		Members:  []Member{{Name: "lpnId", Value: &Shape{Kind: String}}, {Name: "dob"}, {Name: "sex"}},
		Patterns: traitPatterns("the progeny capture shows three members per row, and nothing says its rows never carry trait pairs; the client keeps any")}
}

// lineageNode is a pedigree node, whose children are nodes again.
func lineageNode() *Shape {
	n := &Shape{Kind: Object}
	n.Members = []Member{member("lpnId", String), member("content", String), {Name: "children", Value: &Shape{Kind: Array, Elem: n}}}
	return n
}

// traitPatterns recognise a row's trait pairs and indexes, which differ by
// breed (Katahdins carry mwwt without an accuracy, nlw, wfec, pfec and
// usHairIndex; terminal breeds yemd and usIndex without srcIndex), so no
// list of them could be the contract.
func traitPatterns(assumed string) []Pattern {
	number := &Shape{Kind: Number}
	return []Pattern{
		{Label: "trait", Name: isTraitMember, Value: number, Assumed: assumed},
		{Label: "accuracy", Name: isAccuracyMember, Value: number, Assumed: assumed},
		{Label: "index", Name: isIndexMember, Value: number, Assumed: assumed},
	}
}

// notTraits are short lower-case words a row could carry as numbers that
// are facts about the animal, not trait codes.
var notTraits = []string{"id", "age", "year", "rank", "count", "page", "sex", "dob", "gender", "status", "tattoo",
	"breed", "sire", "dam", "flock", "lpnid"}

// isTraitMember: a trait's value is sent under its code in lower case
// (bwt, mwwt, ygfw): two to six letters, the longest code seen being four.
func isTraitMember(name string) bool {
	return len(name) >= 2 && len(name) <= 6 && isLower(name) && !slices.Contains(notTraits, name)
}

// IsAccuracy reports whether a row member is a trait's accuracy as NSIP
// names it: its code after "acc" (accbwt).
func IsAccuracy(name string) bool { return isAccuracyMember(name) }

// isAccuracyMember: a trait's accuracy is its code after "acc" (accbwt).
func isAccuracyMember(name string) bool {
	code, ok := strings.CutPrefix(name, "acc")
	return ok && isTraitMember(code)
}

// isIndexMember: indexes are camelCase words ending in Index (usIndex,
// usHairIndex, srcIndex).
func isIndexMember(name string) bool {
	base, ok := strings.CutSuffix(name, "Index")
	return ok && base != "" && base[0] >= 'a' && base[0] <= 'z' &&
		!strings.ContainsFunc(base, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '$') })
}

// isTraitCode: trait ranges are keyed by the code in capitals (BWT, PWWT).
func isTraitCode(name string) bool {
	return len(name) >= 2 && len(name) <= 6 && isLower(strings.ToLower(name)) && strings.ToUpper(name) == name
}

func member(name string, k Kind) Member { return Member{Name: name, Value: &Shape{Kind: k}} }

func object(ms ...Member) *Shape { return &Shape{Kind: Object, Members: ms} }

func array(elem *Shape) *Shape { return &Shape{Kind: Array, Elem: elem} }

// envelope is {"success": true, "data": payload}, the live envelope of
// details, lineage and breed groups.
func envelope(payload *Shape) *Shape {
	return object(member("success", Bool), Member{Name: "data", Value: payload})
}
