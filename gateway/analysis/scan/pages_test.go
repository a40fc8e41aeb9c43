package scan

import (
	"context"
	"fmt"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A scan counts rows missing from short pages (the last one's share is what
// the count leaves for it) and animals repeated across pages, ends at an empty page or NSIP's count, and keeps counting pages
// against its limit across a restart, which forgets everything else.
func TestPageScan(t *testing.T) {
	total := 2*PageSize + 5
	pages := map[int][]string{0: nil, 1: nil, 2: nil}
	for i := range PageSize - 3 { // page 0 is 3 rows short
		pages[0] = append(pages[0], fmt.Sprintf("A%03d", i))
	}
	pages[1] = append([]string{"A000"}, pages[0][1:]...) // one repeat
	pages[2] = []string{"C1", "C2"}
	read := 0
	sc := NewPageScan(func(ctx context.Context, p int) ([]nsip.AnimalRow, int, error) {
		read++
		var rows []nsip.AnimalRow
		for _, id := range pages[p] {
			rows = append(rows, nsip.AnimalRow{LPNID: id})
		}
		return rows, total, nil
	}, 4)
	fresh := 0
	for sc.More() {
		_, f, err := sc.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, ok := range f {
			if ok {
				fresh++
			}
		}
	}
	if sc.pages != 3 || read != 3 || !sc.Ended || sc.Complete() || sc.missing != 9 || sc.dupes != PageSize-3 || fresh != PageSize-3+2 {
		t.Errorf("pages %d (read %d) ended %v complete %v missing %d dupes %d fresh %d; want 3, ended, incomplete, 9 missing (3, 3, and 3 of the last page's 5), %d repeats, %d fresh",
			sc.pages, read, sc.Ended, sc.Complete(), sc.missing, sc.dupes, fresh, PageSize-3, PageSize-1)
	}
	sc.Restart()
	if !sc.More() || sc.dupes != 0 || sc.missing != 0 {
		t.Fatalf("after restart: more %v dupes %d missing %d", sc.More(), sc.dupes, sc.missing)
	}
	if _, f, _ := sc.Next(context.Background()); !f[0] || sc.More() {
		t.Errorf("after restart: first row fresh %v, more %v; want fresh, and no more at the limit of 4 pages", f[0], sc.More())
	}
}
