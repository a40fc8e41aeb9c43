package lookup

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/internal/snapshot"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// What each tool's test shares: its published contract, the stand-in NSIP
// with a client of it, and a user's call made as the call path makes it.

// checkContract holds d to its published contract
// (specs/contracts/tools/<name>.json): name, title, description and the
// input schema derived from its argument struct.
func checkContract(t *testing.T, d *Def) {
	t.Helper()
	snapshot.CheckTool(t, filepath.Join("..", "..", "specs"), snapshot.Tool{
		Name: d.Name, Title: d.Title, Description: d.Desc, InputSchema: d.Args.InputSchema()})
}

// standIn is the stand-in NSIP on loopback, with the example ram of the
// README (nsiptest.ExampleRam) among its animals, and a client of it
// that tries each request once.
func standIn(t *testing.T) (*nsiptest.Dataset, *nsip.Client) {
	t.Helper()
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1, Animals: 1000})
	c, err := nsip.NewClient(nsip.WithBaseURL(srv.URL()), nsip.WithRetryPolicy(nsip.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	return srv.Data(), c
}

// valid is the validated arguments of a user's call of d with sent,
// failing the test on any problem.
func valid(t *testing.T, d *Def, sent map[string]any) param.Valid {
	t.Helper()
	args, errs := d.Args.Validate(param.SentOf(sent))
	if len(errs) > 0 {
		t.Fatalf("%s %v: %v", d.Name, sent, errs)
	}
	return args
}

// invalid is the first problem validation finds with a user's call of d
// with sent, failing the test when it finds none.
func invalid(t *testing.T, d *Def, sent map[string]any) param.FieldError {
	t.Helper()
	args, errs := d.Args.Validate(param.SentOf(sent))
	if len(errs) == 0 {
		t.Fatalf("%s %v: accepted as %v", d.Name, sent, args)
	}
	return errs[0]
}

// fetch is what the stand-in answers a user's call of d with sent, as
// the call path asks it: validated, keyed, the key bound to d's request.
func fetch[T any](t *testing.T, c *nsip.Client, d *Def, sent map[string]any) (*T, error) {
	t.Helper()
	request, err := d.Bind(d.Read(valid(t, d, sent)).Key)
	if err != nil {
		t.Fatal(err)
	}
	v, raw, err := request(context.Background(), c)
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 {
		t.Errorf("%s %v: answered without the body it was read from", d.Name, sent)
	}
	return v.(*T), nil
}

// notFound is the error a user reads when NSIP has nothing for the call
// of d with sent: err must be NSIP's not-found, worded with d's Subject,
// What and Next as the gateway words it (toolerr.AboutTool).
func notFound(t *testing.T, d *Def, sent map[string]any, err error) *toolerr.Error {
	t.Helper()
	var ne *nsip.Error
	if !errors.As(err, &ne) || ne.Kind != nsip.KindNotFound {
		t.Fatalf("%s %v: %v, want NSIP's not found", d.Name, sent, err)
	}
	te, _ := toolerr.Map(err, toolerr.AboutTool(&d.Def, SearchAnimals.Args.Name("PageSize")), valid(t, d, sent).Sent(), toolerr.Env{})
	return te
}
