// Package lookup defines the nine lookup tools: for each, in one file, its
// name (from nsip/toolname), title, description, summarizer, not-found
// wording, argument struct with its fields' descriptions, and the fetch
// that asks NSIP with the typed arguments. The gateway's call path serves
// them; the analyses read through the same definitions (Def.Keyed), so a
// user's call and an analysis's read of one thing share a cache entry.
package lookup

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// Def is a lookup tool: the definition every tool has (tooldef.Def),
// and how its answer is had from NSIP.
type Def struct {
	tooldef.Def
	// BreedTraits: the trait codes the call names are checked against the
	// breed's own (gateway/argcheck) before NSIP is asked.
	BreedTraits bool
	// Percentiles: percentiles: true makes the call the breed-percentile
	// analysis instead of one lookup, so its answer may be that
	// analysis's too.
	Percentiles bool

	// fields describe the tool's own argument structs: what their Go
	// types and json tags cannot say (ArgTable holds the shared ones).
	fields param.Table
	// fetch binds the validated arguments to the tool's typed ones
	// (fetch.go) for one upstream request.
	fetch fetchSpec
	// run, when set, is the tool's own run (Run): more than one read
	// passed through.
	run func(ctx context.Context, d *Def, c toolcall.Call, src Source) toolcall.Outcome
}

// define completes a lookup tool's definition from its argument struct,
// the fetch's (or, for a composite tool, argsOnly's) type argument.
func define(d *Def) *Def {
	tb := maps.Clone(ArgTable)
	maps.Copy(tb, d.fields)
	a, err := tb.Struct(d.fetch.args)
	if err != nil {
		panic(fmt.Sprintf("%s: %v", d.Name, err))
	}
	d.Args = a
	return d
}

// All are the nine tools, in the order tools/list shows them.
var All = []*Def{
	LastUpdate, ListBreeds, Statuses, TraitRanges,
	SearchAnimals, Animal, Lineage, Progeny, SearchByLPN,
}

// Named is the lookup tool called name, or nil.
func Named(name string) *Def {
	for _, d := range All {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// Models are the types the fetched tools' answers decode to.
func Models() []reflect.Type {
	var ms []reflect.Type
	for _, d := range All {
		if t := d.Model(); t != nil {
			ms = append(ms, t)
		}
	}
	return ms
}

// Model is the type a fetched answer of d decodes to, which the replicas'
// shared tier fingerprints (gateway/upstream/codec.go); nil for a tool
// that is not fetched.
func (d *Def) Model() reflect.Type { return d.fetch.model }

// Answer is the type of d's answer, fetched or assembled: what its output
// schema describes.
func (d *Def) Answer() reflect.Type { return d.fetch.answer }

// NoView is the validated arguments args without the view's: those that
// go to NSIP, or that key its answer.
func (d *Def) NoView(args param.Valid) param.Valid { return args.Without(d.Args.View) }

// Key is the cache key of a call of d with the validated arguments args:
// its method and the arguments that go to NSIP, or that key its answer,
// without those that only choose how the answer is shown.
func (d *Def) Key(args param.Valid) string { return cache.Key(d.Method, d.NoView(args).Members()) }

// A Read is one lookup of a tool as the call path makes it: the tool,
// its validated arguments less the view's (those NSIP is asked, and the
// summarizer reads) and the cache key they make.
type Read struct {
	Def  *Def
	Args param.Valid
	Key  string
}

// Read is the lookup a call of d with the validated arguments args makes.
func (d *Def) Read(args param.Valid) Read {
	base := d.NoView(args)
	return Read{Def: d, Args: base, Key: cache.Key(d.Method, base.Members())}
}

// Keyed is the lookup of d with the typed arguments a, d's own argument
// struct, as the server's own reads make it: a is validated exactly as a
// user's call of d is (param.Args.ValidateOwn), so the key is the one
// that user's call is cached under. Key-only fields (arg:"key") key the
// answer but are no arguments: they are not among the Read's Args.
func (d *Def) Keyed(a any) (Read, error) {
	if t := reflect.TypeOf(a); t != d.fetch.args {
		return Read{}, fmt.Errorf("internal: %s takes %v, not %v", d.Name, d.fetch.args, t)
	}
	args, keyed, err := d.Args.ValidateOwn(a)
	if err != nil {
		return Read{}, fmt.Errorf("internal: %s arguments: %w", d.Name, err)
	}
	// The server's reads set no view; a Read holds none.
	return Read{Def: d, Args: d.NoView(args), Key: d.Key(keyed)}, nil
}

// Source is what a lookup tool's run reads through, for one call of the
// tool: the gateway's cache with NSIP behind it, its fitting of answers
// to the budget, and its wording of what fails. The gateway hands each
// call its own.
type Source interface {
	// Pass answers the read r as NSIP sent it (or as the cache holds it),
	// fitted to the call's view: the whole run of most lookups.
	Pass(ctx context.Context, r Read, c toolcall.Call) toolcall.Outcome
	// Obtain is the upstream answer of r, from the cache or NSIP, or
	// stale while NSIP fails.
	Obtain(ctx context.Context, r Read) (toolcall.Obtained, error)
	// Fit fits value (raw, its JSON) to the call's view as a summarizer
	// of kind would.
	Fit(ctx context.Context, kind summarize.Kind, c toolcall.Call, value any, raw json.RawMessage) (summarize.Result, error)
	// FitOnce is fit's result, made once for all callers and cached under
	// key while the answers it was made from (ids) are the cache's.
	FitOnce(ctx context.Context, key string, ids []uint64, fit func(context.Context) (summarize.Result, error)) (summarize.Result, error)
	// Data is what the answers under keys (ids) were made from, as a
	// summary's links offer it; join makes one answer of several.
	Data(keys []string, ids []uint64, join func([]*upstream.Answer) json.RawMessage) full.Data
	// MapError is what the caller sees of err.
	MapError(args param.Valid, err error) *toolerr.Error
	// UnknownBreed refuses a breed NSIP's list lacks; nil when the list
	// has it or cannot be had.
	UnknownBreed(ctx context.Context, field string, breed int, example *param.Call) *toolerr.Error
	// Analyze runs the analysis the call asks for instead of the lookup
	// (nsip_get_animal's percentiles).
	Analyze(ctx context.Context, c toolcall.Call) toolcall.Outcome
}

// Run answers one call of d: the read its validated arguments make,
// passed through, unless d's own run does more.
func (d *Def) Run(ctx context.Context, c toolcall.Call, src Source) toolcall.Outcome {
	if d.run != nil {
		return d.run(ctx, d, c, src)
	}
	return src.Pass(ctx, d.Read(c.Args), c)
}
