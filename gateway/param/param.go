package param

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/gateway/internal/jsonpool"
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
	Members  *Schema                            // objects that are maps: each member's schema, from the Go type; Custom reads them
	Check    func(Valid) (string, string, bool) // objects: cross-field rule -> field, problem
	DropZero bool                               // objects: omit when empty after normalising
	// Without, for an object argument of a struct type, are the Go names
	// of the struct's fields this argument does not take: one struct
	// serves arguments that take slightly less of it (a ranking's
	// search_criteria, whose breed is its own argument), and a name sent
	// for such a field is refused as any unknown one is.
	Without []string
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
	AlnumPattern  = regexp.MustCompile(`^[A-Za-z0-9]+$`) // LPN IDs, flock IDs
	SearchPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]*$`)
	StatusPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z _-]*$`)
)

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

// Problems gathers a validation's problems: the first MaxProblems in full,
// the rest counted. Work that only serves the message (did-you-mean) is
// skipped once the list is Full. Rules written outside param (NSIP's)
// gather theirs in one too, so that their errors are bounded the same way.
type Problems struct {
	list []FieldError
	more int
}

// Full reports whether the list is full: a problem added now is only counted.
func (ps *Problems) Full() bool { return len(ps.list) >= MaxProblems }

// Count is how many problems have been found so far.
func (ps *Problems) Count() int { return len(ps.list) + ps.more }

// Add lists or counts each of errs, an entry ending a capped list by
// the problems it stands for.
func (ps *Problems) Add(errs ...FieldError) {
	for _, e := range errs {
		switch {
		case e.more > 0:
			ps.more += e.more
		case ps.Full():
			ps.more++
		default:
			ps.list = append(ps.list, e)
		}
	}
}

// Errs is the problems listed, and an entry counting the rest.
func (ps *Problems) Errs() []FieldError {
	if ps.more == 0 {
		return ps.list
	}
	return append(ps.list, FieldError{
		Field:    "arguments",
		Problem:  fmt.Sprintf("and %s more %s not listed", Thousands(ps.more), plural(ps.more, "problem", "problems")),
		Expected: "fix the problems listed, then call again to see the rest",
		more:     ps.more,
	})
}

// Cap bounds errs gathered from several validations as one validation
// bounds its own: the first MaxProblems listed, the rest counted.
func Cap(errs []FieldError) []FieldError {
	var ps Problems
	ps.Add(errs...)
	return ps.Errs()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Thousands writes n with commas, as a reader counts: 1,234.
func Thousands(n int) string {
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
	if p.Complete == Breeds {
		// A breed's name or number as text, read as its ID (argcheck.ReadNames).
		s.Type = Types{Integer, String}
	}
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
	case p.Members != nil:
		s.AdditionalProperties = AdditionalOf(p.Members)
	case p.Kind == Object:
		s.Properties, s.Required = objectSchema(p.Props)
		s.AdditionalProperties = NoAdditional()
	}
	return s
}

// objectSchema is the properties of an object of fields ps, in their
// order, and the names of those required.
func objectSchema(ps []Spec) (props Properties, required []string) {
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
	props, required := objectSchema(ps)
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
		if err := jsonpool.Numbers(raw, &v); err != nil {
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
		return Sent{}, &FieldError{Field: "arguments", Problem: "must be a JSON object, got " + jsonType(v), Expected: "a JSON object of named arguments"}
	}
}

// ValidateObject checks the object sent against ps, returning it
// normalised (defaults filled in, case normalised) and the problems
// found, in the order of ps with unknown names last: the first
// MaxProblems, then one entry counting the rest. prefix is the path of
// the object within the call ("weights." for a form of weights).
func ValidateObject(prefix string, ps []Spec, sent Sent) (Valid, []FieldError) {
	var pr Problems
	out := validateObject(&pr, prefix, ps, sent.m)
	return Valid{out}, pr.Errs()
}

// Object checks the object sent against ps as ValidateObject does,
// gathering its problems in pr.
func (pr *Problems) Object(prefix string, ps []Spec, sent Sent) Valid {
	return Valid{validateObject(pr, prefix, ps, sent.m)}
}

func validateObject(pr *Problems, prefix string, ps []Spec, args map[string]any) map[string]any {
	out := validateFields(pr, prefix, ps, args)
	unknownNames(pr, prefix, ps, args)
	return out
}

// validateFields is validateObject without the judgement of the names ps
// lacks, for a caller that judges them with names of its own.
func validateFields(pr *Problems, prefix string, ps []Spec, args map[string]any) map[string]any {
	out := make(map[string]any, len(ps))
	for i := range ps {
		p := &ps[i]
		raw, present := args[p.Name]
		if !present || raw == nil {
			switch {
			case p.Required:
				pr.Add(FieldError{Field: prefix + p.Name, Problem: "is required", Expected: p.Expected()})
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
	var pr Problems
	unknownNames(&pr, prefix, ps, args)
	return pr.Errs()
}

// unknownNames judges only the names sent, never their values.
func unknownNames(pr *Problems, prefix string, ps []Spec, sent map[string]any) {
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
		if pr.Full() {
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
		pr.Add(fe)
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
	var pr Problems
	v, ok := p.validate(&pr, field, raw)
	if !ok {
		return nil, pr.Errs()
	}
	return v, nil
}

// validate adds raw's problems to pr; ok is false when it had any.
func (p *Spec) validate(pr *Problems, field string, raw any) (v any, ok bool) {
	fail := func(problem string) (any, bool) {
		pr.Add(FieldError{Field: field, Problem: problem, Expected: p.Expected()})
		return nil, false
	}
	if p.Custom != nil {
		v, errs := p.Custom(field, raw)
		if len(errs) > 0 {
			pr.Add(errs...)
			return nil, false
		}
		return v, true
	}
	switch p.Kind {
	case Integer:
		n, ok := asInteger(raw)
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
		if p.Min != nil && f < *p.Min || p.Max != nil && f > *p.Max {
			// Both bounds are set wherever one is; 0 to 1 is a fraction (a COI).
			what := fmt.Sprintf("from %g to %g", *p.Min, *p.Max)
			if *p.Min == 0 && *p.Max == 1 {
				what = "a fraction from 0 to 1"
			}
			return fail(fmt.Sprintf("must be %s, got %g", what, f))
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
		before := pr.Count()
		out := validateObject(pr, field+".", p.Props, obj)
		if pr.Count() > before {
			return nil, false
		}
		if p.Check != nil {
			if f, problem, ok := p.Check(Valid{out}); !ok {
				pr.Add(FieldError{Field: field + "." + f, Problem: problem, Expected: p.propExpected(f)})
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
func (p *Spec) didYouMean(pr *Problems, s string) string {
	if p.Suggest == nil || pr.Full() {
		return ""
	}
	_, d := p.Suggest(s)
	return d
}

func (p *Spec) validateString(pr *Problems, field string, raw any) (any, bool) {
	fail := func(problem string) (any, bool) {
		pr.Add(FieldError{Field: field, Problem: problem, Expected: p.Expected()})
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
		if !pr.Full() {
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
