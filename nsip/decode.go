package nsip

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// NSIP wraps its answers differently per endpoint (see specs/upstream.md):
// details, lineage and breed groups come as {"success": true, "data": …},
// progeny with the page's members beside "success", search pages bare.
// Other clients also met {"data": …} without "success". unwrap accepts all
// of these for every endpoint; the standard library then decodes the
// payload into small wire structs, matching names without regard to case.
// Raw keeps every byte for pass-through, so decoding reads only what
// summaries and analysis use.

// unexpected builds the error for a 200 body that is not JSON at all.
func unexpected(format string, args ...any) *Error {
	return &Error{Kind: KindUnexpectedResponse, Reason: fmt.Sprintf(format, args...)}
}

// changed builds the error for JSON that is not the endpoint's answer in
// any shape the client knows: NSIP's format changed. It carries the body so
// that a caller can still pass on what NSIP sent.
func changed(body []byte, format string, args ...any) *Error {
	return &Error{Kind: KindFormatChanged, Reason: fmt.Sprintf(format, args...), Body: json.RawMessage(body)}
}

// checkJSON rejects bodies that are not one complete JSON value, saying
// whether the body is something else (an HTML page), cut short, or broken.
func checkJSON(body []byte) *Error {
	if json.Valid(body) {
		return nil
	}
	trimmed := bytes.Trim(body, jsonSpace)
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

// jsonSpace is the white space JSON allows around a value; bytes.TrimSpace
// would also take \f, \v and Unicode spaces, and so accept a body that is
// not JSON.
const jsonSpace = " \t\r\n"

// envelope is what unwrap looks for around a payload.
type envelope struct {
	Success json.RawMessage `json:"success"`
	Data    json.RawMessage `json:"data"`
	Message json.RawMessage `json:"message"`
	Error   json.RawMessage `json:"error"`
}

// unwrap validates body and returns the payload: "data" when present,
// otherwise the body itself (whose "success" member, if any, the payload's
// decoder ignores). success=false is a failure whatever else is there.
func unwrap(body []byte) (json.RawMessage, *Error) {
	t := bytes.Trim(body, jsonSpace)
	if len(t) == 0 || t[0] != '{' {
		if e := checkJSON(body); e != nil {
			return nil, e
		}
		return t, nil
	}
	var env envelope
	if err := json.Unmarshal(t, &env); err != nil {
		return nil, checkJSON(body) // only a syntax error is possible here
	}
	if e := env.check(); e != nil {
		return nil, e
	}
	if len(env.Data) > 0 && !isNull(env.Data) {
		return env.Data, nil
	}
	return t, nil
}

// check fails an answer whose success member is false.
func (env *envelope) check() *Error {
	var ok bool
	if len(env.Success) == 0 || json.Unmarshal(env.Success, &ok) != nil || ok {
		return nil
	}
	msg := "no reason given"
	for _, m := range []json.RawMessage{env.Message, env.Error} {
		if len(m) > 0 && !isNull(m) {
			msg = snippet(m)
			break
		}
	}
	return unexpected("NSIP reported a failure (success=false): %s", msg)
}

// decodeInto decodes payload into v, turning a type mismatch into an error
// that names the member at fault.
func decodeInto(body, payload []byte, what string, v any) *Error {
	err := json.Unmarshal(payload, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		where := what
		if te.Field != "" {
			where += " member " + te.Field
		}
		return changed(body, "the %s holds a JSON %s where %s belongs: %s", where, te.Value, goTypeName(te.Type.String()), snippet(payload))
	}
	return changed(body, "the %s cannot be read (%v): %s", what, err, snippet(payload))
}

// goTypeName says in JSON terms what a wire type wanted.
func goTypeName(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "nsip."):
		return "an object"
	}
	return "a " + t
}

func isNull(raw []byte) bool { return string(bytes.TrimSpace(raw)) == "null" }

// num is a number sent as a JSON number or as a string holding one. Any
// other value leaves ok false rather than failing the answer.
type num struct {
	v   float64
	ok  bool
	raw string // set only for an absurd number (1e154, 1e999), to name it
}

func (n *num) UnmarshalJSON(b []byte) error {
	*n = num{}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) != nil {
			return nil
		}
		b = []byte(strings.TrimSpace(s))
	}
	if len(b) == 0 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	switch {
	case err == nil && finite(f):
		n.v, n.ok = f, true
		if !plausible(f) {
			n.raw = string(b)
		}
	case math.IsInf(f, 0):
		n.raw = string(b)
	}
	return nil
}

// int returns the number when it is a whole one.
func (n num) int() (int, bool) {
	if !n.ok || n.v != math.Trunc(n.v) || math.Abs(n.v) > 1<<53 {
		return 0, false
	}
	return int(n.v), true
}

// text is a string, number or boolean read as text, trimmed; null and
// objects read as "".
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	*t = ""
	switch {
	case len(b) == 0 || b[0] == 'n' || b[0] == '{' || b[0] == '[':
	case b[0] == '"':
		if bytes.IndexByte(b, '\\') < 0 { // nothing to unescape: the common case
			*t = text(strings.TrimSpace(string(b[1 : len(b)-1])))
			break
		}
		var s string
		if err := json.Unmarshal(b, &s); err == nil {
			*t = text(strings.TrimSpace(s))
		}
	default:
		*t = text(b)
	}
	return nil
}

// member is one member of an animal row, kept only as far as decoding needs
// it: a number, or text (a string's value; an object's or array's JSON).
type member struct {
	v    float64
	s    string
	kind byte // 'n' a number (v), 's' a string (s; v too when it holds a number), 'o' an object or array (s), 0 else
	num  bool // v holds a finite number
	huge bool // a number too large for a float (1e999): not num; s keeps it as sent
}

func (m *member) UnmarshalJSON(b []byte) error {
	*m = member{}
	switch b[0] {
	case '{', '[':
		m.kind, m.s = 'o', string(b)
	case '"':
		m.kind = 's'
		if bytes.IndexByte(b, '\\') < 0 {
			m.s = strings.TrimSpace(string(b[1 : len(b)-1]))
		} else if json.Unmarshal(b, &m.s) == nil {
			m.s = strings.TrimSpace(m.s)
		}
		if m.s != "" && (m.s[0] == '-' || (m.s[0] >= '0' && m.s[0] <= '9')) {
			m.setNum(m.s)
		}
	case 'n', 't', 'f':
		if b[0] != 'n' {
			m.s = string(b)
		}
	default:
		m.kind = 'n'
		m.setNum(string(b)) // converted without allocating: ParseFloat keeps no reference
		if m.huge || m.num && !plausible(m.v) {
			m.s = string(b) // kept to name it when it is left out
		}
	}
	return nil
}

func (m *member) setNum(s string) {
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err == nil && finite(f):
		m.v, m.num = f, true
	case math.IsInf(f, 0):
		m.huge = true
	}
}

// plausible reports whether v is a value the models keep.
func plausible(v float64) bool { return math.Abs(v) <= MaxPlausibleValue }

// absurd reports whether the member is a number the models leave out.
func (m member) absurd() bool { return m.huge || m.num && !plausible(m.v) }

// raw is an absurd member's value as sent.
func (m member) raw() string {
	if m.s != "" {
		return m.s
	}
	return strconv.FormatFloat(m.v, 'g', -1, 64)
}

// text is the member as text: a string as sent, a number as written.
func (m member) text() string {
	if m.kind == 'n' && m.num {
		return strconv.FormatFloat(m.v, 'f', -1, 64)
	}
	return m.s
}

// int returns the member when it is a whole number.
func (m member) int() (int, bool) { return num{v: m.v, ok: m.num}.int() }

// wireRow is an animal row: every member by name as sent.
type wireRow map[string]member

// knownMembers are the members page rows are known to carry (lower case):
// facts, indexes, and the value and accuracy of the traits breeds publish.
// A row with only these decodes into a struct, several times faster than
// into a map; a row with any other member takes the map, so an unknown
// trait is still read. The list speeds decoding up and limits nothing.
var knownMembers = func() []string {
	names := []string{"lpnid", "lpnsre", "lpndam", "status", "regnumber", "dateofbirth", "dob", "gender", "sex",
		"breedid", "flockcode", "genotyped", "progenycount"}
	names = append(names, "usindex", "ushairindex", "srcindex") // at knownIndexesAt
	for _, c := range knownCodes {                              // at knownTraitsAt, value then accuracy
		l := strings.ToLower(c)
		names = append(names, l, "acc"+l)
	}
	return names
}()

// knownCodes are the trait codes of knownMembers, in display order (the
// thirteen, then the rest alphabetically), so that a row's traits come out
// sorted.
var knownCodes = append(slices.Clone(TraitCodes), "MWWT", "NLW", "PEMD", "PFAT", "PFEC", "PWEC",
	"WFEC", "YCFW", "YEMD", "YFAT", "YFD", "YGFW", "YSL", "YWEC")

// Where the indexes and traits sit in knownMembers, and the indexes' names.
const (
	knownIndexesAt = 13
	knownTraitsAt  = 16
)

var knownIndexes = []string{"US Index", "US Hair Index", "SRC$ Index"}

// knownIndex is the position of each of knownMembers.
var knownIndex = func() map[string]int {
	m := make(map[string]int, len(knownMembers))
	for i, n := range knownMembers {
		m[n] = i
	}
	return m
}()

// knownRowType is a struct with one member field per knownMembers entry.
var knownRowType = func() reflect.Type {
	fields := make([]reflect.StructField, len(knownMembers))
	for i, name := range knownMembers {
		fields[i] = reflect.StructField{Name: fmt.Sprintf("M%d", i), Type: reflect.TypeFor[member](),
			Tag: reflect.StructTag(`json:"` + name + `"`)}
	}
	return reflect.StructOf(fields)
}()

// knownRowIsArray reports whether a knownRowType lies in memory exactly as
// a [len(knownMembers)]member, which readPage views it as. The Go spec
// leaves struct layout to the compiler; gc places fields in order, each at
// the next multiple of its alignment, and a type's size is a multiple of
// its alignment, so fields of one type sit back to back like array
// elements, with the same pointer words for the garbage collector. This
// checks that once rather than assuming it: where it fails, every page
// takes the general path.
var knownRowIsArray = func() bool {
	size := reflect.TypeFor[member]().Size()
	if knownRowType.Size() != size*uintptr(len(knownMembers)) {
		return false
	}
	for i := range knownMembers {
		if knownRowType.Field(i).Offset != uintptr(i)*size {
			return false
		}
	}
	return true
}()

// pageRow is one row of a search or progeny page.
type pageRow struct {
	known reflect.Value // a knownRowType, when the page's rows had only known members (fastPage)
	all   wireRow       // otherwise every member
	bad   string        // the JSON kind of a row that is not an object
}

func (r *pageRow) UnmarshalJSON(b []byte) error {
	if b[0] == '{' {
		return json.Unmarshal(b, &r.all)
	}
	r.bad = map[byte]string{'n': "null", '"': "a JSON string", '[': "a JSON array", 't': "a JSON boolean", 'f': "a JSON boolean"}[b[0]]
	if r.bad == "" {
		r.bad = "a JSON number"
	}
	return nil
}

func decodeLastUpdate(body []byte) (*LastUpdate, *Error) {
	p, e := unwrap(body)
	if e != nil {
		return nil, e
	}
	var w struct {
		Date         *string `json:"date"`
		DateLast     *string `json:"dateLastUpdated"`
		LastUpdated  *string `json:"lastUpdated"`
		DateReleased *string `json:"dateReleased"`
	}
	var date string
	if p[0] == '{' {
		if e := decodeInto(body, p, "last-update answer", &w); e != nil {
			return nil, e
		}
		for _, d := range []*string{w.Date, w.DateLast, w.LastUpdated, w.DateReleased} {
			if d != nil {
				date = *d
				break
			}
		}
	} else {
		_ = json.Unmarshal(p, &date) // only a JSON string is a date; a number would be a guess
	}
	if date = strings.TrimSpace(date); date == "" {
		return nil, changed(body, "the answer carries no date (a string member \"date\"): %s", snippet(body))
	}
	return &LastUpdate{Date: date, Raw: json.RawMessage(body)}, nil
}

type wireBreed struct {
	BreedID   num  `json:"breedId"`
	ID        num  `json:"id"`
	BreedName text `json:"breedName"`
	Name      text `json:"name"`
}

type wireGroup struct {
	BreedGroupID   num         `json:"breedGroupId"`
	ID             num         `json:"id"`
	BreedGroupName text        `json:"breedGroupName"`
	Name           text        `json:"name"`
	Breeds         []wireBreed `json:"breeds"`
}

// either returns the first of two spellings that holds a whole number.
func either(a, b num) (int, bool) {
	if n, ok := a.int(); ok {
		return n, true
	}
	return b.int()
}

func orText(a, b text) string {
	if a != "" {
		return string(a)
	}
	return string(b)
}

func decodeBreedGroups(body []byte) (*BreedGroups, *Error) {
	p, e := unwrap(body)
	if e != nil {
		return nil, e
	}
	var w []*wireGroup
	if e := decodeInto(body, p, "breed group list", &w); e != nil {
		return nil, e
	}
	if w == nil {
		return nil, changed(body, "breed groups are not a list: %s", snippet(p))
	}
	out := &BreedGroups{Groups: make([]BreedGroup, 0, len(w)), Raw: json.RawMessage(body)}
	for i, wg := range w {
		if wg == nil {
			return nil, changed(body, "breed group %d is null", i)
		}
		g := BreedGroup{Name: orText(wg.BreedGroupName, wg.Name), Breeds: make([]Breed, 0, len(wg.Breeds))}
		var ok bool
		if g.ID, ok = either(wg.BreedGroupID, wg.ID); !ok {
			return nil, changed(body, "breed group %d has no numeric breedGroupId", i)
		}
		for j, wb := range wg.Breeds {
			b := Breed{Name: orText(wb.BreedName, wb.Name)}
			if b.ID, ok = either(wb.BreedID, wb.ID); !ok {
				return nil, changed(body, "breed %d of group %d has no numeric breedId", j, g.ID)
			}
			g.Breeds = append(g.Breeds, b)
		}
		out.Groups = append(out.Groups, g)
	}
	return out, nil
}

// decodeStatuses treats any JSON that is not a list of statuses as "none",
// which is how the API says a breed group has no status filter.
func decodeStatuses(body []byte) (*Statuses, *Error) {
	p, e := unwrap(body)
	if e != nil {
		return nil, e
	}
	out := &Statuses{Values: []string{}, Raw: json.RawMessage(body)}
	var items []json.RawMessage
	if json.Unmarshal(p, &items) != nil {
		return out, nil
	}
	for _, item := range items {
		var t text
		_ = t.UnmarshalJSON(bytes.TrimSpace(item))
		switch {
		case t != "":
			out.Values = append(out.Values, string(t))
		case !isNull(item):
			out.Values = append(out.Values, string(bytes.TrimSpace(item)))
		}
	}
	return out, nil
}

type wireRange struct {
	Min       num  `json:"min"`
	Max       num  `json:"max"`
	Code      text `json:"code"`
	Trait     text `json:"trait"`
	TraitName text `json:"traitName"`
}

func decodeTraitRanges(body []byte) (*TraitRanges, *Error) {
	p, e := unwrap(body)
	if e != nil {
		return nil, e
	}
	out := &TraitRanges{Ranges: []TraitRange{}, Raw: json.RawMessage(body)}
	add := func(code string, r *wireRange) *Error {
		if r == nil {
			return nil // no range published for this trait
		}
		if !r.Min.ok || !r.Max.ok {
			return changed(body, "trait range %s lacks a numeric min and max", code)
		}
		out.Ranges = append(out.Ranges, TraitRange{Code: strings.ToUpper(code), Range: Range{Min: r.Min.v, Max: r.Max.v}})
		return nil
	}
	if p[0] == '[' {
		var list []*wireRange
		if e := decodeInto(body, p, "trait range list", &list); e != nil {
			return nil, e
		}
		for i, r := range list {
			code := ""
			if r != nil {
				code = firstText(r.Code, r.Trait, r.TraitName)
			}
			if code == "" {
				return nil, changed(body, "trait range %d has no trait code", i)
			}
			if e := add(code, r); e != nil {
				return nil, e
			}
		}
	} else {
		var m map[string]json.RawMessage
		if e := decodeInto(body, p, "trait ranges", &m); e != nil {
			return nil, e
		}
		if m == nil {
			return nil, changed(body, "trait ranges are not an object of trait codes: %s", snippet(p))
		}
		for code, raw := range m {
			if strings.EqualFold(code, "success") {
				continue // the ranges sit beside it
			}
			var r *wireRange
			if e := decodeInto(body, raw, "trait range "+code, &r); e != nil {
				return nil, e
			}
			if e := add(code, r); e != nil {
				return nil, e
			}
		}
	}
	slices.SortFunc(out.Ranges, func(a, b TraitRange) int { return compareTraitCodes(a.Code, b.Code) })
	return out, nil
}

func firstText(ts ...text) string {
	for _, t := range ts {
		if t != "" {
			return string(t)
		}
	}
	return ""
}

// wirePage is a search or progeny page, with the envelope members beside
// it so that a page whose members sit at the top level (search, progeny)
// is decoded in one pass. The live API says recordCount and records;
// totalCount and results are assumed older spellings.
type wirePage struct {
	envelope
	RecordCount   num       `json:"recordCount"`
	TotalCount    num       `json:"totalCount"`
	NumberOfPages num       `json:"numberOfPages"`
	Records       []pageRow `json:"records"`
	Results       []pageRow `json:"results"`
}

// page decodes the members shared by search and progeny pages.
func page(body []byte, what string) (*wirePage, *Error) {
	t := bytes.Trim(body, jsonSpace)
	if fw, ok := fastPage(t); ok {
		if e := fw.envelope.check(); e != nil {
			return nil, e
		}
		return finishPage(body, t, what, fw)
	}
	var w wirePage
	if len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &w) != nil {
		// Not a page at the top level: let unwrap report a broken body
		// or NSIP's failure, else read the payload it finds.
		p, e := unwrap(body)
		if e != nil {
			return nil, e
		}
		if p[0] != '{' {
			return nil, changed(body, "the %s page is not an object: %s", what, snippet(p))
		}
		w = wirePage{}
		if e := decodeInto(body, p, what+" page", &w); e != nil {
			return nil, e
		}
	} else if e := w.envelope.check(); e != nil {
		return nil, e
	}
	p := t
	if len(w.Data) > 0 && !isNull(w.Data) {
		p = w.Data
		w = wirePage{}
		if p[0] != '{' {
			return nil, changed(body, "the %s page is not an object: %s", what, snippet(p))
		}
		if e := decodeInto(body, p, what+" page", &w); e != nil {
			return nil, e
		}
	}
	return finishPage(body, p, what, &w)
}

// finishPage finishes reading page p of body.
func finishPage(body, p []byte, what string, w *wirePage) (*wirePage, *Error) {
	if w.Records == nil {
		w.Records = w.Results
	}
	total, ok := either(w.RecordCount, w.TotalCount)
	switch {
	case w.Records == nil && (!ok || total != 0 || !hasMember(p, "records", "results")):
		return nil, changed(body, "the %s page has no \"records\" list: %s", what, snippet(p))
	case !ok:
		return nil, changed(body, "the %s page has no numeric \"recordCount\": %s", what, snippet(p))
	}
	w.RecordCount = num{v: float64(total), ok: true}
	for i, r := range w.Records {
		if r.bad != "" {
			return nil, changed(body, "%s row %d is not an object but %s", what, i, r.bad)
		}
	}
	return w, nil
}

// fastPageType is a page at the top level whose rows hold only known
// members: one struct decode of the whole body, the common case.
var fastPageType = func() reflect.Type {
	// Rows by pointer: growing the slice then moves pointers, not rows.
	raw, n, rows := reflect.TypeFor[json.RawMessage](), reflect.TypeFor[num](), reflect.SliceOf(reflect.PointerTo(knownRowType))
	field := func(name, tag string, t reflect.Type) reflect.StructField {
		return reflect.StructField{Name: name, Type: t, Tag: reflect.StructTag(`json:"` + tag + `"`)}
	}
	return reflect.StructOf([]reflect.StructField{
		field("Success", "success", raw), field("Data", "data", raw), field("Message", "message", raw), field("Error", "error", raw),
		field("RecordCount", "recordCount", n), field("TotalCount", "totalCount", n), field("NumberOfPages", "numberOfPages", n),
		field("Records", "records", rows), field("Results", "results", rows),
	})
}()

// fastPage decodes t as a top-level page with only known members, and
// reports false for anything else (an unknown member anywhere, a data
// wrapper, a row that is not an object, broken JSON), which page then reads
// the general way.
func fastPage(t []byte) (*wirePage, bool) {
	if !knownRowIsArray || len(t) == 0 || t[0] != '{' {
		return nil, false
	}
	v := reflect.New(fastPageType)
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.DisallowUnknownFields()
	if dec.Decode(v.Interface()) != nil || dec.InputOffset() != int64(len(t)) {
		return nil, false
	}
	v = v.Elem()
	w := &wirePage{envelope: envelope{
		Success: v.Field(0).Interface().(json.RawMessage), Data: v.Field(1).Interface().(json.RawMessage),
		Message: v.Field(2).Interface().(json.RawMessage), Error: v.Field(3).Interface().(json.RawMessage),
	}}
	if len(w.Data) > 0 && !isNull(w.Data) {
		return nil, false
	}
	w.RecordCount, w.TotalCount, w.NumberOfPages = v.Field(4).Interface().(num), v.Field(5).Interface().(num), v.Field(6).Interface().(num)
	rows := func(f reflect.Value) []pageRow {
		if f.IsNil() {
			return nil
		}
		out := make([]pageRow, f.Len())
		for i := range out {
			if f.Index(i).IsNil() {
				out[i].bad = "null"
				continue
			}
			out[i].known = f.Index(i).Elem()
		}
		return out
	}
	w.Records, w.Results = rows(v.Field(7)), rows(v.Field(8))
	return w, true
}

// hasMember reports whether the object p has any of names (any case).
func hasMember(p []byte, names ...string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(p, &m) != nil {
		return false
	}
	for k := range m {
		for _, n := range names {
			if strings.EqualFold(k, n) {
				return true
			}
		}
	}
	return false
}

// pageRows reads the rows of a search or progeny page into T by fill,
// refusing a row without an LPN ID, and returns the page's counts.
func pageRows[T any](body []byte, what string, fill func(*T, row)) (total, pages int, rows []T, ignored []IgnoredValue, e *Error) {
	w, e := page(body, what)
	if e != nil {
		return 0, 0, nil, nil, e
	}
	rows = make([]T, len(w.Records))
	rr := newRowReader()
	for i := range w.Records {
		r := rr.readPage(&w.Records[i])
		switch {
		case r.lpnID == "":
			return 0, 0, nil, nil, changed(body, "%s row %d has no lpnId", what, i)
		case len(r.lpnID) > MaxTextBytes:
			// An ID cut short could name another animal: the page is refused.
			return 0, 0, nil, nil, changed(body, "%s row %d has an lpnId of %d bytes, longer than any LPN ID (%d at most)", what, i, len(r.lpnID), MaxTextBytes)
		}
		fill(&rows[i], r)
	}
	rr.scale() // the rows share their traits with rr
	pages, _ = w.NumberOfPages.int()
	return int(w.RecordCount.v), pages, rows, rr.ignored, nil
}

func decodeSearch(body []byte) (*SearchResults, *Error) {
	total, pages, rows, ignored, e := pageRows(body, "search", func(a *AnimalRow, r row) {
		a.LPNID, a.Sire, a.Dam = r.lpnID, r.get("lpnsre", "sire", "sireid"), r.get("lpndam", "dam", "damid")
		a.Status, a.RegistrationNumber = r.get("status"), r.get("regnumber", "registrationnumber")
		a.Sex, a.DateOfBirth = NormalizeSex(r.get("gender", "sex")), r.get("dateofbirth", "dob")
		a.BreedID, a.BreedName, a.FlockCode = r.int("breedid"), r.get("breedname"), r.get("flockcode", "flockid")
		a.Genotyped = r.get("genotyped")
		a.Traits, a.Indexes = r.traits, r.indexes
	})
	if e != nil {
		return nil, e
	}
	return &SearchResults{TotalCount: total, NumberOfPages: pages, Results: rows, Ignored: ignored, Raw: json.RawMessage(body)}, nil
}

func decodeProgeny(body []byte) (*ProgenyPage, *Error) {
	total, pages, rows, ignored, e := pageRows(body, "progeny", func(a *ProgenyRow, r row) {
		a.LPNID, a.Sex, a.DateOfBirth = r.lpnID, NormalizeSex(r.get("sex", "gender")), r.get("dob", "dateofbirth")
		a.Traits, a.Indexes = r.traits, r.indexes
	})
	if e != nil {
		return nil, e
	}
	return &ProgenyPage{TotalCount: total, NumberOfPages: pages, Animals: rows, Ignored: ignored, Raw: json.RawMessage(body)}, nil
}

type wireDetails struct {
	Breed       json.RawMessage `json:"breed"`
	BreedGroup  json.RawMessage `json:"breedGroup"`
	ContactInfo *wireContact    `json:"contactInfo"`
	SRVM        wireRow         `json:"searchResultViewModel"`
}

type wireContact struct {
	FlockCode    text `json:"flockCode"`
	FlockID      text `json:"flockId"`
	FarmName     text `json:"farmName"`
	CustomerName text `json:"customerName"`
	ContactName  text `json:"contactName"`
	Phone        text `json:"phone"`
	Email        text `json:"email"`
	Address      text `json:"address"`
	City         text `json:"city"`
	State        text `json:"state"`
	ZipCode      text `json:"zipCode"`
	Zip          text `json:"zip"`
}

// nameOrObject reads a breed or breed group given as {"breedName": …,
// "breedId": …} (or "breedGroupName", "name", "id") or as a bare name.
func nameOrObject(raw json.RawMessage) (string, int) {
	var w struct {
		wireBreed
		BreedGroupName text `json:"breedGroupName"`
	}
	var t text
	if json.Unmarshal(raw, &w) != nil {
		_ = json.Unmarshal(raw, &t)
		return string(t), 0
	}
	id, _ := either(w.BreedID, w.ID)
	return firstText(w.BreedName, w.BreedGroupName, w.Name), id
}

func decodeDetails(body []byte) (*AnimalDetails, *Error) {
	p, e := unwrap(body)
	if e != nil {
		return nil, e
	}
	if p[0] != '{' {
		return nil, changed(body, "animal details are not an object: %s", snippet(p))
	}
	var w wireDetails
	var top wireRow
	if e := decodeInto(body, p, "animal details", &w); e != nil {
		return nil, e
	}
	if e := decodeInto(body, p, "animal details", &top); e != nil {
		return nil, e
	}
	d := &AnimalDetails{Raw: json.RawMessage(body)}
	d.Breed, d.BreedID = nameOrObject(w.Breed)
	d.BreedGroup, _ = nameOrObject(w.BreedGroup)
	if c := w.ContactInfo; c != nil {
		d.Contact = ContactInfo{
			FlockCode: firstText(c.FlockCode, c.FlockID), FarmName: string(c.FarmName),
			ContactName: firstText(c.CustomerName, c.ContactName), Phone: string(c.Phone), Email: string(c.Email),
			Address: string(c.Address), City: string(c.City), State: string(c.State), ZipCode: firstText(c.ZipCode, c.Zip),
		}
	}
	// The animal's own row sits in searchResultViewModel (live), repeating
	// some top-level facts; the assumed flat format has it at the top
	// level. Read both, the row first.
	rr := newRowReader()
	var parts []row
	if w.SRVM != nil {
		parts = append(parts, rr.read(w.SRVM))
	}
	parts = append(parts, rr.read(top))
	fill := func(dst *string, keys ...string) {
		for _, r := range parts {
			if *dst == "" {
				*dst = r.get(keys...)
			}
		}
	}
	fill(&d.LPNID, "lpnid")
	fill(&d.Sire, "lpnsre", "sire", "sireid")
	fill(&d.Dam, "lpndam", "dam", "damid")
	fill(&d.Status, "status")
	fill(&d.RegistrationNumber, "regnumber", "registrationnumber")
	fill(&d.DateOfBirth, "dateofbirth", "dob")
	fill(&d.Gender, "gender", "sex")
	fill(&d.Genotyped, "genotyped")
	fill(&d.FlockCount, "flockcount")
	fill(&d.Breed, "breedname")
	fill(&d.Contact.FlockCode, "flockcode")
	d.Gender = NormalizeSex(d.Gender)
	for _, r := range parts {
		if d.TotalProgeny == 0 {
			d.TotalProgeny = r.int("progenycount", "totalprogeny")
		}
		if d.BreedID == 0 {
			d.BreedID = r.int("breedid")
		}
	}
	if d.LPNID == "" {
		return nil, changed(body, "animal details carry no lpnId: %s", snippet(p))
	}
	for _, r := range parts {
		if len(r.lpnID) > MaxTextBytes {
			return nil, changed(body, "animal details carry an lpnId of %d bytes, longer than any LPN ID (%d at most)", len(r.lpnID), MaxTextBytes)
		}
	}
	// One animal, one set of traits: the row's, then any the top level adds.
	for _, r := range parts {
		for _, t := range r.traits {
			if !slices.ContainsFunc(d.Traits, func(x Trait) bool { return x.Code == t.Code }) {
				d.Traits = append(d.Traits, t)
			}
		}
		for _, ix := range r.indexes {
			if !slices.ContainsFunc(d.Indexes, func(x Index) bool { return x.Name == ix.Name }) {
				d.Indexes = append(d.Indexes, ix)
			}
		}
	}
	sortTraits(d.Traits)
	slices.SortFunc(d.Indexes, func(a, b Index) int { return strings.Compare(a.Name, b.Name) })
	rr.scaleSlices([][]Trait{d.Traits})
	// The row and the top level may both carry a value: name it once.
	for _, x := range rr.ignored {
		if x.LPNID == "" {
			x.LPNID = d.LPNID
		}
		if !slices.ContainsFunc(d.Ignored, func(y IgnoredValue) bool { return y.LPNID == x.LPNID && y.Name == x.Name }) {
			d.Ignored = append(d.Ignored, x)
		}
	}
	return d, nil
}

// NormalizeSex spells the sex codes NSIP uses ("1"/"2" in progeny, M/F,
// Male/Female, Ram/Ewe) as "Male" or "Female"; anything else is returned
// as sent.
func NormalizeSex(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "m", "male", "ram":
		return "Male"
	case "2", "f", "female", "ewe":
		return "Female"
	}
	return strings.TrimSpace(s)
}

// dateLayouts are the forms NSIP writes dates in: "9/23/2025",
// "2025-02-16T00:00:00" and plain ISO dates.
var dateLayouts = []string{"1/2/2006", "2006-01-02T15:04:05", time.RFC3339, time.DateOnly}

// ParseDate reads a date in any of the forms NSIP sends.
func ParseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	if i := strings.IndexByte(s, '.'); i > 0 { // fractional seconds
		if t, err := time.Parse("2006-01-02T15:04:05.999999999", s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
