package nsiparg

import (
	"reflect"
	"strings"
	"testing"
)

// A traits argument: codes upper-cased, a breeder's word read as its
// code, repeats dropped; a word meaning several traits refused naming
// each.
func TestValidateTraits(t *testing.T) {
	if got, errs := validateTraits("traits", []any{"wwt", " nlb ", "WWT", "weaning weight", "YWEC"}); errs != nil || !reflect.DeepEqual(got, []any{"WWT", "NLB", "YWEC"}) {
		t.Errorf("codes: %v %v", got, errs)
	}
	for raw, want := range map[string]any{
		`traits: must be an array of trait codes, got string "WWT"`: "WWT",
		`traits: names 0 traits; give 1 to 30`:                      []any{},
		`traits[0]: must be a trait code string, got integer 5`:     []any{5.0},
		`traits[0]: "fat and muscle" could mean any of 2 traits: FAT (post-weaning fat depth), lower is better; EMD (post-weaning eye muscle depth), higher is better`: []any{"fat and muscle"},
		`traits[0]: "scrapie gene" is not a trait code (1 to 16 letters) nor a trait's name`:                                                                           []any{"scrapie gene"},
	} {
		_, errs := validateTraits("traits", want)
		if len(errs) == 0 || !strings.HasPrefix(errs[0].Field+": "+errs[0].Problem, raw) {
			t.Errorf("%v: %+v; want %s", want, errs, raw)
		}
	}
}
