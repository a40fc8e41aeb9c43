package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A param describes one tool argument once; both the published JSON schema
// and the server-side validation are derived from it, so they cannot drift.
type param struct {
	name     string
	kind     valueKind
	desc     string
	required bool
	def      any // filled in when the argument is omitted; nil for none
	example  any // a valid value, used in error examples

	min, max       *float64 // integers
	quiet          bool     // the schema leaves out min, max, enum, length and pattern, which validation still applies: bounds no caller needs, and trait codes, which the descriptions explain and the glossary lists
	minLen, maxLen int      // strings (after trimming)
	pattern        *regexp.Regexp
	enum           []string // accepted case-insensitively, normalised to this spelling
	date           bool     // YYYY-MM-DD calendar date
	upper          bool     // strings are normalised to upper case

	props    []param                                     // objects: their fields
	traitMap bool                                        // objects: trait code -> {min, max}
	check    func(map[string]any) (string, string, bool) // objects: cross-field rule -> field, problem; may normalise
	dropZero bool                                        // objects: omit when empty after normalising

	// Arrays: items is the schema of each element; custom validates the
	// whole value and expect says what it accepts.
	items  map[string]any
	custom func(field string, raw any) (any, []fieldError)
	expect string
}

type valueKind string

const (
	kindInteger valueKind = "integer"
	kindString  valueKind = "string"
	kindBoolean valueKind = "boolean"
	kindObject  valueKind = "object"
	kindNumber  valueKind = "number"
	kindArray   valueKind = "array"
)

func bound(v float64) *float64 { return &v }

var (
	// traitCodePattern is a well-formed trait code. Which codes exist is
	// the breed's business (its getTraitRangesByBreed answer), not a list
	// here: see checkBreedTraits.
	traitCodePattern = regexp.MustCompile(fmt.Sprintf(`^[A-Za-z]{1,%d}$`, nsip.MaxTraitCodeLength))
	alnumPattern     = regexp.MustCompile(`^[A-Za-z0-9]+$`) // LPN IDs, flock IDs
	searchPattern    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]*$`)
	statusPattern    = regexp.MustCompile(`^[A-Za-z][A-Za-z _-]*$`)
)

// exampleLPN is a real-looking LPN ID used in descriptions and error examples.
const exampleLPN = "6402382024NCS310"

func lpnParam(desc string) param {
	return param{
		name: "lpn_id", kind: kindString, required: true, desc: desc, example: exampleLPN,
		minLen: nsip.MinLPNIDLength, maxLen: nsip.MaxLPNIDLength, pattern: alnumPattern,
	}
}

// fieldError is one problem with one argument.
type fieldError struct {
	Field    string `json:"field"`
	Problem  string `json:"problem"`
	Expected string `json:"expected,omitempty"`
}

// expected says in a few words what a valid value looks like.
func (p *param) expected() string {
	var b strings.Builder
	switch {
	case p.expect != "":
		return p.expect
	case p.traitMap:
		b.WriteString("object mapping trait codes (letters, e.g. BWT, WWT, MWWT; nsip_get_trait_ranges lists a breed's codes) to {\"min\": number, \"max\": number} with min <= max")
	case p.kind == kindObject:
		names := make([]string, len(p.props))
		for i, q := range p.props {
			names[i] = q.name
		}
		fmt.Fprintf(&b, "object with any of: %s", strings.Join(names, ", "))
	case len(p.enum) > 0:
		fmt.Fprintf(&b, "one of %s", strings.Join(p.enum, ", "))
	case p.date:
		b.WriteString("calendar date YYYY-MM-DD")
	case p.kind == kindInteger:
		b.WriteString("integer")
		if p.min != nil && p.max != nil { // every integer argument has both
			fmt.Fprintf(&b, " %g..%g", *p.min, *p.max)
		}
	case p.kind == kindString:
		b.WriteString("string")
		if p.pattern == alnumPattern {
			b.WriteString(" of letters and digits")
		}
		if p.maxLen > 0 {
			fmt.Fprintf(&b, ", %d-%d characters", max(p.minLen, 1), p.maxLen)
		}
	default:
		b.WriteString(string(p.kind))
	}
	if p.def != nil {
		fmt.Fprintf(&b, " (default %v)", p.def)
	}
	if p.example != nil && p.kind != kindBoolean {
		ex, _ := json.Marshal(p.example)
		fmt.Fprintf(&b, ", e.g. %s", ex)
	}
	return b.String()
}

// schema renders p as a JSON Schema property.
func (p *param) schema() map[string]any {
	s := map[string]any{"type": string(p.kind)}
	if p.desc != "" {
		s["description"] = p.desc
	}
	if p.def != nil {
		s["default"] = p.def
	}
	if p.min != nil && !p.quiet {
		s["minimum"] = *p.min
	}
	if p.max != nil && !p.quiet {
		s["maximum"] = *p.max
	}
	if p.kind == kindString {
		if p.minLen > 0 {
			s["minLength"] = p.minLen
		}
		if p.maxLen > 0 && !p.quiet {
			s["maxLength"] = p.maxLen
		}
		if p.pattern != nil && !p.quiet {
			s["pattern"] = p.pattern.String()
		}
		if len(p.enum) > 0 && !p.quiet {
			s["enum"] = p.enum
		}
		if p.date {
			s["format"] = "date"
		}
	}
	if p.items != nil {
		s["items"] = p.items
	}
	switch {
	case p.traitMap:
		// Breeds publish different traits, so the schema names no codes
		// (the breed's trait ranges decide); the description's example
		// shows the {min, max} of each code and validation holds every rule.
		s["additionalProperties"] = map[string]any{"type": "object"}
	case p.kind == kindObject:
		props, order, required := objectSchema(p.props)
		s["properties"] = orderedProps{props, order}
		if len(required) > 0 {
			s["required"] = required
		}
		s["additionalProperties"] = false
	}
	return s
}

// orderedProps marshals schema properties in declaration order, so that the
// published schema reads like the description.
type orderedProps struct {
	m     map[string]any
	order []string
}

func (o orderedProps) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.order {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(o.m[k])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func objectSchema(ps []param) (props map[string]any, order, required []string) {
	props = make(map[string]any, len(ps))
	for i := range ps {
		props[ps[i].name] = ps[i].schema()
		order = append(order, ps[i].name)
		if ps[i].required {
			required = append(required, ps[i].name)
		}
	}
	return props, order, required
}

// inputSchema is the tool's published input schema.
func inputSchema(ps []param) mcp.ToolInputSchema {
	props, order, required := objectSchema(ps)
	return mcp.ToolInputSchema{
		Type:                 "object",
		Properties:           props,
		Required:             required,
		AdditionalProperties: false,
		PropertyOrder:        order,
	}
}

// decodeArguments returns the call's arguments as a JSON object. Numbers stay
// json.Number so that large integers are judged exactly.
func decodeArguments(req mcp.CallToolRequest) (map[string]any, *fieldError) {
	var v any
	if raw := bytes.TrimSpace(req.Params.RawArguments); len(raw) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, &fieldError{Field: "arguments", Problem: "is not valid JSON: " + err.Error(), Expected: "a JSON object"}
		}
	} else {
		v = req.Params.Arguments
	}
	switch a := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return a, nil
	default:
		return nil, &fieldError{Field: "arguments", Problem: "must be a JSON object, got " + jsonType(v), Expected: "a JSON object of named arguments"}
	}
}

// validateObject checks args against ps, returning the normalised arguments
// (defaults filled in, case normalised) and every problem found, in the
// order of ps with unknown names last.
func validateObject(prefix string, ps []param, args map[string]any) (map[string]any, []fieldError) {
	out := make(map[string]any, len(ps))
	var errs []fieldError
	for i := range ps {
		p := &ps[i]
		raw, present := args[p.name]
		if !present || raw == nil {
			switch {
			case p.required:
				errs = append(errs, fieldError{Field: prefix + p.name, Problem: "is required", Expected: p.expected()})
			case p.def != nil:
				out[p.name] = p.def
			}
			continue
		}
		v, fe := p.validate(prefix+p.name, raw)
		if fe != nil {
			errs = append(errs, fe...)
			continue
		}
		if v != nil {
			out[p.name] = v
		}
	}
	errs = append(errs, unknownNames(prefix, ps, args)...)
	return out, errs
}

// unknownNames reports arguments the tool does not take, naming the closest
// known one when it is a plausible misspelling.
func unknownNames(prefix string, ps []param, args map[string]any) []fieldError {
	known := make([]string, len(ps))
	for i := range ps {
		known[i] = ps[i].name
	}
	var names []string
	for k := range args {
		if !slices.Contains(known, k) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var errs []fieldError
	for _, k := range names {
		fe := fieldError{Field: prefix + fieldName(k), Problem: "is not an argument of this tool"}
		if prefix != "" {
			fe.Problem = "is not a field of " + strings.TrimSuffix(prefix, ".")
		}
		if len(known) == 0 {
			fe.Expected = "no arguments: call with {}"
		} else if s, ok := closest(k, known); ok {
			fe.Problem += fmt.Sprintf("; did you mean %q?", s)
			fe.Expected = s
		} else {
			fe.Expected = "one of " + strings.Join(known, ", ")
		}
		errs = append(errs, fe)
	}
	return errs
}

func (p *param) validate(field string, raw any) (any, []fieldError) {
	fail := func(problem string) (any, []fieldError) {
		return nil, []fieldError{{Field: field, Problem: problem, Expected: p.expected()}}
	}
	if p.custom != nil {
		return p.custom(field, raw)
	}
	switch p.kind {
	case kindInteger:
		n, ok := asInteger(raw)
		if !ok {
			return fail("must be an integer, got " + describe(raw))
		}
		if p.min != nil && float64(n) < *p.min {
			return fail(fmt.Sprintf("must be at least %g, got %d", *p.min, n))
		}
		if p.max != nil && float64(n) > *p.max {
			return fail(fmt.Sprintf("must be at most %g, got %d", *p.max, n))
		}
		return n, nil
	case kindNumber:
		f, ok := asNumber(raw)
		if !ok {
			return fail("must be a number, got " + describe(raw))
		}
		return f, nil
	case kindBoolean:
		b, ok := raw.(bool)
		if !ok {
			return fail("must be true or false, got " + describe(raw))
		}
		return b, nil
	case kindString:
		return p.validateString(field, raw)
	default:
		obj, ok := raw.(map[string]any)
		if !ok {
			return fail("must be an object, got " + describe(raw))
		}
		if p.traitMap {
			return validateTraitRanges(field, obj)
		}
		out, errs := validateObject(field+".", p.props, obj)
		if len(errs) > 0 {
			return nil, errs
		}
		if p.check != nil {
			if f, problem, ok := p.check(out); !ok {
				return nil, []fieldError{{Field: field + "." + f, Problem: problem, Expected: p.propExpected(f)}}
			}
		}
		if p.dropZero && len(out) == 0 {
			return nil, nil
		}
		return out, nil
	}
}

func (p *param) propExpected(name string) string {
	for i := range p.props {
		if p.props[i].name == name {
			return p.props[i].expected()
		}
	}
	return ""
}

func (p *param) validateString(field string, raw any) (any, []fieldError) {
	fail := func(problem string) (any, []fieldError) {
		return nil, []fieldError{{Field: field, Problem: problem, Expected: p.expected()}}
	}
	s, ok := raw.(string)
	if !ok {
		return fail("must be a string, got " + describe(raw))
	}
	// Surrounding whitespace is a copy-and-paste accident, not meaning.
	s = strings.TrimSpace(s)
	n := len([]rune(s))
	switch {
	case n == 0:
		return fail("must not be empty or blank")
	case p.maxLen > 0 && n > p.maxLen:
		return fail(fmt.Sprintf("is %d characters long; at most %d allowed", n, p.maxLen))
	case n < p.minLen:
		return fail(fmt.Sprintf("is %d characters long; at least %d needed", n, p.minLen))
	}
	if len(p.enum) > 0 {
		for _, e := range p.enum {
			if strings.EqualFold(e, s) {
				return e, nil
			}
		}
		problem := fmt.Sprintf("%s is not one of %s", quoteShort(s), strings.Join(p.enum, ", "))
		if c, ok := closest(s, p.enum); ok {
			problem += fmt.Sprintf("; did you mean %q?", c)
		}
		return fail(problem)
	}
	if p.pattern != nil && !p.pattern.MatchString(s) {
		return fail(fmt.Sprintf("%s contains characters that are not allowed", quoteShort(s)))
	}
	if p.date {
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return fail(fmt.Sprintf("%s is not a real calendar date in YYYY-MM-DD form", quoteShort(s)))
		}
	}
	if p.upper {
		s = strings.ToUpper(s)
	}
	return s, nil
}

// validateTraitRanges checks {"BWT": {"min": -1, "max": 0.5}, ...}. Codes
// are accepted in any case and normalised to upper case.
func validateTraitRanges(field string, obj map[string]any) (any, []fieldError) {
	expect := (&param{traitMap: true}).expected()
	out := make(map[string]any, len(obj))
	var errs []fieldError
	codes := make([]string, 0, len(obj))
	for k := range obj {
		codes = append(codes, k)
	}
	slices.Sort(codes)
	for _, k := range codes {
		code := strings.ToUpper(strings.TrimSpace(k))
		f := field + "." + fieldName(k)
		if !traitCodePattern.MatchString(code) {
			errs = append(errs, fieldError{Field: f, Problem: fmt.Sprintf("is not a trait code: trait codes are 1 to %d letters", nsip.MaxTraitCodeLength), Expected: "a trait code such as WWT; nsip_get_trait_ranges lists a breed's codes"})
			continue
		}
		if _, dup := out[code]; dup {
			errs = append(errs, fieldError{Field: f, Problem: fmt.Sprintf("trait %s is given more than once", code), Expected: expect})
			continue
		}
		r, ok := obj[k].(map[string]any)
		if !ok {
			errs = append(errs, fieldError{Field: f, Problem: "must be an object {\"min\": number, \"max\": number}, got " + describe(obj[k]), Expected: expect})
			continue
		}
		bounds := []param{
			{name: "min", kind: kindNumber, required: true, example: -1.0},
			{name: "max", kind: kindNumber, required: true, example: 1.0},
		}
		v, fe := validateObject(f+".", bounds, r)
		if len(fe) > 0 {
			errs = append(errs, fe...)
			continue
		}
		if v["min"].(float64) > v["max"].(float64) {
			errs = append(errs, fieldError{Field: f, Problem: fmt.Sprintf("min %g is greater than max %g", v["min"], v["max"]), Expected: "min <= max"})
			continue
		}
		out[code] = v
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if len(out) == 0 {
		return nil, nil // an empty filter filters nothing
	}
	return out, nil
}

// maxShown bounds how many characters of a caller's key or value an error
// message repeats; longer ones are cut and marked, keeping messages one
// readable line.
const maxShown = 64

// fieldName renders a key the caller sent as one step of a field path.
// Ordinary names appear as they are; anything else (empty, blank, with
// spaces, dots, quotes or control characters, or very long) is quoted and
// cut short, so the path always names something visible.
func fieldName(k string) string {
	if k == "" || utf8.RuneCountInString(k) > maxShown {
		return quoteShort(k)
	}
	for _, r := range k {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-' {
			return quoteShort(k)
		}
	}
	return k
}

// quoteShort quotes s with Go escapes for anything unprintable, keeping at
// most maxShown characters; a cut is marked by an ellipsis after the quote.
func quoteShort(s string) string {
	n := 0
	for i := range s {
		if n == maxShown {
			return strconv.Quote(s[:i]) + "…"
		}
		n++
	}
	return strconv.Quote(s)
}

// asInteger accepts JSON numbers with no fractional part.
func asInteger(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return int(i), true
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil && !math.IsInf(f, 0) {
			return 0, false
		}
		return asInteger(f)
	case float64:
		// Huge values are clamped rather than refused, so that the range
		// check reports them as too large instead of as not integers.
		switch {
		case n != math.Trunc(n) || math.IsNaN(n):
			return 0, false
		case n >= math.MaxInt64:
			return math.MaxInt64, true
		case n <= math.MinInt64:
			return math.MinInt64, true
		}
		return int(n), true
	case int:
		return n, true
	case int64:
		return int(n), true
	}
	return 0, false
}

func asNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

// describe names a value's JSON type and, when short, the value itself.
func describe(v any) string {
	t := jsonType(v)
	b, err := nsip.PlainJSON(v)
	if err != nil || len(b) > 40 {
		return t
	}
	return fmt.Sprintf("%s %s", t, b)
}

func jsonType(v any) string {
	switch n := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, err := n.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case float64:
		if n == math.Trunc(n) {
			return "integer"
		}
		return "number"
	case int, int64:
		return "integer"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// closest returns the candidate nearest to s, ignoring case, underscores and
// hyphens, when it is near enough to be a plausible slip; failing that, a
// candidate that contains s (criteria -> search_criteria).
func closest(s string, candidates []string) (string, bool) {
	fold := func(x string) string {
		return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(x))
	}
	fs := fold(s)
	best, bestD := "", math.MaxInt
	for _, c := range candidates {
		if d := levenshtein(fs, fold(c)); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= max(1, len([]rune(fs))/3) {
		return best, true
	}
	if len(fs) > 3 {
		for _, c := range candidates {
			if strings.Contains(fold(c), fs) {
				return c, true
			}
		}
	}
	return "", false
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
