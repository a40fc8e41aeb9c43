package gateway

import (
	"context"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// swappingUpstream answers details and lineage with another animal's.
type swappingUpstream struct {
	Upstream
	other string
}

func (s swappingUpstream) AnimalDetails(ctx context.Context, _ string) (*nsip.AnimalDetails, error) {
	return s.Upstream.AnimalDetails(ctx, s.other)
}

func (s swappingUpstream) Lineage(ctx context.Context, _ string) (*nsip.Lineage, error) {
	return s.Upstream.Lineage(ctx, s.other)
}

// TestAnswerAboutAnotherAnimalIsNotCached: an upstream answering with the
// wrong animal's record gets an error naming both IDs, and nothing is
// cached, so the next call asks again.
func TestAnswerAboutAnotherAnimalIsNotCached(t *testing.T) {
	e := newEnv(t)
	ids := e.up.Data().AnimalIDs()
	asked, other := ids[0], ids[1]
	real := e.gw.up
	e.gw.up = swappingUpstream{Upstream: real, other: other}

	for _, c := range []struct {
		tool     string
		args     map[string]any
		endpoint string
	}{
		{"nsip_get_animal", map[string]any{"search_string": asked}, nsiptest.EndpointDetails},
		{"nsip_get_lineage", map[string]any{"lpn_id": asked}, nsiptest.EndpointLineage},
	} {
		for try := 1; try <= 2; try++ {
			b := e.call(c.tool, c.args).errorBody(t)
			if b.Code != toolerr.CodeUnexpectedResponse || !strings.Contains(b.Problem, other) || !strings.Contains(b.Problem, asked) {
				t.Errorf("%s try %d: %+v; want unexpected_response naming %s and %s", c.tool, try, b, other, asked)
			}
			if n := e.up.Requests(c.endpoint); n != try {
				t.Errorf("%s try %d: %d upstream requests, want %d (nothing cached)", c.tool, try, n, try)
			}
		}
	}
	if n := e.gw.cache.Stats().Entries; n != 0 {
		t.Errorf("cache holds %d entries, want 0", n)
	}

	// The right animal, asked by LPN ID or by registration number, is fine.
	e.gw.up = real
	e.call("nsip_get_animal", map[string]any{"search_string": asked}).mustOK(t)
	e.call("nsip_get_lineage", map[string]any{"lpn_id": asked}).mustOK(t)
	d, err := real.AnimalDetails(context.Background(), other)
	if err != nil {
		t.Fatal(err)
	}
	if d.RegistrationNumber != "" {
		e.call("nsip_get_animal", map[string]any{"search_string": d.RegistrationNumber}).mustOK(t)
	}
}
