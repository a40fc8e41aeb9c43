package lookup

import (
	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// The view arguments choose how an answer is shown, not what is asked of
// NSIP: they stay out of the cache key, so every view of one upstream
// answer shares its cache entry, and the gateway fits the answer again for
// them. They are fields of a lookup tool's argument struct, embedded from
// these, after its own: every tool takes max_tokens (param.Budget);
// tools whose rows carry EBVs take traits too, and tools whose answers
// are pages skip.
type (
	ViewTraits struct {
		Traits []string `json:"traits,omitempty" arg:"view"`
	}
	ViewSkip struct {
		Skip int `json:"skip,omitempty" arg:"view"`
	}
)

// The view fields' descriptions, in ArgTable.
var (
	traitsField = nsiparg.ViewTraits
	skipField   = param.Spec{Example: 0, Min: param.Bound(0), Max: param.Bound(99), Quiet: true}
)

// ArgTable describes the fields of the argument structs the lookup tools
// share (the view's, search_criteria): what their Go types and json tags
// cannot say. Each tool's own are in its file (Def.fields). A field
// without its entry, or an entry without its field, stops the server at
// start-up.
var ArgTable = param.Tables(
	param.Of(func(v *ViewTraits) param.Described { return param.Described{&v.Traits: traitsField} }),
	param.Of(func(v *ViewSkip) param.Described { return param.Described{&v.Skip: skipField} }),
	param.BudgetTable,
	nsiparg.CriteriaTable,
)

var pageField = param.Spec{Default: 0, Example: 0, Min: param.Bound(0), Max: param.Bound(100000), Quiet: true}

// pageSizeField is page_size with its default: 1 to the largest page NSIP
// serves.
func pageSizeField(def int) param.Spec {
	return param.Spec{Default: def, Example: def, Min: param.Bound(1), Max: param.Bound(nsip.MaxPageSize)}
}

// NoArgs is the arguments of the tools that take none but the view's.
type NoArgs struct{ param.Budget }
