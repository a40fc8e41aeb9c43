package argcheck

import (
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

var nsipStatuses = []string{"CURRENT", "SOLD", "DEAD", "COMMERCIAL", "CULL", "EXPORTED"}

// A status NSIP records, in any case, and every word of the table pass;
// anything else is refused naming the statuses and the words, with the
// status it likely means.
func TestCheckStatus(t *testing.T) {
	for _, s := range append([]string{"sold", "Exported", "CULL"}, nsip.StatusWords()...) {
		if fe := CheckStatus("search_criteria.status", strings.ToUpper(s), nsipStatuses); fe != nil {
			t.Errorf("%s refused: %+v", s, fe)
		}
	}
	fe := CheckStatus("search_criteria.status", "CURENT", nsipStatuses)
	if fe == nil || fe.Field != "search_criteria.status" || fe.Problem != `"CURENT" is not a status NSIP records; did you mean "CURRENT"?` ||
		!strings.HasPrefix(fe.Expected, "one of NSIP's statuses: CURRENT, SOLD, DEAD, COMMERCIAL, CULL, EXPORTED; or a word: living/alive (every status but DEAD and CULL)") {
		t.Errorf("CURENT: %+v", fe)
	}
	// A word of one status NSIP does not record is no status either.
	if fe := CheckStatus("search_criteria.status", "USABLE", []string{"SOLD", "DEAD"}); fe == nil {
		t.Errorf("usable accepted where NSIP records no CURRENT")
	}
}
