package summarize

import "reflect"

// SchemaNames are the published names of the summaries' types: the $defs
// keys of the output schemas that list Shapes. They are chosen here rather
// than read from Go, so that renaming a type changes no contract.
func SchemaNames() map[reflect.Type]string {
	return map[reflect.Type]string{
		reflect.TypeFor[Contradicting](): "Contradicting",
		reflect.TypeFor[NextCall]():      "NextCall",
		reflect.TypeFor[animalBlock]():   "AnimalSummary",
		reflect.TypeFor[contactBlock]():  "ContactSummary",
		reflect.TypeFor[genericShape]():  "GenericSummary",
		reflect.TypeFor[lineageBlock]():  "LineageSummary",
		reflect.TypeFor[nodeBlock]():     "LineageSummaryNode",
		reflect.TypeFor[noteShape]():     "Note",
		reflect.TypeFor[omission]():      "Omission",
		reflect.TypeFor[pageSummary]():   "PageSummary",
		reflect.TypeFor[profileBlock]():  "ProfileSummary",
		reflect.TypeFor[sexSplit]():      "SexCounts",
		reflect.TypeFor[StatusHeld]():    "StatusHeld",
		reflect.TypeFor[statsTable]():    "TraitStatsTable",
		reflect.TypeFor[traitObject]():   "TraitValue",
	}
}
