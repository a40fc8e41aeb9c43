package analysis

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// NSIP's live search rows carry an animal's LPN ID, parents, status,
// registration number, EBVs and indexes, and no sex, birth date, breed or
// flock. What an answer needs beyond them is read another way and said:
// the birth year and the flock from the LPN ID (nsip.ParseLPN), the sex
// from NSIP's own search with the gender criterion, since the rows NSIP
// returns for gender Male are its rams.

// rowYear is a row's birth year as a count's key ("unknown" when neither
// its date nor its LPN ID says), and whether the LPN ID gave it.
func rowYear(row nsip.AnimalRow) (string, bool) {
	y, lpn := row.BirthYear()
	if y == 0 {
		return "unknown", false
	}
	return fmt.Sprint(y), lpn
}

// sexBySearch gives the rows of a group read whole by search q (which asks
// no gender) the sex NSIP's search knows them by: q's pages with gender
// Male are read, as far as the group's page limit allows, and their animals
// marked Male; the first page with gender Female gives NSIP's count of
// ewes, and when rams and ewes add up to the group, the rest are ewes.
// Rows of a group some of whose rows record a sex are left as they are.
// The returned text says what was done, "" when nothing was.
func sexBySearch(ctx context.Context, r *call, q Query, rows []nsip.AnimalRow) (string, error) {
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
	read, stop := readAhead(ctx, searchPages(r, &males), r.parallel(), flockPages)
	ms, err := scanPages(ctx, read, flockPages)
	stop()
	if err != nil {
		return "", err
	}
	if !ms.complete {
		return fmt.Sprintf("sex unknown: NSIP's rows record none, and its search of the group's rams (gender Male) was not read whole (%d of %d)", len(ms.rows), ms.total), nil
	}
	females := q
	females.Criteria.Gender = "Female"
	_, nf, err := searchPages(r, &females)(ctx, 0)
	if err != nil {
		return "", err
	}
	at := make(map[string]int, len(rows))
	for i, row := range rows {
		at[row.LPNID] = i
	}
	nm, strays := 0, 0
	for _, m := range ms.rows {
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
			if rows[i].Sex == "Male" && ms.total == len(rows) {
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

// progenyEBVs is how a progeny group's method says where its EBVs came
// from when NSIP's progeny rows carry none.
const progenyEBVs = "; NSIP's progeny rows carry no EBVs, so each offspring's EBVs and accuracies are its own record's (getAnimalDetails, one lookup each, kept an hour)"

// progenyRecords is how many offspring records a progeny group reads at
// most: a sire of hundreds of lambs is answered from them all.
const progenyRecords = 400

// withRecords fills the traits of rows that carry none from each animal's
// own record (eachRecord) and reports how many it read and could not.
func withRecords(ctx context.Context, r *call, rows []nsip.AnimalRow) (read, unread int, err error) {
	var need []int
	for i, row := range rows {
		if len(row.Traits) == 0 {
			need = append(need, i)
		}
	}
	return eachRecord(ctx, r, len(need), func(k int) string { return rows[need[k]].LPNID }, func(k int, d *nsip.AnimalDetails) {
		rows[need[k]].Traits = d.Traits
	})
}

// eachRecord reads the records of n animals (id(k) for k < n),
// r.parallel() at a time, and hands each to use, one at a time. It
// reports how many it read and how many it could not (not found, or past
// the call's lookups or time, which end the reading but not the answer);
// only the call's own end is an error.
func eachRecord(ctx context.Context, r *call, n int, id func(int) string, use func(int, *nsip.AnimalDetails)) (read, unread int, err error) {
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.parallel())
	for k := range n {
		g.Go(func() error {
			d, err := r.details(gctx, id(k))
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

// rankRecords is how many ranked animals' records a ranking reads at most:
// its largest top_n.
const rankRecords = 50

// records reads the record of each ranked animal whose row does not state
// its sex or whether it is genotyped, as NSIP's live rows do not: the row
// takes the record's sex, birth date and genotyped status. A record of the
// other sex than search_criteria.gender asked shows NSIP ignored the
// criterion for that row: it is taken out of the ranking and counted with
// the rows against the criteria, and the ranked rows left are still the
// best of the sex asked. It reports how many records were read.
func (s *rankScan) records(ctx context.Context, r *call) (int, error) {
	var ids []string
	for _, sc := range s.top.Rows() {
		if row := s.rows[sc.ID]; row.Sex == "" || row.Genotyped == "" {
			ids = append(ids, sc.ID)
		}
	}
	wrong := map[string]bool{}
	read, _, err := eachRecord(ctx, r, len(ids), func(k int) string { return ids[k] }, func(k int, d *nsip.AnimalDetails) {
		row := s.rows[ids[k]]
		sex := nsip.NormalizeSex(d.Gender)
		if row.Sex == "" && s.keep.sex != "" && (sex == "Male" || sex == "Female") && sex != s.keep.sex {
			wrong[ids[k]] = true
		}
		if row.Sex == "" {
			row.Sex = sex
		}
		if row.DateOfBirth == "" {
			row.DateOfBirth = d.DateOfBirth
		}
		row.Genotyped = d.Genotyped
		s.fromRecord[ids[k]] = true
		s.rows[ids[k]] = row
	})
	if len(wrong) > 0 {
		s.dropContradicted(wrong)
	}
	return read, err
}

// dropContradicted takes the ranked animals whose records contradict the
// sex asked out of the ranking, counting them against the criteria.
func (s *rankScan) dropContradicted(wrong map[string]bool) {
	kept := breeding.NewTopN(s.scanN)
	for _, sc := range s.top.Rows() {
		if !wrong[sc.ID] {
			kept.Offer(sc)
			continue
		}
		if len(s.contra) < maxNamed {
			s.contra = append(s.contra, fmt.Sprintf("%s (its record says %s, though NSIP returned it for gender %s)", sc.ID, strings.ToLower(s.rows[sc.ID].Sex), s.keep.sex))
		}
		s.nContra++
		s.keep.nUnsexed--
	}
	s.top = kept
}

// fromRecordsNote says that n of the shown ranked rows took their sex,
// birth date and genotyped status from the animal's record; "" for none.
func fromRecordsNote(n, shown int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("sex, birth date and genotyped of %d of the %d ranked animals read from each one's record (getAnimalDetails), as NSIP's search rows state none of them", n, shown)
}

// readPass reads the whole breed for its pass, given its first unfiltered
// page. NSIP's live rows record no sex, and a pass answers questions by
// sex, so the breed is read as its rams (gender Male) and its ewes (gender
// Female), each row taking the sex it was returned for: about as many
// pages as the breed's own, and exact when the two are apart and add up
// to the breed's count. When they do not (NSIP ignored gender, or some
// animals have no sex), the breed's own pages are read, and the rows found
// among the rams or the ewes take that sex. Rows that record a sex are
// read as they are.
func (pc *percentiles) readPass(ctx context.Context, breed int, first []nsip.AnimalRow, total int) ([]nsip.AnimalRow, string, error) {
	if !unsexed(first) {
		return pc.passPages(ctx, breed, first, total)
	}
	sexOf := map[string]string{}
	var halves []nsip.AnimalRow
	for _, sex := range []string{"Male", "Female"} {
		f, t, err := pc.passPageOf(ctx, breed, sex, 0)
		if err != nil {
			return nil, "", err
		}
		if pc.pageRead != nil {
			pc.pageRead()
		}
		rows, why, err := pc.passPagesOf(ctx, breed, sex, f, t)
		if err != nil || why != "" {
			return nil, why, err
		}
		for _, r := range rows {
			if _, twice := sexOf[r.LPNID]; twice {
				sexOf[r.LPNID] = "" // returned for both: NSIP ignored gender
				continue
			}
			sexOf[r.LPNID] = sex
			r.Sex = sex
			halves = append(halves, r)
		}
	}
	if len(halves) == total && !slices.Contains(slices.Collect(maps.Values(sexOf)), "") {
		return halves, "", nil
	}
	// The halves are not used: the breed's own pages are counted afresh.
	pc.kept.Store(0)
	rows, why, err := pc.passPages(ctx, breed, first, total)
	for i := range rows {
		rows[i].Sex = sexOf[rows[i].LPNID]
	}
	return rows, why, err
}

// unsexed reports whether rows, a breed's first page, record no sex at all,
// as NSIP's live rows do not: its pass is then read by gender.
func unsexed(rows []nsip.AnimalRow) bool {
	return len(rows) > 0 && !slices.ContainsFunc(rows, func(r nsip.AnimalRow) bool { return nsip.NormalizeSex(r.Sex) != "" })
}
