package param

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
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// A Spec describes one tool argument once; both the published JSON schema
// and the server-side validation are derived from it, so they cannot drift.
type Spec struct {
	Name     string
	Kind     Kind
	Desc     string
	Required bool
	Default  any // filled in when the argument is omitted; nil for none
	Example  any // a valid value, used in error examples

	Min, Max       *float64 // integers
	Quiet          bool     // the schema leaves out min, max, enum, length and pattern, which validation still applies: bounds no caller needs, and trait codes, which the descriptions explain and the glossary lists
	MinLen, MaxLen int      // strings (after trimming)
	Pattern        *regexp.Regexp
	Enum           []string // accepted case-insensitively, normalised to this spelling
	Date           bool     // YYYY-MM-DD calendar date
	Upper          bool     // strings are normalised to upper case
	// Suggest, for a string refused by its length or pattern, names the
	// accepted value it likely stands for and the did-you-mean that says
	// so ("" when none): the problem carries the did-you-mean, and an
	// error's example the value, never the refused one.
	Suggest func(s string) (value, didYouMean string)
	// Complete says which values completion/complete offers for the
	// argument; "" offers none.
	Complete Values

	Props    []Spec                             // objects: their fields
	TraitMap bool                               // objects: trait code -> {min, max}
	Check    func(Valid) (string, string, bool) // objects: cross-field rule -> field, problem
	DropZero bool                               // objects: omit when empty after normalising
	// OmitFalse leaves a boolean out when false, where false asks for
	// nothing (proven_only), so that sending it and leaving it out are one
	// request and one cache key.
	OmitFalse bool

	// Arrays: Items is the schema of each element; custom validates the
	// whole value and expect says what it accepts.
	Items  *Schema
	Custom func(field string, raw any) (any, []FieldError)
	Expect string

	// Brief publishes only the argument's type, where the tool's
	// description already says the rest; validation is unchanged.
	Brief bool
	// List, in an argument struct's Fields, makes the field a List (LPN
	// IDs, trait codes or weights) rather than a Spec: see Table.Struct.
	List *List
}

type Kind string

// Values names a set of values that completions offer.
type Values string

// The values completions know how to offer.
const (
	Breeds   Values = "breeds"   // breed IDs, by ID prefix or by breed name
	Statuses Values = "statuses" // the statuses NSIP records
	Traits   Values = "traits"   // trait codes of the glossary
	LPNs     Values = "lpns"     // LPN IDs the caller has met
)

const (
	Integer Kind = "integer"
	String  Kind = "string"
	Boolean Kind = "boolean"
	Object  Kind = "object"
	Number  Kind = "number"
	Array   Kind = "array"
)

func Bound(v float64) *float64 { return &v }

var (
	// TraitCodePattern is a well-formed trait code. Which codes exist is
	// the breed's business (its getTraitRangesByBreed answer), not a list
	// here: see checkBreedTraits.
	TraitCodePattern = regexp.MustCompile(fmt.Sprintf(`^[A-Za-z]{1,%d}$`, nsip.MaxTraitCodeLength))
	AlnumPattern     = regexp.MustCompile(`^[A-Za-z0-9]+$`) // LPN IDs, flock IDs
	SearchPattern    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]*$`)
	StatusPattern    = regexp.MustCompile(`^[A-Za-z][A-Za-z _-]*$`)
)

// ExampleLPN is a real-looking LPN ID used in descriptions and error
// examples: a ram. ExampleEwe is a ewe of his flock that shares no recorded
// ancestor with him, the ewe the examples mate him with (the stand-in
// holds both, and a test holds them unrelated there).
const (
	ExampleLPN = "6402382024NCS310"
	ExampleEwe = "6402382022NCS120"
)

// LPNParam is an lpn_id argument. LPN IDs are upper case wherever NSIP
// writes one, and the analyses have always taken theirs in any case: a
// lowercase one is normalised, so that it is the same cache entry and the
// same NSIP request as the uppercase.
func LPNParam(desc string) Spec {
	return Spec{
		Name: "lpn_id", Kind: String, Required: true, Desc: desc, Example: ExampleLPN, Complete: LPNs,
		MinLen: nsip.MinLPNIDLength, MaxLen: nsip.MaxLPNIDLength, Pattern: AlnumPattern, Upper: true,
	}
}

// FieldError is one problem with one argument.
type FieldError struct {
	Field    string `json:"field"`
	Problem  string `json:"problem"`
	Expected string `json:"expected,omitempty"`

	// more is set only on the entry that ends a capped list: how many
	// problems it stands for.
	more int
}

// MaxProblems is how many problems a validation lists in full. The rest are
// only counted, in one closing entry ("and 1,234 more problems"): a model
// fixes the first few and calls again, and a call made of thousands of bad
// names must not buy an error of megabytes, nor a did-you-mean for each.
const MaxProblems = 5

// More is how many problems errs stands for beyond those it lists.
func More(errs []FieldError) int {
	n := 0
	for _, e := range errs {
		n += e.more
	}
	return n
}

// problems gathers a validation's problems: the first MaxProblems in full,
// the rest counted. Work that only serves the message (did-you-mean) is
// skipped once the list is full.
type problems struct {
	list []FieldError
	more int
}

func (ps *problems) full() bool { return len(ps.list) >= MaxProblems }

// count is how many problems have been found so far.
func (ps *problems) count() int { return len(ps.list) + ps.more }

func (ps *problems) add(errs ...FieldError) {
	for _, e := range errs {
		switch {
		case e.more > 0:
			ps.more += e.more
		case ps.full():
			ps.more++
		default:
			ps.list = append(ps.list, e)
		}
	}
}

func (ps *problems) errs() []FieldError {
	if ps.more == 0 {
		return ps.list
	}
	return append(ps.list, FieldError{
		Field:    "arguments",
		Problem:  fmt.Sprintf("and %s more %s not listed", thousands(ps.more), plural(ps.more, "problem", "problems")),
		Expected: "fix the problems listed, then call again to see the rest",
		more:     ps.more,
	})
}

// Cap bounds errs gathered from several validations as one validation
// bounds its own: the first MaxProblems listed, the rest counted.
func Cap(errs []FieldError) []FieldError {
	var ps problems
	ps.add(errs...)
	return ps.errs()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// thousands writes n with commas, as a reader counts: 1,234.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Expected says in a few words what a valid value looks like.
func (p *Spec) Expected() string {
	var b strings.Builder
	switch {
	case p.Expect != "":
		return p.Expect
	case p.TraitMap:
		b.WriteString("object mapping trait codes (letters, e.g. BWT, WWT, MWWT; " + toolname.GetTraitRanges + " lists a breed's codes) to {\"min\": number, \"max\": number} with min <= max; either may be left out for a one-sided bound")
	case p.Kind == Object:
		names := make([]string, len(p.Props))
		for i, q := range p.Props {
			names[i] = q.Name
		}
		fmt.Fprintf(&b, "object with any of: %s", strings.Join(names, ", "))
	case len(p.Enum) > 0:
		fmt.Fprintf(&b, "one of %s", strings.Join(p.Enum, ", "))
	case p.Date:
		b.WriteString("calendar date YYYY-MM-DD")
	case p.Kind == Integer:
		b.WriteString("integer")
		if p.Min != nil && p.Max != nil { // every integer argument has both
			fmt.Fprintf(&b, " %g..%g", *p.Min, *p.Max)
		}
	case p.Kind == String:
		b.WriteString("string")
		if p.Pattern == AlnumPattern {
			b.WriteString(" of letters and digits")
		}
		if p.MaxLen > 0 {
			fmt.Fprintf(&b, ", %d-%d characters", max(p.MinLen, 1), p.MaxLen)
		}
	default:
		b.WriteString(string(p.Kind))
	}
	if p.Default != nil {
		fmt.Fprintf(&b, " (default %v)", p.Default)
	}
	if p.Example != nil && p.Kind != Boolean {
		ex, _ := json.Marshal(p.Example)
		fmt.Fprintf(&b, ", e.g. %s", ex)
	}
	return b.String()
}

// Schema renders p as a JSON Schema property.
func (p *Spec) Schema() *Schema {
	s := Type(p.Kind)
	if p.Brief {
		return s
	}
	s.Description, s.Default = p.Desc, p.Default
	if !p.Quiet {
		s.Minimum, s.Maximum = p.Min, p.Max
	}
	if p.Kind == String {
		s.MinLength = p.MinLen
		if !p.Quiet {
			s.MaxLength, s.Enum = p.MaxLen, p.Enum
			if p.Pattern != nil {
				s.Pattern = p.Pattern.String()
			}
		}
		if p.Date {
			s.Format = "date"
		}
	}
	s.Items = p.Items
	switch {
	case p.TraitMap:
		// Breeds publish different traits, so the schema names no codes
		// (the breed's trait ranges decide); the description's example
		// shows the {min, max} of each code and validation holds every rule.
		s.AdditionalProperties = AdditionalOf(Type(Object))
	case p.Kind == Object:
		s.Properties, s.Required = ObjectSchema(p.Props)
		s.AdditionalProperties = NoAdditional()
	}
	return s
}

// ObjectSchema is the properties of an object of fields ps, in their
// order, and the names of those required.
func ObjectSchema(ps []Spec) (props Properties, required []string) {
	props = make(Properties, 0, len(ps))
	for i := range ps {
		props = append(props, Property{Name: ps[i].Name, Schema: ps[i].Schema()})
		if ps[i].Required {
			required = append(required, ps[i].Name)
		}
	}
	return props, required
}

// InputSchema is the tool's published input schema.
func InputSchema(ps []Spec) mcp.ToolInputSchema {
	props, required := ObjectSchema(ps)
	return mcp.ToolInputSchema{
		Type:                 "object",
		Properties:           props.ToolProperties(),
		Required:             required,
		AdditionalProperties: false,
		PropertyOrder:        props.Names(),
	}
}

// Decode returns the call's arguments as a JSON object. Numbers stay
// json.Number so that large integers are judged exactly.
func Decode(req mcp.CallToolRequest) (Sent, *FieldError) {
	var v any
	if raw := bytes.TrimSpace(req.Params.RawArguments); len(raw) > 0 {
		if err := decodeWith(&numberDecoders, raw, &v); err != nil {
			return Sent{}, &FieldError{Field: "arguments", Problem: "is not valid JSON: " + err.Error(), Expected: "a JSON object"}
		}
	} else {
		v = req.Params.Arguments
	}
	switch a := v.(type) {
	case nil:
		return Sent{}, nil
	case map[string]any:
		return Sent{a}, nil
	case Sent: // the server's own call (a resource read)
		return a, nil
	default:
		return Sent{}, &FieldError{Field: "arguments", Problem: "must be a JSON object, got " + JSONType(v), Expected: "a JSON object of named arguments"}
	}
}

// ValidateObject checks the object sent against ps, returning it
// normalised (defaults filled in, case normalised) and the problems
// found, in the order of ps with unknown names last: the first
// MaxProblems, then one entry counting the rest. prefix is the path of
// the object within the call ("weights." for a form of weights).
func ValidateObject(prefix string, ps []Spec, sent Sent) (Valid, []FieldError) {
	var pr problems
	out := validateObject(&pr, prefix, ps, sent.m)
	return Valid{out}, pr.errs()
}

func validateObject(pr *problems, prefix string, ps []Spec, args map[string]any) map[string]any {
	out := validateFields(pr, prefix, ps, args)
	unknownNames(pr, prefix, ps, args)
	return out
}

// validateFields is validateObject without the judgement of the names ps
// lacks, for a caller that judges them with names of its own.
func validateFields(pr *problems, prefix string, ps []Spec, args map[string]any) map[string]any {
	out := make(map[string]any, len(ps))
	for i := range ps {
		p := &ps[i]
		raw, present := args[p.Name]
		if !present || raw == nil {
			switch {
			case p.Required:
				pr.add(FieldError{Field: prefix + p.Name, Problem: "is required", Expected: p.Expected()})
			case p.Default != nil:
				out[p.Name] = p.Default
			}
			continue
		}
		if v, ok := p.validate(pr, prefix+p.Name, raw); ok && v != nil && !(p.OmitFalse && v == false) {
			out[p.Name] = v
		}
	}
	return out
}

// namesNotTaken reports arguments the tool does not take, naming the closest
// known one when it is a plausible misspelling; like ValidateObject, it
// lists the first MaxProblems and counts the rest.
func namesNotTaken(prefix string, ps []Spec, args map[string]any) []FieldError {
	var pr problems
	unknownNames(&pr, prefix, ps, args)
	return pr.errs()
}

// unknownNames judges only the names sent, never their values.
func unknownNames(pr *problems, prefix string, ps []Spec, sent map[string]any) {
	known := make([]string, len(ps))
	for i := range ps {
		known[i] = ps[i].Name
	}
	var names []string
	for k := range sent {
		if !slices.Contains(known, k) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		if pr.full() {
			pr.more++ // counted, not described: no did-you-mean for it
			continue
		}
		fe := FieldError{Field: prefix + FieldName(k), Problem: "is not an argument of this tool"}
		if prefix != "" {
			fe.Problem = "is not a field of " + strings.TrimSuffix(prefix, ".")
		}
		if len(known) == 0 {
			fe.Expected = "no arguments: call with {}"
		} else if s, ok := closestName(k, known); ok {
			fe.Problem += fmt.Sprintf("; did you mean %q?", s)
			fe.Expected = s
		} else {
			fe.Expected = "one of " + strings.Join(known, ", ")
		}
		pr.add(fe)
	}
}

// closestName is the argument a name the tool lacks stands for: the
// closest by spelling (Closest) or, failing that, the one argument it
// begins, as an abbreviation does ("lpn" for "lpn_id"), when only one
// does.
func closestName(name string, known []string) (string, bool) {
	if c, ok := Closest(name, known); ok {
		return c, true
	}
	f := folder.Replace(strings.ToLower(name))
	if len(f) < 2 {
		return "", false
	}
	var only string
	for _, k := range known {
		if strings.HasPrefix(folder.Replace(strings.ToLower(k)), f) {
			if only != "" {
				return "", false
			}
			only = k
		}
	}
	return only, only != ""
}

// Validate checks one argument and returns it normalised, or its problems:
// the first MaxProblems, then one entry counting the rest.
func (p *Spec) Validate(field string, raw any) (any, []FieldError) {
	var pr problems
	v, ok := p.validate(&pr, field, raw)
	if !ok {
		return nil, pr.errs()
	}
	return v, nil
}

// validate adds raw's problems to pr; ok is false when it had any.
func (p *Spec) validate(pr *problems, field string, raw any) (v any, ok bool) {
	fail := func(problem string) (any, bool) {
		pr.add(FieldError{Field: field, Problem: problem, Expected: p.Expected()})
		return nil, false
	}
	if p.Custom != nil {
		v, errs := p.Custom(field, raw)
		if len(errs) > 0 {
			pr.add(errs...)
			return nil, false
		}
		return v, true
	}
	switch p.Kind {
	case Integer:
		n, ok := AsInteger(raw)
		if !ok {
			return fail("must be an integer, got " + Describe(raw))
		}
		if p.Min != nil && float64(n) < *p.Min {
			return fail(fmt.Sprintf("must be at least %g, got %d", *p.Min, n))
		}
		if p.Max != nil && float64(n) > *p.Max {
			return fail(fmt.Sprintf("must be at most %g, got %d", *p.Max, n))
		}
		return n, true
	case Number:
		f, ok := AsNumber(raw)
		if !ok {
			return fail("must be a number, got " + Describe(raw))
		}
		return f, true
	case Boolean:
		b, ok := raw.(bool)
		if !ok {
			return fail("must be true or false, got " + Describe(raw))
		}
		return b, true
	case String:
		return p.validateString(pr, field, raw)
	default:
		obj, ok := raw.(map[string]any)
		if !ok {
			return fail("must be an object, got " + Describe(raw))
		}
		if p.TraitMap {
			return validateTraitRanges(pr, field, obj)
		}
		before := pr.count()
		out := validateObject(pr, field+".", p.Props, obj)
		if pr.count() > before {
			return nil, false
		}
		if p.Check != nil {
			if f, problem, ok := p.Check(Valid{out}); !ok {
				pr.add(FieldError{Field: field + "." + f, Problem: problem, Expected: p.propExpected(f)})
				return nil, false
			}
		}
		if p.DropZero && len(out) == 0 {
			return nil, true
		}
		return out, true
	}
}

func (p *Spec) propExpected(name string) string {
	for i := range p.Props {
		if p.Props[i].Name == name {
			return p.Props[i].Expected()
		}
	}
	return ""
}

// didYouMean is p.Suggest's did-you-mean for s, while problems are still
// being described in full.
func (p *Spec) didYouMean(pr *problems, s string) string {
	if p.Suggest == nil || pr.full() {
		return ""
	}
	_, d := p.Suggest(s)
	return d
}

func (p *Spec) validateString(pr *problems, field string, raw any) (any, bool) {
	fail := func(problem string) (any, bool) {
		pr.add(FieldError{Field: field, Problem: problem, Expected: p.Expected()})
		return nil, false
	}
	s, ok := raw.(string)
	if !ok {
		return fail("must be a string, got " + Describe(raw))
	}
	// Surrounding whitespace is a copy-and-paste accident, not meaning.
	s = strings.TrimSpace(s)
	n := utf8.RuneCountInString(s)
	switch {
	case n == 0:
		return fail("must not be empty or blank")
	case p.MaxLen > 0 && n > p.MaxLen:
		return fail(fmt.Sprintf("is %d characters long; at most %d allowed", n, p.MaxLen) + p.didYouMean(pr, s))
	case n < p.MinLen:
		return fail(fmt.Sprintf("is %d characters long; at least %d needed", n, p.MinLen))
	}
	if len(p.Enum) > 0 {
		for _, e := range p.Enum {
			if strings.EqualFold(e, s) {
				return e, true
			}
		}
		problem := fmt.Sprintf("%s is not one of %s", QuoteShort(s), strings.Join(p.Enum, ", "))
		if !pr.full() {
			if c, ok := Closest(s, p.Enum); ok {
				problem += fmt.Sprintf("; did you mean %q?", c)
			}
		}
		return fail(problem)
	}
	if p.Pattern != nil && !p.Pattern.MatchString(s) {
		return fail(fmt.Sprintf("%s contains characters that are not allowed", QuoteShort(s)) + p.didYouMean(pr, s))
	}
	if p.Date {
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return fail(fmt.Sprintf("%s is not a real calendar date in YYYY-MM-DD form", QuoteShort(s)))
		}
	}
	if p.Upper {
		s = strings.ToUpper(s)
	}
	return s, true
}

// OpenBound stands for the open side of a one-sided trait range. NSIP's
// search body documents a trait range as {"min", "max"} and nothing says it
// accepts one alone, so the open side is sent as a bound no EBV reaches
// (EBVs run to tens, indexes to a few hundred): it filters no animal out,
// as an invented bound near the breed's values could.
const OpenBound = 1e6

// MaxTraitRanges bounds the codes one trait_ranges may name: more than any
// breed publishes, and a bound on the work one call can ask for.
const MaxTraitRanges = 64

// validateTraitRanges checks {"BWT": {"min": -1, "max": 0.5}, ...}. Codes
// are accepted in any case and normalised to upper case. A range may give
// only min or only max; the other side is filled with ±OpenBound, so that a
// one-sided range and the same range with the open side spelled out are one
// request and one cache key.
func validateTraitRanges(pr *problems, field string, obj map[string]any) (any, bool) {
	expect := (&Spec{TraitMap: true}).Expected()
	if len(obj) > MaxTraitRanges {
		pr.add(FieldError{Field: field, Problem: fmt.Sprintf("names %s traits; at most %d allowed", thousands(len(obj)), MaxTraitRanges), Expected: expect})
		return nil, false
	}
	out := make(map[string]any, len(obj))
	before := pr.count()
	codes := make([]string, 0, len(obj))
	for k := range obj {
		codes = append(codes, k)
	}
	slices.Sort(codes)
	bounds := []Spec{
		{Name: "min", Kind: Number, Example: -1.0},
		{Name: "max", Kind: Number, Example: 1.0},
	}
	for _, k := range codes {
		code := strings.ToUpper(strings.TrimSpace(k))
		f := field + "." + FieldName(k)
		if !TraitCodePattern.MatchString(code) {
			problem := fmt.Sprintf("is not a trait code: trait codes are 1 to %d letters", nsip.MaxTraitCodeLength)
			if !pr.full() {
				_, d := DidYouMeanTrait(k, nsip.GlossaryCodes())
				problem += d
			}
			pr.add(FieldError{Field: f, Problem: problem, Expected: "a trait code such as WWT; " + toolname.GetTraitRanges + " lists a breed's codes"})
			continue
		}
		if _, dup := out[code]; dup {
			pr.add(FieldError{Field: f, Problem: fmt.Sprintf("trait %s is given more than once", code), Expected: expect})
			continue
		}
		r, ok := obj[k].(map[string]any)
		if !ok {
			pr.add(FieldError{Field: f, Problem: "must be an object {\"min\": number, \"max\": number} (either may be left out), got " + Describe(obj[k]), Expected: expect})
			continue
		}
		n := pr.count()
		v := validateObject(pr, f+".", bounds, r)
		if pr.count() > n {
			continue
		}
		lo, hasMin := v["min"].(float64)
		hi, hasMax := v["max"].(float64)
		switch {
		case !hasMin && !hasMax:
			pr.add(FieldError{Field: f, Problem: "gives neither min nor max", Expected: expect})
			continue
		case math.IsNaN(lo) || math.IsInf(lo, 0) || math.IsNaN(hi) || math.IsInf(hi, 0):
			pr.add(FieldError{Field: f, Problem: "min and max must be finite numbers", Expected: expect})
			continue
		case !hasMin:
			lo = min(-OpenBound, hi)
		case !hasMax:
			hi = max(OpenBound, lo)
		}
		if lo > hi {
			pr.add(FieldError{Field: f, Problem: fmt.Sprintf("min %g is greater than max %g", lo, hi), Expected: "min <= max"})
			continue
		}
		out[code] = map[string]any{"min": lo, "max": hi}
	}
	if pr.count() > before {
		return nil, false
	}
	if len(out) == 0 {
		return nil, true // an empty filter filters nothing
	}
	return out, true
}

// MaxShown bounds how many characters of a caller's key or value an error
// message repeats; longer ones are cut and marked, keeping messages one
// readable line.
const MaxShown = 64

// FieldName renders a key the caller sent as one step of a field path.
// Ordinary names appear as they are; anything else (empty, blank, with
// spaces, dots, quotes or control characters, or very long) is quoted and
// cut short, so the path always names something visible.
func FieldName(k string) string {
	if k == "" || utf8.RuneCountInString(k) > MaxShown {
		return QuoteShort(k)
	}
	for _, r := range k {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-' {
			return QuoteShort(k)
		}
	}
	return k
}

// QuoteShort quotes s with Go escapes for anything unprintable, keeping at
// most MaxShown characters; a cut is marked by an ellipsis after the quote.
func QuoteShort(s string) string {
	n := 0
	for i := range s {
		if n == MaxShown {
			return strconv.Quote(s[:i]) + "…"
		}
		n++
	}
	return strconv.Quote(s)
}

// Duration is d as a person writes it: 1h, 30m, 1h30m, 2m5s, without the
// zero units time.Duration's String leaves at the end (1h0m0s, 30m0s).
func Duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// AsInteger accepts JSON numbers with no fractional part.
func AsInteger(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return int(i), true
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil && !math.IsInf(f, 0) {
			return 0, false
		}
		return AsInteger(f)
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

func AsNumber(v any) (float64, bool) {
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

// Describe names a value's JSON type and, when short, the value itself.
func Describe(v any) string {
	t := JSONType(v)
	switch x := v.(type) { // plainly too long to show: not worth encoding
	case string:
		if len(x) > 40 {
			return t
		}
	case []any:
		if len(x) > 20 {
			return t
		}
	case map[string]any:
		if len(x) > 20 {
			return t
		}
	}
	b, err := nsip.PlainJSON(v)
	if err != nil || len(b) > 40 {
		return t
	}
	return fmt.Sprintf("%s %s", t, b)
}

func JSONType(v any) string {
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

// maxSuggest bounds the length of a name or value that gets a
// did-you-mean: nothing longer is a slip of a short name, and comparing it
// would cost time in proportion to its length.
const maxSuggest = MaxShown

// folder ignores what Closest does not count as a difference.
var folder = strings.NewReplacer("_", "", "-", "", " ", "")

// distance is the edit distance Closest compares with. A variable so that
// the tests which bound the work an error costs can count the runs.
var distance = Levenshtein

// Closest returns the candidate nearest to s, ignoring case, underscores and
// hyphens, when it is near enough to be a plausible slip; failing that, a
// candidate that contains s (criteria -> search_criteria). Only candidates
// whose length is within the threshold of s's are compared: the length
// difference alone puts the others beyond it.
func Closest(s string, candidates []string) (string, bool) {
	if utf8.RuneCountInString(s) > maxSuggest {
		return "", false
	}
	fold := func(x string) string { return folder.Replace(strings.ToLower(x)) }
	fs := fold(s)
	n := utf8.RuneCountInString(fs)
	limit := max(1, n/3)
	best, bestD := "", math.MaxInt
	for _, c := range candidates {
		fc := fold(c)
		if d := utf8.RuneCountInString(fc) - n; d > limit || -d > limit {
			continue
		}
		if d := distance(fs, fc); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= limit {
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

// Levenshtein is the edit distance between a and b, in runes.
func Levenshtein(a, b string) int {
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

// Example builds a correct call from what the caller sent: valid arguments
// are kept (normalised), invalid or missing required ones take their Example
// value, and unknown names are left out.
func Example(ps []Spec, sent Sent) *Call {
	return &Call{args: example(ps, sent.m)}
}

// example is Example's arguments, an object of ps from args.
func example(ps []Spec, args map[string]any) map[string]any {
	out := map[string]any{}
	for i := range ps {
		p := &ps[i]
		v, present := args[p.Name]
		if present && v != nil {
			if nv, errs := p.Validate(p.Name, v); len(errs) == 0 {
				if nv != nil && !(p.OmitFalse && nv == false) {
					out[p.Name] = nv
				}
				continue
			}
			if obj, ok := v.(map[string]any); ok && len(p.Props) > 0 {
				if fixed := example(p.Props, obj); len(fixed) > 0 {
					if p.Check != nil {
						if _, _, ok := p.Check(Valid{fixed}); !ok {
							fixed = nil
						}
					}
					if fixed != nil {
						out[p.Name] = fixed
						continue
					}
				}
			}
		}
		if (present && v != nil) || p.Required {
			out[p.Name] = p.Example
		}
		if s, ok := v.(string); ok && p.Suggest != nil {
			if fix, _ := p.Suggest(s); fix != "" {
				out[p.Name] = fix
			}
		}
	}
	return out
}

func Named(ps []Spec, name string) *Spec {
	for i := range ps {
		if ps[i].Name == name {
			return &ps[i]
		}
	}
	return nil
}

func Names(ps []Spec) string {
	n := make([]string, len(ps))
	for i, p := range ps {
		n[i] = p.Name
	}
	return strings.Join(n, " and ")
}

// ValidateTraitList checks a list of trait codes, upper-casing them and
// dropping repeats.
func ValidateTraitList(field string, raw any) (any, []FieldError) {
	expect := TraitListExpect
	list, ok := raw.([]any)
	if !ok {
		return nil, []FieldError{{Field: field, Problem: "must be an array of trait codes, got " + Describe(raw), Expected: expect}}
	}
	if len(list) == 0 || len(list) > MaxTraitsAsked {
		return nil, []FieldError{{Field: field, Problem: fmt.Sprintf("names %d traits; give 1 to %d", len(list), MaxTraitsAsked), Expected: expect}}
	}
	var out []string
	var errs []FieldError
	for i, v := range list {
		f := fmt.Sprintf("%s[%d]", field, i)
		s, ok := v.(string)
		if !ok {
			errs = append(errs, FieldError{Field: f, Problem: "must be a trait code string, got " + Describe(v), Expected: expect})
			continue
		}
		code := strings.ToUpper(strings.TrimSpace(s))
		if !TraitCodePattern.MatchString(code) {
			problem := fmt.Sprintf("%s is not a trait code (1 to %d letters)", QuoteShort(s), nsip.MaxTraitCodeLength)
			if len(errs) < MaxProblems {
				_, d := DidYouMeanTrait(s, nsip.GlossaryCodes())
				problem += d
			}
			errs = append(errs, FieldError{Field: f, Problem: problem, Expected: expect})
			continue
		}
		if !slices.Contains(out, code) {
			out = append(out, code)
		}
	}
	if len(errs) > 0 {
		return nil, Cap(errs)
	}
	anys := make([]any, len(out))
	for i, c := range out {
		anys[i] = c
	}
	return anys, nil
}

func JSONText(v any) string {
	b, err := nsip.PlainJSON(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// MaxTraitsAsked is the most trait codes one traits argument may list.
const MaxTraitsAsked = 30

// TraitListExpect says what a traits argument accepts.
const TraitListExpect = "array of trait codes (letters), e.g. [\"WWT\",\"NLB\"]"

// FromText turns text, such as a URI variable, into an argument of p: digits become a
// JSON number where p takes a number, so that breed_id=640 and page=2
// validate as integers; anything else stays text for validation to judge. A
// variable repeated in a query arrives as a list; only one value makes
// sense, and validation says so.
func FromText(p *Spec, v any) any {
	switch s := v.(type) {
	case string:
		if p != nil && (p.Kind == Integer || p.Kind == Number) {
			if _, err := strconv.ParseFloat(s, 64); err == nil {
				return json.Number(s)
			}
		}
		return s
	case []string:
		if len(s) == 1 {
			return FromText(p, s[0])
		}
		out := make([]any, len(s))
		for i := range s {
			out[i] = s[i]
		}
		return out
	}
	return v
}
