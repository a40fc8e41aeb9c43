package analysis

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// A Def is one analysis: the definition every tool has (tooldef.Def),
// the most upstream lookups one call may make, and the computation. The
// gateway turns it into a tool.
type Def struct {
	// Def's Args are the analysis's arguments, derived from its argument
	// struct (param.MustStruct): the scalars and objects in Specs, the
	// lists of LPN IDs, trait codes and weights in Lists. Run decodes the
	// validated arguments into that struct (typed).
	tooldef.Def
	Ceiling int // upstream lookups (cached or fetched) per call
	// Answers are the types Run's answers are values of (pointers to),
	// from which the gateway writes the tool's output schema.
	Answers []reflect.Type
	Run     func(ctx context.Context, r *Call, args param.Valid) (any, error)
	// Correct, when set, makes an error's example a correct call where a
	// rule across arguments decides (exactly one of several).
	Correct func(example *param.Call)
}

// Source is what one call of an analysis reads and asks through: NSIP's
// endpoints, the user, the answer's budget, the breed passes kept between
// calls and the call's limits. The gateway hands each call its own, which
// counts lookups against the ceiling and sends each through the cache and
// the upstream policy; a test can hand it a fake. Everything an analysis
// may ask of a source is a method here, typed, and a source that has
// nothing to say answers so (nil Passes, zero Limits): an analysis never
// guesses a capability from the source's type, so a fake and the gateway
// are read the same way and a missing method is a compile error, not a
// capability silently lost.
type Source interface {
	// One method per NSIP endpoint, with the client's own parameters and
	// models: the lookups answer from the same cache entries.
	Details(ctx context.Context, id string) (*nsip.AnimalDetails, error)
	Lineage(ctx context.Context, id string) (*nsip.Lineage, error)
	// Search is one page of NSIP's search (Query).
	Search(ctx context.Context, q Query) (*nsip.SearchResults, error)
	// Progeny is one page of an animal's offspring.
	Progeny(ctx context.Context, id string, page, size int) (*nsip.ProgenyPage, error)
	TraitRanges(ctx context.Context, breed int) (*nsip.TraitRanges, error)
	// LastUpdate is the date of NSIP's latest evaluation, asked as
	// recently as asked says rather than from the cache, which may
	// predate a new evaluation.
	LastUpdate(ctx context.Context, asked Asked) (*nsip.LastUpdate, error)
	// Ask puts a form to the user. asked is false when the client cannot
	// be asked; an error is an answer already worded for the model (the
	// user declined, say) and is returned from the analysis as it is.
	Ask(ctx context.Context, f Form) (answers Answers, asked bool, err error)
	// OverBudget reports whether answer v would be summarized.
	OverBudget(ctx context.Context, v any) bool
	// Budgets are the token budget the call's answer is fitted to and the
	// largest a call may ask for with max_tokens.
	Budgets() (now, limit int)
	// Upstream says what the call has read so far, for "computed" blocks.
	Upstream() Upstream
	// ErrorCode is the error code a tool would answer err with.
	ErrorCode(err error) string
	// Passes are the breed passes the source keeps between calls, nil
	// when it keeps none.
	Passes() Passes
	// Limits are the call's room: lookups at once, time left, the
	// upstream's rate limit, each with a value for "not said".
	Limits() Limits
}

// Query is one page of NSIP's search as an analysis reads it: the
// client's parameters, and the evaluation the page is read under.
type Query struct {
	nsip.SearchParams
	// Evaluation is NSIP's last-update date when the scan has read it: it
	// is not sent to NSIP but keys the page's cache entry, so that a page
	// cached under an earlier evaluation is never read under a later one.
	Evaluation string
}

// Form is a question for the user, as the gateway asks it.
type Form struct {
	Message string
	Fields  []param.Spec
	// Arg is the argument the form fills, named by errors, when it is not
	// the fields themselves: "weights" for a form of one field per trait.
	Arg      string
	Expected string            // what Arg accepts
	Example  *param.Call       // a correct call, for errors
	Titles   map[string]string // field titles a user reads, where a name is too terse
	// Also are further arguments asked in the same form, so that the user
	// answers once; they are validated and reported under their own names.
	Also []param.Spec
}

// Answers are the user's answers to a Form, validated as its Specs say:
// Fields those of its own fields, Also those of the further arguments.
type Answers struct {
	Fields, Also Choices
}

// Choices are answers by field name, each held as what its Spec's kind
// validates to; a field the user left empty is in none of them. A form
// holds only these four kinds (elicitation allows no others).
type Choices struct {
	Numbers  map[string]float64 // param.Number
	Integers map[string]int     // param.Integer
	Texts    map[string]string  // param.String, in the spelling the Spec keeps
	Flags    map[string]bool    // param.Boolean
}

// NewChoices holds no answer yet.
func NewChoices() Choices {
	return Choices{Numbers: map[string]float64{}, Integers: map[string]int{}, Texts: map[string]string{}, Flags: map[string]bool{}}
}

// Put holds answer v to the field name by its kind; false for a value of
// no kind Choices holds.
func (c Choices) Put(name string, v any) bool {
	switch x := v.(type) {
	case float64:
		c.Numbers[name] = x
	case int:
		c.Integers[name] = x
	case bool:
		c.Flags[name] = x
	case string:
		c.Texts[name] = x
	default:
		return false
	}
	return true
}

// Run computes analysis d over src with validated arguments; sent are the
// arguments as the caller sent them, for examples in errors.
func Run(ctx context.Context, d *Def, src Source, log *slog.Logger, sent param.Sent, args param.Valid) (any, error) {
	return d.Run(ctx, &Call{Src: src, Def: d, Sent: sent, Log: log}, args)
}

// Call is one run of an analysis: what the run reads through, and what it
// needs to word its errors. Each analysis lives in a package of its own,
// so its members are exported for them to read.
type Call struct {
	Src  Source       // what the run reads and asks through
	Def  *Def         // the analysis run, for its name, title and examples
	Sent param.Sent   // the arguments as the caller sent them, for examples in errors
	Log  *slog.Logger // where the run logs what the caller is not told
}

// Typed is the Run of an analysis whose arguments are the struct A (its
// Def's Args.Specs and Args.Lists derived from A): the validated arguments are
// decoded into A strictly, so that a name or type the struct does not hold
// is an error here and not a value silently dropped.
func Typed[A any](run func(ctx context.Context, r *Call, a *A) (any, error)) func(context.Context, *Call, param.Valid) (any, error) {
	return func(ctx context.Context, r *Call, args param.Valid) (any, error) {
		var a A
		if err := DecodeArgs(args, &a); err != nil {
			return nil, err
		}
		return run(ctx, r, &a)
	}
}

// SearchQuery is a search of breed (0 for any) with criteria c, unsorted
// and highest first.
func SearchQuery(breed int, c *nsiparg.Criteria) Query {
	q := Query{SearchParams: nsip.SearchParams{BreedID: breed}}
	if c != nil {
		q.Criteria = nsip.SearchCriteria(*c).AsSent() // a status word as NSIP can be asked it
	}
	return q
}

// DecodeArgs reads validated arguments into a, the view's (param.Budget)
// among them: the Source, not the analysis, fits the answer to them.
func DecodeArgs(args param.Valid, a any) error {
	if fe := args.Decode(a); fe != nil {
		return &ArgError{*fe}
	}
	return nil
}

func (r *Call) Details(ctx context.Context, id string) (*nsip.AnimalDetails, error) {
	return r.Src.Details(ctx, id)
}

func (r *Call) Lineage(ctx context.Context, id string) (*nsip.Lineage, error) {
	return r.Src.Lineage(ctx, id)
}

func (r *Call) Search(ctx context.Context, q Query) (*nsip.SearchResults, error) {
	return r.Src.Search(ctx, q)
}

func (r *Call) Progeny(ctx context.Context, id string, page, size int) (*nsip.ProgenyPage, error) {
	return r.Src.Progeny(ctx, id, page, size)
}

func (r *Call) Ranges(ctx context.Context, breed int) (*nsip.TraitRanges, error) {
	return r.Src.TraitRanges(ctx, breed)
}

// Asked is how recently NSIP must have given the answer a read takes.
type Asked int

const (
	// Cached takes the cache's answer, however old within its life.
	Cached Asked = iota
	// Recently takes NSIP's answer to a request sent for a fresh read
	// within the server's recheck window (NSIP_EVALUATION_RECHECK): an
	// analysis opening on the evaluation date sees a new evaluation up
	// to that late, and sends nothing while a breed pass serves it.
	Recently
	// Now asks NSIP for this read: the date closing a read of many
	// pages, which must show that no evaluation came out during them.
	Now
)

// Evaluation is the date of NSIP's latest evaluation as NSIP gave it
// within the server's recheck window: what an analysis opens on, keying
// the pages and passes it reads.
func (r *Call) Evaluation(ctx context.Context) (string, error) {
	return r.evaluation(ctx, Recently)
}

// EvaluationNow is the date as NSIP gives it now: what closes a read of
// many pages, shown to be of one evaluation only by a date asked after
// the last of them.
func (r *Call) EvaluationNow(ctx context.Context) (string, error) {
	return r.evaluation(ctx, Now)
}

func (r *Call) evaluation(ctx context.Context, asked Asked) (string, error) {
	u, err := r.Src.LastUpdate(ctx, asked)
	if err != nil {
		return "", err
	}
	return u.Date, nil
}

func (r *Call) OverBudget(ctx context.Context, v any) bool {
	return r.Src.OverBudget(ctx, v)
}

func (r *Call) Upstream() Upstream { return r.Src.Upstream() }

// FitRows is build(n) for the most rows n, of all, that keep the answer
// within the budget (0 if none do): an answer whose rows are its point
// keeps its totals and whole rows rather than falling to a generic
// summary. Fewer rows never make an answer longer, so n is bisected.
func FitRows[T any](ctx context.Context, r *Call, all int, build func(n int) T) (T, int) {
	if out := build(all); !r.OverBudget(ctx, out) {
		return out, all
	}
	lo, hi := 0, all-1 // build(lo) is taken to fit; build(hi+1) does not
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if r.OverBudget(ctx, build(mid)) {
			hi = mid - 1
		} else {
			lo = mid
		}
	}
	return build(lo), lo
}

// WithRows is a fitted answer and, when the fit left rows out (shown of
// rows), every row under the answer's own column names: the rows become
// the answer's complete data, linked as JSON and CSV, so that a host can
// show or save them all without another call.
func WithRows(out any, shown int, columns []string, rows [][]any) any {
	if shown == len(rows) {
		return out
	}
	return &full.Answer{Value: out, Table: &full.Table{Columns: slices.Clone(columns), Rows: rows}}
}

// RestCall says how to read the rows an answer left out: the same call
// with the largest max_tokens and the arguments the user chose in a form
// (chosen; its MaxTokens is set here), so that no form is asked again,
// which could answer differently; or, already there, that no budget holds
// them. The arguments sent are not repeated: a hundred LPN IDs would take
// the room of the rows.
func (r *Call) RestCall(chosen SetArgs, shown, all int, which string) *RestCall {
	out := &RestCall{Rows: all - shown, Which: which}
	now, limit := r.Src.Budgets()
	if now >= limit {
		out.Note = fmt.Sprintf("the answer is at this server's largest budget (%d tokens); ask about fewer animals to see the rest", limit)
		return out
	}
	chosen.MaxTokens = limit
	out.Call = &NextCall{Tool: r.Def.Name, Arguments: "as in this call, with", Set: &chosen}
	return out
}

// TimeLimitCut is the lead of an answer whose reads the call's time limit
// stopped, nil when it did not: effect says what was left unresolved for
// it. The call that goes on is this one again, with the choices made in a
// form (chosen): what this one read is cached, so the next reads on from
// where it stopped.
func (r *Call) TimeLimitCut(chosen SetArgs, effect string) *TimeLimitCut {
	u := r.Upstream()
	if !u.TimeLimitReached {
		return nil
	}
	chosen.MaxTokens, _ = r.Src.Budgets()
	return &TimeLimitCut{
		Seconds: u.TimeLimitSeconds,
		Effect:  fmt.Sprintf("the call's time limit of %d s passed before every lookup was read: %s; the lookups read are cached, so next goes on from them", u.TimeLimitSeconds, effect),
		Next:    NextCall{Tool: r.Def.Name, Arguments: "as in this call, with", Set: &chosen},
	}
}

// Validate checks every argument (param.Args.Validate).
func (d *Def) Validate(sent param.Sent) (param.Valid, []param.FieldError) {
	return d.Args.Validate(sent)
}

// Example is a correct call for an error message.
func (d *Def) Example(sent param.Sent) *param.Call {
	out := d.Args.Example(sent)
	if d.Correct != nil {
		d.Correct(out)
	}
	return out
}

// ErrCeiling ends an analysis that would read more than its ceiling.
var ErrCeiling = errors.New("upstream lookup ceiling reached")

// ErrTimeLimit is a lookup refused because the call's time limit has
// passed: a ceiling of time rather than of lookups, met as ErrCeiling is
// (errors.Is(ErrTimeLimit, ErrCeiling)), where a partial answer is honest.
var ErrTimeLimit = fmt.Errorf("%w: the call's time limit passed", ErrCeiling)

// AboutError attributes an upstream failure to the argument it was about,
// so that not-found names the field and value the caller sent.
type AboutError struct {
	Field      string
	Value      any
	What, Next string // for not found; an animal by default
	Err        error
}

func (e *AboutError) Error() string { return e.Err.Error() }
func (e *AboutError) Unwrap() error { return e.Err }

// About wraps err as being about field's value; nil stays nil.
func About(field string, value any, err error) error {
	if err == nil {
		return nil
	}
	return &AboutError{Field: field, Value: value, Err: err}
}

// ArgError is an argument problem found only once data was in hand.
type ArgError struct{ param.FieldError }

func (e *ArgError) Error() string { return e.Field + " " + e.Problem }

// FixedArgError is an ArgError that knows the call the caller meant: Fix
// are the edits that turn the example of a correct call, built from what
// was sent, into it, so that the example never repeats a value the data
// refused.
type FixedArgError struct {
	ArgError
	Fix []param.Edit
}

func (e *FixedArgError) Unwrap() error { return &e.ArgError }

// AnswerError is the user's answer to a form failing validation.
type AnswerError struct{ Errs []param.FieldError }

func (e *AnswerError) Error() string { return "the user's answer: " + e.Errs[0].Problem }

// Breeding objective weights are an object, which a form (flat primitive
// fields only) cannot hold, so the user is offered one number per trait
// the animals in question carry and the answers are gathered into the
// weights object, then checked exactly as weights sent as an argument.

// Weights returns the call's objective: given, the weights argument, or,
// when the model left it out (nil) and the client can ask its user, the
// user's answer to a form of the traits in codes. also are further choices
// asked in the same form; their answers come back beside, absent when left
// empty. The form stays a list of param.Specs built here, at run time: its
// fields are the traits the animals in question carry, which no struct
// can know.
func (r *Call) Weights(ctx context.Context, given breeding.Weights, why string, codes []string, also ...param.Spec) (breeding.Weights, Choices, error) {
	if given != nil {
		return given, Choices{}, nil
	}
	d := r.Def
	missing := &ArgError{param.FieldError{Field: WeightsParam.Name, Problem: "is required " + why, Expected: WeightsParam.Expected()}}
	fields, titles := weightFields(codes)
	if len(fields) == 0 {
		return nil, Choices{}, missing
	}
	answers, asked, err := r.Src.Ask(ctx, Form{
		Message: fmt.Sprintf("%s needs the breeding objective %s. Give each trait that matters a weight: "+
			"positive rewards a higher EBV, negative a lower one; leave the rest empty.", d.Title, why),
		Fields: fields, Arg: WeightsParam.Name, Expected: WeightsParam.Expected(), Example: d.Example(r.Sent), Titles: titles, Also: also,
	})
	switch {
	case err != nil:
		return nil, Choices{}, err
	case !asked:
		return nil, Choices{}, missing
	}
	// The weights answered are checked as the argument is, less those of
	// 0, which the form says leave a trait out.
	answered := maps.Clone(answers.Fields.Numbers)
	maps.DeleteFunc(answered, func(_ string, w float64) bool { return w == 0 })
	w, errs := nsiparg.ValidateWeights(&WeightsParam, answered)
	if len(errs) > 0 {
		return nil, Choices{}, &AnswerError{Errs: errs}
	}
	return w, answers.Also, nil
}

// weightFields are the form's fields for weights over codes: each trait
// whose meaning the glossary documents, in the glossary's order, optional.
func weightFields(codes []string) ([]param.Spec, map[string]string) {
	var ps []param.Spec
	titles := map[string]string{}
	for _, t := range nsip.Glossary() {
		if t.Direction == "" || !slices.Contains(codes, t.Code) || len(ps) == WeightsParam.MaxItems {
			continue
		}
		unit, eg := "", "1"
		if t.Unit != "" {
			unit = " (" + t.Unit + ")"
		}
		if t.Direction == "lower" {
			eg = "-1"
		}
		ps = append(ps, param.Spec{Name: t.Code, Kind: param.Number, Example: eg,
			Desc: fmt.Sprintf("%s%s, %s is better: its weight in the index, e.g. %s. Empty or 0 leaves it out.", t.Name, unit, t.Direction, eg)})
		titles[t.Code] = fmt.Sprintf("%s (%s)", t.Name, t.Code)
	}
	return ps, titles
}

// DetailsOf fetches every animal's details at once, attributing a failure
// to the list entry it came from.
func DetailsOf(ctx context.Context, r *Call, field string, ids []string) ([]*nsip.AnimalDetails, error) {
	return DetailsKnown(ctx, r, field, ids, nil)
}

// DetailsKnown is DetailsOf reading only the records known (nil: none)
// does not have: an animal's record taken from a kept breed pass costs no
// request.
func DetailsKnown(ctx context.Context, r *Call, field string, ids []string, known func(id string) *nsip.AnimalDetails) ([]*nsip.AnimalDetails, error) {
	out := make([]*nsip.AnimalDetails, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		if known != nil {
			if out[i] = known(id); out[i] != nil {
				continue
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = r.Details(ctx, id)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, About(fmt.Sprintf("%s[%d]", field, i), ids[i], err)
		}
	}
	return out, nil
}

// Limits are what a Source says of the call's room (Source.Limits): how
// many lookups may be under way at once, how long it may still make
// them, and the upstream's rate limit. Each has a value meaning the
// source does not say, so that a source with no limit to tell (a test's
// fake) answers with the zero Limits.
type Limits struct {
	// Parallel is how many lookups the call may have under way at once;
	// 0 when the source does not say, and the analyses then keep
	// defaultParallel under way, the gateway's own default.
	Parallel int
	// TimeLeft is how long the call may still make lookups, by which an
	// analysis judges whether a long read (a breed's pass) fits; nil
	// when the source does not say, and then no read is refused for want
	// of time. It is a function because the time left shrinks as the
	// call goes on: it is asked at the moment it is judged.
	TimeLeft func() time.Duration
	// PerSecond and Burst are the upstream's rate limit: requests a
	// second, and how many may go at once after a quiet spell. A breed
	// pass's pages wait for it however fast NSIP answers. PerSecond is 0
	// when the source knows no rate limit.
	PerSecond float64
	Burst     int
}

// defaultParallel is how many lookups an analysis keeps under way when
// its Source does not say (the gateway's default NSIP_MAX_CONCURRENT).
const defaultParallel = 4

// Parallel is how many lookups the call may have under way at once: the
// Source's own number when it gives one (Limits.Parallel), else
// defaultParallel.
func (r *Call) Parallel() int {
	if p := r.Src.Limits().Parallel; p > 0 {
		return p
	}
	return defaultParallel
}

// WeightsParam is the weights argument, a breeding objective of trait
// codes and weights: the ranking and the plan take it, and the form that
// asks the user for it is checked by it.
var WeightsParam = param.List{Name: "weights", Required: true, MaxItems: 20, Item: nsiparg.Weights, Example: ExampleWeights}

// ExampleWeights are the weights of an error's example of a correct call.
var ExampleWeights = breeding.Weights{"WWT": 1, "BWT": -0.5}

// MaxNamed bounds the animals an answer names in one list.
const MaxNamed = 20

// RoundSize is about how many lookups a source runs at once.
const RoundSize = 4
