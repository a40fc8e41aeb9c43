package nsip

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// TraitCodes lists the thirteen EBV traits the first NSIP clients knew, in
// the order the NSIP site shows them. They are not the whole set: breeds
// publish others (MWWT, NLW, WFEC, PFEC, YEMD, ...), which decoding keeps
// like these. Only the order of display uses this list; which codes a breed
// has is the breed's TraitRanges answer.
var TraitCodes = []string{"BWT", "WWT", "PWWT", "YWT", "FAT", "EMD", "NLB", "NWT", "PWT", "DAG", "WGR", "WEC", "FEC"}

// TraitOrder returns the position of code in TraitCodes, or len(TraitCodes)
// for codes outside the first thirteen.
func TraitOrder(code string) int {
	if i, ok := traitRank[code]; ok {
		return i
	}
	return len(TraitCodes)
}

var traitRank = func() map[string]int {
	m := make(map[string]int, len(TraitCodes))
	for i, c := range TraitCodes {
		m[c] = i
	}
	return m
}()

// compareTraitCodes orders the thirteen as TraitCodes, then the rest
// alphabetically.
func compareTraitCodes(a, b string) int {
	if oa, ob := TraitOrder(a), TraitOrder(b); oa != ob {
		return oa - ob
	}
	return strings.Compare(a, b)
}

func sortTraits(ts []Trait) {
	cmp := func(a, b Trait) int { return compareTraitCodes(a.Code, b.Code) }
	if !slices.IsSortedFunc(ts, cmp) { // rows of known members come sorted
		slices.SortFunc(ts, cmp)
	}
}

var knownTrait = func() map[string]bool {
	m := make(map[string]bool, len(TraitCodes))
	for _, c := range TraitCodes {
		m[strings.ToLower(c)] = true
	}
	return m
}()

// rowFacts are row members that are never traits, even when numeric.
var rowFacts = map[string]bool{
	"lpnid": true, "lpnsre": true, "lpndam": true, "sire": true, "dam": true, "sireid": true, "damid": true,
	"status": true, "regnumber": true, "registrationnumber": true, "dateofbirth": true, "dob": true,
	"gender": true, "sex": true, "breedid": true, "breedname": true, "breed": true, "breedgroup": true,
	"breedgroupid": true, "breedgroupname": true, "flockcode": true, "flockid": true, "genotyped": true,
	"progenycount": true, "totalprogeny": true, "flockcount": true, "success": true, "recordcount": true,
	"numberofpages": true, "id": true, "year": true, "age": true, "page": true, "count": true, "rank": true,
	"tattoo": true, "traits": true, "indexes": true,
}

// maxBareCode is the longest member name taken for a trait value when no
// accuracy stands beside it; trait codes are short (MWWT, YGFW), other
// numeric members are words.
const maxBareCode = 6

// rowReader reads the animal rows of one answer. It lower-cases each member
// name once per answer and decides the accuracy scale over the whole
// answer once every row is read.
type rowReader struct {
	lower   map[string]string
	codes   map[string]string
	accs    map[string]string
	traits  [][]Trait      // every row's traits, accuracies as sent until scale
	ignored []IgnoredValue // absurd values left out, in the order met
}

// ignore records an absurd value left out of a row.
func (rr *rowReader) ignore(lpnID, name, raw string) {
	rr.ignored = append(rr.ignored, IgnoredValue{LPNID: lpnID, Name: name, Raw: raw})
}

func newRowReader() *rowReader {
	return &rowReader{lower: map[string]string{}, codes: map[string]string{}, accs: map[string]string{}}
}

// named is a member under its lower-cased name.
type named struct {
	low, name string
	m         member
}

// row is what decoding takes from one animal row.
type row struct {
	fields  []named
	known   []member       // instead of fields: a row of known members, by knownMembers position
	at      map[string]int // position in fields by lower-cased name, for long rows only
	lpnID   string
	traits  []Trait
	indexes []Index
	// rr, when set, is told of each text member cut to MaxTextBytes.
	rr *rowReader
}

func (r row) find(key string) (member, bool) {
	if r.known != nil {
		if i, ok := knownIndex[key]; ok && (r.known[i].kind != 0 || r.known[i].s != "") {
			return r.known[i], true
		}
		return member{}, false
	}
	if r.at != nil {
		if i, ok := r.at[key]; ok {
			return r.fields[i].m, true
		}
		return member{}, false
	}
	for i := range r.fields {
		if r.fields[i].low == key {
			return r.fields[i].m, true
		}
	}
	return member{}, false
}

// longRow is how many members a row may have before its members are found
// through a map: a scan per member costs rows of thousands of members (an
// answer NSIP could send, and the tests do) time in the square of their
// length, while short rows, the usual ones, are quicker to scan.
const longRow = 32

// get returns the text of the first of keys (lower case) that has some,
// cut to MaxTextBytes: a row kept by a pass or a search holds no more of
// a member than any real value needs, however much NSIP sent. A cut
// value is listed in the answer's ignored values, not dropped unsaid.
func (r row) get(keys ...string) string {
	s, k := r.whole(keys...)
	if len(s) > MaxTextBytes && r.rr != nil {
		r.rr.ignore(r.lpnID, k, fmt.Sprintf("%s… (%d bytes; the first %d kept)", cutText(s, 40), len(s), MaxTextBytes))
		s = cutText(s, MaxTextBytes)
	}
	return s
}

// whole returns the text of the first of keys that has some, as sent,
// and its key.
func (r row) whole(keys ...string) (string, string) {
	for _, k := range keys {
		if m, ok := r.find(k); ok {
			if s := m.text(); s != "" {
				return s, k
			}
		}
	}
	return "", ""
}

// MaxTextBytes bounds each text member of a row the models keep (LPN IDs,
// status, registration number, dates, names, flock codes): NSIP's own are
// under 30 bytes, so 256 cuts none of them, and a page of 100 rows padded
// to its body limit keeps kilobytes, not megabytes.
const MaxTextBytes = 256

// cutText is s cut to at most n bytes at a character boundary, copied so
// that the rest of what NSIP sent is not held through it.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n])
}

// int returns the first of keys holding a whole number, or 0.
func (r row) int(keys ...string) int {
	for _, k := range keys {
		if m, ok := r.find(k); ok {
			if n, ok := m.int(); ok {
				return n
			}
		}
	}
	return 0
}

// memo returns f(k), computed once per answer and kept in m: the same
// member names come back on every row.
func memo(m map[string]string, k string, f func(string) string) string {
	if v, ok := m[k]; ok {
		return v
	}
	v := f(k)
	m[k] = v
	return v
}

// upper is the trait code of a lower-cased member name.
func (rr *rowReader) upper(l string) string { return memo(rr.codes, l, strings.ToUpper) }

// acc is the name of the accuracy member of trait member l.
func (rr *rowReader) acc(l string) string {
	return memo(rr.accs, l, func(l string) string { return "acc" + l })
}

// low is a member name in lower case.
func (rr *rowReader) low(name string) string { return memo(rr.lower, name, strings.ToLower) }

// read takes the LPN ID, traits and indexes of one row. Of two members
// whose names differ only in case, the one spelled first in byte order is
// read, so the outcome does not depend on map order.
func (rr *rowReader) read(m wireRow) row {
	fields := make([]named, 0, len(m))
	var at map[string]int
	if len(m) > longRow {
		at = make(map[string]int, len(m))
	}
	for k, v := range m {
		l := rr.low(k)
		i := -1
		if at != nil {
			if j, ok := at[l]; ok {
				i = j
			}
		} else {
			i = slices.IndexFunc(fields, func(f named) bool { return f.low == l })
		}
		if i >= 0 {
			if k < fields[i].name {
				fields[i] = named{l, k, v}
			}
			continue
		}
		if at != nil {
			at[l] = len(fields)
		}
		fields = append(fields, named{l, k, v})
	}
	return rr.readFields(fields, at)
}

// readPage reads one row of a page, from the struct of known members when
// it had no others.
func (rr *rowReader) readPage(p *pageRow) row {
	if !p.known.IsValid() {
		return rr.read(p.all)
	}
	// Every field of the struct is a member, laid out as an array of them
	// (fastPage runs only when knownRowIsArray): read it as one instead of
	// field by field, which costs a tenth more per page.
	ms := reflect.SliceAt(reflect.TypeFor[member](), p.known.Addr().UnsafePointer(), len(knownMembers)).Interface().([]member)
	r := row{known: ms}
	r.lpnID, _ = r.whole("lpnid")
	r.rr = rr
	for j, code := range knownCodes {
		v, acc := &ms[knownTraitsAt+2*j], &ms[knownTraitsAt+2*j+1]
		hasAcc := acc.kind != 0 || acc.s != ""
		// As readFields decides: a value beside an accuracy, a value of
		// the thirteen, or a bare JSON number.
		if !(v.num || v.huge) || (!hasAcc && !knownTrait[strings.ToLower(code)] && v.kind != 'n') {
			continue
		}
		if v.absurd() {
			rr.ignore(r.lpnID, code, v.raw())
			continue
		}
		t := Trait{Code: code, Value: v.v}
		if acc.num {
			t.Accuracy, t.HasAccuracy = acc.v, true
		}
		if r.traits == nil {
			r.traits = make([]Trait, 0, len(knownCodes)-j) // one allocation per row
		}
		r.traits = append(r.traits, t)
	}
	for j, name := range knownIndexes {
		switch m := &ms[knownIndexesAt+j]; {
		case m.absurd():
			rr.ignore(r.lpnID, name, m.raw())
		case m.num:
			r.indexes = append(r.indexes, Index{Name: name, Value: m.v})
		}
	}
	slices.SortFunc(r.indexes, func(a, b Index) int { return strings.Compare(a.Name, b.Name) })
	if len(r.traits) == 0 {
		r.traits = nil
	}
	rr.traits = append(rr.traits, r.traits)
	return r
}

// readFields reads a row given as its members under lower-cased names.
func (rr *rowReader) readFields(fields []named, at map[string]int) row {
	r := row{fields: fields, at: at}
	r.lpnID, _ = r.whole("lpnid")
	r.rr = rr
	for _, f := range r.fields {
		l, v := f.low, f.m
		switch {
		case rowFacts[l] || (strings.HasPrefix(l, "acc") && len(l) > 3):
		case len(l) > MaxTextBytes && (v.num || v.huge):
			// No trait code or index name is this long: a number under
			// such a name is not kept, and its name only in part.
			rr.ignore(r.lpnID, cutText(f.name, 40)+"…", v.raw())
		case strings.Contains(l, "index"):
			switch {
			case v.absurd():
				rr.ignore(r.lpnID, indexName(f.name, l), v.raw())
			case v.num:
				r.indexes = append(r.indexes, Index{Name: indexName(f.name, l), Value: v.v})
			}
		case (v.num || v.huge) && isLetters(l):
			acc, hasAcc := r.find(rr.acc(l))
			if !hasAcc && !knownTrait[l] && (v.kind != 'n' || len(l) > maxBareCode) {
				continue
			}
			if v.absurd() {
				rr.ignore(r.lpnID, rr.upper(l), v.raw())
				continue
			}
			t := Trait{Code: rr.upper(l), Value: v.v}
			if hasAcc && acc.num {
				t.Accuracy, t.HasAccuracy = acc.v, true
			}
			r.traits = append(r.traits, t)
		}
	}
	if m, ok := r.find("traits"); ok && m.kind == 'o' {
		r.traits = nestedTraits([]byte(m.s), r.traits, func(code, raw string) { rr.ignore(r.lpnID, code, raw) })
	}
	if m, ok := r.find("indexes"); ok && m.kind == 'o' {
		r.indexes = nestedIndexes([]byte(m.s), r.indexes, func(name, raw string) { rr.ignore(r.lpnID, name, raw) })
	}
	// Nested indexes past the bound go the same way as flat ones.
	r.indexes = slices.DeleteFunc(r.indexes, func(x Index) bool {
		if plausible(x.Value) {
			return false
		}
		rr.ignore(r.lpnID, x.Name, strconv.FormatFloat(x.Value, 'g', -1, 64))
		return true
	})
	sortTraits(r.traits)
	slices.SortFunc(r.indexes, func(a, b Index) int { return strings.Compare(a.Name, b.Name) })
	if len(r.traits) == 0 {
		r.traits = nil
	}
	rr.traits = append(rr.traits, r.traits)
	return r
}

// nestedTraits reads the assumed {"BWT": {"Value": 0.5, "Accuracy": 89}}
// form; a bare number is a value without accuracy. A value too large for a
// float goes to ignore.
func nestedTraits(raw json.RawMessage, ts []Trait, ignore func(code, raw string)) []Trait {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ts
	}
	for code, v := range m {
		code = strings.ToUpper(code)
		if !isLetters(code) || slices.ContainsFunc(ts, func(t Trait) bool { return t.Code == code }) {
			continue
		}
		if len(code) > MaxTextBytes { // no trait code is this long: named in part, not kept
			ignore(cutText(code, 40)+"…", fmt.Sprintf("a value under a trait code of %d bytes", len(code)))
			continue
		}
		var n num
		_ = n.UnmarshalJSON(v)
		t := Trait{Code: code, Value: n.v}
		if !n.ok {
			var o struct {
				Value    num `json:"value"`
				Accuracy num `json:"accuracy"`
			}
			if json.Unmarshal(v, &o) != nil || !o.Value.ok {
				if huge := firstText(text(n.raw), text(o.Value.raw)); huge != "" {
					ignore(code, huge)
				}
				continue
			}
			t.Value, t.Accuracy, t.HasAccuracy = o.Value.v, o.Accuracy.v, o.Accuracy.ok
			n = o.Value
		}
		if !plausible(t.Value) {
			ignore(code, n.raw)
			continue
		}
		ts = append(ts, t)
	}
	return ts
}

// nestedIndexes reads {"US Index": 102.3} or [{"name": …, "value": …}].
func nestedIndexes(raw json.RawMessage, ixs []Index, ignore func(name, raw string)) []Index {
	add := func(name string, n num) {
		if len(name) > MaxTextBytes { // no index name is this long: named in part, not kept
			ignore(cutText(name, 40)+"…", fmt.Sprintf("a value under an index name of %d bytes", len(name)))
			return
		}
		if n.ok && name != "" && !slices.ContainsFunc(ixs, func(x Index) bool { return x.Name == name }) {
			ixs = append(ixs, Index{Name: name, Value: n.v})
		}
	}
	var m map[string]num
	if json.Unmarshal(raw, &m) == nil {
		for k, v := range m {
			add(k, v)
		}
		return ixs
	}
	var list []struct {
		Name      text `json:"name"`
		IndexName text `json:"indexName"`
		Value     num  `json:"value"`
	}
	if json.Unmarshal(raw, &list) == nil {
		for _, x := range list {
			add(firstText(x.Name, x.IndexName), x.Value)
		}
	}
	return ixs
}

// IndexKey is the member name NSIP's search rows send an index under
// (usIndex, usHairIndex, srcIndex) for the name the client gives it; a
// name of another index is its own key.
func IndexKey(name string) string {
	switch name {
	case "US Index":
		return "usIndex"
	case "US Hair Index":
		return "usHairIndex"
	case "SRC$ Index":
		return "srcIndex"
	}
	return name
}

// indexName turns the API's member names for the well-known indexes into
// the names the NSIP site prints; other names are kept as spelled.
func indexName(key, lower string) string {
	switch lower {
	case "usindex":
		return "US Index"
	case "ushairindex":
		return "US Hair Index"
	case "srcindex", "src$index", "srcdollarindex":
		return "SRC$ Index"
	}
	return key
}

// scale puts every accuracy the answer's rows carry on the percent scale.
func (rr *rowReader) scale() { rr.scaleSlices(rr.traits) }

// scaleSlices decides the accuracy scale of one answer from its values:
// live answers send fractions (0.80), other clients' mocks percents (72),
// and an answer that has any accuracy above 1 is on the percent scale.
// Fractions are multiplied by 100. An accuracy that still falls outside
// 0..100 is not reported (HasAccuracy false); the value stays.
func (rr *rowReader) scaleSlices(all [][]Trait) {
	factor := 100.0
	for _, ts := range all {
		for _, t := range ts {
			if t.HasAccuracy && t.Accuracy > 1 {
				factor = 1
			}
		}
	}
	for _, ts := range all {
		for i := range ts {
			t := &ts[i]
			if !t.HasAccuracy {
				continue
			}
			a := math.Round(t.Accuracy*factor*1e6) / 1e6
			if a < 0 || a > 100 {
				t.Accuracy, t.HasAccuracy = 0, false
				continue
			}
			t.Accuracy = a
		}
	}
}
