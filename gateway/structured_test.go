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
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/structured"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
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
		compiled.schemas, compiled.err = compileSchemas(wireOutputSchemas(t, g))
	})
	if compiled.err != nil {
		t.Fatal(compiled.err)
	}
	return compiled.schemas
}

// writtenShapeSchemas are the output schemas without the branch that
// admits NSIP's own object: the shapes this server writes.
func writtenShapeSchemas(t testing.TB) map[string][2]*jsonschema.Schema {
	t.Helper()
	sum, _ := summarizer(t)
	g, err := New(&stubUpstream{}, sum, Config{Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	raws := wireOutputSchemas(t, g)
	for name, raw := range raws {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if branches, ok := m["anyOf"].([]any); ok {
			m["anyOf"] = slices.DeleteFunc(branches, func(b any) bool { return b.(map[string]any)["title"] == structured.PassThroughTitle })
		}
		raws[name], _ = json.Marshal(m)
	}
	s, err := compileSchemas(raws)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// compileSchemas compiles each output schema for draft 2020-12 and draft 7.
func compileSchemas(raws map[string]json.RawMessage) (map[string][2]*jsonschema.Schema, error) {
	out := map[string][2]*jsonschema.Schema{}
	for name, raw := range raws {
		if len(raw) == 0 {
			return nil, fmt.Errorf("%s declares no outputSchema", name)
		}
		var pair [2]*jsonschema.Schema
		for i, draft := range []*jsonschema.Draft{jsonschema.Draft2020, jsonschema.Draft7} {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				return nil, fmt.Errorf("%s: outputSchema is not JSON: %w", name, err)
			}
			c := jsonschema.NewCompiler()
			c.DefaultDraft(draft)
			url := fmt.Sprintf("mem://%s/%d.json", name, i)
			if err := c.AddResource(url, doc); err != nil {
				return nil, err
			}
			if pair[i], err = c.Compile(url); err != nil {
				return nil, fmt.Errorf("%s: outputSchema does not compile: %w", name, err)
			}
		}
		out[name] = pair
	}
	return out, nil
}

// checkStructured holds a result to the structured-output contract: an
// error carries no structuredContent; a success carries an object that
// validates against the tool's outputSchema, and where the text is a JSON
// object (NSIP's own, a summary, an analysis) it is the text itself.
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
	if strings.HasPrefix(text, "{") && !sameJSON(raw, []byte(text)) {
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

// structuredOf decodes a result's structured copy.
func structuredOf(t *testing.T, e *env, name string, args map[string]any) (reply, map[string]any) {
	t.Helper()
	r := callTool(t, e.client, name, args).mustOK(t)
	var m map[string]any
	if err := json.Unmarshal(r.structured, &m); err != nil {
		t.Fatalf("%s: structuredContent %q: %v", name, r.structured, err)
	}
	return r, m
}

// TestStructuredPassThroughIsTheText calls every lookup whose answer fits
// its budget: the text is NSIP's JSON as before, and the structured copy is
// the same bytes (NSIP's own object), so a host that hands its model the
// copy hands it the tokens the budget counted. Only NSIP's bare list of
// statuses, which structuredContent cannot be, is copied as its model.
func TestStructuredPassThroughIsTheText(t *testing.T) {
	e := newEnv(t)
	data := e.up.Data()
	id, founder, parent := data.NoProgeny(), data.Founder(), data.MostProgeny()

	r, st := structuredOf(t, e, "nsip_get_statuses", nil)
	var statuses []any
	if err := json.Unmarshal([]byte(r.text), &statuses); err != nil {
		t.Fatalf("statuses text %s: %v", r.text, err)
	}
	if got, _ := st["values"].([]any); len(got) == 0 || fmt.Sprint(got) != fmt.Sprint(statuses) {
		t.Errorf("statuses: structured %v, text %v (a list, which structuredContent cannot be)", st["values"], statuses)
	}

	for _, c := range []struct {
		tool string
		args map[string]any
		has  string // a value NSIP's answer holds
	}{
		{"nsip_get_last_update", nil, `"date"`},
		{"nsip_get_trait_ranges", map[string]any{"breed_id": 640}, `"WWT"`},
		{"nsip_list_breeds", nil, `"Katahdin"`},
		{"nsip_search_animals", map[string]any{"page_size": 2, "breed_id": 640}, `"recordCount":`},
		{"nsip_get_animal", map[string]any{"search_string": id}, id},
		{"nsip_get_lineage", map[string]any{"lpn_id": founder}, founder},
		{"nsip_get_progeny", map[string]any{"lpn_id": parent, "page_size": 3}, `"recordCount":`},
		{"nsip_search_by_lpn", map[string]any{"lpn_id": id, "max_tokens": 8000}, id},
	} {
		r := callTool(t, e.client, c.tool, c.args).mustOK(t)
		if r.meta["summarized"] != false {
			t.Errorf("%s: summarized (%v); the case wants a pass-through", c.tool, r.meta["tokens"])
			continue
		}
		// The wire escapes <, > and & in the copy, not in the text: the
		// two are the same JSON value, as a host decodes them.
		if !sameJSON(r.structured, []byte(r.text)) || !strings.Contains(r.text, c.has) {
			t.Errorf("%s: structured copy %.200s\nis not the text %.200s", c.tool, r.structured, r.text)
		}
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
		{"nsip_get_lineage", map[string]any{"lpn_id": e.up.Data().DeepPedigree()}, "lineage"},
		// NSIP's lean answers make a profile of about 1,400 tokens.
		{"nsip_search_by_lpn", map[string]any{"lpn_id": parent, "max_tokens": smallBudget}, "animal_profile"},
		{"nsip_get_animal", map[string]any{"search_string": parent, "max_tokens": 256}, "animal_details"},
		{"nsip_list_breeds", map[string]any{"max_tokens": 256}, "generic"},
		{"nsip_search_animals", map[string]any{"page_size": 100, "traits": []string{"WWT"}, "skip": 40}, "search_results"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			r, st := structuredOf(t, e, tt.tool, tt.args)
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
// cannot read, the text is NSIP's JSON as sent and, being an object, it is
// its own structured copy; _meta says the shape was not recognized.
func TestStructuredUnrecognizedShape(t *testing.T) {
	e := newEnv(t)
	e.up.SetFault(nsiptest.EndpointProgeny, nsiptest.Fault{Kind: nsiptest.FaultWrongShape})
	r, st := structuredOf(t, e, "nsip_get_progeny", map[string]any{"lpn_id": e.up.Data().MostProgeny()})
	if r.text != `{"message":"OK","items":"none"}` || r.meta["shape_recognized"] != false {
		t.Fatalf("text %s, meta %v", r.text, r.meta)
	}
	if !sameJSON(r.structured, []byte(r.text)) || st["items"] != "none" {
		t.Errorf("structured %s, want the text %s", r.structured, r.text)
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
			r, st := structuredOf(t, e, tt.tool, tt.args)
			if _, ok := st[tt.key]; !ok && st["summary"] != true {
				t.Errorf("structured copy has no %q: %.300v (meta %v)", tt.key, st, r.meta)
			}
		})
	}
}

// TestOutputSchemasRejectWhatTheAnswersCannotBe checks the checker: a
// copy with a member no answer has, or a value of the wrong type, fails the
// shapes this server writes. A lookup's schema also admits NSIP's own
// object, whatever its members (nothing promises them), so its written
// shapes are checked without that branch; a copy that is not an object
// fails every schema whole.
func TestOutputSchemasRejectWhatTheAnswersCannotBe(t *testing.T) {
	whole := compiledSchemas(t)
	for tool, pair := range whole {
		for i, sch := range pair {
			for _, doc := range []string{`[]`, `"text"`, `7`} {
				v, _ := jsonschema.UnmarshalJSON(strings.NewReader(doc))
				if sch.Validate(v) == nil {
					t.Errorf("%s schema %d accepts %s", tool, i, doc)
				}
			}
		}
	}
	s := writtenShapeSchemas(t)
	bad := []struct{ tool, doc string }{
		// nsip_get_animal's schema also admits the percentile analysis's
		// answer, an open object like every analysis's, so the strict model
		// checks are made on the lineage's.
		{"nsip_get_lineage", `{"subject":{"lpnId":"A"},"extra":1}`},
		{"nsip_get_lineage", `{"subject":{"lpnId":7}}`},
		{"nsip_get_statuses", `{"values":"CURRENT"}`},
		{"nsip_search_animals", `{"summary":true,"kind":"search_results","columns":[],"rows":[]}`}, // no totals
		{"nsip_get_lineage", `{"subject":{"lpnId":"A","sire":{"farm":"no lpnId"}}}`},
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
		{"nsip_get_lineage", `{"success":true,"data":{"lpnId":"A"}}`}, // NSIP's own
		{"nsip_search_animals", `{"recordCount":1,"records":[{"lpnId":"A"}]}`},
		{"nsip_get_animal", `{}`}, // the shortest note
		{"nsip_get_lineage", `{"subject":{"lpnId":"A","sire":{"lpnId":"B","dam":{"lpnId":"C"}}}}`},
	}
	for _, g := range good {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(g.doc))
		for i, sch := range whole[g.tool] {
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
// without the copy; and what the output schemas add to tools/list. A copy
// is its text whenever the text is an object, so it never costs more
// tokens.
//
//	go test ./gateway -run TestStructuredCopyCost -v
func TestStructuredCopyCost(t *testing.T) {
	e := newEnv(t, withSmallBudget())
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
		if tt2 > tt1 {
			t.Errorf("%s: the structured copy costs %d tokens, over the text's %d", tt.tool, tt2, tt1)
		}
	}
	for _, set := range [][]string{{toolsets.Lookup}, {toolsets.Analysis}} {
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
	ent, ok := e.gw.cache.Get(lookup.Animal.Key(validLookup(b, lookup.Animal, map[string]any{"search_string": id})))
	if !ok {
		b.Fatal("the answer is not cached")
	}
	a := ent.Value.(*upstream.Answer)
	o := toolcall.Outcome{Res: a.Res, Value: a.Value}
	b.ReportAllocs()
	for b.Loop() {
		if res := withStructured(&mcp.CallToolResult{}, &lookup.Animal.Def, o); len(res.RawStructuredContent) == 0 {
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
	if n := len(lookupTools) + len(analysisTools); len(live) != n {
		t.Fatalf("%d output schemas, want one per tool (%d)", len(live), n)
	}
	for name, raw := range live {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		walk(name, v)
	}
}
