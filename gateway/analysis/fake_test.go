package analysis

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// fakeAnimal is one record the fake source serves, in every shape NSIP
// gives it: details, a lineage node and a search row.
type fakeAnimal struct {
	ID, Sire, Dam string
	Sex           string // "Male" or "Female" as NSIP spells them, or anything else
	Breed         int
	Born          string
	Flock         string
	Status        string
	EBV           map[string]float64
	Index         map[string]float64 // NSIP's own indexes by name
	Genotyped     string
}

func indexesOf(m map[string]float64) []nsip.Index {
	var out []nsip.Index
	for _, n := range slices.Sorted(maps.Keys(m)) {
		out = append(out, nsip.Index{Name: n, Value: m[n]})
	}
	return out
}

// fakeSource is an in-memory Source: animals, their lineages built from
// the same records, search pages cut from a sorted list, trait ranges per
// breed and a scripted user. It counts each method's calls, and can refuse
// lookups past a ceiling of its own as the gateway does.
type fakeSource struct {
	mu      sync.Mutex
	animals map[string]*fakeAnimal

	// lineageGens is how many generations a lineage answer holds, the
	// subject included (live answers show four); 0 means 4.
	lineageGens int
	// oneChild makes a lineage node with one known parent list it as its
	// only child, which decodes as the sire whichever parent it is.
	oneChild bool
	// loneDam makes a lineage node with both parents list the dam alone,
	// as NSIP may: the animal's details still name both.
	loneDam bool
	// ranges overrides the trait ranges of a breed; otherwise they are the
	// min and max over the breed's animals.
	ranges map[int][]nsip.TraitRange
	// unsorted makes search ignore sorted_trait and reverse, as a server
	// that does not honour them would.
	unsorted bool
	// ignoreGender makes search ignore the gender criterion.
	ignoreGender bool
	// pages rewrites the rows of a served page, for paging NSIP does not
	// promise: short pages, repeats across pages.
	pages func(page int, rows []nsip.AnimalRow) []nsip.AnimalRow
	// stale is the lookups the gateway would say it answered from stale
	// copies.
	stale int
	// fail makes Details and Lineage of an ID fail with the given error,
	// and Ranges of breed N when keyed "breed N".
	fail map[string]error

	answers map[string]any // Ask's answers; nil means the client cannot be asked
	askErr  error
	over    bool // OverBudget's answer
	// overAt, when set, makes OverBudget answer whether the answer's JSON
	// is longer than this many bytes.
	overAt int
	// overIf, when set, decides OverBudget by the answer itself.
	overIf func(v any) bool
	code   string

	// evaluation is the date Evaluation answers, evalErr its failure;
	// afterSearch, when set, runs after the nth search is served, so that
	// a test can publish a new evaluation between two pages.
	evaluation  string
	evalErr     error
	afterSearch func(n int)

	// ceiling refuses lookups past it with ErrCeiling; 0 means none.
	ceiling int
	// parallel, when set, is the lookups the analysis may keep under way
	// (Parallel); 0 leaves the analysis its default.
	parallel int
	// timeLimitAt refuses lookups past it with ErrTimeLimit, as the
	// gateway does once the call's time has passed, counted in lookups
	// so that no test depends on a clock; 0 means none.
	timeLimitAt int
	timedOut    bool

	calls    map[string]int
	lookups  int // lookups served or failed, not refused
	refused  int
	forms    []Form
	searches []map[string]any
}

func newFake(as ...*fakeAnimal) *fakeSource {
	f := &fakeSource{animals: map[string]*fakeAnimal{}, calls: map[string]int{}, code: "UPSTREAM_ERROR", evaluation: "09/23/2025"}
	for _, a := range as {
		f.add(a)
	}
	return f
}

func (f *fakeSource) add(a *fakeAnimal) {
	if a.Breed == 0 {
		a.Breed = 640
	}
	f.animals[a.ID] = a
}

// count records a call and, for a lookup, charges it against the ceiling.
func (f *fakeSource) count(method string, lookup bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[method]++
	if !lookup {
		return nil
	}
	if f.timeLimitAt > 0 && f.lookups >= f.timeLimitAt {
		f.refused++
		f.timedOut = true
		return ErrTimeLimit
	}
	if f.ceiling > 0 && f.lookups >= f.ceiling {
		f.refused++
		return ErrCeiling
	}
	f.lookups++
	return nil
}

func (f *fakeSource) callsOf(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[method]
}

func notFound(id string) error {
	return &nsip.Error{Kind: nsip.KindNotFound, Param: "lpn_id", Value: id, Reason: "no such animal"}
}

func traitsOf(ebv map[string]float64) []nsip.Trait {
	var ts []nsip.Trait
	for _, c := range slices.Sorted(maps.Keys(ebv)) {
		ts = append(ts, nsip.Trait{Code: c, Value: ebv[c], Accuracy: 70, HasAccuracy: true})
	}
	return ts
}

func (f *fakeSource) Details(ctx context.Context, id string) (*nsip.AnimalDetails, error) {
	if err := f.count("details", true); err != nil {
		return nil, err
	}
	if err := f.fail[id]; err != nil {
		return nil, err
	}
	a := f.animals[id]
	if a == nil {
		return nil, notFound(id)
	}
	return &nsip.AnimalDetails{LPNID: a.ID, Breed: fmt.Sprintf("Breed %d", a.Breed), BreedID: a.Breed, DateOfBirth: a.Born,
		Gender: a.Sex, Status: a.Status, Sire: a.Sire, Dam: a.Dam, Traits: traitsOf(a.EBV), Indexes: indexesOf(a.Index), Genotyped: a.Genotyped}, nil
}

// node is id's lineage node with gens generations, itself included. A
// parent without a record of its own still appears, with no parents.
func (f *fakeSource) node(id string, gens int) *nsip.LineageNode {
	if id == "" || gens == 0 {
		return nil
	}
	n := &nsip.LineageNode{LPNID: id}
	if a := f.animals[id]; a != nil {
		n.Sex, n.Status, n.DOB = a.Sex, a.Status, a.Born
		n.Sire, n.Dam = f.node(a.Sire, gens-1), f.node(a.Dam, gens-1)
		if f.oneChild && n.Sire == nil || f.loneDam && n.Dam != nil {
			n.Sire, n.Dam = n.Dam, nil
		}
	}
	return n
}

func (f *fakeSource) Lineage(ctx context.Context, id string) (*nsip.Lineage, error) {
	if err := f.count("lineage", true); err != nil {
		return nil, err
	}
	if err := f.fail[id]; err != nil {
		return nil, err
	}
	if f.animals[id] == nil {
		return nil, notFound(id)
	}
	gens := f.lineageGens
	if gens == 0 {
		gens = 4
	}
	return &nsip.Lineage{Subject: *f.node(id, gens)}, nil
}

// Search serves one page of the animals matching breed_id and the criteria
// the fake knows (gender, flock_id, status), sorted as NSIP sorts: by the
// sorted trait highest first, animals without it last, ties and the
// unsorted case by LPN ID; reverse turns the order around. A criterion it
// does not know fails the call, so a test cannot pass on a filter ignored.
func (f *fakeSource) Search(ctx context.Context, q Query) (*nsip.SearchResults, error) {
	args := queryArgs(q)
	if err := f.count("search", true); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.searches = append(f.searches, maps.Clone(args))
	f.mu.Unlock()
	for k := range args {
		if !slices.Contains([]string{"breed_id", "page", "page_size", "sorted_trait", "reverse", "search_criteria", "evaluation"}, k) {
			return nil, fmt.Errorf("fake search: unknown argument %q", k)
		}
	}
	page, _ := args["page"].(int)
	size, _ := args["page_size"].(int)
	if size < 1 || size > nsip.MaxPageSize || page < 0 {
		return nil, fmt.Errorf("fake search: page %d, page_size %d", page, size)
	}
	breed, _ := args["breed_id"].(int)
	crit, _ := args["search_criteria"].(map[string]any)
	for k := range crit {
		// trait_ranges is taken and ignored, as NSIP may ignore it: what
		// the rows show is the analysis's to check.
		if !slices.Contains([]string{"gender", "flock_id", "status", "trait_ranges"}, k) {
			return nil, fmt.Errorf("fake search: criterion %q not supported", k)
		}
	}
	var rows []*fakeAnimal
	for _, a := range f.animals {
		g, _ := crit["gender"].(string)
		if f.ignoreGender {
			g = ""
		}
		fl, _ := crit["flock_id"].(string)
		st, _ := crit["status"].(string)
		if (breed == 0 || a.Breed == breed) && (g == "" || g == "Both" || g == a.Sex) && (fl == "" || fl == a.Flock) && (st == "" || strings.EqualFold(st, a.Status)) {
			rows = append(rows, a)
		}
	}
	trait, _ := args["sorted_trait"].(string)
	reverse, _ := args["reverse"].(bool)
	if f.unsorted {
		trait, reverse = "", false
	}
	// Each row's sort value is read once before sorting: a search of a
	// breed of thousands sorts it again for every page.
	type keyed struct {
		a  *fakeAnimal
		v  float64
		ok bool
	}
	ks := make([]keyed, len(rows))
	for i, a := range rows {
		ks[i].a = a
		if trait != "" {
			ks[i].v, ks[i].ok = a.EBV[trait]
		}
	}
	slices.SortFunc(ks, func(x, y keyed) int {
		c := 0
		switch {
		case trait == "":
		case x.ok != y.ok && x.ok:
			c = -1
		case x.ok != y.ok:
			c = 1
		case x.v > y.v:
			c = -1
		case x.v < y.v:
			c = 1
		}
		if c == 0 {
			c = strings.Compare(x.a.ID, y.a.ID)
		}
		if reverse {
			return -c
		}
		return c
	})
	for i := range ks {
		rows[i] = ks[i].a
	}
	res := &nsip.SearchResults{TotalCount: len(rows), Page: page, PageSize: size}
	for _, a := range rows[min(len(rows), page*size):min(len(rows), (page+1)*size)] {
		res.Results = append(res.Results, nsip.AnimalRow{LPNID: a.ID, Sire: a.Sire, Dam: a.Dam, Status: a.Status, Sex: a.Sex,
			DateOfBirth: a.Born, BreedID: a.Breed, FlockCode: a.Flock, Traits: traitsOf(a.EBV), Indexes: indexesOf(a.Index), Genotyped: a.Genotyped})
	}
	if f.pages != nil {
		res.Results = f.pages(page, res.Results)
	}
	if f.afterSearch != nil {
		f.afterSearch(f.callsOf("search"))
	}
	return res, nil
}

// Progeny serves one page of the animals whose sire or dam is id, by LPN
// ID, with the rows a progeny page carries (no status, flock or parents).
func (f *fakeSource) Progeny(ctx context.Context, id string, page, size int) (*nsip.ProgenyPage, error) {
	if err := f.count("progeny", true); err != nil {
		return nil, err
	}
	if err := f.fail[id]; err != nil {
		return nil, err
	}
	if f.animals[id] == nil {
		return nil, notFound(id)
	}
	if size < 1 || size > nsip.MaxPageSize || page < 0 {
		return nil, fmt.Errorf("fake progeny: page %d, page_size %d", page, size)
	}
	var kids []*fakeAnimal
	for _, a := range f.animals {
		if a.Sire == id || a.Dam == id {
			kids = append(kids, a)
		}
	}
	slices.SortFunc(kids, func(x, y *fakeAnimal) int { return strings.Compare(x.ID, y.ID) })
	var rows []nsip.AnimalRow
	for _, a := range kids[min(len(kids), page*size):min(len(kids), (page+1)*size)] {
		rows = append(rows, nsip.AnimalRow{LPNID: a.ID, Sex: a.Sex, DateOfBirth: a.Born, Traits: traitsOf(a.EBV)})
	}
	if f.pages != nil {
		rows = f.pages(page, rows)
	}
	res := &nsip.ProgenyPage{LPNID: id, TotalCount: len(kids), Page: page, PageSize: size}
	for _, r := range rows {
		res.Animals = append(res.Animals, nsip.ProgenyRow{LPNID: r.LPNID, Sex: r.Sex, DateOfBirth: r.DateOfBirth, Traits: r.Traits})
	}
	return res, nil
}

func (f *fakeSource) TraitRanges(ctx context.Context, breed int) (*nsip.TraitRanges, error) {
	if err := f.count("ranges", true); err != nil {
		return nil, err
	}
	if err := f.fail[fmt.Sprint("breed ", breed)]; err != nil {
		return nil, err
	}
	if rs, ok := f.ranges[breed]; ok {
		return &nsip.TraitRanges{BreedID: breed, Ranges: rs}, nil
	}
	lo, hi := map[string]float64{}, map[string]float64{}
	for _, a := range f.animals {
		if a.Breed != breed {
			continue
		}
		for c, v := range a.EBV {
			if _, ok := lo[c]; !ok {
				lo[c], hi[c] = v, v
			}
			lo[c], hi[c] = min(lo[c], v), max(hi[c], v)
		}
	}
	tr := &nsip.TraitRanges{BreedID: breed}
	for _, c := range slices.Sorted(maps.Keys(lo)) {
		tr.Ranges = append(tr.Ranges, nsip.TraitRange{Code: c, Range: nsip.Range{Min: lo[c], Max: hi[c]}})
	}
	return tr, nil
}

// LastUpdate counts every read as "evaluation"; the analyses ask fresh.
func (f *fakeSource) LastUpdate(ctx context.Context, fresh bool) (*nsip.LastUpdate, error) {
	if !fresh {
		return nil, fmt.Errorf("fake: an analysis read the evaluation date from the cache")
	}
	if err := f.count("evaluation", true); err != nil {
		return nil, err
	}
	if f.evalErr != nil {
		return nil, f.evalErr
	}
	return &nsip.LastUpdate{Date: f.evaluation}, nil
}

// queryArgs is q as nsip_search_animals's arguments, the form the fake
// checks and records searches in: only what q sets.
func queryArgs(q Query) map[string]any {
	args := map[string]any{"page": q.Page, "page_size": q.PageSize}
	if q.BreedID != 0 {
		args["breed_id"] = q.BreedID
	}
	if q.SortedTrait != "" {
		args["sorted_trait"] = q.SortedTrait
	}
	if q.Reverse {
		args["reverse"] = true
	}
	if c := param.Criteria(q.Criteria); !c.Empty() {
		var obj map[string]any
		if b, err := json.Marshal(c); err == nil {
			_ = json.Unmarshal(b, &obj) // the criteria as a call sends them
		}
		args["search_criteria"] = obj
	}
	if q.Evaluation != "" {
		args["evaluation"] = q.Evaluation
	}
	return args
}

func (f *fakeSource) Ask(ctx context.Context, form Form) (Answers, bool, error) {
	f.count("ask", false)
	f.mu.Lock()
	f.forms = append(f.forms, form)
	f.mu.Unlock()
	if f.askErr != nil {
		return Answers{}, true, f.askErr
	}
	if f.answers == nil {
		return Answers{}, false, nil
	}
	// The answers are given as validated values, by name: each goes to the
	// form's Also when it names one, else to its Fields.
	out := Answers{Fields: NewChoices(), Also: NewChoices()}
	for k, v := range f.answers {
		c := &out.Fields
		if param.Named(form.Also, k) != nil {
			c = &out.Also
		}
		if !c.Put(k, v) {
			panic(fmt.Sprintf("fake answer %s: %T is no form value", k, v))
		}
	}
	return out, true, nil
}

func (f *fakeSource) OverBudget(ctx context.Context, v any) bool {
	f.count("overbudget", false)
	if f.overIf != nil {
		return f.overIf(v)
	}
	if f.overAt > 0 {
		b, _ := json.Marshal(v)
		return len(b) > f.overAt
	}
	return f.over
}

func (f *fakeSource) Budgets() (int, int) { return 2000, 8000 }

func (f *fakeSource) Upstream() Upstream {
	f.count("upstream", false)
	f.mu.Lock()
	defer f.mu.Unlock()
	return Upstream{Ceiling: f.ceiling, Lookups: f.lookups, Stale: f.stale, TimeLimitSeconds: 30, TimeLimitReached: f.timedOut}
}

func (f *fakeSource) Parallel() int { return f.parallel }

func (f *fakeSource) ErrorCode(err error) string {
	f.count("errorcode", false)
	return f.code
}

// run validates sent as the gateway would and runs d over f; invalid
// arguments fail the test, since they are not what these tests are about.
func run(t *testing.T, d *Def, f *fakeSource, sent map[string]any) (any, error) {
	t.Helper()
	return Run(context.Background(), d, f, discard(), param.SentOf(sent), valid(t, d, sent))
}

// valid is sent validated as the gateway validates a call of d.
func valid(t *testing.T, d *Def, sent map[string]any) param.Valid {
	t.Helper()
	check := d.Validate
	if d.Name == toolname.GetAnimal {
		// The gateway validates these by nsip_get_animal's own arguments,
		// of the lookup package, which imports the analyses.
		check = percentileCalls.Validate
	}
	args, errs := check(param.SentOf(sent))
	if len(errs) > 0 {
		t.Fatalf("%s: arguments %v: %v", d.Name, sent, errs)
	}
	return args
}

// animalCall holds the members of nsip_get_animal's arguments that the
// percentile analysis reads, as its own argument struct names them: this
// package cannot import the analysis it serves the tests of.
type animalCall struct {
	SearchString string `json:"search_string"`
	Percentiles  bool   `json:"percentiles,omitempty"`
	param.Budget
}

// percentileCalls are the members of nsip_get_animal's arguments that
// the percentile analysis reads.
var percentileCalls = param.MustStruct[animalCall](param.Table{
	reflect.TypeFor[animalCall]():   {"SearchString": {Example: param.ExampleLPN}, "Percentiles": {Example: true}},
	reflect.TypeFor[param.Budget](): param.BudgetFields,
})

// decode JSON-encodes an answer and reads it back into out, as a client
// would see it. out is zeroed first: decoding into a used value would
// merge maps with the last answer's.
func decode(t *testing.T, v any, out any) {
	t.Helper()
	reflect.ValueOf(out).Elem().SetZero()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}

func mustRun(t *testing.T, d *Def, f *fakeSource, sent map[string]any, out any) {
	t.Helper()
	v, err := run(t, d, f, sent)
	if err != nil {
		t.Fatalf("%s(%v): %v", d.Name, sent, err)
	}
	decode(t, v, out)
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b)) }

// lineageFail is a fake whose lineage of one animal fails, its details
// still served.
type lineageFail struct {
	*fakeSource
	id  string
	err error
}

func (l *lineageFail) Lineage(ctx context.Context, id string) (*nsip.Lineage, error) {
	if id == l.id {
		l.count("lineage", true)
		return nil, l.err
	}
	return l.fakeSource.Lineage(ctx, id)
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
