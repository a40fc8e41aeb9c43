// Package elicit asks the user for an argument only they can choose (a
// breed, breeding objective weights, a coefficient-of-inbreeding limit)
// when a call lacks it, saving the model a failed call and a second try.
// A client that cannot be asked (no elicitation capability, a transport
// that cannot carry server requests) gets the usual error naming the
// missing argument.
//
// A form is asked the way protocol 2026-07-28 asks: the call ends with an
// input request (mcp-go's InputRequestBuilder) and is made again with the
// user's answer among its input responses, when the handler runs from the
// start and finds the answer where it would have asked. A 2026-07-28 client
// does the asking and the second call itself. For older clients, which
// cannot read an input request, [Asker.Wrap] puts the same form to the user
// with elicitation/create and runs the handler again with the answer, so
// one implementation serves both eras and every answer is validated the
// same way.
//
// A server wraps each tool handler once:
//
//	forms := &elicit.Asker{Log: logger, Breeds: breeds}
//	tool.Handler = forms.Wrap(tool.Handler)
//
// and a handler that finds a user's choice missing calls [Asker.AskMissing]
// (or [Asker.Ask] with a form of its own), returning the [Reply] it gets
// as its result.
package elicit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// elicitTimeout bounds how long a call waits for its user to answer.
const elicitTimeout = 2 * time.Minute

// maxFormRounds bounds how many forms one call of an older client may put
// to its user; each call asks one today.
const maxFormRounds = 4

// userChoices are the arguments that are the user's to choose rather than
// the model's to know, and so worth asking the user for when missing.
// Analysis tools add theirs (objective weights, an inbreeding limit).
var userChoices = map[string]bool{"breed_id": true, "weights": true}

// Asker puts forms to the users of the calling clients. Its fields are
// set before its first use; it is then safe for concurrent use.
type Asker struct {
	Log *slog.Logger // where a form that could not be put is logged
	// Breeds is NSIP's breed list when at hand (ok false when not): an
	// argument that takes a breed ID (param.Breeds) is then offered as a
	// choice of the breeds' names. nil offers none.
	Breeds func(ctx context.Context) (bg *nsip.BreedGroups, ok bool)
}

// Tool is what a form says of the tool it is asked for.
type Tool struct {
	Name  string       // named in what to do next after the user declines
	Title string       // named in the question AskMissing puts
	Specs []param.Spec // its arguments: the missing ones, and an example call
}

// A Form is one question put to the user; the analyses build theirs with
// the same type.
type Form = analysis.Form

// Reply is what a call that asked its user returns instead of going on:
// the input request that asks, or an error for the model (the user
// declined, answered wrongly, or could not be asked).
type Reply struct {
	Field    string
	Problem  string
	Expected string
	Example  *param.Call
	Next     string
	// Input, when set, is not an error: the call ends with this input
	// request and is made again with the user's answer.
	Input *mcp.CallToolResult
	// Invalid are the problems of the user's answer, Sent, reported like
	// those of invalid arguments; Example, when set, replaces theirs.
	Invalid []param.FieldError
	Sent    param.Sent
}

// formCall is what one run of a tool handler knows about asking its user.
type formCall struct {
	answers mcp.InputResponses // the user's answers, by form id
	failed  map[string]error   // forms an older client could not put to its user
	canAsk  bool               // a form may be sent
}

type formCallKey struct{}

func formsOf(ctx context.Context) *formCall {
	if fc, ok := ctx.Value(formCallKey{}).(*formCall); ok {
		return fc
	}
	return &formCall{}
}

// inputRounds reports whether a form is returned to the client as an input
// request, which it answers by calling again (2026-07-28), rather than put
// to its user by Wrap.
func inputRounds(ctx context.Context, req mcp.CallToolRequest) bool {
	// A task's result is read later through tasks/result, which has no
	// round of input: its forms are asked while it runs.
	return mcp.IsModernProtocol(server.RequestProtocolVersion(ctx)) && req.Params.Task == nil
}

// canElicit reports whether the caller's client declared elicitation and
// the call can reach its user: for 2026-07-28 the capabilities the request
// carries, before that those of the session, which must carry requests.
func canElicit(ctx context.Context, req mcp.CallToolRequest) bool {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return inputRounds(ctx, req) && info.ClientCapabilities != nil && info.ClientCapabilities.Elicitation != nil
	}
	s := server.ClientSessionFromContext(ctx)
	if _, ok := s.(server.SessionWithElicitation); !ok || server.ServerFromContext(ctx) == nil {
		return false
	}
	ci, ok := s.(server.SessionWithClientInfo)
	return ok && ci.GetClientCapabilities().Elicitation != nil
}

// Wrap wraps a tool handler so that its forms reach the user in either
// era: it tells the handler what it may ask and what was answered, and for
// a client older than 2026-07-28 turns an input request into
// elicitation/create and runs the handler again with the answers. mcp-go
// would do the same for a plain call, but not for a task, without a limit
// on the wait, and with a protocol error where a model needs a result.
func (a *Asker) Wrap(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fc := &formCall{answers: req.Params.InputResponses, canAsk: canElicit(ctx, req)}
		res, err := next(context.WithValue(ctx, formCallKey{}, fc), req)
		if inputRounds(ctx, req) {
			return res, err
		}
		for round := 0; err == nil && res.NeedsInput(); round++ {
			if round == maxFormRounds {
				return nil, fmt.Errorf("%s asked its user more than %d forms in one call", req.Params.Name, maxFormRounds)
			}
			// Answers so far are kept, so that a later form does not undo
			// an earlier one.
			answers, failed := putForms(ctx, res.InputRequests)
			more := &formCall{answers: mcp.InputResponses{}, failed: map[string]error{}, canAsk: fc.canAsk}
			maps.Copy(more.answers, fc.answers)
			maps.Copy(more.failed, fc.failed)
			maps.Copy(more.answers, answers)
			maps.Copy(more.failed, failed)
			fc = more
			res, err = next(context.WithValue(ctx, formCallKey{}, fc), req)
		}
		return res, err
	}
}

// putForms puts each form to the user of an older client, one at a time
// (a user answers one dialog at once), each waiting at most elicitTimeout.
func putForms(ctx context.Context, forms mcp.InputRequests) (mcp.InputResponses, map[string]error) {
	answers, failed := mcp.InputResponses{}, map[string]error{}
	srv := server.ServerFromContext(ctx)
	for _, id := range slices.Sorted(maps.Keys(forms)) {
		q := forms[id]
		if q.Elicitation == nil {
			failed[id] = fmt.Errorf("input request %s is not a form", q.Method)
			continue
		}
		ctx, cancel := context.WithTimeout(ctx, elicitTimeout)
		res, err := srv.RequestElicitation(ctx, mcp.ElicitationRequest{
			Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)},
			Params:  *q.Elicitation,
		})
		cancel()
		switch {
		case err != nil:
			failed[id] = err
		case res == nil:
			failed[id] = errors.New("the client sent no answer")
		default:
			answers[id] = mcp.NewElicitationInputResponse(*res)
		}
	}
	return answers, failed
}

// formID names a form among a call's input requests: the argument it
// fills.
func formID(q Form) string {
	if q.Arg != "" {
		return q.Arg
	}
	names := make([]string, len(q.Fields))
	for i, p := range q.Fields {
		names[i] = p.Name
	}
	return strings.Join(names, ",")
}

// Ask puts q to the user of the calling client and returns the answers
// validated like arguments, each held as its Spec's kind validates to.
// asked is false when the client cannot be asked: the caller reports what
// is missing as usual. A *Reply is the user declining, an invalid answer,
// or no answer in time, ready to return to the model; or, while the user
// has yet to answer, the input request that asks (its Input), which ends
// the call until the answer comes back.
func (a *Asker) Ask(ctx context.Context, t Tool, q Form) (answers analysis.Answers, r *Reply, asked bool) {
	fields, also, r, asked := a.ask(ctx, t, q)
	if !asked || r != nil {
		return analysis.Answers{}, r, asked
	}
	return analysis.Answers{Fields: choices(fields), Also: choices(also)}, nil, true
}

// ask is Ask with the answers as validated arguments, by name: those to
// q's Fields, and those to its Also.
func (a *Asker) ask(ctx context.Context, t Tool, q Form) (fields, also param.Valid, r *Reply, asked bool) {
	fc, id := formsOf(ctx), formID(q)
	res := server.ElicitationResponse(fc.answers, id)
	err, failed := fc.failed[id]
	if res == nil && !failed && !fc.canAsk {
		return param.Valid{}, param.Valid{}, nil, false
	}
	arg, field, prefix, expected := param.Names(q.Fields), q.Fields[0].Name, "", q.Fields[0].Expected()
	if q.Arg != "" {
		arg, field, prefix, expected = q.Arg, q.Arg, q.Arg+".", q.Expected
	}
	ex := q.Example
	if ex == nil {
		ex = param.Example(t.Specs, param.Sent{})
	}
	switch {
	case failed && (errors.Is(err, server.ErrElicitationNotSupported) || errors.Is(err, server.ErrServerInitiatedRequestUnsupported)):
		return param.Valid{}, param.Valid{}, nil, false
	case failed:
		a.Log.Info("elicitation failed", "tool", t.Name, "error", err.Error())
		return param.Valid{}, param.Valid{}, &Reply{
			Field:    field,
			Problem:  fmt.Sprintf("%s is required, and asking the user for it failed: %v", arg, err),
			Expected: expected,
			Example:  ex,
		}, true
	case res == nil:
		return param.Valid{}, param.Valid{}, &Reply{
			Field:   field,
			Problem: fmt.Sprintf("%s is required; the user is asked for it", arg),
			Input: server.NewInputRequestBuilder("").Elicit(id, mcp.ElicitationParams{
				Mode:            mcp.ElicitationModeForm,
				Message:         q.Message,
				RequestedSchema: a.formSchema(ctx, slices.Concat(q.Fields, q.Also), q.Titles),
			}).ToolResult(),
		}, true
	}
	if res.Action != mcp.ElicitationResponseActionAccept {
		return param.Valid{}, param.Valid{}, &Reply{
			Field:   field,
			Problem: fmt.Sprintf("%s is required; the user was asked for it and chose %s", arg, res.Action),
			Next:    fmt.Sprintf("ask the user for %s in the conversation, or call %s again with it", arg, t.Name),
		}, true
	}
	// The answer is the JSON object the client sent: it is read here, and
	// only here, as the arguments it stands for.
	content, _ := res.Content.(map[string]any)
	sent, sentAlso := make(map[string]any, len(content)), map[string]any{}
	for k, v := range content {
		if p := param.Named(q.Also, k); p != nil {
			sentAlso[k] = formValue(p, v)
			continue
		}
		sent[k] = formValue(param.Named(q.Fields, k), v)
	}
	fields, errs := param.ValidateObject(prefix, q.Fields, param.SentOf(sent))
	also, alsoErrs := param.ValidateObject("", q.Also, param.SentOf(sentAlso))
	if errs = append(errs, alsoErrs...); len(errs) > 0 {
		return param.Valid{}, param.Valid{}, &Reply{Invalid: errs, Sent: param.SentOf(sent), Example: q.Example}, true
	}
	return fields, also, nil, true
}

// choices are validated answers held by kind. A form's fields are of the
// four kinds Choices holds; a value of any other type (a custom
// validation's) is kept as its JSON text rather than dropped.
func choices(answers param.Valid) analysis.Choices {
	c := analysis.NewChoices()
	answers.Each(func(k string, v any) {
		if !c.Put(k, v) {
			c.Texts[k] = param.JSONText(v)
		}
	})
	return c
}

// AskMissing fills the required arguments of t that validation found
// missing (errs), when every problem is a missing argument that is the
// user's to choose and the client can be asked. ok is false when nothing
// was asked; a non-nil *Reply is the result to return.
func (a *Asker) AskMissing(ctx context.Context, t Tool, sent param.Sent, errs []param.FieldError) (filled param.Sent, r *Reply, ok bool) {
	var missing []param.Spec
	for _, fe := range errs {
		p := param.Named(t.Specs, fe.Field)
		if p == nil || !p.Required || sent.Has(fe.Field) || !userChoices[p.Name] {
			return param.Sent{}, nil, false
		}
		missing = append(missing, *p)
	}
	if len(missing) == 0 {
		return param.Sent{}, nil, false
	}
	answers, _, r, asked := a.ask(ctx, t, Form{Message: fmt.Sprintf("%s needs %s.", t.Title, param.Names(missing)), Fields: missing})
	if !asked || r != nil {
		return param.Sent{}, r, asked
	}
	filled = sent
	answers.Each(func(k string, v any) { filled = filled.With(k, v) })
	return filled, nil, true
}

// formSchema is the flat object of primitive fields elicitation allows. An
// argument that takes a breed ID (param.Breeds) is offered as a choice of
// the breeds' names when NSIP's list is at hand.
func (a *Asker) formSchema(ctx context.Context, ps []param.Spec, titles map[string]string) *param.Schema {
	schema := &param.Schema{Type: param.Types{param.Object}, Properties: param.Properties{}}
	for _, p := range ps {
		schema.Properties = append(schema.Properties, param.Property{Name: p.Name, Schema: a.formField(ctx, p, titles[p.Name])})
		// With no field required, Required stays empty and is left out
		// rather than sent as null, which clients that check the form's
		// schema (the TypeScript SDK) refuse.
		if p.Required {
			schema.Required = append(schema.Required, p.Name)
		}
	}
	// Fields are listed by name, as forms always were.
	slices.SortStableFunc(schema.Properties, func(x, y param.Property) int { return strings.Compare(x.Name, y.Name) })
	return schema
}

// formField is one field of a form, titled title (its name when "").
func (a *Asker) formField(ctx context.Context, p param.Spec, title string) *param.Schema {
	if p.Complete == param.Breeds {
		if ids, names := a.breedChoices(ctx); len(ids) > 0 {
			return &param.Schema{Type: param.Types{param.String}, Title: "Breed", Description: p.Desc, Enum: ids, EnumNames: names}
		}
	}
	if title == "" {
		title = p.Name
	}
	f := &param.Schema{Title: title, Description: p.Desc}
	switch p.Kind {
	case param.Integer, param.Number:
		f.Type, f.Minimum, f.Maximum = param.Types{p.Kind}, p.Min, p.Max
	case param.Boolean:
		f.Type = param.Types{param.Boolean}
	default:
		f.Type, f.Enum = param.Types{param.String}, p.Enum
	}
	return f
}

func (a *Asker) breedChoices(ctx context.Context) (ids, names []string) {
	if a.Breeds == nil {
		return nil, nil
	}
	bg, ok := a.Breeds(ctx)
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
func formValue(p *param.Spec, v any) any {
	switch x := v.(type) {
	case string:
		return param.FromText(p, x)
	case float64:
		return json.Number(strconv.FormatFloat(x, 'f', -1, 64))
	}
	return v
}

// LeftToAsk reports whether every problem validation found is a list
// argument of analysis d that is the user's choice left out, and the
// client can be asked for it: the analysis then asks once it knows what to
// offer (the traits its animals carry).
func LeftToAsk(ctx context.Context, d *analysis.Def, sent param.Sent, errs []param.FieldError) bool {
	if fc := formsOf(ctx); len(errs) == 0 || (!fc.canAsk && len(fc.answers) == 0 && len(fc.failed) == 0) {
		return false
	}
	for _, fe := range errs {
		i := slices.IndexFunc(d.Args.Lists, func(l param.List) bool { return l.Name == fe.Field })
		if i < 0 || !userChoices[fe.Field] || sent.Has(fe.Field) || fe.Problem != "is required" {
			return false
		}
	}
	return true
}
