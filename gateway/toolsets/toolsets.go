// Package toolsets names the groups of tools a deployment may offer
// (NSIP_TOOLSETS), checks a configured list of them, and holds what
// tools/list shows of the groups: the order of the tools, the icons of the
// server and of each group, and the lists' cache hints.
//
// A server checks its configuration with [Check], lists its tools through
// the filter [Order] returns, and marks them with [Icon] and [ServerIcon]:
//
//	sets, err := toolsets.Check(cfg.Toolsets) // nil means all
//	opts := append([]server.ServerOption{
//		server.WithToolFilter(toolsets.Order(names)),
//		server.WithIcons(toolsets.ServerIcon()),
//	}, toolsets.CacheHints()...)
package toolsets

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The toolsets a deployment may offer: the nine lookups, and the five
// analyses computed from their answers. A host with a small context, or one
// that only wants NSIP's own answers, can leave the analyses out (about
// half of tools/list); the analyses still read NSIP through the lookups'
// pipeline whether or not the lookups are listed.
const (
	Lookup   = "lookup"
	Analysis = "analysis"
)

// All are the toolset names, in the order tools/list shows their tools.
func All() []string { return []string{Lookup, Analysis} }

// Check rejects an unknown or repeated name; nil or empty means all. The
// list it returns is the caller's own copy.
func Check(names []string) ([]string, error) {
	if len(names) == 0 {
		return All(), nil
	}
	for i, n := range names {
		if !slices.Contains(All(), n) {
			return nil, fmt.Errorf("gateway: unknown toolset %q; toolsets are %s", n, strings.Join(All(), ", "))
		}
		if slices.Contains(names[:i], n) {
			return nil, fmt.Errorf("gateway: toolset %q named twice", n)
		}
	}
	return slices.Clone(names), nil
}

// Order is the tool filter that puts tools/list in the order of names, the
// tool table's; tools it does not name follow, by name. mcp-go (v1.2.1)
// sorts tools by name, which scatters the lookups among the analyses; a
// model reads the list top down, so the table's order (what to call first,
// then the analyses built on them) is the one worth keeping. A tool filter
// is the only hook mcp-go runs on the list; at call time it sees one tool
// and keeps it. mcp-go's list cursors assume name order, so a server built
// with server.WithPaginationLimit must not use it.
func Order(names []string) server.ToolFilterFunc {
	rank := make(map[string]int, len(names))
	for i, n := range names {
		rank[n] = i
	}
	return func(_ context.Context, tools []mcp.Tool) []mcp.Tool {
		if len(tools) < 2 {
			return tools // a call's one tool: nothing to order, nothing to copy
		}
		out := slices.Clone(tools)
		slices.SortStableFunc(out, func(a, b mcp.Tool) int {
			ra, oka := rank[a.Name]
			rb, okb := rank[b.Name]
			switch {
			case oka && okb:
				return ra - rb
			case oka:
				return -1
			case okb:
				return 1
			}
			return strings.Compare(a.Name, b.Name)
		})
		return out
	}
}

// ListCacheTTL is how long a client or a shared cache may reuse tools/list,
// prompts/list, resources/list and resources/templates/list (MCP 2026-07-28
// caching hints). Those lists depend only on the build and its
// configuration (NSIP_TOOLSETS), never on the caller or on NSIP's data, so
// their scope is public; a changed configuration needs a restart, and an
// hour bounds how long a client may go on showing the old lists after one.
// resources/read and server/discover keep mcp-go's default (private, no
// reuse): a resource is NSIP data, and the instructions name the date of
// the evaluation once it is known.
const ListCacheTTL = time.Hour

// CacheHints are the server options that give the four lists their hints.
func CacheHints() []server.ServerOption {
	ms := ListCacheTTL.Milliseconds()
	return []server.ServerOption{
		server.WithMethodCacheHints(mcp.MethodToolsList, ms, mcp.CacheScopePublic),
		server.WithMethodCacheHints(mcp.MethodPromptsList, ms, mcp.CacheScopePublic),
		server.WithMethodCacheHints(mcp.MethodResourcesList, ms, mcp.CacheScopePublic),
		server.WithMethodCacheHints(mcp.MethodResourcesTemplatesList, ms, mcp.CacheScopePublic),
	}
}

// Icons are tiny SVGs carried inline as data: URIs, so a host shows them
// without fetching anything: one for the server (a sheep), one for the
// lookups (a magnifier), one for the analyses (a bar chart). Every tool
// repeats its icon in tools/list, so they are percent-encoded rather than
// base64 (about 110 cl100k tokens a tool instead of 220) and drawn on an
// 8x8 grid with as few attributes as will do.
var (
	serverIcon   = svgIcon(`<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><ellipse cx='9' cy='8' rx='6' ry='4' fill='#ddc'/><circle cx='3' cy='6' r='2' fill='#333'/><path d='M6 11v4m6-4v4' stroke='#333'/></svg>`)
	lookupIcon   = svgIcon(`<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 8 8' fill='none' stroke='#563'><circle cx='3' cy='3' r='2.5'/><path d='M5 5l3 3'/></svg>`)
	analysisIcon = svgIcon(`<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 8 8'><path d='M0 8V5h2v3h1V2h2v6h1V0h2v8' fill='#563'/></svg>`)
)

// ServerIcon is the server's icon, a sheep.
func ServerIcon() mcp.Icon { return serverIcon }

// Icon is the icon every tool of the toolset set carries: a magnifier for
// the lookups, a bar chart for the analyses. It panics on a name [All]
// does not hold, a mistake of the code that builds the tools.
func Icon(set string) mcp.Icon {
	switch set {
	case Lookup:
		return lookupIcon
	case Analysis:
		return analysisIcon
	}
	panic("toolsets: no toolset " + set)
}

// svgEscape percent-encodes what a URI may not carry literally.
var svgEscape = strings.NewReplacer("%", "%25", "<", "%3C", ">", "%3E", "#", "%23", `"`, "%22", " ", "%20")

func svgIcon(svg string) mcp.Icon {
	return mcp.Icon{Src: "data:image/svg+xml," + svgEscape.Replace(svg), MIMEType: "image/svg+xml", Sizes: []string{"any"}}
}
