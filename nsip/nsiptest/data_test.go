package nsiptest_test

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

func TestDatasetShape(t *testing.T) {
	d := nsiptest.NewDataset(1, 0)
	if d.Len() < 3500 || d.Len() > 4500 {
		t.Errorf("default dataset has %d animals, want about 4000", d.Len())
	}
	lpn := regexp.MustCompile(`^(\d{3})(\d{3})(\d{4})([A-Z]{3})(\d{3})$`)
	parents := map[string]int{}
	lowAcc, accs := 0, 0
	for _, id := range d.AnimalIDs() {
		a := animal(t, d, id)
		m := lpn.FindStringSubmatch(id)
		if m == nil {
			t.Fatalf("LPN ID %q is not breed+flock+year+letters+tattoo", id)
		}
		if m[1] != fmt.Sprint(a.BreedID) || m[1]+m[2] != a.FlockCode || m[3] != fmt.Sprint(a.Born.Year()) {
			t.Errorf("%s: breed %d, flock %s, born %v disagree with the ID", id, a.BreedID, a.FlockCode, a.Born)
		}
		if (a.Sire == "") != (a.Dam == "") {
			t.Errorf("%s has only one parent recorded", id)
		}
		for i, p := range []string{a.Sire, a.Dam} {
			if p == "" {
				continue
			}
			parents[p]++
			pa := animal(t, d, p)
			if pa.BreedID != a.BreedID || !pa.Born.Before(a.Born) || pa.Gender != []string{"Male", "Female"}[i] {
				t.Errorf("%s: parent %s (%s, breed %d, born %v) is not an older %s of the breed",
					id, p, pa.Gender, pa.BreedID, pa.Born, []string{"sire", "dam"}[i])
			}
		}
		var codes []string
		for _, tr := range a.Traits {
			codes = append(codes, tr.Code)
		}
		if !slices.Equal(codes, d.BreedTraitCodes(a.BreedID)) || a.Contact.FlockCode != a.FlockCode || !slices.Contains(d.Statuses(), a.Status) {
			t.Errorf("%s: %d traits, contact of flock %s, status %q", id, len(a.Traits), a.Contact.FlockCode, a.Status)
		}
		for _, tr := range a.Traits {
			accs++
			if tr.Accuracy < 50 {
				lowAcc++
			}
			if tr.Code == "MWWT" && tr.Accuracy == -1 {
				continue // published without accuracy
			}
			if tr.Accuracy < 1 || tr.Accuracy > 99 {
				t.Errorf("%s %s accuracy %d%%", id, tr.Code, tr.Accuracy)
			}
		}
	}
	// Progeny are exactly the animals naming the subject as a parent.
	for _, id := range d.AnimalIDs() {
		a := animal(t, d, id)
		kids := d.Progeny(id)
		if a.ProgenyCount != parents[id] || len(kids) != parents[id] {
			t.Fatalf("%s: ProgenyCount %d, Progeny %d, animals naming it %d", id, a.ProgenyCount, len(kids), parents[id])
		}
		for i := 1; i < len(kids); i++ {
			if animal(t, d, kids[i-1]).Born.Before(animal(t, d, kids[i]).Born) {
				t.Fatalf("%s: progeny not newest first at %d", id, i)
			}
		}
	}
	if frac := float64(lowAcc) / float64(accs); frac < 0.1 || frac > 0.9 {
		t.Errorf("%.0f%% of accuracies below 50%%, want a real spread", frac*100)
	}
	most, none := d.MostProgeny(), d.NoProgeny()
	if n := animal(t, d, most).ProgenyCount; n < 100 || n > 400 {
		t.Errorf("MostProgeny %s has %d progeny, want 100..400", most, n)
	}
	if n := animal(t, d, none).ProgenyCount; n != 0 {
		t.Errorf("NoProgeny %s has %d progeny", none, n)
	}
	if f := animal(t, d, d.Founder()); f.Sire != "" || f.ProgenyCount == 0 || d.PedigreeDepth(f.LPNID) != 0 {
		t.Errorf("Founder %s: sire %q, %d progeny, depth %d", f.LPNID, f.Sire, f.ProgenyCount, d.PedigreeDepth(f.LPNID))
	}
	if d.PedigreeDepth("NOPE") != -1 || d.Progeny("NOPE") != nil {
		t.Error("unknown animal has a depth or progeny")
	}
	var special, missing int
	for _, c := range d.Flocks() {
		if strings.ContainsAny(c.FarmName, "éñø&ü") {
			special++
		}
		if c.Email == "" || c.Phone == "" || c.Address == "" {
			missing++
		}
	}
	if special == 0 || missing == 0 {
		t.Errorf("%d flocks with non-ASCII or & names, %d with missing contact fields; want some of each", special, missing)
	}
}

func TestPedigreeDepth(t *testing.T) {
	d := nsiptest.NewDataset(1, 0)
	deep := d.DeepPedigree()
	if n := d.PedigreeDepth(deep); n < nsiptest.LineageDepth {
		t.Fatalf("DeepPedigree %s is %d generations deep, want >= %d", deep, n, nsiptest.LineageDepth)
	}
	// Some recent animals have their lineage's generations complete; as in
	// a real breed, most have an unrecorded parent somewhere among them
	// (about 4% have four generations complete in the default world).
	recent, full := 0, 0
	for _, id := range d.AnimalIDs() {
		if animal(t, d, id).Born.Year() >= 2023 {
			recent++
			if d.PedigreeDepth(id) >= nsiptest.LineageDepth {
				full++
			}
		}
	}
	if full*30 < recent || full*2 > recent {
		t.Errorf("%d of %d animals born since 2023 have %d full generations, want between a thirtieth and a half", full, recent, nsiptest.LineageDepth)
	}
	// Served: a full binary tree down to the cap, every node its animal.
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
	root := unwrap[node](t, get(t, srv, nsiptest.EndpointLineage+"?lpnId="+deep))
	levels := map[int]int{}
	var walk func(n node, gen int)
	walk = func(n node, gen int) {
		levels[gen]++
		a := animal(t, d, n.LpnID)
		if n.Content != a.Content {
			t.Errorf("%s content %q, want %q", n.LpnID, n.Content, a.Content)
		}
		if len(n.Children) == 2 && (n.Children[0].LpnID != a.Sire || n.Children[1].LpnID != a.Dam) {
			t.Errorf("%s children %s, %s; want sire %s, dam %s", n.LpnID, n.Children[0].LpnID, n.Children[1].LpnID, a.Sire, a.Dam)
		}
		for _, c := range n.Children {
			walk(c, gen+1)
		}
	}
	walk(root, 0)
	for g := 0; g <= nsiptest.LineageDepth; g++ {
		if levels[g] != 1<<g {
			t.Errorf("generation %d has %d nodes, want %d", g, levels[g], 1<<g)
		}
	}
	if levels[nsiptest.LineageDepth+1] != 0 {
		t.Errorf("tree goes past the depth cap")
	}
}

type node struct {
	LpnID    string `json:"lpnId"`
	Content  string `json:"content"`
	Children []node `json:"children"`
}

func TestContentFragment(t *testing.T) {
	d := nsiptest.NewDataset(1, 0)
	full := regexp.MustCompile(`^<div>[^<]+</div>(<div>(US Index|US Hair Index|SRC\$ Index): \d+\.\d\d</div>)*(<div>DOB: \d{1,2}/\d{1,2}/\d{4}</div>)?<div>Sex: (Male|Female)</div>(<div>Status: [A-Z]+</div>)?$`)
	shortened := 0
	for _, id := range d.AnimalIDs() {
		a := animal(t, d, id)
		if !full.MatchString(a.Content) {
			t.Fatalf("%s content %q is not the documented fragment", id, a.Content)
		}
		if strings.Count(a.Content, "<div>") < 4+len(a.Indexes) {
			shortened++
		}
		hair := a.BreedGroupID == 64
		if hair && strings.Contains(a.Content, "US Index:") || !hair && strings.Contains(a.Content, "US Hair Index") {
			t.Errorf("%s (group %d): %q", id, a.BreedGroupID, a.Content)
		}
	}
	if shortened == 0 || shortened > d.Len()/4 {
		t.Errorf("%d fragments lack a line, want a few", shortened)
	}
}

// TestSameSeedSameBytes checks two servers answer alike; the package
// caches datasets per seed, so generation itself is compared apart, in
// TestGenerationIsDeterministic.
func TestSameSeedSameBytes(t *testing.T) {
	a, b := nsiptest.NewServer(t, nsiptest.Options{Seed: 42, Animals: 900}), nsiptest.NewServer(t, nsiptest.Options{Seed: 42, Animals: 900})
	other := nsiptest.NewServer(t, nsiptest.Options{Seed: 43, Animals: 900})
	id := a.Data().MostProgeny()
	for _, p := range []struct{ method, path, body string }{
		{"GET", nsiptest.EndpointLastUpdated, ""},
		{"GET", nsiptest.EndpointBreedGroups, ""},
		{"GET", nsiptest.EndpointTraitRanges + "?breedId=620", ""},
		{"POST", nsiptest.EndpointSearch + "?page=2&pageSize=50&sortedBreedTrait=WWT", `{"gender":"Female"}`},
		{"GET", nsiptest.EndpointDetails + "?searchString=" + id, ""},
		{"GET", nsiptest.EndpointLineage + "?lpnId=" + a.Data().DeepPedigree(), ""},
		{"GET", nsiptest.EndpointProgeny + "?page=0&pageSize=100&lpnId=" + id, ""},
	} {
		ra, rb := do(t, a, p.method, p.path, p.body), do(t, b, p.method, p.path, p.body)
		if ra.status != 200 || string(ra.body) != string(rb.body) {
			t.Errorf("%s: answers differ between two servers with seed 42", p.path)
		}
	}
	if slices.Equal(a.Data().AnimalIDs(), other.Data().AnimalIDs()) {
		t.Error("seeds 42 and 43 generated the same animals")
	}
}

func TestSearchFiltersAndOrder(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1, Animals: 1500})
	d := srv.Data()
	flock := animal(t, d, d.MostProgeny()).FlockCode
	type row struct {
		LpnID string  `json:"lpnId"`
		WWT   float64 `json:"wwt"`
		BWT   float64 `json:"bwt"`
	}
	cases := []struct {
		name   string
		query  string
		body   string
		keep   func(a nsiptest.Animal) bool
		sorted func(a, b row) bool // must hold for consecutive rows
	}{
		{"everything", "", "{}", func(nsiptest.Animal) bool { return true },
			func(a, b row) bool { return a.LpnID < b.LpnID }},
		{"reverse", "&reverse=true", "{}", func(nsiptest.Animal) bool { return true },
			func(a, b row) bool { return a.LpnID > b.LpnID }},
		{"breed in query", "&breedId=640", "{}", func(a nsiptest.Animal) bool { return a.BreedID == 640 }, nil},
		{"breed group", "", `{"breedGroupId":69}`, func(a nsiptest.Animal) bool { return a.BreedGroupID == 69 }, nil},
		{"query and body breeds intersect", "&breedId=640", `{"breedId":620}`, func(nsiptest.Animal) bool { return false }, nil},
		{"born window", "", `{"bornAfter":"2020-03-01","bornBefore":"2021-02-28"}`, func(a nsiptest.Animal) bool {
			return !a.Born.Before(date("2020-03-01")) && !a.Born.After(date("2021-02-28"))
		}, nil},
		{"rams only", "", `{"gender":"Male"}`, func(a nsiptest.Animal) bool { return a.Gender == "Male" }, nil},
		{"both genders", "", `{"gender":"Both"}`, func(nsiptest.Animal) bool { return true }, nil},
		{"proven", "", `{"provenOnly":true}`, func(a nsiptest.Animal) bool { return a.ProgenyCount > 0 }, nil},
		{"status any case", "", `{"status":"sold"}`, func(a nsiptest.Animal) bool { return a.Status == "SOLD" }, nil},
		{"flock", "", `{"flockId":"` + flock + `"}`, func(a nsiptest.Animal) bool { return a.FlockCode == flock }, nil},
		{"trait range, open end", "", `{"traitRanges":{"WWT":{"min":1.5},"bwt":{"min":-0.2,"max":0.1}}}`, func(a nsiptest.Animal) bool {
			w, _ := a.Trait("WWT")
			b, _ := a.Trait("BWT")
			return w.Value >= 1.5 && b.Value >= -0.2 && b.Value <= 0.1
		}, nil},
		{"sorted by WWT", "&sortedBreedTrait=WWT&breedId=640", "{}", func(a nsiptest.Animal) bool { return a.BreedID == 640 },
			func(a, b row) bool { return a.WWT > b.WWT || a.WWT == b.WWT && a.LpnID < b.LpnID }},
		{"sorted by bwt reversed", "&sortedBreedTrait=bwt&reverse=true", `{"gender":"Female"}`,
			func(a nsiptest.Animal) bool { return a.Gender == "Female" },
			func(a, b row) bool { return a.BWT < b.BWT || a.BWT == b.BWT && a.LpnID > b.LpnID }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := 0
			for _, id := range d.AnimalIDs() {
				if c.keep(animal(t, d, id)) {
					want++
				}
			}
			var seen []row
			total := -1
			for pg := 0; ; pg++ {
				var p struct {
					RecordCount int   `json:"recordCount"`
					Records     []row `json:"records"`
				}
				decode200(t, do(t, srv, "POST", fmt.Sprintf("%s?page=%d&pageSize=100%s", nsiptest.EndpointSearch, pg, c.query), c.body), &p)
				if total >= 0 && p.RecordCount != total {
					t.Fatalf("recordCount changed from %d to %d between pages", total, p.RecordCount)
				}
				total = p.RecordCount
				seen = append(seen, p.Records...)
				if len(p.Records) < 100 {
					break
				}
			}
			if total != want || len(seen) != want {
				t.Fatalf("recordCount %d, rows %d; want %d matching animals", total, len(seen), want)
			}
			for i, r := range seen {
				if !c.keep(animal(t, d, r.LpnID)) {
					t.Fatalf("row %d (%s) does not match the criteria", i, r.LpnID)
				}
				if c.sorted != nil && i > 0 && !c.sorted(seen[i-1], r) {
					t.Fatalf("rows %d and %d out of order: %+v then %+v", i-1, i, seen[i-1], r)
				}
			}
			if c.name == "everything" && (total < 1000 || total != d.Len()) {
				t.Errorf("empty criteria: %d records, want all %d animals (thousands)", total, d.Len())
			}
		})
	}
}

func date(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestSearchMatchesDatasetSearch(t *testing.T) {
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
	c := nsiptest.Criteria{Gender: "Female", TraitRanges: map[string]nsiptest.Range{"NLB": {Min: 0, Max: math.Inf(1)}}}
	ids, err := srv.Data().Search(640, c, "NLB", false)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		RecordCount int `json:"recordCount"`
		Records     []struct {
			LpnID string `json:"lpnId"`
		} `json:"records"`
	}
	body, _ := json.Marshal(map[string]any{"gender": "Female", "traitRanges": map[string]any{"NLB": map[string]any{"min": 0}}})
	decode200(t, do(t, srv, "POST", nsiptest.EndpointSearch+"?page=1&pageSize=20&breedId=640&sortedBreedTrait=NLB", string(body)), &p)
	if p.RecordCount != len(ids) || len(p.Records) != 20 {
		t.Fatalf("recordCount %d with %d rows, Dataset.Search gave %d", p.RecordCount, len(p.Records), len(ids))
	}
	for i, r := range p.Records {
		if r.LpnID != ids[20+i] {
			t.Errorf("row %d is %s, Dataset.Search has %s", i, r.LpnID, ids[20+i])
		}
	}
	if _, err := srv.Data().Search(0, nsiptest.Criteria{Gender: "Ewe"}, "", false); err == nil || !strings.Contains(err.Error(), "gender") {
		t.Errorf("bad gender: err = %v, want one naming gender", err)
	}
}
