package analysistest

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

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// FakeAnimal is one record the fake source serves, in every shape NSIP
// gives it: details, a lineage node and a search row.
type FakeAnimal struct {
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

// FakeSource is an in-memory Source: animals, their lineages built from
// the same records, search pages cut from a sorted list, trait ranges per
// breed and a scripted user. It counts each method's calls, and can refuse
// lookups past a ceiling of its own as the gateway does.
type FakeSource struct {
	mu      sync.Mutex
	Animals map[string]*FakeAnimal

	// LineageGens is how many generations a lineage answer holds, the
	// subject included (live answers show four); 0 means 4.
	LineageGens int
	// OneChild makes a lineage node with one known parent list it as its
	// only child, which decodes as the sire whichever parent it is.
	OneChild bool
	// LoneDam makes a lineage node with both parents list the dam alone,
	// as NSIP may: the animal's details still name both.
	LoneDam bool
	// Ranges overrides the trait ranges of a breed; otherwise they are the
	// min and max over the breed's animals.
	Ranges map[int][]nsip.TraitRange
	// Unsorted makes search ignore sorted_trait and reverse, as a server
	// that does not honour them would.
	Unsorted bool
	// IgnoreGender makes search ignore the gender criterion.
	IgnoreGender bool
	// Pages rewrites the rows of a served page, for paging NSIP does not
	// promise: short pages, repeats across pages.
	Pages func(page int, rows []nsip.AnimalRow) []nsip.AnimalRow
	// Stale is the lookups the gateway would say it answered from stale
	// copies.
	Stale int
	// Fail makes Details and Lineage of an ID fail with the given error,
	// and Ranges of breed N when keyed "breed N".
	Fail map[string]error

	Answers map[string]any // Ask's answers; nil means the client cannot be asked
	AskErr  error
	Over    bool // OverBudget's answer
	// OverAt, when set, makes OverBudget answer whether the answer's JSON
	// is longer than this many bytes.
	OverAt int
	// OverIf, when set, decides OverBudget by the answer itself.
	OverIf func(v any) bool
	Code   string

	// Evaluation is the date Evaluation answers, EvalErr its failure;
	// AfterSearch, when set, runs after the nth search is served, so that
	// a test can publish a new evaluation between two pages.
	Evaluation  string
	EvalErr     error
	AfterSearch func(n int)

	// Ceiling refuses lookups past it with ErrCeiling; 0 means none.
	Ceiling int
	// Limit is what the source says of the call's room (Limits): the zero
	// Limits say nothing, which leaves the analysis its default width, no
	// time limit to judge a long read by and no rate limit.
	Limit analysis.Limits
	// Store is the breed passes the source keeps between calls (Passes);
	// nil keeps none.
	Store analysis.Passes
	// TimeLimitAt refuses lookups past it with ErrTimeLimit, as the
	// gateway does once the call's time has passed, counted in lookups
	// so that no test depends on a clock; 0 means none.
	TimeLimitAt int
	timedOut    bool

	calls    map[string]int
	Lookups  int // lookups served or failed, not refused
	Refused  int
	Forms    []analysis.Form
	Searches []map[string]any
}

// row is the animal as a search row.
func (a *FakeAnimal) row() nsip.AnimalRow {
	return nsip.AnimalRow{LPNID: a.ID, Sire: a.Sire, Dam: a.Dam, Status: a.Status, Sex: a.Sex,
		DateOfBirth: a.Born, BreedID: a.Breed, FlockCode: a.Flock, Traits: TraitsOf(a.EBV), Indexes: indexesOf(a.Index), Genotyped: a.Genotyped}
}

func NewFake(as ...*FakeAnimal) *FakeSource {
	f := &FakeSource{Animals: map[string]*FakeAnimal{}, calls: map[string]int{}, Code: "UPSTREAM_ERROR", Evaluation: "09/23/2025"}
	for _, a := range as {
		f.Add(a)
	}
	return f
}

func (f *FakeSource) Add(a *FakeAnimal) {
	if a.Breed == 0 {
		a.Breed = 640
	}
	f.Animals[a.ID] = a
}

// Count records a call and, for a lookup, charges it against the ceiling.
func (f *FakeSource) Count(method string, lookup bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[method]++
	if !lookup {
		return nil
	}
	if f.TimeLimitAt > 0 && f.Lookups >= f.TimeLimitAt {
		f.Refused++
		f.timedOut = true
		return analysis.ErrTimeLimit
	}
	if f.Ceiling > 0 && f.Lookups >= f.Ceiling {
		f.Refused++
		return analysis.ErrCeiling
	}
	f.Lookups++
	return nil
}

func (f *FakeSource) CallsOf(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[method]
}

func NotFound(id string) error {
	return &nsip.Error{Kind: nsip.KindNotFound, Param: "lpn_id", Value: id, Reason: "no such animal"}
}

func TraitsOf(ebv map[string]float64) []nsip.Trait {
	var ts []nsip.Trait
	for _, c := range slices.Sorted(maps.Keys(ebv)) {
		ts = append(ts, nsip.Trait{Code: c, Value: ebv[c], Accuracy: 70, HasAccuracy: true})
	}
	return ts
}

func (f *FakeSource) Details(ctx context.Context, id string) (*nsip.AnimalDetails, error) {
	if err := f.Count("details", true); err != nil {
		return nil, err
	}
	if err := f.Fail[id]; err != nil {
		return nil, err
	}
	a := f.Animals[id]
	if a == nil {
		return nil, NotFound(id)
	}
	return &nsip.AnimalDetails{LPNID: a.ID, Breed: fmt.Sprintf("Breed %d", a.Breed), BreedID: a.Breed, DateOfBirth: a.Born,
		Gender: a.Sex, Status: a.Status, Sire: a.Sire, Dam: a.Dam, Traits: TraitsOf(a.EBV), Indexes: indexesOf(a.Index), Genotyped: a.Genotyped}, nil
}

// node is id's lineage node with gens generations, itself included. A
// parent without a record of its own still appears, with no parents.
func (f *FakeSource) node(id string, gens int) *nsip.LineageNode {
	if id == "" || gens == 0 {
		return nil
	}
	n := &nsip.LineageNode{LPNID: id}
	if a := f.Animals[id]; a != nil {
		n.Sex, n.Status, n.DOB = a.Sex, a.Status, a.Born
		n.Sire, n.Dam = f.node(a.Sire, gens-1), f.node(a.Dam, gens-1)
		if f.OneChild && n.Sire == nil || f.LoneDam && n.Dam != nil {
			n.Sire, n.Dam = n.Dam, nil
		}
	}
	return n
}

func (f *FakeSource) Lineage(ctx context.Context, id string) (*nsip.Lineage, error) {
	if err := f.Count("lineage", true); err != nil {
		return nil, err
	}
	if err := f.Fail[id]; err != nil {
		return nil, err
	}
	if f.Animals[id] == nil {
		return nil, NotFound(id)
	}
	gens := f.LineageGens
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
func (f *FakeSource) Search(ctx context.Context, q analysis.Query) (*nsip.SearchResults, error) {
	args := queryArgs(q)
	if err := f.Count("search", true); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.Searches = append(f.Searches, maps.Clone(args))
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
	var rows []*FakeAnimal
	for _, a := range f.Animals {
		g, _ := crit["gender"].(string)
		if f.IgnoreGender {
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
	if f.Unsorted {
		trait, reverse = "", false
	}
	// Each row's sort value is read once before sorting: a search of a
	// breed of thousands sorts it again for every page.
	type keyed struct {
		a  *FakeAnimal
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
		res.Results = append(res.Results, a.row())
	}
	if f.Pages != nil {
		res.Results = f.Pages(page, res.Results)
	}
	if f.AfterSearch != nil {
		f.AfterSearch(f.CallsOf("search"))
	}
	return res, nil
}

// Progeny serves one page of the animals whose sire or dam is id, by LPN
// ID, with the rows a progeny page carries (no status, flock or parents).
func (f *FakeSource) Progeny(ctx context.Context, id string, page, size int) (*nsip.ProgenyPage, error) {
	if err := f.Count("progeny", true); err != nil {
		return nil, err
	}
	if err := f.Fail[id]; err != nil {
		return nil, err
	}
	if f.Animals[id] == nil {
		return nil, NotFound(id)
	}
	if size < 1 || size > nsip.MaxPageSize || page < 0 {
		return nil, fmt.Errorf("fake progeny: page %d, page_size %d", page, size)
	}
	var kids []*FakeAnimal
	for _, a := range f.Animals {
		if a.Sire == id || a.Dam == id {
			kids = append(kids, a)
		}
	}
	slices.SortFunc(kids, func(x, y *FakeAnimal) int { return strings.Compare(x.ID, y.ID) })
	var rows []nsip.AnimalRow
	for _, a := range kids[min(len(kids), page*size):min(len(kids), (page+1)*size)] {
		rows = append(rows, nsip.AnimalRow{LPNID: a.ID, Sex: a.Sex, DateOfBirth: a.Born, Traits: TraitsOf(a.EBV)})
	}
	if f.Pages != nil {
		rows = f.Pages(page, rows)
	}
	res := &nsip.ProgenyPage{LPNID: id, TotalCount: len(kids), Page: page, PageSize: size}
	for _, r := range rows {
		res.Animals = append(res.Animals, nsip.ProgenyRow{LPNID: r.LPNID, Sex: r.Sex, DateOfBirth: r.DateOfBirth, Traits: r.Traits})
	}
	return res, nil
}

func (f *FakeSource) TraitRanges(ctx context.Context, breed int) (*nsip.TraitRanges, error) {
	if err := f.Count("ranges", true); err != nil {
		return nil, err
	}
	if err := f.Fail[fmt.Sprint("breed ", breed)]; err != nil {
		return nil, err
	}
	if rs, ok := f.Ranges[breed]; ok {
		return &nsip.TraitRanges{BreedID: breed, Ranges: rs}, nil
	}
	lo, hi := map[string]float64{}, map[string]float64{}
	for _, a := range f.Animals {
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

// LastUpdate counts every read as "evaluation"; the analyses ask NSIP,
// now or recently.
func (f *FakeSource) LastUpdate(ctx context.Context, asked analysis.Asked) (*nsip.LastUpdate, error) {
	if asked == analysis.Cached {
		return nil, fmt.Errorf("fake: an analysis read the evaluation date from the cache")
	}
	if err := f.Count("evaluation", true); err != nil {
		return nil, err
	}
	if f.EvalErr != nil {
		return nil, f.EvalErr
	}
	return &nsip.LastUpdate{Date: f.Evaluation}, nil
}

// queryArgs is q as nsip_search_animals's arguments, the form the fake
// checks and records searches in: only what q sets.
func queryArgs(q analysis.Query) map[string]any {
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
	if c := nsiparg.Criteria(q.Criteria); !c.Empty() {
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

func (f *FakeSource) Ask(ctx context.Context, form analysis.Form) (analysis.Answers, bool, error) {
	f.Count("ask", false)
	f.mu.Lock()
	f.Forms = append(f.Forms, form)
	f.mu.Unlock()
	if f.AskErr != nil {
		return analysis.Answers{}, true, f.AskErr
	}
	if f.Answers == nil {
		return analysis.Answers{}, false, nil
	}
	// The answers are given as validated values, by name: each goes to the
	// form's Also when it names one, else to its Fields.
	out := analysis.Answers{Fields: analysis.NewChoices(), Also: analysis.NewChoices()}
	for k, v := range f.Answers {
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

func (f *FakeSource) OverBudget(ctx context.Context, v any) bool {
	f.Count("overbudget", false)
	if f.OverIf != nil {
		return f.OverIf(v)
	}
	if f.OverAt > 0 {
		b, _ := json.Marshal(v)
		return len(b) > f.OverAt
	}
	return f.Over
}

func (f *FakeSource) Budgets() (int, int) { return 2000, 8000 }

func (f *FakeSource) Upstream() analysis.Upstream {
	f.Count("upstream", false)
	f.mu.Lock()
	defer f.mu.Unlock()
	return analysis.Upstream{Ceiling: f.Ceiling, Lookups: f.Lookups, Stale: f.Stale, TimeLimitSeconds: 30, TimeLimitReached: f.timedOut}
}

func (f *FakeSource) Limits() analysis.Limits { return f.Limit }

func (f *FakeSource) Passes() analysis.Passes { return f.Store }

func (f *FakeSource) ErrorCode(err error) string {
	f.Count("errorcode", false)
	return f.Code
}

// Run validates sent as the gateway would and runs d over f; invalid
// arguments fail the test, since they are not what these tests are about.
func Run(t *testing.T, d *analysis.Def, f *FakeSource, sent map[string]any) (any, error) {
	t.Helper()
	return analysis.Run(context.Background(), d, f, Discard(), param.SentOf(sent), Valid(t, d, sent))
}

// Valid is sent validated as the gateway validates a call of d.
func Valid(t testing.TB, d *analysis.Def, sent map[string]any) param.Valid {
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
var percentileCalls = param.MustStruct[animalCall](param.Tables(
	param.Of(func(a *animalCall) param.Described {
		return param.Described{&a.SearchString: {Example: nsiparg.ExampleLPN}, &a.Percentiles: {Example: true}}
	}),
	param.BudgetTable,
))

// Decode JSON-encodes an answer and reads it back into out, as a client
// would see it. out is zeroed first: decoding into a used value would
// merge maps with the last answer's.
func Decode(t *testing.T, v any, out any) {
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

func MustRun(t *testing.T, d *analysis.Def, f *FakeSource, sent map[string]any, out any) {
	t.Helper()
	v, err := Run(t, d, f, sent)
	if err != nil {
		t.Fatalf("%s(%v): %v", d.Name, sent, err)
	}
	Decode(t, v, out)
}

func Near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b)) }

// LineageFail is a fake whose lineage of one animal fails, its details
// still served.
type LineageFail struct {
	*FakeSource
	ID  string
	Err error
}

func (l *LineageFail) Lineage(ctx context.Context, id string) (*nsip.Lineage, error) {
	if id == l.ID {
		l.Count("lineage", true)
		return nil, l.Err
	}
	return l.FakeSource.Lineage(ctx, id)
}

func Discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
