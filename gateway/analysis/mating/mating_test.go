// Tests of nsip_check_mating (mating.go) as a client calls it: its
// published contract and how a call's arguments are read. Its runs are in
// run_test.go.

package mating

import (
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
)

func TestCheckMatingContract(t *testing.T) { analysistest.CheckContract(t, CheckMating, SchemaNames()) }

// LPN IDs are trimmed and upper-cased as NSIP writes them; one with other
// characters than letters and digits is refused by its name, with what the
// argument takes and its example, and so is a parent sent under another
// name.
func TestCheckMatingArguments(t *testing.T) {
	a := analysistest.Decoded[Args](t, CheckMating, map[string]any{"sire_lpn_id": "6402382024ncs310", "dam_lpn_id": " 6402382022NCS087 ", "max_tokens": 900})
	if a.Sire != "6402382024NCS310" || a.Dam != "6402382022NCS087" || a.MaxTokens != 900 {
		t.Errorf("read as %+v", a)
	}
	if fe := analysistest.Invalid(t, CheckMating, map[string]any{"sire_lpn_id": "6402-382024", "dam_lpn_id": "6402382022NCS087"}); fe.Field != "sire_lpn_id" ||
		fe.Problem != `"6402-382024" contains characters that are not allowed` || fe.Expected != `string of letters and digits, 5-32 characters, e.g. "6402382024NCS310"` {
		t.Errorf("a dash inside: %+v", fe)
	}
	if fe := analysistest.Invalid(t, CheckMating, map[string]any{"sire": "6402382024NCS310", "dam_lpn_id": "6402382022NCS087"}); fe.Field != "sire_lpn_id" || fe.Problem != "is required" {
		t.Errorf("sire for sire_lpn_id: %+v", fe)
	}
}
