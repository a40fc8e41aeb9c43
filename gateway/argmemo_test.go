package gateway

import (
	"encoding/json"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
)

// The same argument text sent again is not read again when its reading
// depended on the text alone, and is answered as before; a text whose
// reading asked NSIP something (a breed's name, a status) is read anew
// every time, since NSIP may answer otherwise later.
func TestArgumentsReadOnceOnlyFromTheirText(t *testing.T) {
	e := newEnv(t)
	lpn := e.up.Data().MostProgeny()
	held := func(d *lookup.Def, args map[string]any) bool {
		raw, err := json.Marshal(args) // as the client sends them
		if err != nil {
			t.Fatal(err)
		}
		_, ok := e.gw.memos[toolOf(d).index].Get(raw)
		return ok
	}
	args := map[string]any{"search_string": lpn}
	first := e.call("nsip_get_animal", args).mustOK(t)
	if !held(lookup.Animal, args) {
		t.Fatal("an animal's arguments were not kept")
	}
	again := e.call("nsip_get_animal", args).mustOK(t)
	if again.text != first.text || again.meta["cache"] != "hit" {
		t.Errorf("the kept arguments answered %.200s (%v), want %.200s from the cache", again.text, again.meta["cache"], first.text)
	}
	byName := map[string]any{"breed_id": "Katahdin", "page_size": 3}
	e.call("nsip_search_animals", byName).mustOK(t)
	if held(lookup.SearchAnimals, byName) {
		t.Error("a search naming its breed in words was kept")
	}
	byStatus := map[string]any{"breed_id": 640, "page_size": 3, "search_criteria": map[string]any{"status": "CURRENT"}}
	e.call("nsip_search_animals", byStatus).mustOK(t)
	if held(lookup.SearchAnimals, byStatus) {
		t.Error("a search naming a status was kept")
	}
	wrong := map[string]any{"search_string": "x"}
	e.call("nsip_get_animal", wrong).errorBody(t)
	if held(lookup.Animal, wrong) {
		t.Error("arguments refused were kept")
	}
	plainLineage := map[string]any{"lpn_id": lpn}
	e.call("nsip_get_lineage", plainLineage).mustOK(t)
	if !held(lookup.Lineage, plainLineage) {
		t.Error("a lineage's arguments were not kept")
	}
}
