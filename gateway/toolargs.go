package gateway

import (
	"bytes"
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
// fingerprints (sharedcodec.go).
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
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	err := dec.Decode(a)
	if err == nil {
		return nil
	}
	field := ""
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field = te.Field
	} else if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		field = strings.Trim(name, `"`)
	}
	return argsMismatch(field, err)
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

// argTable describes the fields of the lookup tools' argument structs:
// what their Go types and json tags cannot say. A field without its entry,
// or an entry without its field, stops the server at start-up.
var argTable = param.Table{
	reflect.TypeFor[viewTraits](): {"Traits": traitsField},
	reflect.TypeFor[viewSkip]():   {"Skip": skipField},
	reflect.TypeFor[viewBudget](): {"MaxTokens": maxTokensField},

	reflect.TypeFor[breedArgs](): {"BreedID": param.BreedID},
	reflect.TypeFor[detailsArgs](): {
		"SearchString": {
			Example: param.ExampleLPN, Complete: param.LPNs,
			// Upper case, as LPN IDs (and registration numbers) are written.
			MinLen: 2, MaxLen: nsip.MaxSearchStringLength, Pattern: param.SearchPattern, Upper: true,
		},
		"Percentiles": {Example: true},
	},
	reflect.TypeFor[lpnArgs](): {"LPNID": param.LPNParam("")},
	reflect.TypeFor[progenyArgs](): {
		"LPNID":    param.LPNParam(""),
		"Page":     pageField,
		"PageSize": pageSizeField(10),
	},
	reflect.TypeFor[searchArgs](): {
		"Page":        pageField,
		"PageSize":    pageSizeField(15),
		"BreedID":     {Example: 640, Min: param.Bound(1), Max: param.Bound(99999), Quiet: true},
		"SortedTrait": param.SortedTrait,
		"Reverse":     {Default: false, Example: false},
		"Criteria":    param.CriteriaArg,
	},
	reflect.TypeFor[param.Criteria](): param.CriteriaFields,
	reflect.TypeFor[profileArgs]():    {"LPNID": param.LPNParam("")},
}

var pageField = param.Spec{Default: 0, Example: 0, Min: param.Bound(0), Max: param.Bound(100000), Quiet: true}

// pageSizeField is page_size with its default: 1 to the largest page NSIP
// serves.
func pageSizeField(def int) param.Spec {
	return param.Spec{Default: def, Example: def, Min: param.Bound(1), Max: param.Bound(nsip.MaxPageSize)}
}

// noArgs is the arguments of the tools that take none but the view's.
type noArgs struct{ viewBudget }

// breedArgs is nsip_get_trait_ranges's.
type breedArgs struct {
	BreedID int `json:"breed_id"`
	viewBudget
}

// detailsArgs is nsip_get_animal's.
type detailsArgs struct {
	SearchString string `json:"search_string"`
	// Percentiles false asks for the record as it is; true makes the call
	// the percentile analysis (animalpct.go), which never reaches the fetch.
	Percentiles bool `json:"percentiles,omitempty"`
	viewBudget
}

// lpnArgs is nsip_get_lineage's.
type lpnArgs struct {
	LPNID string `json:"lpn_id"`
	viewBudget
}

// progenyArgs is nsip_get_progeny's.
type progenyArgs struct {
	LPNID    string `json:"lpn_id"`
	Page     int    `json:"page,omitempty"`
	PageSize int    `json:"page_size,omitempty"`
	viewTraits
	viewSkip
	viewBudget
}

// searchArgs is nsip_search_animals's; params is the client's form.
type searchArgs struct {
	Page        int             `json:"page,omitempty"`
	PageSize    int             `json:"page_size,omitempty"`
	BreedID     int             `json:"breed_id,omitempty"`
	SortedTrait string          `json:"sorted_trait,omitempty"`
	Reverse     bool            `json:"reverse,omitempty"`
	Criteria    *param.Criteria `json:"search_criteria,omitempty"`
	// Evaluation is NSIP's last-update date an analysis reads the page
	// under: it keys the page's cache entry, so that a page cached under
	// an earlier evaluation is never read under a later one, and is not
	// sent to NSIP.
	Evaluation string `json:"evaluation,omitempty" arg:"key"`
	viewTraits
	viewSkip
	viewBudget
}

// profileArgs is nsip_search_by_lpn's.
type profileArgs struct {
	LPNID string `json:"lpn_id"`
	viewTraits
	viewBudget
}

func (a searchArgs) params() nsip.SearchParams {
	p := nsip.SearchParams{Page: a.Page, PageSize: a.PageSize, BreedID: a.BreedID, SortedTrait: a.SortedTrait, Reverse: a.Reverse}
	if a.Criteria != nil {
		p.Criteria = nsip.SearchCriteria(*a.Criteria) // the same fields in the same order
	}
	return p
}
