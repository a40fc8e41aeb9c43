package summarize

import (
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A page searched with "living" keeps its living rows, leaves the dead and
// culled out and counts them by status; total_count is the living counted
// when the page holds NSIP's whole listing, and null otherwise.
func TestStatusHeldPage(t *testing.T) {
	rows := []nsip.AnimalRow{{LPNID: "A1", Status: "CURRENT"}, {LPNID: "A2", Status: "DEAD"}, {LPNID: "A3", Status: "sold"},
		{LPNID: "A4", Status: "CULL"}, {LPNID: "A5", Status: "DEAD"}, {LPNID: "A6"}}
	args := map[string]any{"breed_id": 640, "search_criteria": map[string]any{"status": "LIVING"}}
	kept, pos, contra := keepSearchRows(rows, args)
	if len(kept) != 3 || kept[0].LPNID != "A1" || kept[1].LPNID != "A3" || kept[2].LPNID != "A6" || len(pos) != 3 || pos[1] != 2 || contra != nil {
		t.Errorf("kept %v at %v, contradicting %+v; want A1, A3 and A6 (no status stated)", kept, pos, contra)
	}
	whole := &nsip.SearchResults{TotalCount: 6, Results: rows}
	h := statusHeld(whole, args)
	if h == nil || h.LeftOut != 3 || h.ByStatus["DEAD"] != 2 || h.ByStatus["CULL"] != 1 || !h.TotalProven || *heldTotal(whole, h) != 3 {
		t.Errorf("whole listing: %+v", h)
	}
	part := &nsip.SearchResults{TotalCount: 60, Page: 0, Results: rows}
	if h := statusHeld(part, args); h == nil || h.TotalProven || heldTotal(part, h) != nil || h.LeftOut != 3 {
		t.Errorf("one page of ten: %+v; want the three counted and no total", h)
	}
	// A status of one word is NSIP's to filter: nothing held here, and
	// its rows checked against the status it means.
	one := map[string]any{"search_criteria": map[string]any{"status": "USABLE"}}
	if h := statusHeld(whole, one); h != nil || *heldTotal(whole, h) != 6 {
		t.Errorf("usable: held %+v", h)
	}
	if _, _, c := keepSearchRows(rows, one); c == nil || c.Count != 4 || c.ByCriterion["status"] != 4 {
		t.Errorf("usable: contradicting %+v; want the 4 rows of a stated status other than CURRENT", c)
	}
}
