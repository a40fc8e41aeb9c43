package toolsets

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		in      []string
		want    []string
		wantErr string
	}{
		{nil, []string{Lookup, Analysis}, ""},
		{[]string{}, []string{Lookup, Analysis}, ""},
		{[]string{Analysis}, []string{Analysis}, ""},
		{[]string{Analysis, Lookup}, []string{Analysis, Lookup}, ""},
		{[]string{"lookups"}, nil, `gateway: unknown toolset "lookups"; toolsets are lookup, analysis`},
		{[]string{Lookup, Lookup}, nil, `gateway: toolset "lookup" named twice`},
	} {
		got, err := Check(tc.in)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("Check(%q): %v, want %s", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Check(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	in := []string{Lookup}
	got, _ := Check(in)
	got[0] = "changed"
	if in[0] != Lookup {
		t.Error("Check returned the caller's slice, not a copy")
	}
}

func TestAllIsACopy(t *testing.T) {
	a := All()
	a[0] = "changed"
	if !slices.Equal(All(), []string{Lookup, Analysis}) {
		t.Errorf("All() = %q after a caller changed its copy", All())
	}
}

func names(tools []mcp.Tool) []string {
	var out []string
	for _, tool := range tools {
		out = append(out, tool.Name)
	}
	return out
}

// Named tools come in the table's order, others after them by name.
func TestOrderFollowsTheTable(t *testing.T) {
	order := Order([]string{"c", "a", "b"})
	in := []mcp.Tool{mcp.NewTool("z"), mcp.NewTool("a"), mcp.NewTool("y"), mcp.NewTool("b"), mcp.NewTool("c")}
	got := names(order(context.Background(), in))
	if want := []string{"c", "a", "b", "y", "z"}; !slices.Equal(got, want) {
		t.Errorf("ordered %v, want %v", got, want)
	}
	if names(in)[0] != "z" {
		t.Error("Order sorted the caller's slice in place")
	}
}

// At call time mcp-go hands the tool filter the one tool called, which it
// passes back as it is.
func TestOneToolIsNotReordered(t *testing.T) {
	order := Order([]string{"a", "b"})
	one := []mcp.Tool{mcp.NewTool("b")}
	var got []mcp.Tool
	if n := testing.AllocsPerRun(20, func() { got = order(context.Background(), one) }); n != 0 {
		t.Errorf("ordering one tool makes %v allocations, want none", n)
	}
	if len(got) != 1 || got[0].Name != "b" {
		t.Errorf("got %v", got)
	}
}

func TestCacheHintsCoverTheFourLists(t *testing.T) {
	if n := len(CacheHints()); n != 4 {
		t.Errorf("%d cache hints, want one for each of the four lists", n)
	}
	if ListCacheTTL.Milliseconds() != 3_600_000 {
		t.Errorf("lists reusable for %v, want an hour", ListCacheTTL)
	}
}

func TestIcons(t *testing.T) {
	if Icon(Lookup).Src == Icon(Analysis).Src {
		t.Error("lookups and analyses share an icon")
	}
	for _, icon := range []mcp.Icon{ServerIcon(), Icon(Lookup), Icon(Analysis)} {
		checkSVGIcon(t, icon)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "nope") {
			t.Errorf("Icon of an unknown toolset: %v, want a panic naming it", r)
		}
	}()
	Icon("nope")
}

// checkSVGIcon: a data: URI under 1 KB, nothing a URI may not carry, whose
// payload is an SVG document a parser reads to the end.
func checkSVGIcon(t *testing.T, icon mcp.Icon) {
	t.Helper()
	if len(icon.Src) >= 1024 || icon.MIMEType != "image/svg+xml" || !slices.Equal(icon.Sizes, []string{"any"}) {
		t.Errorf("icon of %d bytes, type %q, sizes %v", len(icon.Src), icon.MIMEType, icon.Sizes)
	}
	if strings.ContainsAny(icon.Src, " <>\"#") {
		t.Errorf("icon URI carries characters a URI may not: %s", icon.Src)
	}
	u, err := url.Parse(icon.Src)
	if err != nil || u.Scheme != "data" {
		t.Fatalf("icon %q: %v", icon.Src, err)
	}
	payload, ok := strings.CutPrefix(u.Opaque, "image/svg+xml,")
	if !ok {
		t.Fatalf("icon %q is not an inline SVG", icon.Src)
	}
	svg, err := url.PathUnescape(payload)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(strings.NewReader(svg))
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("icon SVG does not parse: %v\n%s", err, svg)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Space + " " + se.Name.Local
		}
	}
	if root != "http://www.w3.org/2000/svg svg" {
		t.Errorf("icon root element %q, want an SVG", root)
	}
}
