package tooldef_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
)

// A tool takes the arguments its struct declares, and no other name:
// what the call path asks before it reads an argument every tool may not
// have (page_size, say).
func TestTakesItsOwnArgumentsOnly(t *testing.T) {
	d := &tooldef.Def{Name: "nsip_example", Args: param.Args{Specs: []param.Spec{{Name: "lpn_id"}, {Name: "page_size"}}}}
	for name, want := range map[string]bool{"lpn_id": true, "page_size": true, "LPNID": false, "page": false, "": false} {
		if got := d.Takes(name); got != want {
			t.Errorf("Takes(%q) = %v, want %v", name, got, want)
		}
	}
}

// A tool's arguments come from its argument struct, whose fields' JSON
// names are the arguments' names.
func ExampleDef_Takes() {
	type lineageArgs struct {
		LPNID string `json:"lpn_id"`
	}
	fields := param.Table{reflect.TypeFor[lineageArgs](): {"LPNID": nsiparg.LPN("")}}
	d := &tooldef.Def{Name: "nsip_get_lineage", Args: param.MustStruct[lineageArgs](fields)}
	fmt.Println(d.Takes("lpn_id"), d.Takes("search_string"))
	// Output: true false
}

// A tool is served only with a name and a toolset a deployment can offer.
func TestCheckNamesWhatKeepsAToolUnserved(t *testing.T) {
	for _, c := range []struct {
		d    tooldef.Def
		says string
	}{
		{tooldef.Def{Name: "nsip_get_lineage", Toolset: toolsets.Lookup}, ""},
		{tooldef.Def{Name: "nsip_rank_animals", Toolset: toolsets.Analysis}, ""},
		{tooldef.Def{Toolset: toolsets.Lookup}, "without a name"},
		{tooldef.Def{Name: "nsip_get_lineage"}, `nsip_get_lineage is of toolset ""`},
		{tooldef.Def{Name: "nsip_get_lineage", Toolset: "lookups"}, `toolset "lookups", not one of [lookup analysis]`},
	} {
		err := c.d.Check()
		if c.says == "" && err != nil || c.says != "" && (err == nil || !strings.Contains(err.Error(), c.says)) {
			t.Errorf("%+v: %v, want %q", c.d, err, c.says)
		}
	}
}
