package plan

import "reflect"

// SchemaNames are the published names of the answer types this package
// owns and the types they hold: the $defs keys of its output schema, and
// the titles of its answers. They are chosen here rather than read from
// Go, so that renaming or moving a type changes no contract.
func SchemaNames() map[reflect.Type]string {
	return map[reflect.Type]string{
		reflect.TypeFor[COIMatrixAnswer]():  "COIMatrixAnswer",
		reflect.TypeFor[EwesWithoutIndex](): "EwesWithoutIndex",
		reflect.TypeFor[PlanAnswer]():       "PlanAnswer",
		reflect.TypeFor[PlanComputed]():     "PlanComputed",
		reflect.TypeFor[PlanUnresolved]():   "PlanUnresolved",
	}
}
