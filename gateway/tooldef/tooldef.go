// Package tooldef is what every tool is, whatever it computes: its name,
// title, description, arguments, the summarizer its answers take, its
// toolset and how a not-found answer is worded. A lookup tool
// ([github.com/nsip-tools/nsip-mcp/gateway/lookup.Def]) and an analysis
// ([github.com/nsip-tools/nsip-mcp/gateway/analysis.Def]) each embed one,
// so that the call path decodes, validates, fits, maps errors and logs
// every tool through this one type; the gateway registers each with its
// run.
package tooldef

import (
	"errors"
	"fmt"
	"slices"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// Def is one tool as the call path serves it.
type Def struct {
	Name  string // a constant of nsip/toolname
	Title string
	// Method is the name its calls are keyed and logged under: for a
	// lookup, the NSIP client's method, snake_cased.
	Method string
	Desc   string
	// Args are the tool's arguments, derived from its argument struct
	// (param.Table.Struct): its input schema and its validation.
	Args param.Args
	// Kind is the summarizer an answer over the budget takes.
	Kind summarize.Kind
	// Toolset is the toolset that offers it (NSIP_TOOLSETS).
	Toolset string
	// Subject names what a not-found answer was about: the argument and a
	// phrase for the message, plus the next step to suggest.
	Subject, What, Next string
}

// Check reports what keeps d from being served: a tool without a name,
// or of a toolset NSIP_TOOLSETS cannot name, would be listed by no
// deployment and callable by none.
func (d *Def) Check() error {
	switch {
	case d.Name == "":
		return errors.New("tooldef: a tool without a name")
	case !slices.Contains(toolsets.All(), d.Toolset):
		return fmt.Errorf("tooldef: %s is of toolset %q, not one of %v", d.Name, d.Toolset, toolsets.All())
	}
	return nil
}

// Takes reports whether d takes the argument name.
func (d *Def) Takes(name string) bool { return param.Named(d.Args.Specs, name) != nil }
