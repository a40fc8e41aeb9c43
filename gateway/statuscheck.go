package gateway

import (
	"context"

	"github.com/nsip-tools/nsip-mcp/gateway/argcheck"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/source"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A search's status is checked against NSIP's own list before NSIP is
// asked (argcheck.CheckStatus): NSIP answers a status it does not record with
// an empty search, which an analysis would otherwise call an exact answer
// of nothing. The list is read through the cache, like any answer.

// checkStatus refuses a call whose search status NSIP does not record and
// no word means; nil when every status is known, or NSIP's list cannot be
// had (the status then goes to NSIP as read, which judges it).
func (g *Gateway) checkStatus(ctx context.Context, d *toolDef, args param.Valid) *toolerr.Error {
	var errs []param.FieldError
	var fixes []param.Edit
	var statuses []string
	for _, path := range argcheck.StatusPaths {
		s, ok := args.String(path)
		if !ok || s == "" {
			continue
		}
		if statuses == nil {
			st, ok := readList(ctx, g, source.Reads.Statuses)
			if !ok || len(st.Values) == 0 {
				return nil
			}
			statuses = st.Values
		}
		if fe := argcheck.CheckStatus(path, s, statuses); fe != nil {
			errs = append(errs, *fe)
			fixes = append(fixes, param.Assign(path, "CURRENT"))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	ex := d.example(args.Sent())
	ex.Apply(fixes...)
	return g.withExample(toolerr.InvalidArgs(ex, errs))
}

// statusNotes say how a call's status words were read, for _meta: a word
// that is not the status it means ("usable" is CURRENT, "living" every
// status but DEAD and CULL).
func statusNotes(args param.Valid) []string {
	var notes []string
	for _, path := range argcheck.StatusPaths {
		s, _ := args.String(path)
		if n := nsip.StatusNote(s); n != "" {
			notes = append(notes, n)
		}
	}
	return notes
}
