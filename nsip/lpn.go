package nsip

import (
	"regexp"
	"strconv"
	"time"
)

// Live search rows carry no birth date, breed or flock; an LPN ID of the
// form every live capture shows carries all three. 6402382024NCS310 is
// breed 640, flock number 238 (flock code 640238), born 2024, flock letters
// NCS and tattoo 310. Nothing public promises the form, so an ID that does
// not fit it says nothing, and every answer built on what one does say
// says so.

// LPNParts is what an LPN ID of NSIP's usual form says of its animal.
type LPNParts struct {
	Breed int    // 640
	Flock string // the flock code, breed and flock number: "640238"
	Year  int    // the birth year: 2024
}

var lpnForm = regexp.MustCompile(`^(\d{3})(\d{3})((?:19|20)\d\d)[A-Za-z]{2,4}\d{1,4}$`)

// ParseLPN reads breed, flock and birth year from an LPN ID of the usual
// form (three digits of breed, three of flock number, four of birth year,
// the flock's letters and a tattoo); false for any other form, and for a
// birth year after the current one.
func ParseLPN(id string) (LPNParts, bool) {
	m := lpnForm.FindStringSubmatch(id)
	if m == nil {
		return LPNParts{}, false
	}
	breed, _ := strconv.Atoi(m[1])
	year, _ := strconv.Atoi(m[3])
	if year > time.Now().Year()+1 {
		return LPNParts{}, false
	}
	return LPNParts{Breed: breed, Flock: m[1] + m[2], Year: year}, true
}

// LPNReading is how an answer says it read a row's birth year or flock
// from its LPN ID.
const LPNReading = "read from the LPN ID (breed, flock, birth year, letters, tattoo: 6402382024NCS310 is flock 640238, born 2024), as NSIP's search rows carry no birth date or flock"

// BirthYear is the row's birth year: from its dateOfBirth when it sends
// one, else from its LPN ID (fromLPN); 0 when neither says.
func (r AnimalRow) BirthYear() (year int, fromLPN bool) {
	if t, ok := ParseDate(r.DateOfBirth); ok {
		return t.Year(), false
	}
	if p, ok := ParseLPN(r.LPNID); ok {
		return p.Year, true
	}
	return 0, false
}

// Flock is the row's flock code: its flockCode when it sends one, else
// the one its LPN ID carries (fromLPN); "" when neither says.
func (r AnimalRow) Flock() (code string, fromLPN bool) {
	if r.FlockCode != "" {
		return r.FlockCode, false
	}
	if p, ok := ParseLPN(r.LPNID); ok {
		return p.Flock, true
	}
	return "", false
}
