package scan

import (
	"context"
	"fmt"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// ViaPages names in an answer's computed.via the way without a pass.
const ViaPages = "search pages"

// KeptPages reads rows as the pages of a search, with no lookup: the
// scans that read pages read a pass the same way.
func KeptPages(rows []nsip.AnimalRow) PageReader {
	return func(_ context.Context, n int) ([]nsip.AnimalRow, int, error) {
		lo := min(n*PageSize, len(rows))
		return rows[lo:min(lo+PageSize, len(rows))], len(rows), nil
	}
}

// KeptPass is breed's pass under eval when the call's source keeps one,
// else nil.
func KeptPass(ctx context.Context, r *analysis.Call, breed int, eval string) *breedpass.BreedPass {
	store := r.Src.Passes()
	if store == nil || eval == "" {
		return nil
	}
	return store.Load(ctx, breed, eval)
}

// KeptNote says in an answer that it came from a kept pass.
func KeptNote(p *breedpass.BreedPass) string {
	return fmt.Sprintf("kept from an earlier read of its %d animals under this evaluation: no search page read", p.Animals())
}

// KeepPages keeps rows, the whole of breed's search read under eval and
// proven of it, as the breed's pass, and says so; "" when the source keeps
// no passes or the rows are not all of the breed.
func KeepPages(ctx context.Context, r *analysis.Call, breed int, eval string, rows []nsip.AnimalRow) string {
	store := r.Src.Passes()
	if store == nil || eval == "" {
		return ""
	}
	for _, row := range rows {
		if row.BreedID != 0 && row.BreedID != breed {
			return ""
		}
	}
	store.Keep(ctx, breedpass.NewPassOf(breed, eval, rows))
	return fmt.Sprintf("kept from these pages: %d animals, so a later question about the breed under this evaluation reads no search page", len(rows))
}

// FillPass has breed's pass read in the background, when the source can,
// and says so; "" when it cannot (it keeps no passes, or reads none on its
// own).
func FillPass(r *analysis.Call, breed int, eval, why string) string {
	store := r.Src.Passes()
	if store == nil || eval == "" {
		return ""
	}
	f := store.Fill(breed, eval)
	switch {
	case f.Cannot:
		return ""
	case f.Why != "":
		return "not read: " + why + "; nor in the background: " + f.Why
	}
	return "being read in the background, since " + why + "; a later call uses it"
}

// PassRankMethod is how a breed's pass was read, for a ranking from one.
const PassRankMethod = "one pass over NSIP's search of the breed, 100 a page, checked (full pages, NSIP's count unchanged, no animal twice, every row of the breed), " +
	"read under the evaluation NSIP gives now and kept, so no search page was read"

// Methods an answer names in percentiles.via.
const (
	ViaPass   = "breed pass"
	ViaSearch = "binary search"
)
