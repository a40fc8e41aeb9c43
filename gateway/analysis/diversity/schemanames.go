package diversity

import "reflect"

// SchemaNames are the published names of the answer types this package
// owns and the types they hold: the $defs keys of its output schema, and
// the titles of its answers.
func SchemaNames() map[reflect.Type]string {
	return map[reflect.Type]string{
		reflect.TypeFor[DiversityAnswer](): "DiversityAnswer",
		reflect.TypeFor[PendingAnswer]():   "DiversityPending",
		reflect.TypeFor[YearTable]():       "DiversityYears",
		reflect.TypeFor[Completeness]():    "DiversityCompleteness",
		reflect.TypeFor[Figure]():          "DiversityFigure",
		reflect.TypeFor[Reference]():       "DiversityReference",
		reflect.TypeFor[AncestorTable]():   "DiversityAncestors",
		reflect.TypeFor[Computed]():        "DiversityComputed",
	}
}
