package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// When a call lacks a choice only its user can make (a breed, breeding
// objective weights, a coefficient-of-inbreeding limit), a client that
// supports elicitation is asked for it on the spot, saving the model a
// failed call and a second try. A client that cannot be asked (no
// elicitation capability, a transport that cannot carry server requests,
// protocol revisions without server requests) gets the usual error naming
// the missing argument.

// elicitTimeout bounds how long a call waits for its user to answer.
const elicitTimeout = 2 * time.Minute

// userChoices are the arguments that are the user's to choose rather than
// the model's to know, and so worth asking the user for when missing.
// Analysis tools add theirs (objective weights, an inbreeding limit).
var userChoices = map[string]bool{"breed_id": true}

// canElicit reports whether the caller's client declared elicitation and
// its session can carry the request.
func canElicit(ctx context.Context) bool {
	s := server.ClientSessionFromContext(ctx)
	if _, ok := s.(server.SessionWithElicitation); !ok {
		return false
	}
	ci, ok := s.(server.SessionWithClientInfo)
	return ok && ci.GetClientCapabilities().Elicitation != nil
}

// ask puts message to the user of the calling client with a form of one
// field per param, and returns the answers validated like arguments. asked
// is false when the client cannot be asked: the caller reports what is
// missing as usual. A *toolError is the user declining, an invalid answer,
// or no answer in time, ready to return to the model.
func (g *Gateway) ask(ctx context.Context, d *toolDef, message string, ps []param) (answers map[string]any, te *toolError, asked bool) {
	srv := server.ServerFromContext(ctx)
	if !canElicit(ctx) || srv == nil {
		return nil, nil, false
	}
	ctx, cancel := context.WithTimeout(ctx, elicitTimeout)
	defer cancel()
	res, err := srv.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
		Message:         message,
		RequestedSchema: g.formSchema(ctx, ps),
	}})
	switch {
	case errors.Is(err, server.ErrElicitationNotSupported), errors.Is(err, server.ErrServerInitiatedRequestUnsupported):
		return nil, nil, false
	case err != nil:
		g.log.Info("elicitation failed", "tool", d.name, "error", err.Error())
		return nil, &toolError{
			Code:     CodeInvalidArgument,
			Field:    ps[0].name,
			Problem:  fmt.Sprintf("%s is required, and asking the user for it failed: %v", names(ps), err),
			Expected: ps[0].expected(),
			Example:  example(d.params, nil),
		}, true
	}
	if res.Action != mcp.ElicitationResponseActionAccept {
		return nil, &toolError{
			Code:    CodeInvalidArgument,
			Field:   ps[0].name,
			Problem: fmt.Sprintf("%s is required; the user was asked for it and chose %s", names(ps), res.Action),
			Next:    fmt.Sprintf("ask the user for %s in the conversation, or call %s again with it", names(ps), d.name),
		}, true
	}
	content, _ := res.Content.(map[string]any)
	sent := make(map[string]any, len(content))
	for k, v := range content {
		sent[k] = formValue(paramNamed(ps, k), v)
	}
	out, errs := validateObject("", ps, sent)
	if len(errs) > 0 {
		te := invalidArgs(d, sent, errs)
		te.Problem = "the user's answer: " + te.Problem
		return nil, te, true
	}
	return out, nil, true
}

// askMissing fills the required arguments of d that validation found
// missing, when every problem is a missing argument and the client can be
// asked. ok is false when nothing was asked; a non-nil *toolError is the
// result to return.
func (g *Gateway) askMissing(ctx context.Context, d *toolDef, sent map[string]any, errs []fieldError) (map[string]any, *toolError, bool) {
	var missing []param
	for _, fe := range errs {
		p := paramNamed(d.params, fe.Field)
		if p == nil || !p.required || sent[fe.Field] != nil || !userChoices[p.name] {
			return nil, nil, false
		}
		missing = append(missing, *p)
	}
	if len(missing) == 0 {
		return nil, nil, false
	}
	answers, te, asked := g.ask(ctx, d, fmt.Sprintf("%s needs %s.", d.title, names(missing)), missing)
	if !asked || te != nil {
		return nil, te, asked
	}
	filled := make(map[string]any, len(sent)+len(answers))
	for k, v := range sent {
		filled[k] = v
	}
	for k, v := range answers {
		filled[k] = v
	}
	return filled, nil, true
}

func paramNamed(ps []param, name string) *param {
	for i := range ps {
		if ps[i].name == name {
			return &ps[i]
		}
	}
	return nil
}

func names(ps []param) string {
	n := make([]string, len(ps))
	for i, p := range ps {
		n[i] = p.name
	}
	return strings.Join(n, " and ")
}

// formSchema is the flat object of primitive fields elicitation allows. A
// breed_id is offered as a choice of the breeds' names when NSIP's list is
// at hand.
func (g *Gateway) formSchema(ctx context.Context, ps []param) map[string]any {
	props := map[string]any{}
	var required []string
	for _, p := range ps {
		f := map[string]any{"title": p.name, "description": p.desc}
		switch p.kind {
		case kindInteger, kindNumber:
			f["type"] = string(p.kind)
			if p.min != nil {
				f["minimum"] = *p.min
			}
			if p.max != nil {
				f["maximum"] = *p.max
			}
		case kindBoolean:
			f["type"] = "boolean"
		default:
			f["type"] = "string"
			if len(p.enum) > 0 {
				f["enum"] = p.enum
			}
		}
		if p.name == "breed_id" {
			if ids, names := g.breedChoices(ctx); len(ids) > 0 {
				f = map[string]any{"type": "string", "title": "Breed", "description": p.desc, "enum": ids, "enumNames": names}
			}
		}
		props[p.name] = f
		if p.required {
			required = append(required, p.name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required}
}

func (g *Gateway) breedChoices(ctx context.Context) (ids, names []string) {
	v, ok := g.cachedModel(ctx, listBreedsDef)
	bg, _ := v.(*nsip.BreedGroups)
	if !ok || bg == nil {
		return nil, nil
	}
	for _, grp := range bg.Groups {
		for _, b := range grp.Breeds {
			ids = append(ids, strconv.Itoa(b.ID))
			names = append(names, fmt.Sprintf("%s (%s)", b.Name, grp.Name))
		}
	}
	return ids, names
}

// formValue turns a form answer into an argument of p: a choice offered as
// text ("640") validates as the number it names.
func formValue(p *param, v any) any {
	switch x := v.(type) {
	case string:
		return uriValue(p, x)
	case float64:
		return json.Number(strconv.FormatFloat(x, 'f', -1, 64))
	}
	return v
}

// choose returns the values of ps for an analysis: those in args as given,
// the rest asked of the user when the client can be asked, else the usual
// invalid_argument error naming the first missing one. why says what the
// choice is for, in the user's terms ("to weigh the traits in the ranking").
func (g *Gateway) choose(ctx context.Context, d *toolDef, args map[string]any, why string, ps ...param) (map[string]any, *toolError) {
	out := map[string]any{}
	var missing []param
	for _, p := range ps {
		if v, ok := args[p.name]; ok && v != nil {
			out[p.name] = v
		} else {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	answers, te, asked := g.ask(ctx, d, fmt.Sprintf("%s needs %s %s.", d.title, names(missing), why), missing)
	if te != nil {
		return nil, te
	}
	if !asked {
		errs := make([]fieldError, len(missing))
		for i, p := range missing {
			errs[i] = fieldError{Field: p.name, Problem: "is required " + why, Expected: p.expected()}
		}
		return nil, invalidArgs(d, args, errs)
	}
	for k, v := range answers {
		out[k] = v
	}
	return out, nil
}
