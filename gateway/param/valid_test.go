package param

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// validArgs is a tool's arguments with one of each kind the accessors
// read, the view's traits and a key-only member among them.
type validArgs struct {
	LPNID   string   `json:"lpn_id"`
	Page    int      `json:"page,omitempty"`
	Proven  bool     `json:"proven,omitempty"`
	Traits  []string `json:"traits,omitempty" arg:"view"`
	Version string   `json:"version,omitempty" arg:"key"`
}

var validSpecs = MustStruct[validArgs](Table{reflect.TypeFor[validArgs](): {
	"LPNID":  {Example: ExampleLPN, Upper: true, MinLen: 5, MaxLen: 20, Pattern: AlnumPattern},
	"Page":   {Default: 0, Example: 0, Min: Bound(0), Max: Bound(9)},
	"Proven": {Example: true},
	"Traits": {List: &List{Desc: "Traits.", MaxItems: 3, Item: traitItems, Example: []string{"WWT"}}},
}})

// A Valid is read by name as the types validation gave it, less the view
// by Without, and whole as the tool's struct by Decode.
func TestValidReadsWhatValidationGave(t *testing.T) {
	v, errs := validSpecs.Validate(SentOf(map[string]any{"lpn_id": "6402382024ncs310", "proven": true, "traits": []any{"wwt", "bwt"}}))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if s, ok := v.String("lpn_id"); !ok || s != "6402382024NCS310" {
		t.Errorf("lpn_id %q %v, want upper case", s, ok)
	}
	if n, ok := v.Int("page"); !ok || n != 0 {
		t.Errorf("page %d %v, want the default 0", n, ok)
	}
	if _, ok := v.Int("lpn_id"); ok {
		t.Error("a string read as an integer")
	}
	if !v.Bool("proven") || v.Bool("page") || v.Bool("absent") {
		t.Error("booleans read wrongly")
	}
	if got := v.Strings("traits"); !slices.Equal(got, []string{"WWT", "BWT"}) {
		t.Errorf("traits %v", got)
	}
	less := v.Without(validSpecs.View)
	if _, ok := less.Value("traits"); ok {
		t.Error("the view's traits are left in")
	}
	if _, ok := v.Value("traits"); !ok {
		t.Error("Without changed the Valid it was called on")
	}
	if same := less.Without(validSpecs.View); !reflect.DeepEqual(same, less) {
		t.Error("Without of names absent is not the Valid itself")
	}
	var a validArgs
	if fe := v.Decode(&a); fe != nil || a.LPNID != "6402382024NCS310" || !a.Proven || len(a.Traits) != 2 {
		t.Errorf("decoded %+v %v", a, fe)
	}
	var other struct {
		LPNID string `json:"lpn_id"`
	}
	if fe := v.Decode(&other); fe == nil || fe.Field != "page" {
		t.Errorf("a struct without page: %v, want an error naming page", fe)
	}
}

// The server's own call validates as a client's, its key-only members
// joining only the keyed copy; one the validation refuses is an error
// naming the field.
func TestValidateOwn(t *testing.T) {
	args, keyed, err := validSpecs.ValidateOwn(validArgs{LPNID: "6402382024ncs310", Version: "7"})
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := args.String("lpn_id"); s != "6402382024NCS310" {
		t.Errorf("lpn_id %q, want it normalised", s)
	}
	if _, ok := args.Value("version"); ok {
		t.Error("the key-only version is among the arguments")
	}
	if s, _ := keyed.String("version"); s != "7" || len(keyed.Members()) != 3 {
		t.Errorf("keyed %v, want lpn_id, page and version", keyed.Members())
	}
	if _, _, err := validSpecs.ValidateOwn(validArgs{LPNID: "6402-38"}); err == nil || !strings.HasPrefix(err.Error(), "lpn_id ") {
		t.Errorf("a bad LPN ID: %v", err)
	}
	if _, _, err := validSpecs.ValidateOwn(42); err == nil {
		t.Error("a number validated as arguments")
	}
}
