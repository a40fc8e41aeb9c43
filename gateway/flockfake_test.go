package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// herd is a small NSIP stand-in for pedigree and population scenarios,
// answering in the live shapes of /work/shared/nsip-api.md: details as
// {"success":true,"data":{...,"searchResultViewModel":{"lpnId","lpnSre",
// "lpnDam","bwt","accbwt",...}}}, lineage as nested {"lpnId","content",
// "children":[sire,dam]} nodes three generations deep (as live sessions
// show), search as {"recordCount":N,"records":[...]}. Tests go through the
// real nsip.Client and gateway against it.
type herd struct {
	mu       sync.Mutex
	animals  map[string]*beast
	depth    int  // generations of ancestors in a lineage answer
	sortDesc bool // order of sortedBreedTrait without reverse
	requests map[string]int
	hold     chan struct{}  // when set, search requests wait until it is closed
	broken   map[string]int // lineage requests for these LPN IDs fail with this status
	released sync.Once
}

// release lets held searches through.
func (h *herd) release() { h.released.Do(func() { close(h.hold) }) }

type beast struct {
	id, sire, dam, sex, status, flock, dob string
	breed                                  int
	ebv                                    map[string][2]float64 // code -> value, accuracy fraction
}

func newHerd() *herd {
	return &herd{animals: map[string]*beast{}, depth: 3, requests: map[string]int{}}
}

// add records animals as "ID SIRE DAM" lines, "-" for an unknown parent.
// Sex is taken from the role the animal plays; unused animals are female.
func (h *herd) pedigree(lines ...string) {
	for _, l := range lines {
		f := strings.Fields(l)
		b := h.get(f[0])
		for i, p := range f[1:3] {
			if p == "-" {
				continue
			}
			pb := h.get(p)
			if i == 0 {
				b.sire, pb.sex = p, "Male"
			} else {
				b.dam = p
			}
		}
	}
}

func (h *herd) get(id string) *beast {
	if b, ok := h.animals[id]; ok {
		return b
	}
	b := &beast{id: id, sex: "Female", status: "CURRENT", flock: "640999", dob: "2/13/2020", breed: 640, ebv: map[string][2]float64{}}
	h.animals[id] = b
	return b
}

func (h *herd) count(ep string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.requests[ep]
}

func (h *herd) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ep := strings.TrimPrefix(r.URL.Path, "/api/")
	h.mu.Lock()
	h.requests[ep]++
	h.mu.Unlock()
	if h.hold != nil && ep == "search/getPageOfSearchResults" {
		<-h.hold
	}
	q := r.URL.Query()
	w.Header().Set("Content-Type", "application/json")
	var body any
	switch ep {
	case "details/getAnimalDetails":
		b, ok := h.animals[strings.ToUpper(q.Get("searchString"))]
		if !ok {
			http.Error(w, `{"message":"not found"}`, http.StatusNotFound)
			return
		}
		body = map[string]any{"success": true, "data": map[string]any{
			"progenyCount": 0, "dateOfBirth": b.dob, "gender": b.sex, "flockCount": "1",
			"breed":                 map[string]any{"breedName": "Katahdin", "breedDisplayString": "640 - Katahdin", "breedId": b.breed},
			"searchResultViewModel": b.row(),
			"contactInfo":           map[string]any{"flockCode": b.flock, "farmName": "Test Farm"},
		}}
	case "details/getLineage":
		if code := h.broken[strings.ToUpper(q.Get("lpnId"))]; code != 0 {
			http.Error(w, `{"message":"unavailable"}`, code)
			return
		}
		b, ok := h.animals[strings.ToUpper(q.Get("lpnId"))]
		if !ok {
			http.Error(w, `{"message":"not found"}`, http.StatusNotFound)
			return
		}
		body = map[string]any{"success": true, "data": h.node(b, 0)}
	case "search/getTraitRangesByBreed":
		breed, _ := strconv.Atoi(q.Get("breedId"))
		rg := map[string]map[string]float64{}
		for _, b := range h.animals {
			if b.breed != breed {
				continue
			}
			for c, v := range b.ebv {
				c = strings.ToUpper(c)
				if cur, ok := rg[c]; !ok {
					rg[c] = map[string]float64{"min": v[0], "max": v[0]}
				} else {
					cur["min"], cur["max"] = min(cur["min"], v[0]), max(cur["max"], v[0])
				}
			}
		}
		body = rg
	case "search/getPageOfSearchResults":
		body = h.search(r)
	case "search/getDateLastUpdated":
		// What the client asks, once, to tell a missing animal from a
		// wrong base URL.
		body = map[string]any{"success": true, "data": "09/01/2025"}
	default:
		http.NotFound(w, r)
		return
	}
	_ = json.NewEncoder(w).Encode(body)
}

func (b *beast) row() map[string]any {
	row := map[string]any{"lpnId": b.id, "lpnSre": b.sire, "lpnDam": b.dam, "status": b.status, "regNumber": "",
		"dateOfBirth": b.dob, "gender": b.sex, "breedId": b.breed, "flockCode": b.flock}
	for c, v := range b.ebv {
		row[strings.ToLower(c)] = v[0]
		row["acc"+strings.ToLower(c)] = v[1]
	}
	return row
}

func (h *herd) node(b *beast, gen int) map[string]any {
	n := map[string]any{"lpnId": b.id, "content": fmt.Sprintf("<div>Test Farm</div><div>Sex: %s</div><div>Status: %s</div>", b.sex, b.status)}
	var kids []any
	if gen < h.depth && (b.sire != "" || b.dam != "") {
		for _, p := range []string{b.sire, b.dam} {
			if p == "" {
				kids = append(kids, nil)
			} else {
				kids = append(kids, h.node(h.animals[p], gen+1))
			}
		}
	}
	n["children"] = kids
	return n
}

func (h *herd) search(r *http.Request) any {
	q := r.URL.Query()
	var c nsip.SearchCriteria
	_ = json.NewDecoder(r.Body).Decode(&c)
	page, _ := strconv.Atoi(q.Get("page"))
	size, _ := strconv.Atoi(q.Get("pageSize"))
	breed, _ := strconv.Atoi(q.Get("breedId"))
	var rows []*beast
	for _, b := range h.animals {
		if (breed == 0 || b.breed == breed) && (c.FlockID == "" || b.flock == c.FlockID) &&
			(c.Gender == "" || c.Gender == "Both" || b.sex == c.Gender) && (c.Status == "" || b.status == c.Status) {
			rows = append(rows, b)
		}
	}
	slices.SortFunc(rows, func(a, b *beast) int { return strings.Compare(a.id, b.id) })
	if t := strings.ToUpper(q.Get("sortedBreedTrait")); t != "" {
		desc := h.sortDesc != (q.Get("reverse") == "true")
		slices.SortStableFunc(rows, func(a, b *beast) int {
			av, aok := a.ebv[t]
			bv, bok := b.ebv[t]
			switch {
			case !aok || !bok: // animals without the trait last
				return boolCmp(!aok, !bok)
			case av[0] == bv[0]:
				return 0
			case (av[0] > bv[0]) == desc:
				return -1
			}
			return 1
		})
	}
	recs := []any{}
	for i := page * size; i < min(len(rows), (page+1)*size); i++ {
		recs = append(recs, rows[i].row())
	}
	return map[string]any{"recordCount": len(rows), "records": recs}
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// herdEnv is a gateway whose NSIP is h.
func herdEnv(t *testing.T, h *herd) *env {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	if h.hold != nil {
		t.Cleanup(h.release) // before Close, which waits for held requests
	}
	return newEnv(t, func(_ *Config, o *[]nsip.Option) { *o = append(*o, nsip.WithBaseURL(ts.URL+"/api")) })
}
