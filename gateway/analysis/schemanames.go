package analysis

import "reflect"

// SchemaNames are the published names of the answer pieces every
// analysis shares, held here: the $defs keys of the analyses' output
// schemas. Each analysis names its own answer types beside them. They are
// chosen here rather than read from Go, so that renaming or moving a type
// changes no contract.
func SchemaNames() map[reflect.Type]string {
	return map[reflect.Type]string{
		reflect.TypeFor[Generations]():     "PedigreeGenerations",
		reflect.TypeFor[IgnoredValue]():    "IgnoredValue",
		reflect.TypeFor[IgnoredValues]():   "IgnoredValues",
		reflect.TypeFor[Named]():           "Named",
		reflect.TypeFor[NextCall]():        "NextAnalysisCall",
		reflect.TypeFor[NonFiniteValues](): "NonFiniteValues",
		reflect.TypeFor[PedigreeVia]():     "PedigreeVia",
		reflect.TypeFor[RestCall]():        "RestCall",
		reflect.TypeFor[Upstream]():        "Upstream",
	}
}
