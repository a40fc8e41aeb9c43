package views

import (
	"context"
	"embed"
	"fmt"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

//go:embed dist/*.html
var dist embed.FS

// MIMEType is the type MCP Apps hosts render as a view (the SDK's
// RESOURCE_MIME_TYPE).
const MIMEType = "text/html;profile=mcp-app"

// The _meta keys a tool names its view under: the current nested one and
// the older flat one that some hosts still read.
const (
	metaUI         = "ui"
	metaFlatURIKey = "ui/resourceUri"
)

// View is one page and the tools whose answers it shows.
type View struct {
	Name  string // the page's file in dist/ without .html, and its URI's last part
	Title string
	Desc  string
	Tools []string
}

// URI is the view's ui:// address.
func (v View) URI() string { return "ui://nsip/" + v.Name }

// All are the views, in the order resources/list shows them.
var All = []View{
	{Name: "pedigree", Title: "Pedigree chart",
		Desc:  "An animal's pedigree as a chart: one box per ancestor, one column per generation, repeated ancestors marked.",
		Tools: []string{toolname.GetLineage, toolname.SearchByLPN}},
	{Name: "ebvs", Title: "EBVs with accuracy and breed percentile",
		Desc:  "Each EBV of one or more animals with a bar for its accuracy (under 40% marked) and for its percentile in the breed.",
		Tools: []string{toolname.GetAnimal, toolname.CompareAnimals}},
	{Name: "matings", Title: "Inbreeding matrix",
		Desc:  "The lamb's COI for every ram with every ewe, the mating plan's pairs marked; for one pair, its common ancestors.",
		Tools: []string{toolname.PlanMatings, toolname.CheckMating}},
	{Name: "ranking", Title: "Ranking table",
		Desc:  "A ranking of animals by index as a table sortable by any column.",
		Tools: []string{toolname.RankAnimals}},
	{Name: "flock", Title: "Flock distributions",
		Desc:  "A flock's counts by sex, status and birth year, and each trait's spread across the flock.",
		Tools: []string{toolname.FlockSummary}},
	{Name: "diversity", Title: "Inbreeding by birth year",
		Desc:  "A breed's mean and largest COI by birth year as a chart and a table, with its effective size and numbers of founders and ancestors.",
		Tools: []string{toolname.BreedDiversity}},
}

// For is the view of the tool named tool, if it has one.
func For(tool string) (View, bool) {
	for _, v := range All {
		if slices.Contains(v.Tools, tool) {
			return v, true
		}
	}
	return View{}, false
}

// Declare names t's view in its _meta, under both keys hosts read; a tool
// without a view is left as it is. Hosts do not hand _meta to the model.
func Declare(t *mcp.Tool) {
	v, ok := For(t.Name)
	if !ok {
		return
	}
	if t.Meta == nil {
		t.Meta = &mcp.Meta{}
	}
	t.Meta.SetMetaField(metaUI, ToolUI{ResourceURI: v.URI()})
	t.Meta.SetMetaField(metaFlatURIKey, v.URI())
}

// ToolUI is a tool's _meta.ui: the view that shows its answers.
type ToolUI struct {
	ResourceURI string `json:"resourceUri"`
}

// ViewUI is a view's _meta.ui. Its members, and the CSP's, are declared in
// the order of their names, as the published contract spells them.
type ViewUI struct {
	CSP           CSP      `json:"csp"`
	Permissions   struct{} `json:"permissions"` // none of the device's
	PrefersBorder bool     `json:"prefersBorder"`
}

// CSP is the network origins a view may reach, of each kind; written as
// empty lists, never null, so that a host reads "none" and not "unset".
type CSP struct {
	ConnectDomains  []string `json:"connectDomains"`
	FrameDomains    []string `json:"frameDomains"`
	ResourceDomains []string `json:"resourceDomains"`
}

// viewUI is every view's _meta.ui: no network domains of any kind (the
// host's CSP then lets the page load nothing), no device permissions, and
// a border, since the pages draw none of their own.
func viewUI() ViewUI {
	return ViewUI{CSP: CSP{ConnectDomains: []string{}, FrameDomains: []string{}, ResourceDomains: []string{}}, PrefersBorder: true}
}

// HTML is the view's page.
func (v View) HTML() (string, error) {
	b, err := dist.ReadFile("dist/" + v.Name + ".html")
	if err != nil {
		return "", fmt.Errorf("view %s: %w", v.Name, err)
	}
	return string(b), nil
}

// Resources are the views as MCP resources.
func Resources() []server.ServerResource {
	out := make([]server.ServerResource, 0, len(All))
	for _, v := range All {
		r := mcp.NewResource(v.URI(), v.Name+"-view", mcp.WithResourceDescription(v.Desc), mcp.WithMIMEType(MIMEType))
		r.Title = v.Title
		r.Meta = &mcp.Meta{}
		r.Meta.SetMetaField(metaUI, viewUI())
		out = append(out, server.ServerResource{Resource: r, Handler: v.read})
	}
	return out
}

func (v View) read(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	html, err := v.HTML()
	if err != nil {
		return nil, err
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{
		// mcp-go takes a resource's contents' _meta as a map.
		URI: v.URI(), MIMEType: MIMEType, Text: html, Meta: map[string]any{metaUI: viewUI()},
	}}, nil
}
