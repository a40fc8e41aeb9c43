package nsip

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Limits the client enforces before it sends anything. They mirror what the
// API accepts, so that a bad argument costs no round trip and gets a reason.
// The gateway's schemas, validation and descriptions state the same limits
// through these constants.
const (
	MaxPageSize           = 100 // largest page the API serves
	MinLPNIDLength        = 5   // shortest LPN ID accepted; real ones are about 16 characters
	MaxLPNIDLength        = 32  // longest LPN ID accepted
	MaxSearchStringLength = 64  // registration numbers and LPN IDs are far shorter
	MaxTraitCodeLength    = 16  // trait codes are a few letters, e.g. BWT
	MaxCriteriaLength     = 32  // search criteria status and flock ID
)

// invalid builds the error for an argument rejected before sending.
func invalid(endpoint, param, value, reason string) *Error {
	return &Error{Kind: KindInvalidArgument, Endpoint: endpoint, Param: param, Value: value, Reason: reason}
}

// checkLPNID trims id and checks that it looks like an LPN ID: 5 to 32 ASCII
// letters and digits. It returns the trimmed form.
func checkLPNID(endpoint, id string) (string, *Error) {
	id = strings.TrimSpace(id)
	switch {
	case id == "":
		return "", invalid(endpoint, "lpnId", id, "must not be empty; pass an LPN ID such as 6402382024NCS310")
	case len(id) < MinLPNIDLength || len(id) > MaxLPNIDLength:
		return "", invalid(endpoint, "lpnId", id, fmt.Sprintf("must be %d to %d letters and digits long, got %d", MinLPNIDLength, MaxLPNIDLength, len(id)))
	case !isAlnum(id):
		return "", invalid(endpoint, "lpnId", id, "must contain only letters and digits, e.g. 6402382024NCS310")
	}
	return id, nil
}

// checkSearchString trims s, which may be an LPN ID or a registration number,
// and rejects empty, overlong or control-character values.
func checkSearchString(endpoint, s string) (string, *Error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", invalid(endpoint, "searchString", s, "must not be empty; pass an LPN ID or a registration number")
	case len(s) > MaxSearchStringLength:
		return "", invalid(endpoint, "searchString", s, fmt.Sprintf("must be at most %d characters, got %d", MaxSearchStringLength, len(s)))
	case hasControl(s):
		return "", invalid(endpoint, "searchString", s, "must not contain control characters")
	}
	return s, nil
}

func checkPage(endpoint string, page, pageSize int) *Error {
	if page < 0 {
		return invalid(endpoint, "page", strconv.Itoa(page), "must be 0 or more (pages are numbered from 0)")
	}
	if pageSize < 1 || pageSize > MaxPageSize {
		return invalid(endpoint, "pageSize", strconv.Itoa(pageSize), fmt.Sprintf("must be between 1 and %d", MaxPageSize))
	}
	return nil
}

// checkTraitCode accepts a trait code of letters only, e.g. "BWT".
func checkTraitCode(endpoint, param, code string) *Error {
	switch {
	case code == "":
		return invalid(endpoint, param, code, "must not be empty; use a trait code such as BWT")
	case len(code) > MaxTraitCodeLength || !isLetters(code):
		return invalid(endpoint, param, code, "must be a trait code of letters only, e.g. BWT or WWT")
	}
	return nil
}

// checkSearch validates p and returns a copy with the gender spelled as the
// API wants it.
func checkSearch(endpoint string, p SearchParams) (SearchParams, *Error) {
	if err := checkPage(endpoint, p.Page, p.PageSize); err != nil {
		return p, err
	}
	if p.BreedID < 0 {
		return p, invalid(endpoint, "breedId", strconv.Itoa(p.BreedID), "must be a positive breed ID, or 0 for any breed")
	}
	if p.SortedTrait != "" {
		if err := checkTraitCode(endpoint, "sortedBreedTrait", p.SortedTrait); err != nil {
			return p, err
		}
	}
	c := &p.Criteria
	if c.BreedGroupID < 0 {
		return p, invalid(endpoint, "criteria.breedGroupId", strconv.Itoa(c.BreedGroupID), "must be a positive breed group ID, or 0 for any")
	}
	if c.BreedID < 0 {
		return p, invalid(endpoint, "criteria.breedId", strconv.Itoa(c.BreedID), "must be a positive breed ID, or 0 for any")
	}
	after, err := checkDate(endpoint, "criteria.bornAfter", c.BornAfter)
	if err != nil {
		return p, err
	}
	before, err := checkDate(endpoint, "criteria.bornBefore", c.BornBefore)
	if err != nil {
		return p, err
	}
	if !after.IsZero() && !before.IsZero() && after.After(before) {
		return p, invalid(endpoint, "criteria.bornAfter", c.BornAfter, "must not be later than criteria.bornBefore ("+c.BornBefore+")")
	}
	if c.Gender != "" {
		g, ok := canonicalGender(c.Gender)
		if !ok {
			return p, invalid(endpoint, "criteria.gender", c.Gender, "must be Male, Female or Both")
		}
		c.Gender = g
	}
	for _, f := range []struct{ param, value string }{{"criteria.status", c.Status}, {"criteria.flockId", c.FlockID}} {
		if len(f.value) > MaxCriteriaLength || hasControl(f.value) {
			return p, invalid(endpoint, f.param, f.value, fmt.Sprintf("must be at most %d characters without control characters", MaxCriteriaLength))
		}
	}
	codes := make([]string, 0, len(c.TraitRanges))
	for code := range c.TraitRanges {
		codes = append(codes, code)
	}
	sort.Strings(codes) // report the same failure every time
	for _, code := range codes {
		param := "criteria.traitRanges." + code
		if err := checkTraitCode(endpoint, param, code); err != nil {
			return p, err
		}
		r := c.TraitRanges[code]
		if !finite(r.Min) || !finite(r.Max) {
			return p, invalid(endpoint, param, fmt.Sprintf("%v..%v", r.Min, r.Max), "min and max must be finite numbers")
		}
		if r.Min > r.Max {
			return p, invalid(endpoint, param, fmt.Sprintf("%v..%v", r.Min, r.Max), "min must not be greater than max")
		}
	}
	return p, nil
}

func checkDate(endpoint, param, v string) (time.Time, *Error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return time.Time{}, invalid(endpoint, param, v, "must be a date as YYYY-MM-DD, e.g. 2023-01-31")
	}
	return t, nil
}

func canonicalGender(g string) (string, bool) {
	for _, want := range []string{"Male", "Female", "Both"} {
		if strings.EqualFold(strings.TrimSpace(g), want) {
			return want, true
		}
	}
	return "", false
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isASCIILetter(s[i]) && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isASCIILetter(s[i]) {
			return false
		}
	}
	return s != ""
}

func isASCIILetter(b byte) bool { return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') }

func hasControl(s string) bool {
	return strings.ContainsFunc(s, unicode.IsControl)
}
