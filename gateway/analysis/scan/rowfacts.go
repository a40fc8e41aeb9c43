package scan

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"

	"golang.org/x/sync/errgroup"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// NSIP's live search rows carry an animal's LPN ID, parents, status,
// registration number, EBVs and indexes, and no sex, birth date, breed or
// flock. What an answer needs beyond them is read another way and said:
// the birth year and the flock from the LPN ID (nsip.ParseLPN), the sex
// from NSIP's own search with the gender criterion, since the rows NSIP
// returns for gender Male are its rams.

// SexBySearch gives the rows of a group read whole by search q (which asks
// no gender) the sex NSIP's search knows them by: q's pages with gender
// Male are read, as far as the group's page limit allows, and their animals
// marked Male; the first page with gender Female gives NSIP's count of
// ewes, and when rams and ewes add up to the group, the rest are ewes.
// Rows of a group some of whose rows record a sex are left as they are.
// The returned text says what was done, "" when nothing was.
func SexBySearch(ctx context.Context, r *analysis.Call, q analysis.Query, rows []nsip.AnimalRow) (string, error) {
	unsexed := 0
	for _, row := range rows {
		if nsip.NormalizeSex(row.Sex) == "" {
			unsexed++
		}
	}
	// Rows that record sexes are NSIP's word for them, unknowns included.
	if unsexed < len(rows) || len(rows) == 0 {
		return "", nil
	}
	if sex := nsip.NormalizeSex(q.Criteria.Gender); sex == "Male" || sex == "Female" {
		for i := range rows {
			rows[i].Sex = sex
		}
		return fmt.Sprintf("NSIP's rows record no sex: every animal is %s, as NSIP returned it for search_criteria.gender %s", strings.ToLower(sex), sex), nil
	}
	males := q
	males.Criteria.Gender = "Male"
	read, stop := ReadAhead(ctx, SearchPages(r, &males), r.Parallel(), FlockPages)
	ms, err := Pages(ctx, read, FlockPages)
	stop()
	if err != nil {
		return "", err
	}
	if !ms.Complete {
		return fmt.Sprintf("sex unknown: NSIP's rows record none, and its search of the group's rams (gender Male) was not read whole (%d of %d)", len(ms.Rows), ms.Total), nil
	}
	females := q
	females.Criteria.Gender = "Female"
	_, nf, err := SearchPages(r, &females)(ctx, 0)
	if err != nil {
		return "", err
	}
	at := make(map[string]int, len(rows))
	for i, row := range rows {
		at[row.LPNID] = i
	}
	nm, strays := 0, 0
	for _, m := range ms.Rows {
		if i, ok := at[m.LPNID]; ok {
			if rows[i].Sex == "" {
				rows[i].Sex = "Male"
			}
			nm++
		} else {
			strays++
		}
	}
	if strays > 0 || nm+nf != len(rows) {
		for i := range rows {
			if rows[i].Sex == "Male" && ms.Total == len(rows) {
				rows[i].Sex = "" // gender was ignored: every animal came back as a ram
			}
		}
		return fmt.Sprintf("rams as NSIP's search with gender Male returned them (%d of the group's %d); the others unknown, since NSIP counts %d ewes, %d rams not in the group, and the two do not add up to the group",
			nm, len(rows), nf, strays), nil
	}
	for i := range rows {
		if rows[i].Sex == "" {
			rows[i].Sex = "Female"
		}
	}
	return fmt.Sprintf("NSIP's rows record no sex: rams are the %d animals its search with gender Male returned, ewes the other %d, as its count with gender Female (%d) confirms", nm, len(rows)-nm, nf), nil
}

// ProgenyEBVs is how a progeny group's method says where its EBVs came
// from when NSIP's progeny rows carry none.
const ProgenyEBVs = "; NSIP's progeny rows carry no EBVs, so each offspring's EBVs and accuracies are its own record's (getAnimalDetails, one lookup each, kept an hour)"

// ProgenyRecords is how many offspring records a progeny group reads at
// most: a sire of hundreds of lambs is answered from them all.
const ProgenyRecords = 400

// WithRecords fills the traits of rows that carry none from each animal's
// own record (EachRecord) and reports how many it read and could not.
func WithRecords(ctx context.Context, r *analysis.Call, rows []nsip.AnimalRow) (read, unread int, err error) {
	var need []int
	for i, row := range rows {
		if len(row.Traits) == 0 {
			need = append(need, i)
		}
	}
	return EachRecord(ctx, r, len(need), func(k int) string { return rows[need[k]].LPNID }, func(k int, d *nsip.AnimalDetails) {
		rows[need[k]].Traits = d.Traits
	})
}

// EachRecord reads the records of n animals (id(k) for k < n),
// r.parallel() at a time, and hands each to use, one at a time. It
// reports how many it read and how many it could not (not found, or past
// the call's lookups or time, which end the reading but not the answer);
// only the call's own end is an error.
func EachRecord(ctx context.Context, r *analysis.Call, n int, id func(int) string, use func(int, *nsip.AnimalDetails)) (read, unread int, err error) {
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.Parallel())
	for k := range n {
		g.Go(func() error {
			d, err := r.Details(gctx, id(k))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				unread++
				return ctx.Err()
			}
			read++
			use(k, d)
			return nil
		})
	}
	return read, unread, g.Wait()
}

// FromRecordsNote says that n of the shown ranked rows took their sex,
// birth date and genotyped status from the animal's record; "" for none.
func FromRecordsNote(n, shown int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("sex, birth date and genotyped of %d of the %d ranked animals read from each one's record (getAnimalDetails), as NSIP's search rows state none of them", n, shown)
}
