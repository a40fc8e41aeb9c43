package lookup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// fakeSource is a call's source with answers by key, recording what the
// runs asked of it.
type fakeSource struct {
	passed   []Read
	pass     toolcall.Outcome // what Pass answers
	answers  map[string]toolcall.Obtained
	fail     map[string]error // Obtain's failures by key
	analyzed int
	breeds   []int // the breeds UnknownBreed was asked about
	refuse   bool  // UnknownBreed refuses
	fits     []toolcall.Call
	onceKeys []string
	onceIDs  [][]uint64
	data     [][]string
	joined   json.RawMessage
}

func (f *fakeSource) Pass(_ context.Context, r Read, _ toolcall.Call) toolcall.Outcome {
	f.passed = append(f.passed, r)
	o := f.pass
	o.Params = r.Key
	return o
}

func (f *fakeSource) Obtain(_ context.Context, r Read) (toolcall.Obtained, error) {
	if err := f.fail[r.Key]; err != nil {
		return toolcall.Obtained{}, err
	}
	ob, ok := f.answers[r.Key]
	if !ok {
		return ob, fmt.Errorf("no answer under %s", r.Key)
	}
	return ob, nil
}

func (f *fakeSource) Fit(_ context.Context, kind summarize.Kind, c toolcall.Call, value any, raw json.RawMessage) (summarize.Result, error) {
	f.fits = append(f.fits, c)
	p, ok := value.(*nsip.AnimalProfile)
	if !ok || string(p.Raw) != string(raw) {
		return summarize.Result{}, errors.New("the fit was not handed the profile and its JSON")
	}
	return summarize.Result{Text: fmt.Sprintf("%s:%s", kind, raw), Summarized: c.View.Budget > 0}, nil
}

func (f *fakeSource) FitOnce(ctx context.Context, key string, ids []uint64, fit func(context.Context) (summarize.Result, error)) (summarize.Result, error) {
	f.onceKeys, f.onceIDs = append(f.onceKeys, key), append(f.onceIDs, ids)
	return fit(ctx)
}

func (f *fakeSource) Data(keys []string, _ []uint64, join func([]*upstream.Answer) json.RawMessage) full.Data {
	f.data = append(f.data, keys)
	as := make([]*upstream.Answer, len(keys))
	for i, k := range keys {
		as[i] = f.answers[k].A
	}
	f.joined = join(as)
	return full.Data{Ref: fmt.Sprint(keys)}
}

func (f *fakeSource) MapError(_ param.Valid, err error) *toolerr.Error {
	return &toolerr.Error{Code: toolerr.CodeUpstreamError, Problem: err.Error()}
}

func (f *fakeSource) UnknownBreed(_ context.Context, field string, breed int, _ *param.Call) *toolerr.Error {
	f.breeds = append(f.breeds, breed)
	if !f.refuse {
		return nil
	}
	return &toolerr.Error{Code: toolerr.CodeNotFound, Field: field, Problem: fmt.Sprintf("NSIP has no breed %d", breed)}
}

func (f *fakeSource) Analyze(context.Context, toolcall.Call) toolcall.Outcome {
	f.analyzed++
	return toolcall.Outcome{Res: summarize.Result{Text: "percentiles"}}
}

// callOf is a validated call of d with the arguments m.
func callOf(t *testing.T, d *Def, m map[string]any) toolcall.Call {
	t.Helper()
	sent := param.SentOf(m)
	args, errs := d.Args.Validate(sent)
	if len(errs) > 0 {
		t.Fatalf("%s %v: %v", d.Name, m, errs)
	}
	c := toolcall.Call{Sent: sent, Args: args}
	if b, ok := args.Int("max_tokens"); ok {
		c.View.Budget = b
	}
	return c
}

// nsip_get_animal is one read passed through, unless percentiles are
// asked for: then its analysis runs and NSIP's record is not read here.
func TestAnimalRunsItsAnalysisOnlyForPercentiles(t *testing.T) {
	ctx := context.Background()
	src := &fakeSource{}
	Animal.Run(ctx, callOf(t, Animal, map[string]any{"search_string": nsiptest.ExampleRam}), src)
	if len(src.passed) != 1 || src.passed[0].Def != Animal || src.analyzed != 0 {
		t.Errorf("plain call: passed %v, analyzed %d; want one read of the record", src.passed, src.analyzed)
	}
	o := Animal.Run(ctx, callOf(t, Animal, map[string]any{"search_string": nsiptest.ExampleRam, "percentiles": true}), src)
	if src.analyzed != 1 || len(src.passed) != 1 || o.Res.Text != "percentiles" {
		t.Errorf("with percentiles: analyzed %d, passed %d, answer %q; want the analysis's answer alone", src.analyzed, len(src.passed), o.Res.Text)
	}
}

// An empty search of a breed NSIP lacks is refused naming the breed, in
// either place a breed is given; an empty search of a breed NSIP has, or
// a search that found animals, is passed through as it is.
func TestSearchRefusesOnlyAnEmptyPageOfAnUnknownBreed(t *testing.T) {
	ctx := context.Background()
	empty := toolcall.Outcome{Value: &nsip.SearchResults{}, Res: summarize.Result{Text: `{"recordCount":0}`}}
	found := toolcall.Outcome{Value: &nsip.SearchResults{TotalCount: 1, Results: []nsip.AnimalRow{{LPNID: nsiptest.ExampleRam}}}}
	for _, tc := range []struct {
		name      string
		args      map[string]any
		pass      toolcall.Outcome
		refuse    bool
		wantBreed []int
		wantField string
	}{
		{"unknown breed", map[string]any{"breed_id": 9999}, empty, true, []int{9999}, "breed_id"},
		{"unknown breed in the criteria", map[string]any{"search_criteria": map[string]any{"breed_id": 9998}}, empty, true, []int{9998}, "search_criteria.breed_id"},
		{"a breed NSIP has", map[string]any{"breed_id": 640}, empty, false, []int{640}, ""},
		{"no breed asked", map[string]any{}, empty, true, nil, ""},
		{"animals found", map[string]any{"breed_id": 9999}, found, true, nil, ""},
	} {
		src := &fakeSource{pass: tc.pass, refuse: tc.refuse}
		o := SearchAnimals.Run(ctx, callOf(t, SearchAnimals, tc.args), src)
		if !slices.Equal(src.breeds, tc.wantBreed) {
			t.Errorf("%s: breeds checked %v, want %v", tc.name, src.breeds, tc.wantBreed)
		}
		switch {
		case tc.wantField == "" && o.Err != nil:
			t.Errorf("%s: refused %v; want the page passed through", tc.name, o.Err)
		case tc.wantField != "" && (o.Err == nil || o.Err.Field != tc.wantField || o.Err.Code != toolerr.CodeNotFound):
			t.Errorf("%s: %+v; want not_found on %s", tc.name, o.Err, tc.wantField)
		case o.Params == "":
			t.Errorf("%s: the outcome lost the read's arguments for the log", tc.name)
		}
	}
}

// NSIP's not-found of a breed's trait ranges becomes the list's refusal
// when the list lacks the breed; other failures are left as they are.
func TestTraitRangesNotFoundNamesTheBreeds(t *testing.T) {
	ctx := context.Background()
	notFound := toolcall.Outcome{Err: &toolerr.Error{Code: toolerr.CodeNotFound, Problem: "NSIP has no trait ranges for breed 9999"}}
	src := &fakeSource{pass: notFound, refuse: true}
	o := TraitRanges.Run(ctx, callOf(t, TraitRanges, map[string]any{"breed_id": 9999}), src)
	if o.Err == nil || o.Err.Problem != "NSIP has no breed 9999" || !slices.Equal(src.breeds, []int{9999}) {
		t.Errorf("unknown breed: %+v, checked %v; want the list's refusal", o.Err, src.breeds)
	}
	src = &fakeSource{pass: notFound}
	if o := TraitRanges.Run(ctx, callOf(t, TraitRanges, map[string]any{"breed_id": 641}), src); o.Err != notFound.Err {
		t.Errorf("a breed NSIP has: %+v; want NSIP's own not-found", o.Err)
	}
	down := toolcall.Outcome{Err: &toolerr.Error{Code: toolerr.CodeUpstreamError, Problem: "NSIP is down"}}
	src = &fakeSource{pass: down, refuse: true}
	if o := TraitRanges.Run(ctx, callOf(t, TraitRanges, map[string]any{"breed_id": 9999}), src); o.Err != down.Err || len(src.breeds) != 0 {
		t.Errorf("NSIP down: %+v, checked %v; want the failure as it is, no list read", o.Err, src.breeds)
	}
}

// profileSource holds the three parts of ExampleRam's profile, each from
// where said.
func profileSource(t *testing.T, sources [3]string) (*fakeSource, [3]Read) {
	t.Helper()
	parts, err := ProfileParts(nsiptest.ExampleRam)
	if err != nil {
		t.Fatal(err)
	}
	models := [3]any{&nsip.AnimalDetails{LPNID: nsiptest.ExampleRam}, &nsip.Lineage{}, &nsip.ProgenyPage{}}
	raws := [3]string{`{"d":1}`, `{"l":2}`, `{"p":3}`}
	src := &fakeSource{answers: map[string]toolcall.Obtained{}}
	for i, p := range parts {
		src.answers[p.Key] = toolcall.Obtained{
			A:      &upstream.Answer{ID: uint64(10 + i), Value: models[i], Raw: json.RawMessage(raws[i])},
			Source: sources[i], StaleAge: time.Duration(i+1) * time.Minute, StaleReason: fmt.Sprint("reason ", i),
		}
	}
	return src, parts
}

// A profile is its three parts joined, fitted once for every caller over
// the same parts; where it came from is the worst of its parts'.
func TestProfileJoinsItsPartsAndFitsThemOnce(t *testing.T) {
	ctx := context.Background()
	src, parts := profileSource(t, [3]string{toolcall.Hit, toolcall.Stale, toolcall.Miss})
	c := callOf(t, SearchByLPN, map[string]any{"lpn_id": nsiptest.ExampleRam})
	o := SearchByLPN.Run(ctx, c, src)
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	want := string(summarize.KindProfile) + `:{"details":{"d":1},"lineage":{"l":2},"progeny":{"p":3}}`
	if o.Res.Text != want {
		t.Errorf("text %s, want %s", o.Res.Text, want)
	}
	key := SearchByLPN.Read(c.Args).Key
	if !slices.Equal(src.onceKeys, []string{key}) || !slices.Equal(src.onceIDs[0], []uint64{10, 11, 12}) {
		t.Errorf("fitted once under %v over %v; want %s over the parts' ids", src.onceKeys, src.onceIDs, key)
	}
	if o.Source != toolcall.Stale || o.Cache != toolcall.Stale || o.StaleAge != 2*time.Minute || o.StaleReason != "reason 1" {
		t.Errorf("source %q/%q, stale %v %q; want stale, as the lineage was", o.Source, o.Cache, o.StaleAge, o.StaleReason)
	}
	if o.Params != key[len(SearchByLPN.Method)+1:] || !o.PageLinks || o.Data.Build != nil || src.data != nil {
		t.Errorf("params %q, page links %v, data %v; want the key's arguments, links, and no data for an answer whole", o.Params, o.PageLinks, src.data)
	}
	if p, ok := o.Value.(*nsip.AnimalProfile); !ok || p.Details.LPNID != nsiptest.ExampleRam || p.Raw != nil {
		t.Errorf("value %#v; want the parts as models without their JSON", o.Value)
	}

	// A view of its own is fitted for the call alone, and a summary's
	// data is the parts joined.
	c = callOf(t, SearchByLPN, map[string]any{"lpn_id": nsiptest.ExampleRam, "max_tokens": 3000})
	src, _ = profileSource(t, [3]string{toolcall.Hit, toolcall.Shared, toolcall.Hit})
	o = SearchByLPN.Run(ctx, c, src)
	if o.Err != nil || len(src.onceKeys) != 0 || len(src.fits) != 1 || src.fits[0].View.Budget != 3000 {
		t.Errorf("view: %v, fitted once %v, fits %v; want one fit of this call's view", o.Err, src.onceKeys, src.fits)
	}
	if o.Source != toolcall.Shared || len(src.data) != 1 || !slices.Equal(src.data[0], []string{parts[0].Key, parts[1].Key, parts[2].Key}) ||
		string(src.joined) != `{"details":{"d":1},"lineage":{"l":2},"progeny":{"p":3}}` {
		t.Errorf("source %q, data %v %s; want shared, and the parts' keys joined", o.Source, src.data, src.joined)
	}
}

// A part that cannot be had fails the profile with its error; a part NSIP
// sent in a shape the client could not read makes the profile's fit the
// generic one, and says so.
func TestProfileFailuresAndOddShapes(t *testing.T) {
	ctx := context.Background()
	c := callOf(t, SearchByLPN, map[string]any{"lpn_id": nsiptest.ExampleRam})
	src, parts := profileSource(t, [3]string{toolcall.Hit, toolcall.Hit, toolcall.Hit})
	src.fail = map[string]error{parts[2].Key: errors.New("progeny unavailable")}
	if o := SearchByLPN.Run(ctx, c, src); o.Err == nil || o.Err.Problem != "progeny unavailable" || o.Params == "" {
		t.Errorf("failed part: %+v, params %q; want the part's error, logged with the call's arguments", o.Err, o.Params)
	}
	src, parts = profileSource(t, [3]string{toolcall.Hit, toolcall.Hit, toolcall.Hit})
	src.answers[parts[1].Key].A.Drift = &nsip.Error{Endpoint: "lineage", Reason: "unexpected member: x"}
	o := SearchByLPN.Run(ctx, c, src)
	if o.Err != nil || o.Res.Text[:len("generic:")] != "generic:" || o.FormatNote == "" {
		t.Errorf("odd shape: %v, %q, note %q; want the generic fit and a note", o.Err, o.Res.Text, o.FormatNote)
	}
}
