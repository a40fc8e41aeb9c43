package gateway

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// TestDriftIsServedWarnedAndReported changes the shape of NSIP's progeny
// answer under a running gateway: the model still gets NSIP's JSON, marked
// as unrecognized; the log has one warning for the endpoint and shape however
// often it recurs; Health lists it with first and last sighting and count.
func TestDriftIsServedWarnedAndReported(t *testing.T) {
	e := newEnv(t)
	id := e.up.Data().MostProgeny()
	ok := e.call("nsip_get_progeny", map[string]any{"lpn_id": id, "page_size": 2}).mustOK(t)
	if _, has := ok.meta["shape_recognized"]; has || len(e.gw.Health().FormatDrift) != 0 {
		t.Fatalf("a known shape is reported as drift: %v", ok.meta)
	}

	// NSIP starts answering {"message":"OK","items":"none"}.
	e.up.SetFault(nsiptest.EndpointProgeny, nsiptest.Fault{Kind: nsiptest.FaultWrongShape})
	first := e.clock.Now()
	r := e.call("nsip_get_progeny", map[string]any{"lpn_id": id, "page": 1}).mustOK(t)
	if r.text != `{"message":"OK","items":"none"}` {
		t.Errorf("answer %q, want NSIP's JSON as sent", r.text)
	}
	note, _ := r.meta["format_note"].(string)
	if r.meta["shape_recognized"] != false || !strings.Contains(note, "format changed") ||
		!strings.Contains(note, "details/getPageOfProgeny") || !strings.Contains(note, `no "records" list`) ||
		strings.Contains(strings.ToLower(note), "retry later") {
		t.Errorf("_meta %v: want shape_recognized false and a note naming the endpoint and what was missing, without retry advice", r.meta)
	}
	e.clock.Advance(time.Minute)
	e.call("nsip_get_progeny", map[string]any{"lpn_id": id, "page": 2}).mustOK(t)
	// The profile shares the progeny part: it is served too, by the generic summarizer.
	p := e.call("nsip_search_by_lpn", map[string]any{"lpn_id": id}).mustOK(t)
	if p.meta["shape_recognized"] != false || !strings.Contains(p.text, `"items"`) && p.meta["summarized"] != true {
		t.Errorf("profile with an unrecognized part: _meta %v, text %.200s", p.meta, p.text)
	}

	warnings := 0
	for _, l := range e.logs.Records(t) {
		if l["level"] == "WARN" && strings.Contains(l["msg"].(string), "does not recognize") {
			warnings++
			if l["endpoint"] != "get_progeny" || l["signature"] != "{items:string,message:string}" {
				t.Errorf("warning %v: want the endpoint and the shape's signature", l)
			}
			if strings.Contains(l["signature"].(string), "none") {
				t.Error("the signature carries a value")
			}
		}
	}
	if warnings != 1 {
		t.Errorf("%d warnings for one endpoint and shape seen three times, want 1", warnings)
	}

	h := e.gw.Health()
	if len(h.FormatDrift) != 1 {
		t.Fatalf("format_drift = %+v, want one entry", h.FormatDrift)
	}
	d := h.FormatDrift[0]
	if d.Endpoint != "get_progeny" || d.Signature != "{items:string,message:string}" || d.Count != 3 ||
		!d.FirstSeen.Equal(first) || !d.LastSeen.Equal(first.Add(time.Minute)) {
		t.Errorf("drift entry %+v, want progeny, its signature, 3 sightings from %v to %v", d, first, first.Add(time.Minute))
	}
	// What /healthz serves is this struct as JSON.
	b, _ := json.Marshal(h)
	if !strings.Contains(string(b), `"format_drift":[{"endpoint":"get_progeny"`) {
		t.Errorf("health JSON %s lacks the drift entry", b)
	}
	// NSIP answered: the breaker did not count a failure.
	if h.Breaker.ConsecutiveFailures != 0 {
		t.Errorf("breaker counted %d failures for answers NSIP gave", h.Breaker.ConsecutiveFailures)
	}
}

// TestFormatChangedWithoutABody: when there is nothing to pass on, the
// error says NSIP's format changed, names the endpoint and what was
// missing, and does not advise a retry.
func TestFormatChangedWithoutABody(t *testing.T) {
	e := stubEnv(t, &stubUpstream{err: &nsip.Error{Kind: nsip.KindFormatChanged, Endpoint: "search/getDateLastUpdated", Status: 200,
		Reason: `the answer carries no date (a string member "date"): {"when":1}`}})
	b := e.call("nsip_get_last_update", nil).errorBody(t)
	if b.Code != toolerr.CodeUnexpectedResponse || !strings.Contains(b.Problem, "NSIP's answer format changed: search/getDateLastUpdated") ||
		!strings.Contains(b.Problem, `no date (a string member "date")`) || strings.Contains(b.Problem, `{"when"`) ||
		!strings.Contains(b.Next, "retrying will not help") {
		t.Errorf("error %+v", b)
	}
}
