package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
)

// FuzzAnalysisArguments sends arbitrary argument bytes to each analysis.
// Whatever arrives, it returns one JSON result and no Go error; NSIP is
// asked only with values inside the nine tools' published limits; an
// argument rejected before any lookup is an invalid_argument naming a field.
func FuzzAnalysisArguments(f *testing.F) {
	seeds := map[string][]string{
		"nsip_check_mating":    {`{"sire_lpn_id":"6402382024NCS310","dam_lpn_id":"6402382022NCS087"}`, `{"sire_lpn_id":"640","dam_lpn_id":[]}`, `{"sire_lpn_id":"A\u0000BCDEF","dam_lpn_id":"ABCDEF"}`},
		"nsip_compare_animals": {`{"lpn_ids":["6402382024NCS310","6402382022NCS087"],"traits":["bwt","WWTT"]}`, `{"lpn_ids":"6402382024NCS310"}`, `{"lpn_ids":[1,2],"traits":[null]}`},
		"nsip_rank_animals":    {`{"breed_id":640,"weights":{"WWT":1,"bwt":-0.5},"top_n":50}`, `{"breed_id":640,"weights":{}}`, `{"breed_id":640,"weights":{"WWT":"1"},"search_criteria":{"gender":"x"}}`, `{"breed_id":640,"weights":{"WWT":1e308,"YWT":-1e308}}`},
		"nsip_flock_summary":   {`{"flock_id":"640238"}`, `{"flock_id":"640 238","breed_id":0}`},
		"nsip_plan_matings":    {`{"ram_lpn_ids":["6402382024NCS310"],"ewe_lpn_ids":["6402382022NCS087"],"weights":{"WWT":1},"max_coi":2}`, `{"ram_lpn_ids":[],"ewe_lpn_ids":["A"],"weights":{"X":1},"max_ewes_per_ram":0}`},
	}
	for i, a := range analyses {
		for _, s := range seeds[a.Name] {
			f.Add(uint8(i), []byte(s))
		}
	}
	up := &checkingUpstream{}
	sum, _ := summarizer(f)
	g, err := New(up, sum, Config{Logger: discard(), RateLimit: 1e6, RateBurst: 1e6})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tool uint8, raw []byte) {
		a := analyses[int(tool)%len(analyses)]
		req := mcp.CallToolRequest{}
		req.Params.Name = a.Name
		req.Params.RawArguments = raw
		up.reset()
		res, err := g.serverTool(toolNamed(a.Name)).Handler(context.Background(), req)
		// The answer's text, then any links to its complete data.
		if err != nil || res == nil || len(res.Content) == 0 || (len(res.Content) != 1 && len(res.Content) != 3) {
			t.Fatalf("%s(%q): result %v, error %v; want one result and no error", a.Name, raw, res, err)
		}
		text, ok := mcp.AsTextContent(res.Content[0])
		if !ok || !json.Valid([]byte(text.Text)) {
			t.Fatalf("%s(%q): content %#v is not JSON text", a.Name, raw, res.Content[0])
		}
		calls, breaches := up.seen()
		if len(breaches) > 0 {
			t.Fatalf("%s(%q) reached the upstream with %v", a.Name, raw, breaches)
		}
		if !res.IsError {
			return
		}
		var body struct{ Error *toolerr.Error }
		if err := json.Unmarshal([]byte(text.Text), &body); err != nil || body.Error == nil || body.Error.Code == "" {
			t.Fatalf("%s(%q): error body %s", a.Name, raw, text.Text)
		}
		e := body.Error
		if e.Code == toolerr.CodeInvalidArgument && calls == 0 && (e.Field == "" || !strings.Contains(e.Problem, strings.SplitN(e.Field, "[", 2)[0])) {
			t.Errorf("%s(%q): error %+v does not name the field", a.Name, raw, e)
		}
	})
}
