package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A lookup tool's fetch takes its arguments as a struct, not as the map
// validation returns. The map stays what the cache key is built from
// ("method:canonical JSON"); the struct is decoded from that same JSON,
// strictly, once per upstream fetch. So NSIP is asked exactly what the key
// names, the fetch itself is checked by the compiler, and a validator that
// drifts from its struct (a new argument, a renamed one, another type) is a
// clear invalid_argument error naming the field, and a failing
// TestToolArgsReachTheClient, instead of a panic inside a fetch.

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
}

// fetchWith is the fetch of a tool whose arguments are A and whose answer
// is a *T with the upstream body raw(T).
func fetchWith[A, T any](get func(ctx context.Context, up Upstream, a A) (*T, error), raw func(*T) json.RawMessage) fetchSpec {
	return fetchSpec{
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
	// An evaluation date after the arguments keys the cache, not NSIP.
	if i := strings.LastIndex(params, evaluationMark); i >= 0 && !strings.ContainsAny(params[i:], `"}`) {
		params = params[:i]
	}
	if !ok || d.fetch.bind == nil {
		return nil, fmt.Errorf("internal: %s has no fetch for key %.100s", d.name, key)
	}
	return d.fetch.bind([]byte(params))
}

// noArgs is the arguments of the tools that take none (max_tokens is the
// view's, never the request's).
type noArgs struct{}

// breedArgs is nsip_get_trait_ranges's.
type breedArgs struct {
	BreedID int `json:"breed_id"`
}

// detailsArgs is nsip_get_animal's.
type detailsArgs struct {
	SearchString string `json:"search_string"`
	// Percentiles false asks for the record as it is; true never reaches
	// the fetch (animalpct.go).
	Percentiles bool `json:"percentiles,omitempty"`
}

// lpnArgs is nsip_get_lineage's.
type lpnArgs struct {
	LPNID string `json:"lpn_id"`
}

// progenyArgs is nsip_get_progeny's.
type progenyArgs struct {
	LPNID    string `json:"lpn_id"`
	Page     int    `json:"page"`
	PageSize int    `json:"page_size"`
}

// searchArgs is nsip_search_animals's; params is the client's form.
type searchArgs struct {
	Page        int           `json:"page"`
	PageSize    int           `json:"page_size"`
	BreedID     int           `json:"breed_id"`
	SortedTrait string        `json:"sorted_trait"`
	Reverse     bool          `json:"reverse"`
	Criteria    *criteriaArgs `json:"search_criteria"`
}

// criteriaArgs is search_criteria: nsip.SearchCriteria under the tool's
// names, which the conversion in params holds to the client's fields.
type criteriaArgs struct {
	BreedGroupID int                   `json:"breed_group_id"`
	BreedID      int                   `json:"breed_id"`
	BornAfter    string                `json:"born_after"`
	BornBefore   string                `json:"born_before"`
	Gender       string                `json:"gender"`
	ProvenOnly   bool                  `json:"proven_only"`
	Status       string                `json:"status"`
	FlockID      string                `json:"flock_id"`
	TraitRanges  map[string]nsip.Range `json:"trait_ranges"`
}

func (a searchArgs) params() nsip.SearchParams {
	p := nsip.SearchParams{Page: a.Page, PageSize: a.PageSize, BreedID: a.BreedID, SortedTrait: a.SortedTrait, Reverse: a.Reverse}
	if a.Criteria != nil {
		p.Criteria = nsip.SearchCriteria(*a.Criteria) // the same fields in the same order
	}
	return p
}
