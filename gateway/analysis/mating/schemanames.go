package mating

import "reflect"

// SchemaNames are the published names of the answer types this package
// owns and the types they hold: the $defs keys of its output schema, and
// the titles of its answers. They are chosen here rather than read from
// Go, so that renaming or moving a type changes no contract.
func SchemaNames() map[reflect.Type]string {
	return map[reflect.Type]string{
		reflect.TypeFor[AncestorRow]():     "AncestorRow",
		reflect.TypeFor[CommonAncestors](): "CommonAncestors",
		reflect.TypeFor[Completeness]():    "Completeness",
		reflect.TypeFor[MatingAnswer]():    "MatingAnswer",
		reflect.TypeFor[MatingComputed]():  "MatingComputed",
		reflect.TypeFor[MatingParent]():    "MatingParent",
		reflect.TypeFor[Midparent]():       "Midparent",
	}
}
