package views

import (
	"context"
	"encoding/json"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestResourcesAreViewsOfTheMCPAppsType(t *testing.T) {
	rs := Resources()
	if len(rs) != len(All) || len(rs) == 0 {
		t.Fatalf("%d resources for %d views", len(rs), len(All))
	}
	seen := map[string]bool{}
	for i, r := range rs {
		if r.Resource.MIMEType != "text/html;profile=mcp-app" {
			t.Errorf("%s: mimeType %q", r.Resource.URI, r.Resource.MIMEType)
		}
		if want := "ui://nsip/" + All[i].Name; r.Resource.URI != want || seen[want] {
			t.Errorf("resource %d: URI %q, want %q once", i, r.Resource.URI, want)
		}
		seen[r.Resource.URI] = true
		if r.Resource.Title == "" || r.Resource.Description == "" {
			t.Errorf("%s: no title or description", r.Resource.URI)
		}
		checkNoDomains(t, r.Resource.URI+" in resources/list", r.Resource.Meta.AdditionalFields)

		got, err := r.Handler(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: r.Resource.URI}})
		if err != nil || len(got) != 1 {
			t.Fatalf("read %s: %d contents, %v", r.Resource.URI, len(got), err)
		}
		c, ok := got[0].(mcp.TextResourceContents)
		if !ok || c.URI != r.Resource.URI || c.MIMEType != MIMEType || !strings.HasPrefix(c.Text, "<!doctype html>") {
			t.Fatalf("read %s: %T %q %q %.40q", r.Resource.URI, got[0], c.URI, c.MIMEType, c.Text)
		}
		checkNoDomains(t, r.Resource.URI+" read", c.Meta)
	}
}

// checkNoDomains holds a view's _meta.ui, as the wire carries it, to no
// network origin at all.
func checkNoDomains(t *testing.T, where string, meta map[string]any) {
	t.Helper()
	b, err := json.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	var wire struct {
		UI struct {
			CSP           map[string]*[]string `json:"csp"`
			Permissions   map[string]any       `json:"permissions"`
			PrefersBorder bool                 `json:"prefersBorder"`
		} `json:"ui"`
	}
	if err := json.Unmarshal(b, &wire); err != nil || wire.UI.CSP == nil {
		t.Fatalf("%s: no _meta.ui.csp: %s (%v)", where, b, err)
	}
	for _, k := range []string{"connectDomains", "resourceDomains", "frameDomains"} {
		if d := wire.UI.CSP[k]; d == nil || len(*d) != 0 {
			t.Errorf("%s: csp.%s in %s; want an empty list", where, k, b)
		}
	}
	if wire.UI.Permissions == nil || len(wire.UI.Permissions) != 0 || !wire.UI.PrefersBorder {
		t.Errorf("%s: _meta %s; want no permissions and a border", where, b)
	}
}

// Each embedded page carries a CSP that loads nothing from the network,
// and refers to nothing outside itself.
func TestPagesAreSelfContained(t *testing.T) {
	files, err := fs.Glob(dist, "dist/*.html")
	if err != nil || len(files) != len(All) {
		t.Fatalf("dist has %v (%v), want one page per view (%d)", files, err, len(All))
	}
	cspMeta := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`)
	external := regexp.MustCompile(`(?i)<(script|link|img|iframe)[^>]+(src|href)\s*=\s*["']?(https?:)?//`)
	for _, v := range All {
		html, err := v.HTML()
		if err != nil {
			t.Fatal(err)
		}
		m := cspMeta.FindStringSubmatch(html)
		if m == nil {
			t.Fatalf("%s: no CSP meta", v.Name)
		}
		for _, d := range []string{"default-src 'none'", "connect-src 'none'", "frame-src 'none'"} {
			if !strings.Contains(m[1], d) {
				t.Errorf("%s: CSP %q lacks %q", v.Name, m[1], d)
			}
		}
		if strings.Contains(m[1], "http") {
			t.Errorf("%s: CSP names an origin: %q", v.Name, m[1])
		}
		if loc := external.FindString(html); loc != "" {
			t.Errorf("%s: loads from the network: %q", v.Name, loc)
		}
		if n := strings.Count(html, "<script"); n != 1 || strings.Contains(html, "<script src") || strings.Contains(html, "<link") {
			t.Errorf("%s: %d scripts, want one inline script and no links", v.Name, n)
		}
	}
}

// maxPageBytes bounds each view's page as a host receives it (the
// resource's text): hosts load it anew in every conversation that shows
// the view, and it is plain HTML and script, nothing to unpack first.
const maxPageBytes = 150_000

func TestPagesStayUnder150kB(t *testing.T) {
	for _, v := range All {
		html, err := v.HTML()
		if err != nil {
			t.Fatal(err)
		}
		if len(html) > maxPageBytes {
			t.Errorf("%s: the page is %d bytes, over %d: see specs/benchmarks.md on what a view's bundle holds", v.Name, len(html), maxPageBytes)
		} else {
			t.Logf("%s: %d bytes", v.Name, len(html))
		}
	}
}

func TestToolsNameTheirViewUnderBothKeys(t *testing.T) {
	uris := map[string]bool{}
	for _, r := range Resources() {
		uris[r.Resource.URI] = true
	}
	var tools []string
	for _, v := range All {
		tools = append(tools, v.Tools...)
	}
	for _, name := range tools {
		tool := mcp.NewTool(name)
		Declare(&tool)
		ui, _ := tool.Meta.AdditionalFields["ui"].(ToolUI)
		uri := ui.ResourceURI
		if !uris[uri] || tool.Meta.AdditionalFields["ui/resourceUri"] != uri {
			t.Errorf("%s: _meta %v does not name one listed view under both keys", name, tool.Meta.AdditionalFields)
		}
		if v, ok := For(name); !ok || v.URI() != uri {
			t.Errorf("For(%s) = %v, %v; Declare said %s", name, v, ok, uri)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(tools)))) != len(tools) {
		t.Errorf("a tool has more than one view: %v", tools)
	}
}

func TestDeclareKeepsOtherMetaAndLeavesToolsWithoutViews(t *testing.T) {
	plain := mcp.NewTool("nsip_list_breeds")
	Declare(&plain)
	if plain.Meta != nil {
		t.Errorf("a tool without a view got _meta %v", plain.Meta.AdditionalFields)
	}
	if _, ok := For("nsip_list_breeds"); ok {
		t.Error("For names a view for nsip_list_breeds")
	}
	withMeta := mcp.NewTool(All[0].Tools[0])
	withMeta.Meta = &mcp.Meta{}
	Declare(&withMeta)
	if withMeta.Meta.AdditionalFields["ui/resourceUri"] != All[0].URI() {
		t.Errorf("_meta without fields: %v", withMeta.Meta.AdditionalFields)
	}
	withMeta.Meta.AdditionalFields = map[string]any{"other": 1}
	Declare(&withMeta)
	if withMeta.Meta.AdditionalFields["other"] != 1 || withMeta.Meta.AdditionalFields["ui/resourceUri"] != All[0].URI() {
		t.Errorf("_meta with a field of its own: %v", withMeta.Meta.AdditionalFields)
	}
}

func TestAMissingPageIsAnError(t *testing.T) {
	v := View{Name: "absent"}
	if _, err := v.HTML(); err == nil || !strings.Contains(err.Error(), "absent") {
		t.Errorf("HTML of a view with no page: %v", err)
	}
	if _, err := v.read(context.Background(), mcp.ReadResourceRequest{}); err == nil {
		t.Error("reading a view with no page succeeded")
	}
}
