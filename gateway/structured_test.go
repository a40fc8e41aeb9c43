package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/nsip-tools/nsip-mcp/gateway/internal/snapshot"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// wireOutputSchemas are the tools' outputSchemas as the server writes them
// in tools/list. (mcp-go's client reads an outputSchema into a struct that
// keeps only type, properties, required and $defs, so the tests read the
// server's side.)
func wireOutputSchemas(t testing.TB, g *Gateway) map[string]json.RawMessage {
	t.Helper()
	out := map[string]json.RawMessage{}
	for _, st := range g.Tools() {
		b, err := json.Marshal(st.Tool)
		if err != nil {
			t.Fatal(err)
		}
		var wire struct {
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(b, &wire); err != nil {
			t.Fatal(err)
		}
		out[st.Tool.Name] = wire.OutputSchema
	}
	return out
}

// compiled are every tool's output schema compiled by a JSON Schema
// validator, for draft 2020-12 (MCP's default dialect) and draft 7 (the
// default of common client validators), by tool name.
var compiled struct {
	once    sync.Once
	schemas map[string][2]*jsonschema.Schema
	err     error
}

func compiledSchemas(t testing.TB) map[string][2]*jsonschema.Schema {
	t.Helper()
	compiled.once.Do(func() {
		sum, _ := summarizer(t)
		g, err := New(&stubUpstream{}, sum, Config{Logger: discard()})
		if err != nil {
			compiled.err = err
			return
		}
		compiled.schemas = map[string][2]*jsonschema.Schema{}
		for name, raw := range wireOutputSchemas(t, g) {
			if len(raw) == 0 {
				compiled.err = fmt.Errorf("%s declares no outputSchema", name)
				return
			}
			var pair [2]*jsonschema.Schema
			for i, draft := range []*jsonschema.Draft{jsonschema.Draft2020, jsonschema.Draft7} {
				doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
				if err != nil {
					compiled.err = fmt.Errorf("%s: outputSchema is not JSON: %w", name, err)
					return
				}
				c := jsonschema.NewCompiler()
				c.DefaultDraft(draft)
				url := fmt.Sprintf("mem://%s/%d.json", name, i)
				if err := c.AddResource(url, doc); err != nil {
					compiled.err = err
					return
				}
				if pair[i], err = c.Compile(url); err != nil {
					compiled.err = fmt.Errorf("%s: outputSchema does not compile: %w", name, err)
					return
				}
			}
			compiled.schemas[name] = pair
		}
	})
	if compiled.err != nil {
		t.Fatal(compiled.err)
	}
	return compiled.schemas
}

// checkStructured holds a result to the structured-output contract: an
// error carries no structuredContent; a success carries an object that
// validates against the tool's outputSchema, and where the text is JSON the
// server wrote (a summary, an analysis) it is the text itself.
func checkStructured(t testing.TB, name string, res *mcp.CallToolResult, text string) {
	t.Helper()
	if res.IsError {
		if res.StructuredContent != nil || len(res.RawStructuredContent) > 0 {
			t.Errorf("%s: an error result carries structuredContent %s", name, res.RawStructuredContent)
		}
		return
	}
	raw := res.RawStructuredContent
	if len(raw) == 0 {
		t.Errorf("%s: no structuredContent beside the text", name)
		return
	}
	schemas, ok := compiledSchemas(t)[name]
	if !ok {
		t.Errorf("%s: no output schema", name)
		return
	}
	for i, s := range schemas {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Errorf("%s: structuredContent is not JSON: %v", name, err)
			return
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("%s: structuredContent does not validate against its outputSchema (%s): %v\n%.600s",
				name, []string{"draft 2020-12", "draft 7"}[i], err, raw)
		}
	}
	// The wire escapes <, > and & in the copy, not in the text: the two
	// are compared as JSON values.
	summarized := res.Meta != nil && res.Meta.AdditionalFields["summarized"] == true
	if (summarized || slices.Contains(analysisTools, name)) && !sameJSON(raw, []byte(text)) {
		t.Errorf("%s: the structured copy differs from the text\n text %.300s\ncopy %.300s", name, text, raw)
	}
}

// sameJSON reports whether a and b are the same JSON value, numbers
// compared as written.
func sameJSON(a, b []byte) bool {
	var x, y any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&x) != nil || db.Decode(&y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// structured decodes a result's structured copy.
func structured(t *testing.T, e *env, name string, args map[string]any) (reply, map[string]any) {
	t.Helper()
	r := callTool(t, e.client, name, args).mustOK(t)
	var m map[string]any
	if err := json.Unmarshal(r.structured, &m); err != nil {
		t.Fatalf("%s: structuredContent %q: %v", name, r.structured, err)
	}
	return r, m
}

// TestStructuredPassThroughIsTheModel calls every lookup whose answer fits
// its budget: the text is NSIP's JSON as before, and the structured copy is
// the answer as the client's model reads it, with the same values.
func TestStructuredPassThroughIsTheModel(t *testing.T) {
	e := newEnv(t)
	data := e.up.Data()
	id, founder, parent := data.NoProgeny(), data.Founder(), data.MostProgeny()

	_, last := structured(t, e, "nsip_get_last_update", nil)
	var lastText map[string]any
	r, _ := structured(t, e, "nsip_get_last_update", nil)
	_ = json.Unmarshal([]byte(r.text), &lastText)
	if last["date"] == nil || last["date"] != lastText["date"] {
		t.Errorf("last update: structured %v, text %s", last, r.text)
	}

	r, st := structured(t, e, "nsip_get_statuses", nil)
	var statuses []any
	if err := json.Unmarshal([]byte(r.text), &statuses); err != nil {
		t.Fatalf("statuses text %s: %v", r.text, err)
	}
	if got, _ := st["values"].([]any); len(got) == 0 || fmt.Sprint(got) != fmt.Sprint(statuses) {
		t.Errorf("statuses: structured %v, text %v (a list, which structuredContent cannot be)", st["values"], statuses)
	}

	_, st = structured(t, e, "nsip_get_trait_ranges", map[string]any{"breed_id": 640})
	ranges, _ := st["ranges"].([]any)
	if st["breedId"] != float64(640) || len(ranges) == 0 {
		t.Errorf("trait ranges: %v", st)
	}

	_, st = structured(t, e, "nsip_list_breeds", nil)
	if groups, _ := st["groups"].([]any); len(groups) == 0 {
		t.Errorf("breeds: %v", st)
	}

	r, st = structured(t, e, "nsip_search_animals", map[string]any{"page_size": 2, "breed_id": 640})
	if r.meta["summarized"] != false {
		t.Fatalf("search page of 2 was summarized: %v", r.meta)
	}
	rows, _ := st["results"].([]any)
	if len(rows) != 2 || st["totalCount"] != r.meta["total_count"] || st["pageSize"] != float64(2) {
		t.Errorf("search: %d rows, totalCount %v (meta %v), pageSize %v", len(rows), st["totalCount"], r.meta["total_count"], st["pageSize"])
	}

	r, st = structured(t, e, "nsip_get_animal", map[string]any{"search_string": id})
	if r.meta["summarized"] != false || st["lpnId"] != id || !strings.Contains(r.text, id) {
		t.Errorf("animal %s: lpnId %v, meta %v", id, st["lpnId"], r.meta)
	}
	if traits, _ := st["traits"].([]any); len(traits) == 0 {
		t.Errorf("animal %s: no traits in the structured copy", id)
	} else if acc := traits[0].(map[string]any)["accuracy"].(float64); acc <= 1 {
		t.Errorf("accuracy %v: the models carry percent", acc)
	}

	_, st = structured(t, e, "nsip_get_lineage", map[string]any{"lpn_id": founder})
	if subject, _ := st["subject"].(map[string]any); subject["lpnId"] != founder {
		t.Errorf("lineage of %s: %v", founder, st)
	}

	r, st = structured(t, e, "nsip_get_progeny", map[string]any{"lpn_id": parent, "page_size": 3})
	if animals, _ := st["animals"].([]any); len(animals) != 3 || st["lpnId"] != parent || r.meta["summarized"] != false {
		t.Errorf("progeny of %s: %d animals, lpnId %v, meta %v", parent, len(animals), st["lpnId"], r.meta)
	}

	r, st = structured(t, e, "nsip_search_by_lpn", map[string]any{"lpn_id": id, "max_tokens": 8000})
	details, _ := st["details"].(map[string]any)
	if r.meta["summarized"] != false || details["lpnId"] != id || st["lineage"] == nil || st["progeny"] == nil {
		t.Errorf("profile of %s: meta %v, structured %.300v", id, r.meta, st)
	}
}

// TestStructuredSummaryIsTheText covers summarized answers of every shape:
// the structured copy is the summary's own bytes.
func TestStructuredSummaryIsTheText(t *testing.T) {
	e := newEnv(t)
	parent := e.up.Data().MostProgeny()
	tests := []struct {
		tool string
		args map[string]any
		kind string
	}{
		{"nsip_search_animals", map[string]any{"page_size": 100}, "search_results"},
		{"nsip_get_progeny", map[string]any{"lpn_id": parent, "page_size": 100}, "progeny"},
		{"nsip_get_lineage", map[string]any{"lpn_id": parent}, "lineage"},
		{"nsip_search_by_lpn", map[string]any{"lpn_id": parent}, "animal_profile"},
		{"nsip_get_animal", map[string]any{"search_string": parent, "max_tokens": 256}, "animal_details"},
		{"nsip_list_breeds", map[string]any{"max_tokens": 256}, "generic"},
		{"nsip_search_animals", map[string]any{"page_size": 100, "traits": []string{"WWT"}, "skip": 40}, "search_results"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			r, st := structured(t, e, tt.tool, tt.args)
			if r.meta["summarized"] != true || st["summary"] != true {
				t.Fatalf("not summarized: meta %v, structured %.200v", r.meta, st)
			}
			if tt.kind != "" && st["kind"] != tt.kind {
				t.Errorf("kind %v, want %s", st["kind"], tt.kind)
			}
		})
	}
}

// TestStructuredUnrecognizedShape: when NSIP answers in a shape the client
// cannot read, the text is NSIP's JSON as sent and the structured copy
// holds it whole in the generic form, marked as no summary.
func TestStructuredUnrecognizedShape(t *testing.T) {
	e := newEnv(t)
	e.up.SetFault(nsiptest.EndpointProgeny, nsiptest.Fault{Kind: nsiptest.FaultWrongShape})
	r, st := structured(t, e, "nsip_get_progeny", map[string]any{"lpn_id": e.up.Data().MostProgeny()})
	if r.text != `{"message":"OK","items":"none"}` || r.meta["shape_recognized"] != false {
		t.Fatalf("text %s, meta %v", r.text, r.meta)
	}
	want := map[string]any{"summary": false, "kind": "generic", "of": "progeny", "data": map[string]any{"message": "OK", "items": "none"}}
	if fmt.Sprint(st) != fmt.Sprint(want) {
		t.Errorf("structured %v, want %v", st, want)
	}
}

// TestStructuredAnalyses runs each analysis: its structured copy is its
// text, answers and summaries alike (checkStructured, through callTool).
func TestStructuredAnalyses(t *testing.T) {
	e := newEnv(t)
	data := e.up.Data()
	parent, founder := data.MostProgeny(), data.Founder()
	tests := []struct {
		tool string
		args map[string]any
		key  string // a member the answer has
	}{
		{"nsip_check_mating", map[string]any{"sire_lpn_id": parent, "dam_lpn_id": founder}, "computed"},
		{"nsip_compare_animals", map[string]any{"lpn_ids": []string{parent, founder}}, "animals"},
		{"nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1, "BWT": -0.5}, "top_n": 3}, "computed"},
		{"nsip_flock_summary", map[string]any{"flock_id": strings.ToUpper(parent[4:10])}, "computed"},
		{"nsip_plan_matings", map[string]any{"ram_lpn_ids": []string{parent}, "ewe_lpn_ids": []string{founder}, "weights": map[string]any{"WWT": 1}}, "computed"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			r, st := structured(t, e, tt.tool, tt.args)
			if _, ok := st[tt.key]; !ok && st["summary"] != true {
				t.Errorf("structured copy has no %q: %.300v (meta %v)", tt.key, st, r.meta)
			}
		})
	}
}

// TestOutputSchemasRejectWhatTheAnswersCannotBe checks the checker: a
// copy with a member no answer has, or a value of the wrong type, fails.
func TestOutputSchemasRejectWhatTheAnswersCannotBe(t *testing.T) {
	s := compiledSchemas(t)
	bad := []struct{ tool, doc string }{
		// nsip_get_animal's schema also admits the percentile analysis's
		// answer, an open object like every analysis's, so the strict model
		// checks are made on the lineage's.
		{"nsip_get_lineage", `{"subject":{"lpnId":"A"},"extra":1}`},
		{"nsip_get_lineage", `{"subject":{"lpnId":7}}`},
		{"nsip_get_statuses", `{"values":"CURRENT"}`},
		{"nsip_search_animals", `{"summary":true,"kind":"search_results","columns":[],"rows":[]}`}, // no totals
		{"nsip_get_lineage", `{"subject":{"lpnId":"A","sire":{"farm":"no lpnId"}}}`},
		{"nsip_check_mating", `[]`},
	}
	for _, b := range bad {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(b.doc))
		if err != nil {
			t.Fatal(err)
		}
		for i, sch := range s[b.tool] {
			if sch.Validate(v) == nil {
				t.Errorf("%s schema %d accepts %s", b.tool, i, b.doc)
			}
		}
	}
	good := []struct{ tool, doc string }{
		{"nsip_get_animal", `{"lpnId":"X","totalProgeny":1,"contact":{}}`},
		{"nsip_get_animal", `{}`}, // the shortest note
		{"nsip_get_lineage", `{"subject":{"lpnId":"A","sire":{"lpnId":"B","dam":{"lpnId":"C"}}}}`},
	}
	for _, g := range good {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(g.doc))
		for i, sch := range s[g.tool] {
			if err := sch.Validate(v); err != nil {
				t.Errorf("%s schema %d refuses %s: %v", g.tool, i, g.doc, err)
			}
		}
	}
}

// TestOutputSchemaSnapshot compares each tool's outputSchema, as the server
// writes it, with its contract under specs/contracts/output. Run with
// -update to rewrite them after a deliberate change (a field added to a
// model or a summary changes them).
func TestOutputSchemaSnapshot(t *testing.T) {
	sum, _ := summarizer(t)
	g, err := New(&stubUpstream{}, sum, Config{Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "specs", "contracts", "output")
	live := wireOutputSchemas(t, g)
	for name, raw := range live {
		t.Run(name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			snapshot.Check(t, filepath.Join(dir, name+".json"), snapshot.Indented(t, v), snapshot.JSON,
				"go test ./gateway -run OutputSchemaSnapshot -update")
		})
	}
	snapshot.Orphans(t, dir, func(name string) bool { _, ok := live[name]; return ok })
}

// TestStructuredCopyCost measures what structuredContent adds on the wire
// (recorded in specs/answers.md): per answer, the text's and the copy's
// bytes and cl100k_base tokens and the whole result's bytes with and
// without the copy; and what the output schemas add to tools/list. A
// summary's or an analysis's copy is its text; a pass-through's copy, the
// decoded model, is held to 1.5 times the text's tokens.
//
//	go test ./gateway -run TestStructuredCopyCost -v
func TestStructuredCopyCost(t *testing.T) {
	e := newEnv(t)
	_, c := summarizer(t)
	data := e.up.Data()
	parent := data.MostProgeny()
	tests := []struct {
		tool string
		args map[string]any
	}{
		{"nsip_get_animal", map[string]any{"search_string": parent}},
		{"nsip_search_animals", map[string]any{"page_size": 5, "breed_id": 640}},
		{"nsip_get_progeny", map[string]any{"lpn_id": parent, "page_size": 3}},
		{"nsip_get_trait_ranges", map[string]any{"breed_id": 640}},
		{"nsip_search_animals", map[string]any{"page_size": 100}},
		{"nsip_search_by_lpn", map[string]any{"lpn_id": parent}},
		{"nsip_compare_animals", map[string]any{"lpn_ids": []string{parent, data.Founder()}}},
	}
	for _, tt := range tests {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tt.tool, tt.args
		res, err := e.client.CallTool(t.Context(), req)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", tt.tool, err, res)
		}
		text := res.Content[0].(mcp.TextContent).Text
		with, _ := json.Marshal(res)
		without := *res
		without.StructuredContent, without.RawStructuredContent = nil, nil
		bare, _ := json.Marshal(&without)
		tt1, tt2 := c.Count(text), c.Count(string(res.RawStructuredContent))
		summarized := res.Meta.AdditionalFields["summarized"] == true
		t.Logf("%-22s summarized %-5v text %6d B %5d tok | copy %6d B %5d tok | result %6d B, %6d B without the copy",
			tt.tool, summarized, len(text), tt1, len(res.RawStructuredContent), tt2, len(with), len(bare))
		if !summarized && !slices.Contains(analysisTools, tt.tool) && float64(tt2) > 1.5*float64(tt1) {
			t.Errorf("%s: the model copy costs %d tokens, over 1.5 times the text's %d", tt.tool, tt2, tt1)
		}
	}
	for _, set := range [][]string{{ToolsetLookup}, {ToolsetAnalysis}} {
		g := newEnv(t, withToolsets(set...)).gw
		n, b := 0, 0
		for _, raw := range wireOutputSchemas(t, g) {
			n += c.Count(`"outputSchema":` + string(raw))
			b += len(raw)
		}
		t.Logf("output schemas of the %s toolset: %d B, %d tokens in tools/list", set[0], b, n)
	}
}

// BenchmarkStructuredCopy is what the structured copy costs a hit on a
// passed-through animal: encoding the cached model.
//
//	go test ./gateway -run '^$' -bench StructuredCopy -benchmem
func BenchmarkStructuredCopy(b *testing.B) {
	e := newEnv(b)
	id := e.up.Data().MostProgeny()
	e.call("nsip_get_animal", map[string]any{"search_string": id}).mustOK(b)
	ent, ok := e.gw.cache.Get(animalDef.key(map[string]any{"search_string": id}))
	if !ok {
		b.Fatal("the answer is not cached")
	}
	a := ent.Value.(*upstream.Answer)
	o := outcome{res: a.Res, value: a.Value}
	b.ReportAllocs()
	for b.Loop() {
		if res := withStructured(&mcp.CallToolResult{}, animalDef, o); len(res.RawStructuredContent) == 0 {
			b.Fatal("no copy")
		}
	}
}

// TestPublishedNamesCarryNoGoPackage holds every $defs key and title of the
// live output schemas to a name chosen for readers: none is spelt with a Go
// package prefix (analysis.RankAnswer), which would change whenever a type
// moved between packages.
func TestPublishedNamesCarryNoGoPackage(t *testing.T) {
	sum, _ := summarizer(t)
	g, err := New(&stubUpstream{}, sum, Config{Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	goName := regexp.MustCompile(`^[a-z][a-z0-9]*\.[A-Za-z]`)
	var walk func(tool string, v any)
	walk = func(tool string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if defs, ok := x["$defs"].(map[string]any); ok {
				for k := range defs {
					if goName.MatchString(k) {
						t.Errorf("%s: $defs key %q names a Go package", tool, k)
					}
				}
			}
			if title, ok := x["title"].(string); ok && goName.MatchString(title) {
				t.Errorf("%s: title %q names a Go package", tool, title)
			}
			for _, e := range x {
				walk(tool, e)
			}
		case []any:
			for _, e := range x {
				walk(tool, e)
			}
		}
	}
	live := wireOutputSchemas(t, g)
	if len(live) != 14 {
		t.Fatalf("%d output schemas, want one per tool (14)", len(live))
	}
	for name, raw := range live {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		walk(name, v)
	}
}
