package param

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// The published schema of every kind of argument: properties in
// declaration order, bounds and patterns where they help a caller, the
// quiet ones left to the descriptions, lists as their shape only.
func TestSchemaOfEveryKind(t *testing.T) {
	b, err := json.Marshal(penArgs.Specs[len(penArgs.Specs)-3].Schema()) // search_criteria
	if err != nil {
		t.Fatal(err)
	}
	want := `{"additionalProperties":false,"properties":{"gender":{"enum":["Male","Female"],"type":"string"},"status":{"type":"string"},` +
		`"born_after":{"format":"date","type":"string"},"born_before":{"format":"date","type":"string"},` +
		`"head":{"description":"How many.","maximum":9999,"minimum":1,"type":"integer"},` +
		`"trait_ranges":{"additionalProperties":{"type":"object"},"description":"Bounds per trait.","type":"object"}},"type":"object"}`
	if string(b) != want {
		t.Errorf("search_criteria schema:\n got %s\nwant %s", b, want)
	}
	props, required := objectSchema(penArgs.Specs)
	order := props.Names()
	if strings.Join(order, " ") != "lpn_id weight ewes sex born tag search_criteria sorted_trait page" || len(required) != 0 {
		t.Errorf("order %v, required %v", order, required)
	}
	if s := props.Get("tag"); s.Pattern != "^[a-z]+$" || s.MinLength != 2 || s.MaxLength != 6 {
		t.Errorf("tag schema %+v; want its pattern and lengths", s)
	}
	if s := props.Get("sex"); !reflect.DeepEqual(s.Enum, []string{"Male", "Female"}) {
		t.Errorf("sex schema %+v; want its enum", s)
	}
	if s := props.Get("sorted_trait"); s.Pattern != "" || s.MaxLength != 0 {
		t.Errorf("the quiet sorted_trait publishes %+v", s)
	}
	in := InputSchema(penArgs.Specs)
	if in.Type != "object" || len(in.Properties) != 9 || strings.Join(in.PropertyOrder, " ") != strings.Join(order, " ") {
		t.Errorf("input schema %+v", in)
	}
	brief := Spec{Name: "b", Kind: Integer, Desc: "said elsewhere", Brief: true, Min: Bound(1)}
	if s := brief.Schema(); !reflect.DeepEqual(s, Type(Integer)) {
		t.Errorf("a brief argument publishes %v; want its type only", s)
	}
	lists := map[string]string{}
	for _, l := range penArgs.Lists {
		b, _ := json.Marshal(l.Schema())
		lists[l.Name] = string(b)
	}
	if lists["weights"] != `{"additionalProperties":{"type":"number"},"description":"Weights per trait.","type":"object"}` ||
		lists["lpn_ids"] != `{"description":"Animals to compare.","items":{"type":"string"},"type":"array"}` {
		t.Errorf("list schemas %v", lists)
	}
	if penArgs.IsView("page") || Named(penArgs.Specs, "page") == nil || Named(penArgs.Specs, "nope") != nil {
		t.Error("IsView or Named misread the arguments")
	}
}

// A call's arguments arrive as JSON text or as a decoded map; numbers stay
// exact, and anything but an object is refused naming what it was.
func TestDecode(t *testing.T) {
	req := func(raw string) mcp.CallToolRequest {
		var r mcp.CallToolRequest
		r.Params.RawArguments = json.RawMessage(raw)
		return r
	}
	if got, fe := Decode(req(`{"breed_id": 12345678901234567890}`)); fe != nil || got.m["breed_id"] != json.Number("12345678901234567890") {
		t.Errorf("a big integer: %v %v; want it exact", got, fe)
	}
	if got, fe := Decode(req(``)); fe != nil || len(got.m) != 0 {
		t.Errorf("no arguments: %v %v; want an empty object", got, fe)
	}
	var m mcp.CallToolRequest
	m.Params.Arguments = map[string]any{"a": 1}
	if got, fe := Decode(m); fe != nil || got.m["a"] != 1 {
		t.Errorf("a decoded map: %v %v", got, fe)
	}
	m.Params.Arguments = SentOf(map[string]any{"b": 2})
	if got, fe := Decode(m); fe != nil || got.m["b"] != 2 {
		t.Errorf("the server's own call: %v %v", got, fe)
	}
	if _, fe := Decode(req(`[1,2]`)); fe == nil || fe.Field != "arguments" || fe.Problem != "must be a JSON object, got array" {
		t.Errorf("an array: %+v", fe)
	}
	if _, fe := Decode(req(`{"a":`)); fe == nil || !strings.HasPrefix(fe.Problem, "is not valid JSON: ") {
		t.Errorf("broken JSON: %+v", fe)
	}
}

// Unknown names alone, as a tool without a schema of its own reports them.
func TestNamesNotTaken(t *testing.T) {
	errs := namesNotTaken("search_criteria.", herdCriteria.Props, map[string]any{"gender": "Male", "gendre": "Male", "breed": 640})
	if len(errs) != 2 || errs[0].Field != "search_criteria.breed" || errs[1].Field != "search_criteria.gendre" ||
		!strings.HasSuffix(errs[1].Problem, `did you mean "gender"?`) {
		t.Errorf("unknown names: %+v", errs)
	}
}

// Text, such as a URI variable, becomes a number where the argument takes
// one; a repeated variable becomes a list for validation to refuse.
func TestFromText(t *testing.T) {
	page := Named(penArgs.Specs, "page")
	for _, c := range []struct {
		p    *Spec
		in   any
		want any
	}{
		{page, "2", json.Number("2")},
		{page, "two", "two"},
		{Named(penArgs.Specs, "tag"), "2", "2"},
		{page, []string{"3"}, json.Number("3")},
		{page, []string{"3", "4"}, []any{"3", "4"}},
		{nil, 7, 7},
	} {
		if got := FromText(c.p, c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("FromText(%v) = %#v; want %#v", c.in, got, c.want)
		}
	}
}

// What a refused value is called in a problem.
func TestDescribe(t *testing.T) {
	for v, want := range map[any]string{
		true: "boolean true", "x": `string "x"`, 2.0: "integer 2", 2.5: "number 2.5",
		json.Number("7"): "integer 7", json.Number("7.5"): "number 7.5", int64(3): "integer 3",
		strings.Repeat("a", 41): "string", struct{}{}: "struct {} {}",
	} {
		if got := Describe(v); got != want {
			t.Errorf("Describe(%#v) = %q; want %q", v, got, want)
		}
	}
	if got := Describe(make([]any, 21)); got != "array" {
		t.Errorf("a long array is %q", got)
	}
	if n, ok := asInteger(json.Number("12")); !ok || n != 12 {
		t.Errorf("AsInteger(12) = %d %v", n, ok)
	}
	if _, ok := asInteger("12"); ok {
		t.Error("AsInteger took a string")
	}
	if f, ok := AsNumber(json.Number("1.5")); !ok || f != 1.5 {
		t.Errorf("AsNumber(1.5) = %g %v", f, ok)
	}
	if _, ok := AsNumber(true); ok {
		t.Error("AsNumber took a boolean")
	}
}

// A bounded number is judged by its bounds: a COI limit is a fraction, so
// a percent sent for it is refused saying so.
func TestNumberBounds(t *testing.T) {
	coi := Spec{Name: "max_coi", Kind: Number, Min: Bound(0), Max: Bound(1)}
	if _, errs := coi.Validate("max_coi", 6.25); len(errs) != 1 || errs[0].Problem != "must be a fraction from 0 to 1, got 6.25" {
		t.Errorf("6.25: %+v", errs)
	}
	if v, errs := coi.Validate("max_coi", 0.0625); errs != nil || v != 0.0625 {
		t.Errorf("0.0625: %v %+v", v, errs)
	}
	w := Spec{Name: "w", Kind: Number, Min: Bound(-2), Max: Bound(2)}
	if _, errs := w.Validate("w", -3.0); len(errs) != 1 || errs[0].Problem != "must be from -2 to 2, got -3" {
		t.Errorf("-3: %+v", errs)
	}
}
