package param

import (
	"encoding/json"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// searchSpecs are a search's arguments, enough for the edits errors make.
var searchSpecs = []Spec{
	{Name: "breed_id", Kind: Integer, Example: 640},
	{Name: "page_size", Kind: Integer, Required: true, Example: 15, Min: Bound(1), Max: Bound(100)},
	{Name: "search_criteria", Kind: Object, Props: []Spec{
		{Name: "breed_id", Kind: Integer, Example: 640},
		{Name: "gender", Kind: String, Enum: []string{"Male", "Female"}, Example: "Female"},
	}},
	{Name: "weights", Kind: Object, Example: map[string]any{"WWT": 1.0, "BWT": -0.5}},
}

// The edits errors make, each seen as the JSON the caller reads.
func TestCallEditsAreTheJSONWritten(t *testing.T) {
	sent := map[string]any{"page_size": 500, "search_criteria": map[string]any{"breed_id": 99999.0, "gender": "male"}, "colour": "red"}
	c := Example(searchSpecs, SentOf(sent))
	steps := []struct {
		name string
		edit func()
		want string
	}{
		{"built", func() {}, `{"page_size":15,"search_criteria":{"breed_id":99999,"gender":"Male"}}`},
		{"a breed NSIP has, in the criteria", func() { c.Set("search_criteria.breed_id", 640) },
			`{"page_size":15,"search_criteria":{"breed_id":640,"gender":"Male"}}`},
		{"a member added at the top", func() { c.Set("sorted_trait", "WWT") },
			`{"page_size":15,"search_criteria":{"breed_id":640,"gender":"Male"},"sorted_trait":"WWT"}`},
		{"an object made on the way", func() { c.Set("weights.WWT", 1.5) },
			`{"page_size":15,"search_criteria":{"breed_id":640,"gender":"Male"},"sorted_trait":"WWT","weights":{"WWT":1.5}}`},
		{"a value that is not an object replaced by one", func() { c.Set("sorted_trait.code", "BWT") },
			`{"page_size":15,"search_criteria":{"breed_id":640,"gender":"Male"},"sorted_trait":{"code":"BWT"},"weights":{"WWT":1.5}}`},
		{"a nested member dropped", func() { c.Delete("search_criteria.gender") },
			`{"page_size":15,"search_criteria":{"breed_id":640},"sorted_trait":{"code":"BWT"},"weights":{"WWT":1.5}}`},
		{"a top-level member dropped", func() { c.Delete("sorted_trait") },
			`{"page_size":15,"search_criteria":{"breed_id":640},"weights":{"WWT":1.5}}`},
		{"missing paths dropped: no change", func() { c.Delete("colour"); c.Delete("page_size.x"); c.Delete("weights.BWT") },
			`{"page_size":15,"search_criteria":{"breed_id":640},"weights":{"WWT":1.5}}`},
		{"edits applied in order", func() {
			c.Apply(Drop("weights"), Assign("index", "US Hair Index"), Assign("index", "A&B <index>"), Assign("max_coi", 0.0625))
		}, `{"index":"A&B <index>","max_coi":0.0625,"page_size":15,"search_criteria":{"breed_id":640}}`},
	}
	for _, s := range steps {
		s.edit()
		if got := JSONText(c); got != s.want {
			t.Errorf("%s:\n got %s\nwant %s", s.name, got, s.want)
		}
	}
	// What was sent is as it was.
	if crit := sent["search_criteria"].(map[string]any); crit["breed_id"] != 99999.0 || crit["gender"] != "male" || len(sent) != 3 {
		t.Errorf("the edits changed the call sent: %v", sent)
	}
}

// An example holding a Spec's Example value (a shared object) is edited
// without changing the Spec, so the next error's example is as before.
func TestCallEditsLeaveTheSpecsExamples(t *testing.T) {
	sent := map[string]any{"weights": "heavy"}
	c := Example(searchSpecs, SentOf(sent))
	c.Set("weights.NLB", 2)
	c.Delete("weights.BWT")
	if got := c.String(); got != `{"page_size":15,"weights":{"NLB":2,"WWT":1}}` {
		t.Errorf("edited example %s", got)
	}
	if got := Example(searchSpecs, SentOf(sent)).String(); got != `{"page_size":15,"weights":{"BWT":-0.5,"WWT":1}}` {
		t.Errorf("the next example %s; the spec's example was changed", got)
	}
}

// Value reads what the checks of an example read: members by dotted path,
// with whether they are there.
func TestCallValue(t *testing.T) {
	c := Example(searchSpecs, SentOf(map[string]any{"page_size": 10.0, "search_criteria": map[string]any{"gender": "Male"}}))
	for _, tc := range []struct {
		path string
		want any
		ok   bool
	}{
		{"page_size", 10, true},
		{"search_criteria.gender", "Male", true},
		{"search_criteria.breed_id", nil, false},
		{"page_size.x", nil, false},
		{"breed_id", nil, false},
	} {
		if v, ok := c.Value(tc.path); v != tc.want || ok != tc.ok {
			t.Errorf("Value(%q) = %#v, %v; want %#v, %v", tc.path, v, ok, tc.want, tc.ok)
		}
	}
}

// No example (nil) reads as nothing, takes no edit and is written as
// null; an example without arguments is zero, as an empty object was
// left out of an error.
func TestCallNoneAndEmpty(t *testing.T) {
	var none *Call
	none.Set("breed_id", 640)
	none.Apply(Drop("breed_id"))
	if v, ok := none.Value("breed_id"); v != nil || ok || !none.IsZero() || none.String() != "null" {
		t.Errorf("nil call: %v %v zero %v %s", v, ok, none.IsZero(), none.String())
	}
	if b, err := none.MarshalJSON(); err != nil || string(b) != "null" {
		t.Errorf("nil call written as %s, %v", b, err)
	}
	type body struct {
		Example *Call `json:"example,omitzero"`
	}
	empty := Example(searchSpecs[2:], SentOf(map[string]any{"colour": "red"}))
	if b, _ := json.Marshal(body{empty}); !empty.IsZero() || string(b) != `{}` {
		t.Errorf("empty example written as %s", b)
	}
	var unset Call
	unset.Set("breed_id", 640)
	if b, _ := json.Marshal(body{&unset}); unset.IsZero() || string(b) != `{"example":{"breed_id":640}}` {
		t.Errorf("example written as %s", b)
	}
}

// The example is written byte for byte as the object of its arguments:
// member order, numbers and escaping are encoding/json's, under an
// encoder that escapes HTML and one that does not.
func TestCallIsWrittenAsItsObject(t *testing.T) {
	var specs []Spec
	sent := map[string]any{"WWT": 1e21, "BWT": -0.5, "NLB": 0.1, "PWWT": 3.0, "Z": 1e-7}
	for name := range sent {
		specs = append(specs, Spec{Name: name, Kind: Number})
	}
	c := Example(specs, SentOf(sent))
	c.Set("index", "A&B <x>")
	c.Set("line.Z\u2028", 7)
	for _, enc := range []func(any) ([]byte, error){json.Marshal, nsip.PlainJSON} {
		got, err := enc(map[string]any{"example": c})
		want, _ := enc(map[string]any{"example": c.args})
		if err != nil || string(got) != string(want) {
			t.Errorf("written as\n %s, %v\nwant\n %s", got, err, want)
		}
	}
	if got := c.String(); got != `{"BWT":-0.5,"NLB":0.1,"PWWT":3,"WWT":1e+21,"Z":1e-7,"index":"A&B <x>","line":{"Z\u2028":7}}` {
		t.Errorf("String = %s", got)
	}
}

// A call read back from an error is the object the caller read.
func TestCallReadsJSON(t *testing.T) {
	var c Call
	if err := json.Unmarshal([]byte(`{"search_criteria":{"breed_id":640},"page_size":15}`), &c); err != nil {
		t.Fatal(err)
	}
	if v, _ := c.Value("search_criteria.breed_id"); v != 640.0 || c.String() != `{"page_size":15,"search_criteria":{"breed_id":640}}` {
		t.Errorf("read %s, breed %v", c.String(), v)
	}
	if err := json.Unmarshal([]byte(`[1]`), &c); err == nil {
		t.Error("an array read as a call")
	}
}
