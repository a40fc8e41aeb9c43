package rank

import (
	"errors"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/flock"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// exampleAfter is the example of a correct call of d an error err gives
// to a caller who sent sent, as JSON.
func exampleAfter(d *analysis.Def, sent map[string]any, err error) string {
	ex := d.Example(param.SentOf(sent))
	if fe := (*analysis.FixedArgError)(nil); errors.As(err, &fe) {
		ex.Apply(fe.Fix...)
	}
	return ex.String()
}

// The example an error carries is a call that works: what the data
// refused is put right, and a rule across arguments is kept.
func TestErrorExamplesAreCallsThatWork(t *testing.T) {
	ranking := map[string]any{"breed_id": 640, "weights": map[string]any{"YWT": 1, "BWT": -1}}
	for _, tc := range []struct {
		name string
		d    *analysis.Def
		sent map[string]any
		err  error
		want string
	}{
		{"a trait the breed lacks, weighted as the one meant", Rank, ranking,
			missingEBV(640, "YWT", breeding.Weights{"YWT": 1, "BWT": -1}, []string{"BWT", "WWT"}),
			`{"breed_id":640,"weights":{"BWT":-1,"WWT":1}}`},
		{"a trait the breed lacks, left out", Rank, ranking,
			missingEBV(640, "YWT", breeding.Weights{"YWT": 1, "BWT": -1}, []string{"BWT"}),
			`{"breed_id":640,"weights":{"BWT":-1}}`},
		{"the only weight refused: the example's weights", Rank, map[string]any{"breed_id": 640, "weights": map[string]any{"QQQ": 2}},
			missingEBV(640, "QQQ", breeding.Weights{"QQQ": 2}, []string{"BWT"}),
			`{"breed_id":640,"weights":{"BWT":-0.5,"WWT":1}}`},
		{"an index NSIP sent, the one meant", Rank, map[string]any{"breed_id": 640, "index": "US Hare Index"},
			unknownIndex("US Hare Index", 640, 50, []string{"SRC$ Index", "US Hair Index"}),
			`{"breed_id":640,"index":"US Hair Index"}`},
		{"no index NSIP sent: weights instead", Rank, map[string]any{"breed_id": 640, "index": "US Hair Index"},
			unknownIndex("US Hair Index", 640, 50, nil),
			`{"breed_id":640,"weights":{"BWT":-0.5,"WWT":1}}`},
		{"no group: a flock", flock.FlockSummary, map[string]any{}, nil, `{"flock_id":"640238"}`},
		{"two groups: the first", flock.FlockSummary, map[string]any{"flock_id": "640238", "search": map[string]any{"breed_id": 640}, "breed_id": 640}, nil,
			`{"breed_id":640,"flock_id":"640238"}`},
		{"breed_id only beside a flock", flock.FlockSummary, map[string]any{"progeny_of": nsiparg.ExampleLPN, "breed_id": 640}, nil,
			`{"progeny_of":"` + nsiparg.ExampleLPN + `"}`},
	} {
		if got := exampleAfter(tc.d, tc.sent, tc.err); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
