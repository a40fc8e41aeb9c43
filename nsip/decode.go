package nsip

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The API has sent two formats over time: the current one wraps payloads in
// {"success": true, "data": …} and spells fields in camelCase; the old one is
// flat PascalCase. Field names are matched without regard to case, so one
// decoder reads both, and the spelling of the LPN ID key ("lpnId" or "LpnId")
// tells which accuracy scale a row uses.

// unexpected builds the error for a 200 body the client cannot use.
func unexpected(format string, args ...any) *Error {
	return &Error{Kind: KindUnexpectedResponse, Reason: fmt.Sprintf(format, args...)}
}

// checkJSON rejects bodies that are not one complete JSON value, saying
// whether the body is something else (an HTML page), cut short, or broken.
func checkJSON(body []byte) *Error {
	if json.Valid(body) {
		return nil
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return unexpected("the body is empty where JSON was expected")
	}
	if trimmed[0] != '{' && trimmed[0] != '[' && trimmed[0] != '"' {
		return unexpected("the body is not JSON: %s", snippet(body))
	}
	var v json.RawMessage
	err := json.NewDecoder(bytes.NewReader(body)).Decode(&v)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return unexpected("the JSON ends early (truncated after %d bytes): %s", len(body), snippet(body))
	}
	if err == nil {
		err = errors.New("data after the first value")
	}
	return unexpected("the body is not valid JSON (%v): %s", err, snippet(body))
}

// answer is a validated body with its envelope removed.
type answer struct {
	data      json.RawMessage // the payload
	obj       *object         // data parsed, once someone asked for an object
	enveloped bool            // the body had the success/data envelope
}

// object returns the payload as an object, parsing it at most once.
func (a *answer) object() (*object, bool) {
	if a.obj == nil {
		a.obj, _ = parseObject(a.data)
	}
	return a.obj, a.obj != nil
}

// payload validates body and unwraps the success/data envelope when there is
// one. Object bodies are parsed once here and handed on.
func payload(body []byte) (*answer, *Error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if e := checkJSON(body); e != nil {
			return nil, e
		}
		return &answer{data: trimmed}, nil
	}
	o, ok := parseObject(trimmed)
	if !ok {
		return nil, checkJSON(body)
	}
	okRaw, has := o.get("success")
	var success bool
	if !has || json.Unmarshal(okRaw, &success) != nil {
		// No envelope, or a field that merely shares the name.
		return &answer{data: trimmed, obj: o}, nil
	}
	if !success {
		msg := "no reason given"
		if m, found := o.get("message", "error", "errors"); found {
			msg = snippet(m)
		}
		return nil, unexpected("the API reported a failure (success=false): %s", msg)
	}
	d, has := o.get("data")
	if !has || isNull(d) {
		return nil, unexpected("success=true but no data: %s", snippet(body))
	}
	return &answer{data: d, enveloped: true}, nil
}

// object is a JSON object whose fields can be looked up without regard to
// case and claimed one by one; what is never claimed ends up in Extra.
type object struct {
	fields map[string]json.RawMessage // as the upstream spelled them
	lower  map[string]string          // lower-cased name → spelling
	used   map[string]bool
}

func parseObject(raw json.RawMessage) (*object, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil, false
	}
	return newObject(fields), true
}

func newObject(fields map[string]json.RawMessage) *object {
	o := &object{fields: fields, lower: make(map[string]string, len(fields)), used: make(map[string]bool, len(fields))}
	for k := range fields {
		l := strings.ToLower(k)
		// Two spellings of one name: pick one deterministically; the other
		// stays unclaimed and lands in Extra.
		if prev, dup := o.lower[l]; !dup || k < prev {
			o.lower[l] = k
		}
	}
	return o
}

// key returns the spelling of the first of names present and unclaimed.
func (o *object) key(names ...string) (string, bool) {
	for _, n := range names {
		if k, ok := o.lower[strings.ToLower(n)]; ok && !o.used[k] {
			return k, true
		}
	}
	return "", false
}

// get returns the first of names present, without claiming it.
func (o *object) get(names ...string) (json.RawMessage, bool) {
	k, ok := o.key(names...)
	if !ok {
		return nil, false
	}
	return o.fields[k], true
}

// claim marks the field as used when parse accepts it or it is null (which
// carries nothing to keep).
func (o *object) claim(parse func(json.RawMessage) bool, names ...string) bool {
	k, ok := o.key(names...)
	if !ok {
		return false
	}
	raw := o.fields[k]
	if isNull(raw) {
		o.used[k] = true
		return false
	}
	if parse(raw) {
		o.used[k] = true
		return true
	}
	return false
}

// str, int and float claim the first of names that parses, storing it in
// dst; dst is untouched otherwise.
func (o *object) str(dst *string, names ...string) bool {
	return o.claim(func(r json.RawMessage) bool { return store(dst)(asString(r)) }, names...)
}

func (o *object) int(dst *int, names ...string) bool {
	return o.claim(func(r json.RawMessage) bool { return store(dst)(asInt(r)) }, names...)
}

func (o *object) float(dst *float64, names ...string) bool {
	return o.claim(func(r json.RawMessage) bool { return store(dst)(asFloat(r)) }, names...)
}

func store[T any](dst *T) func(T, bool) bool {
	return func(v T, ok bool) bool {
		if ok {
			*dst = v
		}
		return ok
	}
}

// rest copies every unclaimed field into extra under prefix+name.
func (o *object) rest(extra map[string]json.RawMessage, prefix string) {
	for k, v := range o.fields {
		if !o.used[k] {
			extra[prefix+k] = v
		}
	}
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// asString accepts a JSON string, number or boolean as text.
func asString(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return strings.TrimSpace(s), true
	case '{', '[', 'n':
		return "", false
	}
	return string(raw), true
}

// asFloat accepts a JSON number or a string holding one.
func asFloat(raw json.RawMessage) (float64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0, false
	}
	var f float64
	var err error
	switch {
	case raw[0] == '"':
		var text string
		if json.Unmarshal(raw, &text) != nil {
			return 0, false
		}
		f, err = strconv.ParseFloat(strings.TrimSpace(text), 64)
	case raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'):
		f, err = strconv.ParseFloat(string(raw), 64) // short: converted without allocating
	default:
		return 0, false
	}
	if err != nil || !finite(f) {
		return 0, false
	}
	return f, true
}

func asInt(raw json.RawMessage) (int, bool) {
	f, ok := asFloat(raw)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int(f), true
}

func asArray(raw json.RawMessage) ([]json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, false
	}
	return items, true
}

func newExtra() map[string]json.RawMessage { return map[string]json.RawMessage{} }

// orNil keeps empty Extra maps out of the encoded models.
func orNil(m map[string]json.RawMessage) map[string]json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	return m
}

func decodeLastUpdate(body []byte) (*LastUpdate, *Error) {
	a, e := payload(body)
	if e != nil {
		return nil, e
	}
	// Only a JSON string is a date here; a number would be a guess.
	var date string
	p := a.data
	if o, ok := a.object(); ok {
		if d, has := o.get("date", "dateLastUpdated", "lastUpdated"); has {
			p = d
		}
	}
	if json.Unmarshal(p, &date) != nil || strings.TrimSpace(date) == "" {
		return nil, unexpected("no date in the answer: %s", snippet(body))
	}
	return &LastUpdate{Date: strings.TrimSpace(date), Raw: json.RawMessage(body)}, nil
}

func decodeBreedGroups(body []byte) (*BreedGroups, *Error) {
	a, e := payload(body)
	if e != nil {
		return nil, e
	}
	items, ok := asArray(a.data)
	if !ok {
		return nil, unexpected("breed groups are not a list: %s", snippet(a.data))
	}
	out := &BreedGroups{Groups: make([]BreedGroup, 0, len(items)), Raw: json.RawMessage(body)}
	for i, item := range items {
		o, ok := parseObject(item)
		if !ok {
			return nil, unexpected("breed group %d is not an object: %s", i, snippet(item))
		}
		var g BreedGroup
		if !o.int(&g.ID, "breedGroupId", "id") {
			return nil, unexpected("breed group %d has no numeric id: %s", i, snippet(item))
		}
		o.str(&g.Name, "breedGroupName", "name")
		g.Breeds = []Breed{}
		if raw, has := o.get("breeds"); has && !isNull(raw) {
			breeds, ok := asArray(raw)
			if !ok {
				return nil, unexpected("breeds of group %d are not a list: %s", g.ID, snippet(raw))
			}
			for j, br := range breeds {
				bo, ok := parseObject(br)
				var b Breed
				if !ok || !bo.int(&b.ID, "breedId", "id") {
					return nil, unexpected("breed %d of group %d has no numeric id: %s", j, g.ID, snippet(br))
				}
				bo.str(&b.Name, "breedName", "name")
				g.Breeds = append(g.Breeds, b)
			}
		}
		out.Groups = append(out.Groups, g)
	}
	return out, nil
}

// decodeStatuses treats any JSON that is not a list of statuses as "none",
// which is how the API says a breed group has no status filter.
func decodeStatuses(body []byte) (*Statuses, *Error) {
	if e := checkJSON(body); e != nil {
		return nil, e
	}
	out := &Statuses{Values: []string{}, Raw: json.RawMessage(body)}
	items, ok := asArray(body)
	if !ok {
		if a, e := payload(body); e == nil {
			items, _ = asArray(a.data)
		}
	}
	for _, item := range items {
		if s, ok := asString(item); ok && s != "" {
			out.Values = append(out.Values, s)
		} else if !isNull(item) {
			out.Values = append(out.Values, string(bytes.TrimSpace(item)))
		}
	}
	return out, nil
}

func decodeTraitRanges(body []byte) (*TraitRanges, *Error) {
	a, e := payload(body)
	if e != nil {
		return nil, e
	}
	out := &TraitRanges{Ranges: []TraitRange{}, Raw: json.RawMessage(body)}
	add := func(code string, raw json.RawMessage) *Error {
		if isNull(raw) {
			return nil // no range published for this trait
		}
		o, ok := parseObject(raw)
		var r Range
		if !ok || !o.float(&r.Min, "min") || !o.float(&r.Max, "max") {
			return unexpected("trait range %s lacks a numeric min and max: %s", code, snippet(raw))
		}
		out.Ranges = append(out.Ranges, TraitRange{Code: strings.ToUpper(code), Range: r})
		return nil
	}
	if o, ok := a.object(); ok {
		for code, raw := range o.fields {
			if e := add(code, raw); e != nil {
				return nil, e
			}
		}
	} else if items, ok := asArray(a.data); ok {
		for i, item := range items {
			var code string
			io, ok := parseObject(item)
			if !ok || !io.str(&code, "code", "trait", "traitName", "name") || code == "" {
				return nil, unexpected("trait range %d has no trait code: %s", i, snippet(item))
			}
			if e := add(code, item); e != nil {
				return nil, e
			}
		}
	} else {
		return nil, unexpected("trait ranges are not an object: %s", snippet(a.data))
	}
	slices.SortFunc(out.Ranges, func(a, b TraitRange) int { return compareTraitCodes(a.Code, b.Code) })
	return out, nil
}

// page reads the {recordCount, records} wrapper shared by search and progeny
// answers (TotalCount / Results in the old format).
func page(body []byte, what string) (total int, rows []*object, enveloped bool, e *Error) {
	a, e := payload(body)
	if e != nil {
		return 0, nil, false, e
	}
	p := a.data
	o, ok := a.object()
	if !ok {
		return 0, nil, false, unexpected("the %s page is not an object: %s", what, snippet(p))
	}
	if !o.int(&total, "recordCount", "totalCount", "total") {
		return 0, nil, false, unexpected("the %s page has no record count: %s", what, snippet(p))
	}
	raw, has := o.get("records", "results")
	if !has || (isNull(raw) && total != 0) {
		return 0, nil, false, unexpected("the %s page has no records list: %s", what, snippet(p))
	}
	if !isNull(raw) {
		if rows, e = pageRows(raw, what); e != nil {
			return 0, nil, false, e
		}
	}
	return total, rows, a.enveloped, nil
}

// pageRows parses the records list in one pass; only when that fails does it
// go row by row to say which row is at fault.
func pageRows(raw json.RawMessage, what string) ([]*object, *Error) {
	var maps []map[string]json.RawMessage
	if json.Unmarshal(raw, &maps) == nil {
		rows := make([]*object, len(maps))
		for i, m := range maps {
			if m == nil {
				return nil, unexpected("%s row %d is not an object: null", what, i)
			}
			rows[i] = newObject(m)
		}
		return rows, nil
	}
	items, ok := asArray(raw)
	if !ok {
		return nil, unexpected("the %s records are not a list: %s", what, snippet(raw))
	}
	for i, item := range items {
		if _, ok := parseObject(item); !ok {
			return nil, unexpected("%s row %d is not an object: %s", what, i, snippet(item))
		}
	}
	return nil, unexpected("the %s records cannot be read: %s", what, snippet(raw))
}

// row is what every animal row has: its LPN ID, traits, indexes and the
// fields nobody claimed.
type row struct {
	lpnID   string
	traits  []Trait
	indexes []Index
	extra   map[string]json.RawMessage
}

// decodeRow reads row i of a page; claim takes the fields particular to the
// row kind before traits, indexes and Extra take the rest.
func decodeRow(o *object, i int, what string, enveloped bool, claim func(*object)) (row, *Error) {
	var r row
	lpnKey, _ := o.key("lpnId")
	if !o.str(&r.lpnID, "lpnId") || r.lpnID == "" {
		fields, _ := json.Marshal(o.fields)
		return r, unexpected("%s row %d has no lpnId: %s", what, i, snippet(fields))
	}
	claim(o)
	extra := newExtra()
	var m metrics
	m.collect(o, isFractionScale(enveloped, lpnKey), extra)
	r.traits, r.indexes = m.sorted()
	o.rest(extra, "")
	r.extra = orNil(extra)
	return r, nil
}

func decodeSearch(body []byte) (*SearchResults, *Error) {
	total, rows, enveloped, e := page(body, "search")
	if e != nil {
		return nil, e
	}
	out := &SearchResults{TotalCount: total, Results: make([]AnimalRow, len(rows)), Raw: json.RawMessage(body)}
	for i, o := range rows {
		a := &out.Results[i]
		r, e := decodeRow(o, i, "search", enveloped, func(o *object) {
			o.str(&a.Sire, "lpnSre", "sire", "sireId")
			o.str(&a.Dam, "lpnDam", "dam", "damId")
			o.str(&a.Status, "status")
			o.str(&a.RegistrationNumber, "regNumber", "registrationNumber")
		})
		if e != nil {
			return nil, e
		}
		a.LPNID, a.Traits, a.Indexes, a.Extra = r.lpnID, r.traits, r.indexes, r.extra
	}
	return out, nil
}

func decodeProgeny(body []byte) (*ProgenyPage, *Error) {
	total, rows, enveloped, e := page(body, "progeny")
	if e != nil {
		return nil, e
	}
	out := &ProgenyPage{TotalCount: total, Animals: make([]ProgenyRow, len(rows)), Raw: json.RawMessage(body)}
	for i, o := range rows {
		a := &out.Animals[i]
		r, e := decodeRow(o, i, "progeny", enveloped, func(o *object) {
			o.str(&a.Sex, "sex", "gender")
			o.str(&a.DateOfBirth, "dob", "dateOfBirth")
		})
		if e != nil {
			return nil, e
		}
		a.LPNID, a.Traits, a.Indexes, a.Extra = r.lpnID, r.traits, r.indexes, r.extra
	}
	return out, nil
}

func decodeDetails(body []byte) (*AnimalDetails, *Error) {
	a, e := payload(body)
	if e != nil {
		return nil, e
	}
	p, enveloped := a.data, a.enveloped
	top, ok := a.object()
	if !ok {
		return nil, unexpected("animal details are not an object: %s", snippet(p))
	}
	d := &AnimalDetails{Raw: json.RawMessage(body)}
	extra := newExtra()
	top.sub("breed", extra, func(b *object) {
		b.str(&d.Breed, "breedName", "name")
		b.int(&d.BreedID, "breedId", "id")
	})
	top.sub("breedGroup", extra, func(b *object) { b.str(&d.BreedGroup, "breedGroupName", "name") })
	top.sub("contactInfo", extra, func(c *object) {
		ci := &d.Contact
		c.str(&ci.FlockCode, "flockCode", "flockId")
		c.str(&ci.FarmName, "farmName")
		c.str(&ci.ContactName, "customerName", "contactName")
		c.str(&ci.Phone, "phone")
		c.str(&ci.Email, "email")
		c.str(&ci.Address, "address")
		c.str(&ci.City, "city")
		c.str(&ci.State, "state")
		c.str(&ci.ZipCode, "zipCode", "zip")
	})

	// The animal's own row sits in searchResultViewModel in the current
	// format, repeating some top-level facts, and at the top level in the old
	// one. Read both; a repeated value is taken once, a conflicting one is
	// kept in Extra.
	type part struct {
		o      *object
		prefix string
	}
	parts := []part{{top, ""}}
	if k, has := top.key("searchResultViewModel"); has {
		if svm, ok := parseObject(top.fields[k]); ok {
			top.used[k] = true
			parts = append(parts, part{svm, k + "."})
		}
	}
	var m metrics
	for _, pt := range parts {
		o := pt.o
		lpnKey, _ := o.key("lpnId")
		o.merge(&d.LPNID, "lpnId")
		o.merge(&d.Sire, "lpnSre", "sire", "sireId")
		o.merge(&d.Dam, "lpnDam", "dam", "damId")
		o.merge(&d.Status, "status")
		o.merge(&d.RegistrationNumber, "regNumber", "registrationNumber")
		o.merge(&d.DateOfBirth, "dateOfBirth", "dob")
		o.merge(&d.Gender, "gender", "sex")
		o.merge(&d.Genotyped, "genotyped")
		o.merge(&d.FlockCount, "flockCount")
		o.merge(&d.Breed, "breed", "breedName")
		o.merge(&d.BreedGroup, "breedGroup", "breedGroupName")
		o.merge(&d.Contact.FlockCode, "flockCode")
		o.mergeInt(&d.TotalProgeny, "progenyCount", "totalProgeny")
		o.mergeInt(&d.BreedID, "breedId")
		m.collect(o, isFractionScale(enveloped || len(parts) == 2, lpnKey), extra)
		o.rest(extra, pt.prefix)
	}
	if d.LPNID == "" {
		return nil, unexpected("animal details carry no lpnId: %s", snippet(p))
	}
	d.Traits, d.Indexes = m.sorted()
	d.Extra = orNil(extra)
	return d, nil
}

// merge claims the first of names when dst is still empty (storing the
// value) or already holds the same value; a conflicting value is left for
// Extra.
func (o *object) merge(dst *string, names ...string) {
	o.claim(func(r json.RawMessage) bool {
		s, ok := asString(r)
		if ok && *dst == "" {
			*dst = s
		}
		return ok && *dst == s
	}, names...)
}

// mergeInt is merge for integers, with 0 as empty.
func (o *object) mergeInt(dst *int, names ...string) {
	o.claim(func(r json.RawMessage) bool {
		n, ok := asInt(r)
		if ok && *dst == 0 {
			*dst = n
		}
		return ok && *dst == n
	}, names...)
}

// sub hands the named nested object to fill, then files its unclaimed
// fields in extra as "name.field". A value that is not an object is left
// unclaimed for Extra.
func (o *object) sub(name string, extra map[string]json.RawMessage, fill func(*object)) {
	k, ok := o.key(name)
	if !ok {
		return
	}
	if isNull(o.fields[k]) {
		o.used[k] = true
		return
	}
	s, ok := parseObject(o.fields[k])
	if !ok {
		return
	}
	o.used[k] = true
	fill(s)
	s.rest(extra, k+".")
}

// isFractionScale decides the accuracy scale of a row: the current format
// (camelCase, enveloped) sends fractions, the old one percents.
func isFractionScale(current bool, lpnKey string) bool {
	if current {
		return true
	}
	return lpnKey != "" && lpnKey[0] >= 'a' && lpnKey[0] <= 'z'
}

// TraitOrder returns the position of code in TraitCodes, or len(TraitCodes)
// for codes outside the published thirteen.
func TraitOrder(code string) int {
	if i := slices.Index(TraitCodes, code); i >= 0 {
		return i
	}
	return len(TraitCodes)
}

// compareTraitCodes orders known traits as TraitCodes, then the rest
// alphabetically.
func compareTraitCodes(a, b string) int {
	if oa, ob := TraitOrder(a), TraitOrder(b); oa != ob {
		return oa - ob
	}
	return strings.Compare(a, b)
}

var knownTrait = func() map[string]bool {
	m := make(map[string]bool, len(TraitCodes))
	for _, c := range TraitCodes {
		m[strings.ToLower(c)] = true
	}
	return m
}()

// metrics gathers the trait and index values of one animal, possibly from
// several objects (details read two).
type metrics struct {
	traits  map[string]Trait
	indexes map[string]float64
}

// pair is a trait value field and, when present, its accuracy field.
type pair struct {
	code, key, accKey string
	value, acc        float64
	hasAcc            bool
}

// collect claims from o every trait pair (bwt + accbwt), nested trait and
// index collections, and every numeric field named like an index. An
// accuracy that is off the 0..100 scale after normalising is left for Extra.
func (m *metrics) collect(o *object, fraction bool, extra map[string]json.RawMessage) {
	if m.traits == nil {
		m.traits = map[string]Trait{}
		m.indexes = map[string]float64{}
	}
	keys := make([]string, 0, len(o.fields))
	for k := range o.fields {
		if !o.used[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys) // deterministic when two spellings claim one trait
	// Accuracy fields by the lower-cased name of the value they qualify.
	accOf := make(map[string]string, len(TraitCodes))
	for l, k := range o.lower {
		if len(l) > 3 && l[:3] == "acc" {
			accOf[l[3:]] = k
		}
	}
	var pairs []pair
	for _, k := range keys {
		lk := strings.ToLower(k)
		accKey, hasAcc := accOf[lk]
		hasAcc = hasAcc && !o.used[accKey]
		if !knownTrait[lk] && !(hasAcc && isLetters(lk)) {
			continue
		}
		raw := o.fields[k]
		if isNull(raw) {
			// No published value; a null accuracy beside it says nothing more.
			o.used[k] = true
			if hasAcc && isNull(o.fields[accKey]) {
				o.used[accKey] = true
			}
			continue
		}
		v, ok := asFloat(raw)
		code := strings.ToUpper(lk)
		if _, dup := m.traits[code]; !ok || dup {
			continue
		}
		p := pair{code: code, key: k, value: v}
		if hasAcc {
			p.accKey = accKey
			p.acc, p.hasAcc = asFloat(o.fields[accKey])
			if !p.hasAcc && isNull(o.fields[accKey]) {
				o.used[accKey] = true
			}
		}
		m.traits[code] = Trait{} // reserve against a second spelling
		pairs = append(pairs, p)
	}
	scale := 1.0
	if fraction {
		// Fractions never exceed 1; one that does means this row is in
		// fact on the percent scale.
		scale = 100
		for _, p := range pairs {
			if p.hasAcc && p.acc > 1 {
				scale = 1
			}
		}
	}
	for _, p := range pairs {
		o.used[p.key] = true
		t := Trait{Code: p.code, Value: p.value}
		if p.hasAcc {
			if a, ok := percent(p.acc, scale); ok {
				t.Accuracy, t.HasAccuracy = a, true
				o.used[p.accKey] = true
			}
		}
		m.traits[p.code] = t
	}
	if k, ok := o.key("traits"); ok {
		if n, ok := parseObject(o.fields[k]); ok {
			o.used[k] = true
			m.nestedTraits(n, k+".", fraction, extra)
		}
	}
	if k, ok := o.key("indexes"); ok {
		o.used[k] = m.nestedIndexes(o.fields[k])
	}
	for _, k := range keys {
		if o.used[k] || !strings.Contains(strings.ToLower(k), "index") {
			continue
		}
		if v, ok := asFloat(o.fields[k]); ok {
			name := indexName(k)
			if _, dup := m.indexes[name]; !dup {
				m.indexes[name] = v
				o.used[k] = true
			}
		}
	}
}

// percent scales an accuracy and reports whether it lands on 0..100.
func percent(a, scale float64) (float64, bool) {
	a = math.Round(a*scale*1e6) / 1e6
	return a, a >= 0 && a <= 100
}

// nestedTraits reads {"BWT": {"Value": 0.5, "Accuracy": 89}, …}; a bare
// number stands for a value without accuracy.
func (m *metrics) nestedTraits(n *object, prefix string, fraction bool, extra map[string]json.RawMessage) {
	scale := 1.0
	if fraction {
		scale = 100
	}
	for k, raw := range n.fields {
		code := strings.ToUpper(k)
		if _, dup := m.traits[code]; dup || !isLetters(k) {
			continue
		}
		t := Trait{Code: code}
		if v, ok := asFloat(raw); ok {
			t.Value = v
		} else if to, ok := parseObject(raw); ok && to.float(&t.Value, "value") {
			var a float64
			if ak, ok := to.key("accuracy", "acc"); ok && to.float(&a, ak) {
				if t.Accuracy, t.HasAccuracy = percent(a, scale); !t.HasAccuracy {
					t.Accuracy, to.used[ak] = 0, false // off the scale: keep it in Extra
				}
			}
			to.rest(extra, prefix+k+".")
		} else {
			continue
		}
		n.used[k] = true
		m.traits[code] = t
	}
	n.rest(extra, prefix)
}

// nestedIndexes reads {"US Index": 102.3} or [{"name": …, "value": …}]. It
// reports whether the whole collection was understood.
func (m *metrics) nestedIndexes(raw json.RawMessage) bool {
	found := map[string]float64{}
	if o, ok := parseObject(raw); ok {
		for k, v := range o.fields {
			f, ok := asFloat(v)
			if !ok {
				return false
			}
			found[k] = f
		}
	} else if items, ok := asArray(raw); ok {
		for _, item := range items {
			io, ok := parseObject(item)
			var name string
			var f float64
			if !ok || !io.str(&name, "name", "indexName") || !io.float(&f, "value") {
				return false
			}
			found[name] = f
		}
	} else {
		return isNull(raw)
	}
	for k, v := range found {
		if _, dup := m.indexes[k]; !dup {
			m.indexes[k] = v
		}
	}
	return true
}

// indexName turns the API's field names for the well-known indexes into the
// names the NSIP site prints; other names are kept as spelled.
func indexName(key string) string {
	switch strings.ToLower(key) {
	case "usindex":
		return "US Index"
	case "ushairindex":
		return "US Hair Index"
	case "srcindex", "src$index", "srcdollarindex":
		return "SRC$ Index"
	}
	return key
}

// sorted returns the traits in TraitCodes order and the indexes by name.
func (m *metrics) sorted() ([]Trait, []Index) {
	var traits []Trait
	for _, t := range m.traits {
		traits = append(traits, t)
	}
	slices.SortFunc(traits, func(a, b Trait) int { return compareTraitCodes(a.Code, b.Code) })
	var idx []Index
	for name, v := range m.indexes {
		idx = append(idx, Index{Name: name, Value: v})
	}
	slices.SortFunc(idx, func(a, b Index) int { return strings.Compare(a.Name, b.Name) })
	return traits, idx
}
