package lookup

import (
	"context"
	"encoding/json"

	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

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
