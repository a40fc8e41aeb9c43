package gateway

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

// A lookup tool's arguments are one struct (below), the single
// description of them: param.Table.Struct derives from it, with argTable,
// the input schema and the validation; its view fields (arg:"view") are
// left out of the cache key ("method:canonical JSON" of the validated
// arguments); and the fetch decodes that same JSON into it, strictly, once
// per upstream fetch. So NSIP is asked exactly what the key names, and the
// fetch itself is checked by the compiler.

// fetchCall is one tool's upstream request with its arguments bound.
type fetchCall func(ctx context.Context, up Upstream) (any, json.RawMessage, error)

// binder decodes a tool's validated arguments, as the canonical JSON of its
// cache key, into the tool's typed arguments.
type binder func(params []byte) (fetchCall, error)

// fetchSpec is how a lookup tool asks NSIP: the binder of its arguments,
// and the model its answer decodes to, which the replicas' shared tier
// fingerprints (gateway/upstream/codec.go).
type fetchSpec struct {
	bind  binder
	model reflect.Type
	args  reflect.Type // the tool's argument struct
}

// argsOnly is the fetch of a tool that is not fetched but assembled
// (nsip_search_by_lpn): its arguments are A.
func argsOnly[A any]() fetchSpec { return fetchSpec{args: reflect.TypeFor[A]()} }

// fetchWith is the fetch of a tool whose arguments are A and whose answer
// is a *T with the upstream body raw(T).
func fetchWith[A, T any](get func(ctx context.Context, up Upstream, a A) (*T, error), raw func(*T) json.RawMessage) fetchSpec {
	return fetchSpec{
		args:  reflect.TypeFor[A](),
		model: reflect.TypeFor[T](),
		bind: func(params []byte) (fetchCall, error) {
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
		return argsMismatch(fe.Field, errors.New(fe.Problem))
	}
	return nil
}

// argsMismatch is the error of validated arguments that the request cannot
// take: field is the argument, if known.
func argsMismatch(field string, err error) *nsip.Error {
	return &nsip.Error{Kind: nsip.KindInvalidArgument, Param: field,
		Reason: "the validated arguments do not fit the request to NSIP: " + err.Error()}
}

// bindFetch binds the arguments held in key, a cache key of tool d.
func bindFetch(d *toolDef, key string) (fetchCall, error) {
	params, ok := strings.CutPrefix(key, d.method+":")
	if !ok || d.fetch.bind == nil {
		return nil, fmt.Errorf("internal: %s has no fetch for key %.100s", d.name, key)
	}
	return d.fetch.bind([]byte(params))
}

// argTable describes the fields of the argument structs the lookup tools
// share (the view's, search_criteria): what their Go types and json tags
// cannot say. Each tool's own are in its file (toolDef.fields). A field
// without its entry, or an entry without its field, stops the server at
// start-up.
var argTable = param.Table{
	reflect.TypeFor[viewTraits](): {"Traits": traitsField},
	reflect.TypeFor[viewSkip]():   {"Skip": skipField},
	reflect.TypeFor[viewBudget](): {"MaxTokens": maxTokensField},

	reflect.TypeFor[param.Criteria](): param.CriteriaFields,
}

var pageField = param.Spec{Default: 0, Example: 0, Min: param.Bound(0), Max: param.Bound(100000), Quiet: true}

// pageSizeField is page_size with its default: 1 to the largest page NSIP
// serves.
func pageSizeField(def int) param.Spec {
	return param.Spec{Default: def, Example: def, Min: param.Bound(1), Max: param.Bound(nsip.MaxPageSize)}
}

// noArgs is the arguments of the tools that take none but the view's.
type noArgs struct{ viewBudget }
