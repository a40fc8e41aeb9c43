package lookup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A lookup tool's arguments are one struct (in its file), the single
// description of them: param.Table.Struct derives from it, with ArgTable,
// the input schema and the validation; its view fields (arg:"view") are
// left out of the cache key ("method:canonical JSON" of the validated
// arguments); and the fetch decodes that same JSON into it, strictly, once
// per upstream fetch. So NSIP is asked exactly what the key names, and the
// fetch itself is checked by the compiler.

// Upstream is the NSIP client as the gateway uses it; *nsip.Client
// satisfies it, and tests substitute stand-ins. The client's ByLPN is not
// needed: the gateway assembles profiles from the three cached parts.
type Upstream interface {
	DateLastUpdated(ctx context.Context) (*nsip.LastUpdate, error)
	BreedGroups(ctx context.Context) (*nsip.BreedGroups, error)
	Statuses(ctx context.Context) (*nsip.Statuses, error)
	TraitRanges(ctx context.Context, breedID int) (*nsip.TraitRanges, error)
	SearchAnimals(ctx context.Context, p nsip.SearchParams) (*nsip.SearchResults, error)
	AnimalDetails(ctx context.Context, searchString string) (*nsip.AnimalDetails, error)
	Lineage(ctx context.Context, lpnID string) (*nsip.Lineage, error)
	Progeny(ctx context.Context, lpnID string, page, pageSize int) (*nsip.ProgenyPage, error)
}

var _ Upstream = (*nsip.Client)(nil)

// Fetch is one tool's upstream request with its arguments bound: the
// answer's model and the exact body it was decoded from.
type Fetch func(ctx context.Context, up Upstream) (any, json.RawMessage, error)

// binder decodes a tool's validated arguments, as the canonical JSON of its
// cache key, into the tool's typed arguments.
type binder func(params []byte) (Fetch, error)

// fetchSpec is how a lookup tool asks NSIP: the binder of its arguments,
// and the model its answer decodes to.
type fetchSpec struct {
	bind   binder
	model  reflect.Type
	args   reflect.Type // the tool's argument struct
	answer reflect.Type // the model its answer is, fetched or assembled
}

// argsOnly is the fetch of a tool that is not fetched but assembled
// (nsip_search_by_lpn): its arguments are A, its answer a T.
func argsOnly[A, T any]() fetchSpec {
	return fetchSpec{args: reflect.TypeFor[A](), answer: reflect.TypeFor[T]()}
}

// fetchWith is the fetch of a tool whose arguments are A and whose answer
// is a *T with the upstream body raw(T).
func fetchWith[A, T any](get func(ctx context.Context, up Upstream, a A) (*T, error), raw func(*T) json.RawMessage) fetchSpec {
	return fetchSpec{
		args:   reflect.TypeFor[A](),
		model:  reflect.TypeFor[T](),
		answer: reflect.TypeFor[T](),
		bind: func(params []byte) (Fetch, error) {
			var a A
			if err := decodeArgs(params, &a); err != nil {
				return nil, err
			}
			return func(ctx context.Context, up Upstream) (any, json.RawMessage, error) {
				v, err := get(ctx, up, a)
				return fetched(v, err, raw)
			}, nil
		},
	}
}

// decodeArgs reads params into a, refusing members a has no field for and
// values of another type.
func decodeArgs(params []byte, a any) error {
	if fe := param.DecodeInto(params, a); fe != nil {
		return ArgsMismatch(fe.Field, errors.New(fe.Problem))
	}
	return nil
}

// ArgsMismatch is the error of validated arguments that the request cannot
// take: field is the argument, if known.
func ArgsMismatch(field string, err error) *nsip.Error {
	return &nsip.Error{Kind: nsip.KindInvalidArgument, Param: field,
		Reason: "the validated arguments do not fit the request to NSIP: " + err.Error()}
}

// Bind binds the arguments held in key, a cache key of d, for one
// upstream request.
func (d *Def) Bind(key string) (Fetch, error) {
	params, ok := strings.CutPrefix(key, d.Method+":")
	if !ok || d.fetch.bind == nil {
		return nil, fmt.Errorf("internal: %s has no fetch for key %.100s", d.Name, key)
	}
	return d.fetch.bind([]byte(params))
}

// raw returns the exact upstream body a model was decoded from, or, for a
// value that did not come off the wire, its JSON encoding.
func raw(v any, body json.RawMessage) (any, json.RawMessage, error) {
	if len(body) > 0 {
		return v, body, nil
	}
	b, err := json.Marshal(v)
	return v, b, err
}

// fetched adapts a client call's (model, error) to the pipeline's shape.
func fetched[T any](v *T, err error, body func(*T) json.RawMessage) (any, json.RawMessage, error) {
	if err != nil {
		return nil, nil, err
	}
	if v == nil {
		return nil, nil, &nsip.Error{Kind: nsip.KindUnexpectedResponse, Reason: "the client returned no answer and no error"}
	}
	return raw(v, body(v))
}
