package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// contractFixtures maps each endpoint to the fixture, in the live shape
// where one was captured, that nsip/testdata/contract holds for it.
var contractFixtures = map[string]string{
	"search/getDateLastUpdated":      "lastupdated.json",
	"search/getAvailableBreedGroups": "breedgroups.live.json",
	"search/getStatusesByBreedGroup": "statuses.json",
	"search/getTraitRangesByBreed":   "traitranges.json",
	"search/getPageOfSearchResults":  "search.live.json",
	"details/getAnimalDetails":       "details.live.json",
	"details/getLineage":             "lineage.live.json",
	"details/getPageOfProgeny":       "progeny.live.json",
}

// fixtureUpstream serves the contract fixtures as NSIP would.
func fixtureUpstream(t *testing.T) (string, map[string][]byte) {
	t.Helper()
	bodies := map[string][]byte{}
	for ep, name := range contractFixtures {
		b, err := os.ReadFile(filepath.Join("..", "..", "nsip", "testdata", "contract", name))
		if err != nil {
			t.Fatal(err)
		}
		bodies[ep] = b
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := bodies[strings.TrimPrefix(r.URL.Path, "/api/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/api", bodies
}

// TestEndToEndContractFixturesOverEveryTransport runs all nine tools over
// every transport against the contract fixtures: what a user sees is NSIP's
// answer as sent (compacted), or a summary of it, never an error.
func TestEndToEndContractFixturesOverEveryTransport(t *testing.T) {
	watchdog(t, testLimit)
	base, bodies := fixtureUpstream(t)
	compact := func(ep string) string {
		var b bytes.Buffer
		if err := json.Compact(&b, bodies[ep]); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	const ram = "6402382024NCS310"
	cases := []struct {
		tool string
		args map[string]any
		want []string // exact pass-through when one element starts with "="
	}{
		{"nsip_get_last_update", nil, []string{"=" + compact("search/getDateLastUpdated")}},
		{"nsip_list_breeds", nil, []string{"=" + compact("search/getAvailableBreedGroups")}},
		{"nsip_get_statuses", nil, []string{"=" + compact("search/getStatusesByBreedGroup")}},
		{"nsip_get_trait_ranges", map[string]any{"breed_id": 640}, []string{"=" + compact("search/getTraitRangesByBreed")}},
		// WFEC is a Katahdin trait in the fixture's ranges: checked, then sent.
		{"nsip_search_animals", map[string]any{"breed_id": 640, "sorted_trait": "WFEC", "page_size": 2}, []string{"=" + compact("search/getPageOfSearchResults")}},
		{"nsip_get_animal", map[string]any{"search_string": ram}, []string{"=" + compact("details/getAnimalDetails")}},
		{"nsip_get_lineage", map[string]any{"lpn_id": ram}, []string{"=" + compact("details/getLineage")}},
		{"nsip_get_progeny", map[string]any{"lpn_id": ram, "page_size": 3}, []string{"=" + compact("details/getPageOfProgeny")}},
		{"nsip_search_by_lpn", map[string]any{"lpn_id": ram}, []string{
			`{"details":` + compact("details/getAnimalDetails"), `"lineage":` + compact("details/getLineage"),
			`"progeny":` + compact("details/getPageOfProgeny")}},
	}
	for _, flavour := range flavours {
		t.Run(flavour, func(t *testing.T) {
			t.Parallel()
			c, _ := connect(t, flavour, "NSIP_BASE_URL="+base)
			for _, tc := range cases {
				text := call(t, c, tc.tool, tc.args)
				for _, want := range tc.want {
					if exact, ok := strings.CutPrefix(want, "="); ok {
						if text != exact {
							t.Errorf("%s: answer is not NSIP's body as sent:\n got %.300s\nwant %.300s", tc.tool, text, exact)
						}
					} else if !strings.Contains(text, want) {
						t.Errorf("%s: answer lacks %.120s; answer starts %.300s", tc.tool, want, text)
					}
				}
			}
		})
	}
}

// TestEndToEndShapeChangeUnderARunningServer: NSIP changes the shape of
// its progeny answer while the server runs. The model still gets a usable
// answer (NSIP's JSON, marked unrecognized), stderr carries one warning for
// the endpoint and shape, and /healthz lists it.
func TestEndToEndShapeChangeUnderARunningServer(t *testing.T) {
	watchdog(t, testLimit)
	srv := startServer(t, "http-sse")
	c := dialFlavour(t, "streamable", srv.BaseURL)
	initialize(t, c)
	id := srv.Stub.Data().MostProgeny()
	if text := call(t, c, "nsip_get_progeny", map[string]any{"lpn_id": id, "page_size": 2}); !strings.Contains(text, `"recordCount"`) {
		t.Fatalf("before the change: %.200s", text)
	}
	srv.Stub.SetFault("details/getPageOfProgeny", nsiptest.Fault{Kind: nsiptest.FaultWrongShape})
	for page := 1; page <= 2; page++ {
		if text := call(t, c, "nsip_get_progeny", map[string]any{"lpn_id": id, "page": page}); text != `{"message":"OK","items":"none"}` {
			t.Errorf("after the change, page %d: %.200s, want NSIP's JSON as sent", page, text)
		}
	}
	var health map[string]any
	getJSONBody(t, srv.BaseURL+"/healthz", http.StatusOK, &health)
	drift, _ := health["format_drift"].([]any)
	if len(drift) != 1 {
		t.Fatalf("healthz format_drift = %v, want one entry", health["format_drift"])
	}
	d := drift[0].(map[string]any)
	if d["endpoint"] != "get_progeny" || d["signature"] != "{items:string,message:string}" || d["count"] != 2.0 ||
		d["first_seen"] == nil || d["last_seen"] == nil {
		t.Errorf("drift entry %v", d)
	}
	if n := strings.Count(srv.Stderr(), "does not recognize"); n != 1 {
		t.Errorf("%d warnings on stderr for one endpoint and shape, want 1:\n%s", n, srv.Stderr())
	}
}
