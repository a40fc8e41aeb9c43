package argcheck

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

// Breed IDs sent as text are read: a number as itself, a name or the start
// of one as the breed so named, in objects too; the list is read once,
// and only for a name.
func TestReadBreedNames(t *testing.T) {
	l := newLists()
	b := l.checker()
	paths := []string{"breed_id", "search_criteria.breed_id"}
	sent := param.SentOf(map[string]any{"breed_id": " 640 ", "search_criteria": map[string]any{"breed_id": 641}})
	got, reads, errs := b.ReadNames(context.Background(), sent, paths)
	if errs != nil || param.JSONText(got) != `{"breed_id":640,"search_criteria":{"breed_id":641}}` || l.listReads != 0 ||
		!reflect.DeepEqual(reads, []string{`" 640 " read as breed 640`}) {
		t.Errorf("a number: %s %q %+v, list read %d times", param.JSONText(got), reads, errs, l.listReads)
	}
	sent = param.SentOf(map[string]any{"breed_id": "KATAHDIN", "search_criteria": map[string]any{"breed_id": "dor", "gender": "Male"}})
	got, reads, errs = b.ReadNames(context.Background(), sent, paths)
	if errs != nil || param.JSONText(got) != `{"breed_id":640,"search_criteria":{"breed_id":641,"gender":"Male"}}` || l.listReads != 1 ||
		!reflect.DeepEqual(reads, []string{`"KATAHDIN" read as breed 640 (Katahdin)`, `"dor" read as breed 641 (Dorper)`}) {
		t.Errorf("names: %s %q %+v, list read %d times", param.JSONText(got), reads, errs, l.listReads)
	}
	if v, _ := sent.Value("breed_id"); v != "KATAHDIN" {
		t.Errorf("the call sent was changed: %v", v)
	}
}

// A name no breed or several answer to is refused naming the nearest
// breeds with their IDs; without the list, a name cannot be read.
func TestReadBreedNamesRefused(t *testing.T) {
	l := newLists()
	l.breeds.Groups[1].Breeds = append(l.breeds.Groups[1].Breeds, l.breeds.Groups[1].Breeds[1])
	l.breeds.Groups[1].Breeds[2].ID, l.breeds.Groups[1].Breeds[2].Name = 643, "Dorset"
	b := l.checker()
	for name, want := range map[string]string{
		"dor":     `"dor" could be any of 2 breeds`,
		"Katadin": `"Katadin" names no breed NSIP has`,
	} {
		_, _, errs := b.ReadNames(context.Background(), param.SentOf(map[string]any{"breed_id": name}), []string{"breed_id"})
		if len(errs) != 1 || errs[0].Field != "breed_id" || errs[0].Problem != want {
			t.Fatalf("%s: %+v", name, errs)
		}
		if name == "dor" && !strings.Contains(errs[0].Expected, "nearest being 641 Dorper, 643 Dorset;") {
			t.Errorf("%s: %s", name, errs[0].Expected)
		}
		if name == "Katadin" && !strings.Contains(errs[0].Expected, "nearest being 640 Katahdin, ") {
			t.Errorf("%s: %s", name, errs[0].Expected)
		}
	}
	l.breeds = nil
	_, _, errs := b.ReadNames(context.Background(), param.SentOf(map[string]any{"breed_id": "Katahdin"}), []string{"breed_id"})
	if len(errs) != 1 || !strings.Contains(errs[0].Problem, "breed list could not be had") {
		t.Errorf("no list: %+v", errs)
	}
}
