// Package lookup defines the nine lookup tools: for each, in one file, its
// name (from nsip/toolname), title, description, summarizer, not-found
// wording, argument struct with its fields' descriptions, and the fetch
// that asks NSIP with the typed arguments. The gateway's call path serves
// them; the analyses read through the same definitions (Def.Keyed), so a
// user's call and an analysis's read of one thing share a cache entry.
package lookup

import (
	"context"
	"fmt"
	"maps"
	"reflect"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
)

// Def is a lookup tool: the definition every tool has (tooldef.Def),
// and how its answer is had from NSIP.
type Def struct {
	tooldef.Def
	// Composite tools are assembled from other tools' cached answers
	// instead of fetched (nsip_search_by_lpn).
	Composite bool
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

// ReadAs is the answer get reads of lookup d with its typed arguments a,
// as the model *T that d's answers decode to: an analysis reads its
// lookups through the gateway's path and takes their models back typed.
func ReadAs[T any](ctx context.Context, get func(context.Context, *Def, any) (any, error), d *Def, a any) (*T, error) {
	v, err := get(ctx, d, a)
	if err != nil {
		return nil, err
	}
	t, ok := v.(*T)
	if !ok {
		return nil, fmt.Errorf("internal: %s answered a %T, not a %T", d.Name, v, t)
	}
	return t, nil
}
