package features

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// Resources let a host attach NSIP data to a conversation without a tool
// call. Each one reading NSIP is a tool behind a URI: its variables become
// the tool's arguments and the read runs the tool's pipeline (validation,
// cache, breaker, rate limit, token budget), so a resource and its tool
// share cached answers and a resource is never larger than the tool's
// answer. The glossary is the server's own data.

const jsonMIME = "application/json"

// resourceDef is one resource or resource template.
type resourceDef struct {
	uri      string // a fixed URI, or an RFC 6570 template when template is set
	template bool
	name     string
	title    string
	desc     string
	tool     string            // the tool behind it; "" for the glossary
	vars     map[string]string // URI variable -> tool argument, when they differ
}

// The URIs, shared with completions and resource links.
const (
	uriBreeds      = "nsip://breeds"
	uriTraits      = "nsip://traits"
	uriTraitRanges = "nsip://breeds/{breed_id}/trait-ranges"
	uriAnimal      = "nsip://animals/{lpn_id}"
	uriLineage     = "nsip://animals/{lpn_id}/lineage"
	uriProgeny     = "nsip://animals/{lpn_id}/progeny{?page,page_size,skip}"
)

var resourceDefs = []*resourceDef{
	{uri: uriBreeds, name: "breeds", title: "NSIP breed groups and breeds", tool: toolname.ListBreeds,
		desc: "Breed groups with each breed's numeric ID and name; the IDs other resources and tools take as breed_id."},
	{uri: uriTraits, name: "traits", title: "EBV trait glossary",
		desc: "Every trait code NSIP publishes: name, unit, which direction breeders select for, and group. Codes without a documented meaning say so."},
	{uri: uriTraitRanges, template: true, name: "trait-ranges", title: "Trait ranges for a breed", tool: toolname.GetTraitRanges,
		desc: "Lowest and highest EBV of each trait within one breed, e.g. nsip://breeds/640/trait-ranges."},
	{uri: uriAnimal, template: true, name: "animal", title: "An animal's record", tool: toolname.GetAnimal,
		vars: map[string]string{"lpn_id": "search_string"},
		desc: "One animal's breed, birth, status, parents, EBVs with accuracy, indexes and breeder, e.g. nsip://animals/6402382024NCS310."},
	{uri: uriLineage, template: true, name: "lineage", title: "An animal's pedigree", tool: toolname.GetLineage,
		desc: "Sire, dam and their ancestors, summarized when the tree exceeds the token budget."},
	{uri: uriProgeny, template: true, name: "progeny", title: "An animal's offspring", tool: toolname.GetProgeny,
		desc: "One page of offspring with their EBVs; page is 0-based, page_size 1.." + strconv.Itoa(nsip.MaxPageSize) + " (default 10), skip leaves out the page's first rows (already shown), e.g. nsip://animals/6402382024NCS310/progeny?page=1&page_size=5."},
}

// Resources returns the fixed resources bound to this gateway.
func (f *Features) Resources() []server.ServerResource {
	var out []server.ServerResource
	for _, d := range resourceDefs {
		if d.template {
			continue
		}
		r := mcp.NewResource(d.uri, d.name, mcp.WithResourceDescription(d.desc), mcp.WithMIMEType(jsonMIME))
		r.Title = d.title
		out = append(out, server.ServerResource{Resource: r, Handler: f.resourceHandler(d)})
	}
	return out
}

// ResourceTemplates returns the resource templates bound to this gateway.
func (f *Features) ResourceTemplates() []server.ServerResourceTemplate {
	var out []server.ServerResourceTemplate
	for _, d := range resourceDefs {
		if !d.template {
			continue
		}
		t := mcp.NewResourceTemplate(d.uri, d.name, mcp.WithTemplateDescription(d.desc), mcp.WithTemplateMIMEType(jsonMIME))
		t.Title = d.title
		out = append(out, server.ServerResourceTemplate{Template: t, Handler: f.templateHandler(d)})
	}
	return out
}

func (f *Features) resourceHandler(d *resourceDef) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return f.readResource(ctx, d, req.Params.URI, nil)
	}
}

func (f *Features) templateHandler(d *resourceDef) server.ResourceTemplateHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		if err := checkQuery(d, req.Params.URI); err != nil {
			return nil, err
		}
		return f.readResource(ctx, d, req.Params.URI, req.Params.Arguments)
	}
}

// checkQuery refuses a query the template cannot take, naming the real
// problem. mcp-go matches such a URI to the template but hands over no
// variables at all, so the tool would say the path's lpn_id is missing.
func checkQuery(d *resourceDef, uri string) error {
	_, query, hasQuery := strings.Cut(uri, "?")
	open := strings.Index(d.uri, "{?")
	if !hasQuery || query == "" {
		return nil
	}
	base := d.uri
	var names []string
	if open >= 0 {
		base = d.uri[:open]
		names = strings.Split(strings.TrimSuffix(d.uri[open+2:], "}"), ",")
	}
	takes := "no query"
	if len(names) > 0 {
		takes = "only " + strings.Join(names, ", ") + " in its query"
	}
	values, err := url.ParseQuery(query)
	if err != nil {
		return argumentError("", fmt.Sprintf("the query of %s is not valid: %v", uri, err), takes)
	}
	keys := slices.Sorted(maps.Keys(values))
	for _, k := range keys {
		if !slices.Contains(names, k) {
			return argumentError(k, fmt.Sprintf("unknown query parameter %q: %s takes %s", k, base, takes), takes)
		}
	}
	for _, k := range keys {
		if len(values[k]) > 1 {
			return argumentError(k, fmt.Sprintf("%s is given %d times in the query; give it once", k, len(values[k])), takes)
		}
	}
	return nil
}

// argumentError is a resource read refused for its URI, in the shape of
// a tool's invalid_argument error.
func argumentError(field, problem, expected string) error {
	type body struct {
		Code     string `json:"code"`
		Field    string `json:"field,omitempty"`
		Problem  string `json:"problem"`
		Expected string `json:"expected,omitempty"`
	}
	b, _ := json.Marshal(map[string]body{"error": {Code: "invalid_argument", Field: field, Problem: problem, Expected: expected}})
	return &ResourceError{Body: string(b)}
}

// ResourceError is a failed resource read. Its message is the JSON error
// body the tool behind the resource would have answered with, so a client
// sees the same code, field and fix.
type ResourceError struct{ Body string }

func (e *ResourceError) Error() string { return e.Body }

// readResource runs the resource's tool with the URI's variables as its
// arguments and returns the answer as one JSON text.
func (f *Features) readResource(ctx context.Context, d *resourceDef, uri string, vars map[string]any) ([]mcp.ResourceContents, error) {
	if d.tool == "" {
		b, err := GlossaryJSON()
		if err != nil {
			return nil, err
		}
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: jsonMIME, Text: string(b)}}, nil
	}
	var args param.Sent
	for name, v := range vars {
		if v == nil || v == "" {
			continue // an optional query variable left out: the tool's default applies
		}
		if arg, ok := d.vars[name]; ok {
			name = arg
		}
		args = args.With(name, param.FromText(param.Named(f.t.Params(d.tool), name), v))
	}
	res := f.t.Call(ctx, d.tool, args)
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := mcp.AsTextContent(res.Content[0]); ok {
			text = tc.Text
		}
	}
	if res.IsError {
		return nil, &ResourceError{Body: text}
	}
	if text == "" {
		return nil, errors.New("the tool behind this resource gave no answer")
	}
	c := mcp.TextResourceContents{URI: uri, MIMEType: jsonMIME, Text: text}
	if res.Meta != nil {
		c.Meta = res.Meta.AdditionalFields // tokens, summarized, cache: as the tool reports them
	}
	return []mcp.ResourceContents{c}, nil
}

// GlossaryJSON is the nsip://traits resource, read by hosts and attached to
// prompts; the glossary is fixed, so it is encoded once.
var GlossaryJSON = sync.OnceValues(func() ([]byte, error) {
	b, err := nsip.PlainJSON(struct {
		Traits []nsip.TraitInfo `json:"traits"`
	}{nsip.Glossary()})
	if err != nil {
		return nil, fmt.Errorf("encoding the glossary: %w", err)
	}
	return b, nil
})

// ResourceLinks point a summarized answer at the resource holding what its
// summary left out, beside the "next" call the summary names: a host can
// attach the resource without the model making that call. Only calls with
// a resource form get a link (a search has none).
func ResourceLinks(res summarize.Result) []mcp.Content {
	if !res.Summarized {
		return nil
	}
	// The members of a next call the links are made of; a summary writes
	// them as the tools take them, so a member of another type is no call
	// to link.
	var s struct {
		Next *struct {
			Tool      string `json:"tool"`
			Arguments struct {
				LPNID    string `json:"lpn_id"`
				Page     int    `json:"page"`
				PageSize int    `json:"page_size"`
				Skip     int    `json:"skip"`
			} `json:"arguments"`
		} `json:"next"`
	}
	if json.Unmarshal([]byte(res.Text), &s) != nil || s.Next == nil {
		return nil
	}
	lpn, next := s.Next.Arguments.LPNID, s.Next.Arguments
	if lpn == "" || !param.AlnumPattern.MatchString(lpn) {
		return nil
	}
	var uri, name, desc string
	switch s.Next.Tool {
	case toolname.GetLineage:
		uri, name, desc = "nsip://animals/"+lpn+"/lineage", "lineage", "The pedigree the summary shortened, from "+lpn+" up."
	case toolname.GetProgeny:
		if next.PageSize <= 0 {
			return nil
		}
		uri = fmt.Sprintf("nsip://animals/%s/progeny?page=%d&page_size=%d", lpn, next.Page, next.PageSize)
		if next.Skip > 0 {
			uri += fmt.Sprintf("&skip=%d", next.Skip)
		}
		name, desc = "progeny", "The offspring the summary left out, as the next call returns them."
	default:
		return nil
	}
	return []mcp.Content{mcp.NewResourceLink(uri, name, desc, jsonMIME)}
}
