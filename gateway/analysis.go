package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// An analysisDef is a tool computed on the server from several upstream
// answers. Each answer it reads goes through the same pipeline as the nine
// (cache, collapse, breaker, rate limit), the number it may read is capped
// per call, and the result is fitted into the token budget like theirs.
type analysisDef struct {
	toolDef
	lists []listParam // arguments the scalar validator has no kind for
	// brief are property schemas published in place of their params' own,
	// where the description already says the rest; validation is unchanged.
	brief   map[string]map[string]any
	ceiling int // upstream lookups (cached or fetched) per call
	run     func(ctx context.Context, r *analysis, args map[string]any) (any, error)
}

// analysisDefs are the analysis tools, in the order tools/list shows them.
var analysisDefs = []*analysisDef{checkMatingDef, compareDef, rankDef, flockDef, planDef}

// analysisTools returns the analysis tools bound to g.
func (g *Gateway) analysisTools() []server.ServerTool {
	out := make([]server.ServerTool, len(analysisDefs))
	for i, a := range analysisDefs {
		out[i] = g.analysisTool(a)
	}
	return out
}

func (g *Gateway) analysisTool(a *analysisDef) server.ServerTool {
	st := g.serverTool(&a.toolDef)
	for _, l := range a.lists {
		st.Tool.InputSchema.Properties[l.name] = l.schema()
		st.Tool.InputSchema.PropertyOrder = append(st.Tool.InputSchema.PropertyOrder, l.name)
		if l.required {
			st.Tool.InputSchema.Required = append(st.Tool.InputSchema.Required, l.name)
		}
	}
	for name, s := range a.brief {
		st.Tool.InputSchema.Properties[name] = s
	}
	// Long analyses may be run as MCP tasks (protocol 2025-11-25): the
	// client gets a task at once, polls it, and may cancel it.
	st.Tool.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	st.Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.Task != nil {
			// mcp-go (v1.2.1) runs a task on a context derived from the
			// creating request's, which ends as soon as the task is
			// returned; detached, the task runs to its end, bounded by the
			// ceiling on lookups. tasks/cancel then marks it cancelled and
			// discards its result, but cannot stop lookups under way.
			ctx = context.WithoutCancel(ctx)
		}
		var res *mcp.CallToolResult
		g.withProgress(ctx, req, func() { res = g.analyze(ctx, a, req) })
		return res, nil
	}
	return st
}

// listParam is an array of LPN IDs, an array of trait codes, or a map of
// trait code to weight.
type listParam struct {
	name, desc         string
	required           bool
	minItems, maxItems int
	item               string // "lpn" or "trait"; "" for a weights map
	example            any
}

// schema is the list's shape only: its bounds, patterns and uniqueness are
// in the tool's description and enforced by validate, and would cost every
// conversation tokens a second time in tools/list.
func (l *listParam) schema() map[string]any {
	s := map[string]any{}
	if l.desc != "" {
		s["description"] = l.desc
	}
	if l.item == "" {
		s["type"] = "object"
		s["additionalProperties"] = map[string]any{"type": "number"}
	} else {
		s["type"] = "array"
		s["items"] = map[string]any{"type": "string"}
	}
	return s
}

func (l *listParam) expected() string {
	switch l.item {
	case "":
		return fmt.Sprintf("object of 1..%d trait codes to numbers, e.g. %s; codes from the trait glossary (%s)",
			l.maxItems, jsonText(l.example), strings.Join(nsip.GlossaryCodes(), " "))
	case "lpn":
		return fmt.Sprintf("array of %d..%d distinct LPN IDs, e.g. %s", l.minItems, l.maxItems, jsonText(l.example))
	}
	return fmt.Sprintf("array of 1..%d trait codes, e.g. %s", l.maxItems, jsonText(l.example))
}

// validate checks one list argument and returns it normalised: LPN IDs and
// trait codes upper case, weights as map[string]float64.
func (l *listParam) validate(raw any) (any, []fieldError) {
	fail := func(field, problem string) (any, []fieldError) {
		return nil, []fieldError{{Field: field, Problem: problem, Expected: l.expected()}}
	}
	if l.item == "" {
		obj, ok := raw.(map[string]any)
		if !ok {
			return fail(l.name, "must be an object, got "+describe(raw))
		}
		if len(obj) == 0 || len(obj) > l.maxItems {
			return fail(l.name, fmt.Sprintf("has %d traits; give 1..%d", len(obj), l.maxItems))
		}
		out := map[string]float64{}
		var errs []fieldError
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			f := l.name + "." + fieldName(k)
			code, fe := traitCode(f, k)
			if fe != nil {
				errs = append(errs, *fe)
				continue
			}
			w, ok := asNumber(obj[k])
			if !ok || math.IsNaN(w) || math.IsInf(w, 0) {
				errs = append(errs, fieldError{Field: f, Problem: "must be a number, got " + describe(obj[k]), Expected: l.expected()})
				continue
			}
			if w == 0 {
				// It adds nothing to the index, yet an animal without the EBV
				// would have no index at all.
				errs = append(errs, fieldError{Field: f, Problem: "has a weight of 0, which would leave out every animal without a " + code + " EBV; leave " + code + " out of weights to ignore it", Expected: l.expected()})
				continue
			}
			if _, dup := out[code]; dup {
				errs = append(errs, fieldError{Field: f, Problem: "trait " + code + " is weighted more than once", Expected: l.expected()})
				continue
			}
			out[code] = w
		}
		if len(errs) > 0 {
			return nil, errs
		}
		return out, nil
	}
	arr, ok := raw.([]any)
	if !ok {
		return fail(l.name, "must be an array, got "+describe(raw))
	}
	if len(arr) < l.minItems || len(arr) > l.maxItems {
		return fail(l.name, fmt.Sprintf("has %d items; give %d..%d", len(arr), l.minItems, l.maxItems))
	}
	out := make([]string, 0, len(arr))
	var errs []fieldError
	lp := lpnParam("")
	for i, v := range arr {
		f := fmt.Sprintf("%s[%d]", l.name, i)
		var s string
		if l.item == "lpn" {
			nv, fe := lp.validate(f, v)
			if fe != nil {
				errs = append(errs, fe...)
				continue
			}
			s = strings.ToUpper(nv.(string))
		} else {
			str, ok := v.(string)
			if !ok {
				errs = append(errs, fieldError{Field: f, Problem: "must be a trait code string, got " + describe(v), Expected: l.expected()})
				continue
			}
			code, fe := traitCode(f, str)
			if fe != nil {
				errs = append(errs, *fe)
				continue
			}
			s = code
		}
		if slices.Contains(out, s) {
			errs = append(errs, fieldError{Field: f, Problem: s + " is listed twice", Expected: l.expected()})
			continue
		}
		out = append(out, s)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// traitCode resolves a trait code through the glossary; an unknown one is an
// error naming the nearest known code.
func traitCode(field, s string) (string, *fieldError) {
	if t, ok := nsip.LookupTrait(s); ok {
		return t.Code, nil
	}
	codes := nsip.GlossaryCodes()
	fe := &fieldError{Field: field, Problem: quoteShort(s) + " is not a known trait code", Expected: "one of " + strings.Join(codes, ", ")}
	if c, ok := closest(strings.TrimSpace(s), codes); ok {
		fe.Problem += fmt.Sprintf("; did you mean %q?", c)
		fe.Expected = c
	}
	return "", fe
}

// validate checks every argument: scalars by the shared validator, lists
// here, and names the tool does not take against both.
func (a *analysisDef) validate(sent map[string]any) (map[string]any, []fieldError) {
	rest := maps.Clone(sent)
	known := slices.Clone(a.params)
	for _, l := range a.lists {
		delete(rest, l.name)
		known = append(known, param{name: l.name})
	}
	args, errs := validateObject("", a.params, rest)
	errs = slices.DeleteFunc(errs, func(e fieldError) bool { return strings.HasPrefix(e.Problem, "is not an argument") })
	for _, l := range a.lists {
		raw, present := sent[l.name]
		if !present || raw == nil {
			if l.required {
				errs = append(errs, fieldError{Field: l.name, Problem: "is required", Expected: l.expected()})
			}
			continue
		}
		v, fe := l.validate(raw)
		if fe != nil {
			errs = append(errs, fe...)
			continue
		}
		args[l.name] = v
	}
	return args, append(errs, unknownNames("", known, sent)...)
}

// example is a correct call for an error message.
func (a *analysisDef) example(sent map[string]any) map[string]any {
	out := example(a.params, sent)
	for _, l := range a.lists {
		if raw, ok := sent[l.name]; ok {
			if _, fe := l.validate(raw); fe == nil {
				out[l.name] = raw
				continue
			}
		}
		if l.required || sent[l.name] != nil {
			out[l.name] = l.example
		}
	}
	return out
}

// analysis is one call's access to NSIP: every lookup goes through the
// gateway's pipeline and is counted against the tool's ceiling.
type analysis struct {
	g       *Gateway
	def     *analysisDef
	sent    map[string]any // the arguments as sent, for examples in errors
	slots   chan struct{}  // lookups under way at once
	mu      sync.Mutex
	lookups int
	fetched int
	stale   int
	// checked is the last answer overBudget encoded and fitted, which the
	// answer usually is: analyze then reuses the fit rather than counting
	// its tokens again.
	checked struct {
		body []byte
		res  summarize.Result
	}
}

// analysisParallel is how many lookups one analysis has under way at once:
// the gateway's default upstream concurrency.
const analysisParallel = 4

// errCeiling ends an analysis that would read more than its ceiling.
var errCeiling = errors.New("upstream lookup ceiling reached")

// get reads one upstream answer through the pipeline, as tool d would with
// the raw arguments (which are normalised exactly as d's own calls are, so
// they share its cache entries).
func (r *analysis) get(ctx context.Context, d *toolDef, raw map[string]any) (any, error) {
	args, errs := validateObject("", d.params, raw)
	if len(errs) > 0 {
		return nil, fmt.Errorf("internal: %s arguments: %s %s", d.name, errs[0].Field, errs[0].Problem)
	}
	r.mu.Lock()
	if r.lookups >= r.def.ceiling {
		r.mu.Unlock()
		return nil, errCeiling
	}
	r.lookups++
	r.mu.Unlock()
	// A plan may want hundreds of answers; asking for them all at once
	// would queue each behind the rest at the rate limit until they time
	// out, so an analysis keeps a few in flight and the others wait here.
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	ob, err := r.g.obtain(ctx, d, cache.Key(d.method, args), args)
	<-r.slots
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	switch ob.source {
	case cacheMiss:
		r.fetched++
	case cacheStale:
		r.stale++
	}
	r.mu.Unlock()
	return ob.a.value, nil
}

// overBudget reports whether answer v would be summarized: analyses check
// before answering and shorten themselves in ways that keep their meaning.
func (r *analysis) overBudget(ctx context.Context, args map[string]any, v any) bool {
	text, err := nsip.PlainJSON(v)
	if err != nil {
		return false
	}
	res, err := r.g.fit(ctx, r.def.kind, &r.def.toolDef, args, nil, text)
	if err != nil {
		return false
	}
	r.mu.Lock()
	r.checked.body, r.checked.res = text, res
	r.mu.Unlock()
	return res.Summarized
}

// fitted is the fit of body, from overBudget when it fitted the same bytes.
func (r *analysis) fitted(ctx context.Context, args map[string]any, body []byte) (summarize.Result, error) {
	r.mu.Lock()
	same := r.checked.body != nil && bytes.Equal(r.checked.body, body)
	res := r.checked.res
	r.mu.Unlock()
	if same {
		return res, nil
	}
	return r.g.fit(ctx, r.def.kind, &r.def.toolDef, args, nil, body)
}

// upstream says what the call read, for the answer's "computed" block.
func (r *analysis) upstream() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	u := map[string]any{"lookups": r.lookups, "fetched": r.fetched, "cached": r.lookups - r.fetched - r.stale, "ceiling": r.def.ceiling}
	if r.stale > 0 {
		u["stale"] = r.stale
	}
	return u
}

func (r *analysis) details(ctx context.Context, id string) (*nsip.AnimalDetails, error) {
	v, err := r.get(ctx, animalDef, map[string]any{"search_string": id})
	if err != nil {
		return nil, err
	}
	return v.(*nsip.AnimalDetails), nil
}

func (r *analysis) lineage(ctx context.Context, id string) (*nsip.Lineage, error) {
	v, err := r.get(ctx, lineageDef, map[string]any{"lpn_id": id})
	if err != nil {
		return nil, err
	}
	return v.(*nsip.Lineage), nil
}

func (r *analysis) search(ctx context.Context, raw map[string]any) (*nsip.SearchResults, error) {
	v, err := r.get(ctx, searchAnimalsDef, raw)
	if err != nil {
		return nil, err
	}
	return v.(*nsip.SearchResults), nil
}

func (r *analysis) ranges(ctx context.Context, breed int) (*nsip.TraitRanges, error) {
	v, err := r.get(ctx, traitRangesDef, map[string]any{"breed_id": breed})
	if err != nil {
		return nil, err
	}
	return v.(*nsip.TraitRanges), nil
}

// aboutErr attributes an upstream failure to the argument it was about, so
// that not-found names the field and value the caller sent.
type aboutErr struct {
	field      string
	value      any
	what, next string // for not found; an animal by default
	err        error
}

func (e *aboutErr) Error() string { return e.err.Error() }
func (e *aboutErr) Unwrap() error { return e.err }

func about(field string, value any, err error) error {
	if err == nil {
		return nil
	}
	return &aboutErr{field: field, value: value, err: err}
}

// argError is an argument problem found only once data was in hand.
type argError struct{ fieldError }

func (e *argError) Error() string { return e.Field + " " + e.Problem }

func (g *Gateway) analyze(ctx context.Context, a *analysisDef, req mcp.CallToolRequest) *mcp.CallToolResult {
	start := time.Now()
	g.stats.calls[a.name].Add(1)
	sent, fe := decodeArguments(req)
	var args map[string]any
	var errs []fieldError
	if fe != nil {
		sent, errs = map[string]any{}, []fieldError{*fe}
	} else {
		args, errs = a.validate(sent)
		if a.leftToAsk(ctx, sent, errs) {
			// Left to the analysis, which asks its user (elicit.go).
			errs = nil
		}
	}
	if len(errs) > 0 {
		te := invalidArgs(&a.toolDef, sent, errs)
		te.Example = a.example(sent)
		g.finish(ctx, &a.toolDef, logParams(req), start, outcome{err: te})
		return te.result()
	}
	r := &analysis{g: g, def: a, sent: sent, slots: make(chan struct{}, analysisParallel)}
	v, err := a.run(ctx, r, args)
	var o outcome
	if err != nil {
		o.err = g.analysisError(a, sent, err)
	} else {
		body, merr := nsip.PlainJSON(v)
		if merr != nil {
			o.err = &toolError{Code: CodeUpstreamError, Problem: "the analysis could not be encoded: " + merr.Error()}
		} else if o.res, merr = r.fitted(ctx, args, body); merr != nil {
			o.err = g.mapError(&a.toolDef, args, merr)
		}
	}
	o.source = cacheHit
	if u := r.upstream(); u["fetched"].(int) > 0 {
		o.source = cacheMiss
	}
	g.finish(ctx, &a.toolDef, logParams(req), start, o)
	if o.err != nil {
		return o.err.result()
	}
	return fittedResult(o.res, g.cfg.Budget, map[string]any{"upstream": r.upstream()})
}

func (g *Gateway) analysisError(a *analysisDef, sent map[string]any, err error) *toolError {
	var ans *answeredError
	if errors.As(err, &ans) {
		return ans.te
	}
	var ae *argError
	if errors.As(err, &ae) {
		te := invalidArgs(&a.toolDef, sent, []fieldError{ae.fieldError})
		te.Example = a.example(sent)
		return te
	}
	if errors.Is(err, errCeiling) {
		return &toolError{
			Code:    CodeInvalidArgument,
			Problem: fmt.Sprintf("the analysis needs more than its ceiling of %d NSIP lookups", a.ceiling),
			Next:    "narrow the request (fewer animals, tighter filters)",
		}
	}
	d := a.toolDef
	var ab *aboutErr
	if errors.As(err, &ab) {
		d.subject, d.what = ab.field, "animal with LPN ID"
		d.next = "check the LPN ID, or find animals with nsip_search_animals"
		if ab.what != "" {
			d.what, d.next = ab.what, ab.next
		}
		return g.mapError(&d, map[string]any{ab.field: ab.value}, err)
	}
	return g.mapError(&d, sent, err)
}

// Keep the analysis answers' kind in one place.
const analysisKind = summarize.KindGeneric
