package gateway

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// readOf is the _meta.read of a reply: how its words were read.
func readOf(r reply) []string {
	list, _ := r.meta["read"].([]any)
	out := make([]string, len(list))
	for i, v := range list {
		out[i], _ = v.(string)
	}
	return out
}

// Every breed the stand-in lists is read from its name in any case and
// from its number as text: the answer is the one its ID gets, and says how
// the breed was read. The breed list is read once for all of them.
func TestBreedNamesReadAsTheirIDs(t *testing.T) {
	e := newEnv(t)
	search := func(breed any) reply {
		return e.call("nsip_search_animals", map[string]any{"breed_id": breed, "page_size": 1}).mustOK(t)
	}
	n := 0
	for _, g := range e.up.Data().BreedGroups() {
		for _, b := range g.Breeds {
			n++
			want := search(b.ID)
			for _, name := range []string{b.Name, strings.ToLower(b.Name), " " + strings.ToUpper(b.Name)} {
				r := search(name)
				if r.text != want.text {
					t.Errorf("breed_id %q answers %.120s; want breed %d's %.120s", name, r.text, b.ID, want.text)
				}
				if got, w := readOf(r), []string{fmt.Sprintf("%q read as breed %d (%s)", name, b.ID, b.Name)}; !reflect.DeepEqual(got, w) {
					t.Errorf("breed_id %q read %q; want %q", name, got, w)
				}
			}
			r := search(fmt.Sprint(b.ID))
			if r.text != want.text || !reflect.DeepEqual(readOf(r), []string{fmt.Sprintf("\"%d\" read as breed %d", b.ID, b.ID)}) {
				t.Errorf("breed_id \"%d\": read %q, %.120s", b.ID, readOf(r), r.text)
			}
			if got := readOf(want); len(got) != 0 {
				t.Errorf("breed_id %d read %q; a number needs no reading", b.ID, got)
			}
		}
	}
	if n < 10 {
		t.Fatalf("the stand-in lists %d breeds", n)
	}
	if got := e.up.Requests(nsiptest.EndpointBreedGroups); got != 1 {
		t.Errorf("the breed list was read %d times for %d breeds' names; want once, then cached", got, n)
	}
	// A start of one name only is that breed; inside search_criteria too.
	r := e.call("nsip_search_animals", map[string]any{"search_criteria": map[string]any{"breed_id": "katah"}, "page_size": 1}).mustOK(t)
	if got := readOf(r); !reflect.DeepEqual(got, []string{`"katah" read as breed 640 (Katahdin)`}) {
		t.Errorf("katah read %q", got)
	}
}

// A name several breeds start with, or none is near, is refused naming the
// candidates with their IDs; the error's example is a call that works.
func TestBreedNamesRefused(t *testing.T) {
	e := newEnv(t)
	for name, want := range map[string][]string{
		"So":      {"486 South African Meat Merino", "693 Southdown"},
		"Katahdn": {"640 Katahdin"},
		"Dorpr":   {"642 Dorper"},
	} {
		b := e.call("nsip_rank_animals", map[string]any{"breed_id": name, "weights": map[string]any{"WWT": 1}}).errorBody(t)
		if b.Code != toolerr.CodeInvalidArgument || b.Field != "breed_id" || !strings.Contains(b.Problem, fmt.Sprintf("%q", name)) {
			t.Errorf("%s: %+v", name, b)
		}
		for _, w := range want {
			if !strings.Contains(b.Expected, w) {
				t.Errorf("%s: expected %q lacks %s", name, b.Expected, w)
			}
		}
		if strings.HasPrefix(name, "Katahdn") && !strings.Contains(b.Expected, "nearest being 640 Katahdin,") {
			t.Errorf("%s: %q does not lead with Katahdin", name, b.Expected)
		}
		ex := exampleOf(b.Example)
		if ex["breed_id"] != 640.0 {
			t.Errorf("%s: example %v", name, ex)
		}
	}
}

// A search sorted by a trait's name answers exactly as by its code, NSIP's
// answer passed through untouched, and _meta says how the words were read.
func TestTraitWordsRead(t *testing.T) {
	e := newEnv(t)
	byCode := e.call("nsip_search_animals", map[string]any{"breed_id": 640, "sorted_trait": "WWT", "page_size": 3, "traits": []any{"BWT", "FEC"}}).mustOK(t)
	byWords := e.call("nsip_search_animals", map[string]any{"breed_id": "Katahdin", "sorted_trait": "weaning weight", "page_size": 3,
		"traits": []any{"birth weight", "parasite resistance"}}).mustOK(t)
	if byWords.text != byCode.text {
		t.Errorf("by words %.200s\nby codes %.200s", byWords.text, byCode.text)
	}
	want := []string{
		`"Katahdin" read as breed 640 (Katahdin)`,
		`"birth weight" read as BWT (birth weight), lower is better`,
		`"parasite resistance" read as FEC (fecal egg count), lower is better`,
		`"weaning weight" read as WWT (weaning weight), higher is better`,
	}
	if got := readOf(byWords); !reflect.DeepEqual(got, want) {
		t.Errorf("read\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// An analysis's weights by name.
	r := e.call("nsip_rank_animals", map[string]any{"breed_id": 640, "top_n": 3, "weights": map[string]any{"weaning weight": 1, "BWT": -0.5}}).mustOK(t)
	if got := readOf(r); !reflect.DeepEqual(got, want[3:]) {
		t.Errorf("rank read %q", got)
	}
	// A word for two traits is refused naming each, with its direction.
	b := e.call("nsip_search_animals", map[string]any{"sorted_trait": "fat and muscle"}).errorBody(t)
	if b.Field != "sorted_trait" || !strings.Contains(b.Problem, "FAT (post-weaning fat depth), lower is better") ||
		!strings.Contains(b.Problem, "EMD (post-weaning eye muscle depth), higher is better") {
		t.Errorf("fat and muscle: %+v", b)
	}
}
