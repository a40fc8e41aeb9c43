package source

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// recorder obtains every read as answer and remembers the keys asked.
type recorder struct {
	keys   []string
	answer any
	err    error
}

func (r *recorder) obtain(_ context.Context, rd lookup.Read) (toolcall.Obtained, error) {
	r.keys = append(r.keys, rd.Key)
	if r.err != nil {
		return toolcall.Obtained{}, r.err
	}
	return toolcall.Obtained{A: &upstream.Answer{Value: r.answer}}, nil
}

// keyOf is the key a user's call of d with the typed arguments a is
// cached under.
func keyOf(t *testing.T, d *lookup.Def, a any) string {
	t.Helper()
	r, err := d.Keyed(a)
	if err != nil {
		t.Fatal(err)
	}
	return r.Key
}

// Each typed read asks for exactly the key the lookup tool's own call of
// the same thing is cached under, and hands back that tool's model.
func TestReadsShareTheToolsKeys(t *testing.T) {
	ctx := context.Background()
	const id = "6402382024NCS310"
	for _, tc := range []struct {
		name   string
		answer any
		read   func(Reads) (any, error)
		key    string
	}{
		{"details", &nsip.AnimalDetails{LPNID: id}, func(s Reads) (any, error) { return s.Details(ctx, id) },
			keyOf(t, lookup.Animal, lookup.DetailsArgs{SearchString: id})},
		{"lineage", &nsip.Lineage{}, func(s Reads) (any, error) { return s.Lineage(ctx, id) },
			keyOf(t, lookup.Lineage, lookup.LPNArgs{LPNID: id})},
		{"progeny", &nsip.ProgenyPage{}, func(s Reads) (any, error) { return s.Progeny(ctx, id, 2, 50) },
			keyOf(t, lookup.Progeny, lookup.ProgenyArgs{LPNID: id, Page: 2, PageSize: 50})},
		{"search", &nsip.SearchResults{}, func(s Reads) (any, error) {
			return s.Search(ctx, nsip.SearchParams{BreedID: 640, PageSize: 100, SortedTrait: "WWT"}, "2026-11-30")
		}, keyOf(t, lookup.SearchAnimals, lookup.SearchArgs{BreedID: 640, PageSize: 100, SortedTrait: "WWT", Evaluation: "2026-11-30"})},
		{"trait ranges", &nsip.TraitRanges{}, func(s Reads) (any, error) { return s.TraitRanges(ctx, 640) },
			keyOf(t, lookup.TraitRanges, lookup.BreedArgs{BreedID: 640})},
		{"last update", &nsip.LastUpdate{Date: "11/30/2026"}, func(s Reads) (any, error) { return s.LastUpdate(ctx, false) },
			keyOf(t, lookup.LastUpdate, lookup.NoArgs{})},
		{"breeds", &nsip.BreedGroups{}, func(s Reads) (any, error) { return s.Breeds(ctx) },
			keyOf(t, lookup.ListBreeds, lookup.NoArgs{})},
		{"statuses", &nsip.Statuses{Values: []string{"CURRENT"}}, func(s Reads) (any, error) { return s.Statuses(ctx) },
			keyOf(t, lookup.Statuses, lookup.NoArgs{})},
	} {
		rec := &recorder{answer: tc.answer}
		got, err := tc.read(Reads{Obtain: rec.obtain})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got != tc.answer {
			t.Errorf("%s: answered %v, want the obtained model %v", tc.name, got, tc.answer)
		}
		if len(rec.keys) != 1 || rec.keys[0] != tc.key {
			t.Errorf("%s: asked %q, want the tool's own key %q", tc.name, rec.keys, tc.key)
		}
	}
}

// A fresh date is obtained the fresh way, under the same key; without a
// fresh way it is obtained as any read is.
func TestFreshLastUpdateTakesTheFreshWay(t *testing.T) {
	ctx := context.Background()
	cached, fresh := &recorder{answer: &nsip.LastUpdate{Date: "old"}}, &recorder{answer: &nsip.LastUpdate{Date: "new"}}
	lu, err := Reads{Obtain: cached.obtain, Fresh: fresh.obtain}.LastUpdate(ctx, true)
	if err != nil || lu.Date != "new" || len(cached.keys) != 0 || len(fresh.keys) != 1 {
		t.Errorf("fresh read: %v, %v; cached asked %v, fresh %v; want the fresh date from the fresh way alone", lu, err, cached.keys, fresh.keys)
	}
	lu, err = Reads{Obtain: cached.obtain}.LastUpdate(ctx, true)
	if err != nil || lu.Date != "old" {
		t.Errorf("fresh read without a fresh way: %v, %v; want the obtained date", lu, err)
	}
}

// What fails, and an answer of another model (NSIP's answer in a shape
// the client could not read), is an error, never a nil model.
func TestReadFailuresAreErrors(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("NSIP is down")
	if d, err := (Reads{Obtain: (&recorder{err: boom}).obtain}).Details(ctx, "6402382024NCS310"); !errors.Is(err, boom) || d != nil {
		t.Errorf("failed read: %v, %v; want the obtain's error", d, err)
	}
	_, err := Reads{Obtain: (&recorder{answer: map[string]any{"odd": true}}).obtain}.Lineage(ctx, "6402382024NCS310")
	if err == nil || !strings.Contains(err.Error(), "not a *nsip.Lineage") {
		t.Errorf("read of another model: %v; want an error naming the model wanted", err)
	}
	if _, err := (Reads{Obtain: (&recorder{}).obtain}).Details(ctx, ""); err == nil {
		t.Error("a read with arguments the tool refuses was made; want the validation's error")
	}
}
