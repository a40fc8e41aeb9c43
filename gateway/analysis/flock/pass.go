package flock

import (
	"context"
	"errors"
	"fmt"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/scan"

	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// A group given as a search of one breed, with criteria a breed's pass
// can hold its rows to (../breedpass/serve.go), is answered from the breed's
// pass when one is kept under the evaluation NSIP gives now: the date is
// read (one lookup) and no page. A source that keeps no pass of the breed
// under any evaluation (Passes.Holds) reads no date: the pages are read as
// any group's. One that keeps a pass of an earlier evaluation reads the
// date, then a whole breed's pages under it, and the date again after
// them, so that they are kept as the breed's new pass.

// groupPass is the breed and criteria of a group a pass can answer, and
// the search its pages are read with.
type groupPass struct {
	breed  int
	filter breedpass.PassFilter
	search *analysis.Query
	whole  bool // the search is the breed's, whose pages a pass is made of
}

// passFlockMethod is how a group is read from a breed's pass.
const passFlockMethod = "every animal of the breed's pass held to search_criteria's sex and status as NSIP's search filters them: " + scan.PassRankMethod +
	"; the pass keeps no accuracy, so the full table leaves the _acc columns empty (" + toolname.SearchAnimals + " shows them)"

// scan reads the group's animals: from the breed's pass when one is kept,
// else its pages, keeping or asking for the breed's pass as they allow.
func (g *group) scan(ctx context.Context, r *analysis.Call) (*scan.Scanned, error) {
	g.via = scan.ViaPages
	gp := g.pass
	store := r.Src.Passes()
	if store == nil || gp == nil {
		return g.readPages(ctx, r)
	}
	if !store.Holds(ctx, gp.breed) {
		return g.readUnheld(ctx, r)
	}
	eval, err := r.Evaluation(ctx)
	switch {
	case err != nil && (ctx.Err() != nil || errors.Is(err, analysis.ErrCeiling)):
		return nil, err
	case err != nil:
		eval = "" // no date, no pass: the pages are read as any group's
	}
	if p := scan.KeptPass(ctx, r, gp.breed, eval); p != nil && p.Serves(gp.filter) {
		s, err := scan.Pages(ctx, scan.KeptPages(p.Rows(gp.filter, true)), scan.PagesOf(p.Animals()))
		if err != nil {
			return nil, err
		}
		s.Pages = 0
		g.method, g.via, g.passNote = passFlockMethod, scan.ViaPass, scan.KeptNote(p)
		return s, nil
	}
	whole := gp.whole && eval != ""
	if whole {
		gp.search.Evaluation = eval // pages of this evaluation only, as a pass's are
	}
	s, err := g.readPages(ctx, r)
	if err != nil {
		return nil, err
	}
	switch {
	case whole && s.Complete:
		if again, err := r.EvaluationNow(ctx); err != nil && ctx.Err() != nil {
			return nil, err
		} else if err == nil && again == eval && r.Upstream().Stale == 0 {
			g.passNote = scan.KeepPages(ctx, r, gp.breed, eval, s.Rows)
		}
	case !s.Ended:
		g.passNote = scan.FillPass(r, gp.breed, eval, fmt.Sprintf("the group's %d animals are more than the %d pages a summary reads", s.Total, scan.FlockPages))
	}
	return s, nil
}

// readUnheld reads the pages of a group whose breed has no pass kept,
// reading no date for one; only a group past the summary's page limit
// reads the date then, to ask for the breed's pass in the background.
func (g *group) readUnheld(ctx context.Context, r *analysis.Call) (*scan.Scanned, error) {
	s, err := g.readPages(ctx, r)
	if err != nil || s.Ended {
		return s, err
	}
	eval, err := r.Evaluation(ctx)
	switch {
	case err != nil && (ctx.Err() != nil || errors.Is(err, analysis.ErrCeiling)):
		return nil, err
	case err == nil:
		g.passNote = scan.FillPass(r, g.pass.breed, eval, fmt.Sprintf("the group's %d animals are more than the %d pages a summary reads", s.Total, scan.FlockPages))
	}
	return s, nil
}

// readPages reads the group's pages, up to the summary's limit.
func (g *group) readPages(ctx context.Context, r *analysis.Call) (*scan.Scanned, error) {
	read, stop := scan.ReadAhead(ctx, g.read, r.Parallel(), scan.FlockPages)
	defer stop()
	return scan.Pages(ctx, read, scan.FlockPages)
}
