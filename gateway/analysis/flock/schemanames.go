package flock

import "reflect"

// SchemaNames are the published names of the answer types this package
// owns and the types they hold: the $defs keys of its output schema, and
// the titles of its answers. They are chosen here rather than read from
// Go, so that renaming or moving a type changes no contract.
func SchemaNames() map[reflect.Type]string {
	return map[reflect.Type]string{
		reflect.TypeFor[FlockAnswer]():   "FlockAnswer",
		reflect.TypeFor[FlockComputed](): "FlockComputed",
		reflect.TypeFor[FlockLeftOut]():  "FlockLeftOut",
		reflect.TypeFor[FlockTrait]():    "FlockTrait",
		reflect.TypeFor[SexStats]():      "SexStats",
	}
}
