package breedpass

import (
	"fmt"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// The builder's byte count, kept as rows come, is what the pass it has
// built so far counts over its whole contents, after every row: new and
// repeated parents, dates and flocks, a trait or an index first seen part
// way, rows without some.
func TestBuilderBytesAsThePassCountsThem(t *testing.T) {
	var rows []nsip.AnimalRow
	for i := range 240 {
		row := nsip.AnimalRow{LPNID: fmt.Sprintf("6400012024ABC%03d", i), Sire: fmt.Sprintf("S%d", i%7), Dam: fmt.Sprintf("D%d", i%31),
			Status: []string{"CURRENT", "SOLD", "DEAD"}[i%3], Sex: []string{"Male", "Female", ""}[i%3],
			DateOfBirth: fmt.Sprintf("%d/1/2024", 1+i%12), FlockCode: fmt.Sprintf("64%04d", i%5), Genotyped: []string{"", "50K Genotyped"}[i%2]}
		row.Traits = append(row.Traits, nsip.Trait{Code: "WWT", Value: float64(i) / 10})
		if i >= 100 {
			row.Traits = append(row.Traits, nsip.Trait{Code: "bwt", Value: -float64(i) / 100}) // a code first seen late, in lower case
		}
		if i%4 == 0 {
			row.Indexes = append(row.Indexes, nsip.Index{Name: "US Hair Index", Value: float64(i)})
		}
		rows = append(rows, row)
	}
	b := NewBuilder(640, "08/13/2025")
	for k, row := range rows {
		b.Add(row)
		if got, want := b.Bytes(), NewPassOf(640, "08/13/2025", rows[:k+1]).Bytes(); got != want {
			t.Fatalf("after %d rows: builder counts %d bytes, the pass %d", k+1, got, want)
		}
	}
	if got, want := b.Bytes(), b.Pass().Bytes(); got != want {
		t.Errorf("the pass built: builder counted %d bytes, the pass counts %d", got, want)
	}
}
