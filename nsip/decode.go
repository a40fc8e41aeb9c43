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
	keys      *keyTable
	enveloped bool // the body had the success/data envelope
}

// object returns the payload as an object, parsing it at most once.
func (a *answer) object() (*object, bool) {
	if a.obj == nil {
		if o, ok := a.keys.object(a.data); ok {
			a.obj = o
		}
	}
	return a.obj, a.obj != nil
}

// payload validates body and unwraps the success/data envelope when there is
// one. Object bodies are parsed once here and handed on.
func payload(body []byte) (*answer, *Error) {
	trimmed := bytes.TrimSpace(body)
	kt := newKeyTable()
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if e := checkJSON(body); e != nil {
			return nil, e
		}
		return &answer{data: trimmed, keys: kt}, nil
	}
	if !json.Valid(trimmed) {
		return nil, checkJSON(body)
	}
	// Values kept in Extra are slices of this copy, never of the caller's
	// body.
	trimmed = bytes.Clone(trimmed)
	o, _ := kt.object(trimmed)
	okRaw, has := o.get("success")
	var success bool
	if !has || json.Unmarshal(okRaw, &success) != nil {
		// No envelope, or a field that merely shares the name.
		return &answer{data: trimmed, obj: o, keys: kt}, nil
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
	return &answer{data: d, keys: kt, enveloped: true}, nil
}

// object is a JSON object whose fields can be looked up without regard to
// case and claimed one by one; what is never claimed ends up in Extra.
type object struct {
	fields []field // in name order, each name once
	keys   *keyTable
}

type field struct {
	name  string          // as the upstream spelled it
	low   *lowKey         // the name lower-cased
	raw   json.RawMessage // the value as sent
	used  bool
	first bool // the spelling lookups find when several differ only in case
}

// key returns the index of the first of names present and unclaimed.
func (o *object) key(names ...string) (int, bool) {
	for _, n := range names {
		if i := o.find(n); i >= 0 && !o.fields[i].used {
			return i, true
		}
	}
	return -1, false
}

// find returns the index of the field a lookup of name finds, or -1.
func (o *object) find(name string) int {
	if !isASCII(name) {
		l := strings.ToLower(name)
		for i := range o.fields {
			if o.fields[i].first && o.fields[i].low.s == l {
				return i
			}
		}
		return -1
	}
	for i := range o.fields {
		f := &o.fields[i]
		if f.first && len(f.low.s) == len(name) && lowerEquals(f.low.s, name) {
			return i
		}
	}
	return -1
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// lowerEquals reports whether l equals the ASCII name lower-cased.
func lowerEquals(l, name string) bool {
	for i := 0; i < len(l); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if l[i] != c {
			return false
		}
	}
	return true
}

// get returns the first of names present, without claiming it.
func (o *object) get(names ...string) (json.RawMessage, bool) {
	i, ok := o.key(names...)
	if !ok {
		return nil, false
	}
	return o.fields[i].raw, true
}

// claim marks the field as used when parse accepts it or it is null (which
// carries nothing to keep).
func (o *object) claim(parse func(json.RawMessage) bool, names ...string) bool {
	i, ok := o.key(names...)
	if !ok {
		return false
	}
	raw := o.fields[i].raw
	return o.settle(i, !isNull(raw) && parse(raw))
}

// settle finishes a claim of field i whose value parsed or not.
func (o *object) settle(i int, parsed bool) bool {
	f := &o.fields[i]
	if isNull(f.raw) {
		f.used = true
		return false
	}
	f.used = parsed
	return parsed
}

// str, int and float claim the first of names that parses, storing it in
// dst; dst is untouched otherwise.
func (o *object) str(dst *string, names ...string) bool { return claimAs(o, dst, asString, names) }

func (o *object) int(dst *int, names ...string) bool { return claimAs(o, dst, asInt, names) }

func (o *object) float(dst *float64, names ...string) bool { return claimAs(o, dst, asFloat, names) }

func claimAs[T any](o *object, dst *T, parse func(json.RawMessage) (T, bool), names []string) bool {
	i, ok := o.key(names...)
	return ok && claimAt(o, i, dst, parse)
}

// claimAt is claimAs for field i.
func claimAt[T any](o *object, i int, dst *T, parse func(json.RawMessage) (T, bool)) bool {
	v, ok := parse(o.fields[i].raw)
	if ok {
		*dst = v
	}
	return o.settle(i, ok)
}

// rest copies every unclaimed field into extra under prefix+name.
func (o *object) rest(extra map[string]json.RawMessage, prefix string) {
	for _, f := range o.fields {
		if !f.used {
			extra[prefix+f.name] = f.raw
		}
	}
}

// asMap is the object as encoding/json would have decoded it.
func (o *object) asMap() map[string]json.RawMessage {
	m := make(map[string]json.RawMessage, len(o.fields))
	for _, f := range o.fields {
		m[f.name] = f.raw
	}
	return m
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// quoted returns the inside of a JSON string literal that needs no
// unescaping, the common case, which spares encoding/json.
func quoted(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[len(raw)-1] != '"' || !plainASCII(raw[1:len(raw)-1]) {
		return nil, false
	}
	return raw[1 : len(raw)-1], true
}

// asString accepts a JSON string, number or boolean as text.
func asString(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch raw[0] {
	case '"':
		if in, ok := quoted(raw); ok {
			return string(bytes.TrimSpace(in)), true
		}
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
		if in, ok := quoted(raw); ok {
			f, err = strconv.ParseFloat(string(bytes.TrimSpace(in)), 64)
			break
		}
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

// asArray reads raw, which need not be valid JSON, as a list.
func asArray(raw json.RawMessage) ([]json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' || !json.Valid(raw) {
		return nil, false
	}
	return elements(raw), true
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
		o, ok := a.keys.object(item)
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
				bo, ok := a.keys.object(br)
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
		o, ok := a.keys.object(raw)
		var r Range
		if !ok || !o.float(&r.Min, "min") || !o.float(&r.Max, "max") {
			return unexpected("trait range %s lacks a numeric min and max: %s", code, snippet(raw))
		}
		out.Ranges = append(out.Ranges, TraitRange{Code: strings.ToUpper(code), Range: r})
		return nil
	}
	if o, ok := a.object(); ok {
		for _, f := range o.fields {
			if e := add(f.name, f.raw); e != nil {
				return nil, e
			}
		}
	} else if items, ok := asArray(a.data); ok {
		for i, item := range items {
			var code string
			io, ok := a.keys.object(item)
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
// answers (TotalCount / Results in the old format). The rows are returned
// unparsed, each known to be an object.
func page(body []byte, what string) (total int, rows []json.RawMessage, a *answer, e *Error) {
	a, e = payload(body)
	if e != nil {
		return 0, nil, nil, e
	}
	p := a.data
	o, ok := a.object()
	if !ok {
		return 0, nil, nil, unexpected("the %s page is not an object: %s", what, snippet(p))
	}
	if !o.int(&total, "recordCount", "totalCount", "total") {
		return 0, nil, nil, unexpected("the %s page has no record count: %s", what, snippet(p))
	}
	raw, has := o.get("records", "results")
	if !has || (isNull(raw) && total != 0) {
		return 0, nil, nil, unexpected("the %s page has no records list: %s", what, snippet(p))
	}
	if !isNull(raw) {
		if rows, e = pageRows(raw, what); e != nil {
			return 0, nil, nil, e
		}
	}
	return total, rows, a, nil
}

// pageRows splits the records list, saying which row is at fault when one is
// not an object.
func pageRows(raw json.RawMessage, what string) ([]json.RawMessage, *Error) {
	if raw[0] != '[' {
		return nil, unexpected("the %s records are not a list: %s", what, snippet(raw))
	}
	items := elements(raw)
	for i, item := range items {
		if item[0] != '{' {
			return nil, unexpected("%s row %d is not an object: %s", what, i, snippet(item))
		}
	}
	return items, nil
}

// row is what every animal row has: its LPN ID, traits, indexes and the
// fields nobody claimed.
type row struct {
	lpnID   string
	traits  []Trait
	indexes []Index
	extra   map[string]json.RawMessage
}

// rowReader decodes the rows of one page, reusing its scratch from row to
// row.
type rowReader struct {
	a    *answer
	what string
	o    object
	m    metrics
}

// decode reads row i; claim takes the fields particular to the row kind
// before traits, indexes and Extra take the rest.
func (rr *rowReader) decode(raw json.RawMessage, i int, claim func(*object)) (row, *Error) {
	var r row
	o := &rr.o
	rr.a.keys.fill(o, raw)
	lpnKey := ""
	if k := o.find("lpnId"); k >= 0 {
		lpnKey = o.fields[k].name
	}
	if !o.str(&r.lpnID, "lpnId") || r.lpnID == "" {
		fields, _ := json.Marshal(o.asMap())
		return r, unexpected("%s row %d has no lpnId: %s", rr.what, i, snippet(fields))
	}
	claim(o)
	extra := newExtra()
	m := &rr.m
	m.reset()
	m.collect(o, isFractionScale(rr.a.enveloped, lpnKey), extra)
	r.traits, r.indexes = m.sorted()
	o.rest(extra, "")
	r.extra = orNil(extra)
	return r, nil
}

func decodeSearch(body []byte) (*SearchResults, *Error) {
	total, rows, a, e := page(body, "search")
	if e != nil {
		return nil, e
	}
	out := &SearchResults{TotalCount: total, Results: make([]AnimalRow, len(rows)), Raw: json.RawMessage(body)}
	rr := &rowReader{a: a, what: "search"}
	for i, raw := range rows {
		a := &out.Results[i]
		r, e := rr.decode(raw, i, func(o *object) {
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
	total, rows, a, e := page(body, "progeny")
	if e != nil {
		return nil, e
	}
	out := &ProgenyPage{TotalCount: total, Animals: make([]ProgenyRow, len(rows)), Raw: json.RawMessage(body)}
	rr := &rowReader{a: a, what: "progeny"}
	for i, raw := range rows {
		a := &out.Animals[i]
		r, e := rr.decode(raw, i, func(o *object) {
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
		if svm, ok := a.keys.object(top.fields[k].raw); ok {
			top.fields[k].used = true
			parts = append(parts, part{svm, top.fields[k].name + "."})
		}
	}
	var m metrics
	for _, pt := range parts {
		o := pt.o
		lpnKey := ""
		if k, ok := o.key("lpnId"); ok {
			lpnKey = o.fields[k].name
		}
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
	f := &o.fields[k]
	if isNull(f.raw) {
		f.used = true
		return
	}
	s, ok := o.keys.object(f.raw)
	if !ok {
		return
	}
	f.used = true
	fill(s)
	s.rest(extra, f.name+".")
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
// several objects (details read two). A row has a few dozen at most, so
// slices searched in turn beat maps.
type metrics struct {
	traits  []Trait
	indexes []Index
	codes   nameSet       // of traits
	names   nameSet       // of indexes
	ranked  []rankedTrait // sorted's scratch
}

type rankedTrait struct {
	order int
	t     Trait
}

func (m *metrics) reset() {
	m.traits, m.indexes = m.traits[:0], m.indexes[:0]
	m.codes.reset()
	m.names.reset()
}

func (m *metrics) hasTrait(code string) bool { return m.codes.has(code) }
func (m *metrics) hasIndex(name string) bool { return m.names.has(name) }

// addTrait appends t (possibly a placeholder holding only its code) and
// returns its position.
func (m *metrics) addTrait(t Trait) int {
	m.traits = append(m.traits, t)
	m.codes.add(t.Code)
	return len(m.traits) - 1
}

func (m *metrics) addIndex(ix Index) {
	m.indexes = append(m.indexes, ix)
	m.names.add(ix.Name)
}

// nameSet is a set of names searched in turn, which is quickest for the
// dozen or so a row has; a map takes over when a hostile body carries so
// many that searching would take quadratic time.
type nameSet struct {
	list []string
	big  map[string]bool
}

const nameSetScan = 32

func (s *nameSet) reset() { s.list, s.big = s.list[:0], nil }

func (s *nameSet) has(name string) bool {
	if s.big != nil {
		return s.big[name]
	}
	return slices.Contains(s.list, name)
}

func (s *nameSet) add(name string) {
	switch {
	case s.big != nil:
		s.big[name] = true
	case len(s.list) < nameSetScan:
		s.list = append(s.list, name)
	default:
		s.big = make(map[string]bool, 2*len(s.list))
		for _, n := range s.list {
			s.big[n] = true
		}
		s.big[name] = true
	}
}

// pair is a trait value field and, when present, its accuracy field (indexes
// into the object's fields).
type pair struct {
	code       string
	at, accAt  int // fields
	slot       int // in metrics.traits
	value, acc float64
	hasAcc     bool
}

// collect claims from o every trait pair (bwt + accbwt), nested trait and
// index collections, and every numeric field named like an index. An
// accuracy that is off the 0..100 scale after normalising is left for Extra.
func (m *metrics) collect(o *object, fraction bool, extra map[string]json.RawMessage) {
	kt := o.keys
	// Fields are in name order, which keeps the outcome deterministic when
	// two spellings claim one trait.
	keys := kt.keys[:0]
	for i := range o.fields {
		if !o.fields[i].used {
			keys = append(keys, i)
		}
	}
	// Accuracy fields, found through the name of the value they qualify.
	// A name no field of the body has cannot be looked up here either.
	kt.gen++
	for i := range o.fields {
		lk := o.fields[i].low
		if !o.fields[i].first || lk.accOf == "" {
			continue
		}
		if lk.acc == nil {
			if lk.acc = kt.lower[lk.accOf]; lk.acc == nil {
				continue
			}
		}
		lk.acc.accStamp, lk.acc.accAt = kt.gen, i
	}
	pairs := kt.pairs[:0]
	for _, i := range keys {
		f := &o.fields[i]
		lk := f.low
		accAt := lk.accAt
		hasAcc := lk.accStamp == kt.gen && !o.fields[accAt].used
		if !lk.known && !(hasAcc && lk.letters) {
			continue
		}
		if isNull(f.raw) {
			// No published value; a null accuracy beside it says nothing more.
			f.used = true
			if hasAcc && isNull(o.fields[accAt].raw) {
				o.fields[accAt].used = true
			}
			continue
		}
		v, ok := asFloat(f.raw)
		if !ok || m.hasTrait(lk.code) {
			continue
		}
		p := pair{code: lk.code, at: i, value: v}
		if hasAcc {
			p.accAt = accAt
			p.acc, p.hasAcc = asFloat(o.fields[accAt].raw)
			if !p.hasAcc && isNull(o.fields[accAt].raw) {
				o.fields[accAt].used = true
			}
		}
		p.slot = m.addTrait(Trait{Code: lk.code}) // reserve against a second spelling
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
		o.fields[p.at].used = true
		t := Trait{Code: p.code, Value: p.value}
		if p.hasAcc {
			if a, ok := percent(p.acc, scale); ok {
				t.Accuracy, t.HasAccuracy = a, true
				o.fields[p.accAt].used = true
			}
		}
		m.traits[p.slot] = t
	}
	kt.keys, kt.pairs = keys, pairs
	if k, ok := o.key("traits"); ok {
		if n, ok := kt.object(o.fields[k].raw); ok {
			o.fields[k].used = true
			m.nestedTraits(n, o.fields[k].name+".", fraction, extra)
		}
	}
	if k, ok := o.key("indexes"); ok {
		o.fields[k].used = m.nestedIndexes(o.fields[k].raw, kt)
	}
	for _, i := range keys {
		f := &o.fields[i]
		if f.used || !f.low.index {
			continue
		}
		if v, ok := asFloat(f.raw); ok {
			name := indexName(f.name, f.low.s)
			if !m.hasIndex(name) {
				m.addIndex(Index{Name: name, Value: v})
				f.used = true
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
	for i := range n.fields {
		f := &n.fields[i]
		if !isLetters(f.name) {
			continue
		}
		code := f.low.code // the name is ASCII letters: upper-casing its lower case is upper-casing it
		if m.hasTrait(code) {
			continue
		}
		t := Trait{Code: code}
		if v, ok := asFloat(f.raw); ok {
			t.Value = v
		} else if to, ok := n.keys.object(f.raw); ok && to.float(&t.Value, "value") {
			var a float64
			if ak, ok := to.key("accuracy", "acc"); ok && claimAt(to, ak, &a, asFloat) {
				if t.Accuracy, t.HasAccuracy = percent(a, scale); !t.HasAccuracy {
					t.Accuracy, to.fields[ak].used = 0, false // off the scale: keep it in Extra
				}
			}
			to.rest(extra, prefix+f.name+".")
		} else {
			continue
		}
		f.used = true
		m.addTrait(t)
	}
	n.rest(extra, prefix)
}

// nestedIndexes reads {"US Index": 102.3} or [{"name": …, "value": …}]. It
// reports whether the whole collection was understood.
func (m *metrics) nestedIndexes(raw json.RawMessage, kt *keyTable) bool {
	var found []Index
	at := map[string]int{} // position in found by name
	if o, ok := kt.object(raw); ok {
		for _, f := range o.fields {
			v, ok := asFloat(f.raw)
			if !ok {
				return false
			}
			found = append(found, Index{Name: f.name, Value: v})
		}
	} else if items, ok := asArray(raw); ok {
		for _, item := range items {
			io, ok := kt.object(item)
			var ix Index
			if !ok || !io.str(&ix.Name, "name", "indexName") || !io.float(&ix.Value, "value") {
				return false
			}
			// A name given twice keeps its last value.
			if j, dup := at[ix.Name]; dup {
				found[j] = ix
			} else {
				at[ix.Name] = len(found)
				found = append(found, ix)
			}
		}
	} else {
		return isNull(raw)
	}
	for _, ix := range found {
		if !m.hasIndex(ix.Name) {
			m.addIndex(ix)
		}
	}
	return true
}

// indexName turns the API's field names for the well-known indexes into the
// names the NSIP site prints; other names are kept as spelled.
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

// sorted returns the traits in TraitCodes order and the indexes by name, in
// slices of their own.
func (m *metrics) sorted() ([]Trait, []Index) {
	var traits []Trait
	if len(m.traits) > 0 {
		// compareTraitCodes, with each code's place looked up once.
		ranked := m.ranked[:0]
		for _, t := range m.traits {
			ranked = append(ranked, rankedTrait{TraitOrder(t.Code), t})
		}
		slices.SortFunc(ranked, func(a, b rankedTrait) int {
			if a.order != b.order {
				return a.order - b.order
			}
			return strings.Compare(a.t.Code, b.t.Code)
		})
		traits = make([]Trait, len(ranked))
		for i, r := range ranked {
			traits[i] = r.t
		}
		m.ranked = ranked
	}
	var idx []Index
	if len(m.indexes) > 0 {
		idx = slices.Clone(m.indexes)
		slices.SortFunc(idx, func(a, b Index) int { return strings.Compare(a.Name, b.Name) })
	}
	return traits, idx
}
