package analysis

import "reflect"

// SchemaNames are the published names of the answer types this package
// owns and the types they hold: the $defs keys of the analyses' output
// schemas, and the titles of their answers. They are chosen here rather than
// read from Go, so that renaming or moving a type changes no contract.
func SchemaNames() map[reflect.Type]string {
	return map[reflect.Type]string{
		reflect.TypeFor[AncestorRow]():          "AncestorRow",
		reflect.TypeFor[CommonAncestors]():      "CommonAncestors",
		reflect.TypeFor[CompactCompareAnswer](): "CompactCompareAnswer",
		reflect.TypeFor[CompactTopPercent]():    "CompactTopPercent",
		reflect.TypeFor[CompareAnswer]():        "CompareAnswer",
		reflect.TypeFor[CompareComputed]():      "CompareComputed",
		reflect.TypeFor[CompareNotShown]():      "CompareNotShown",
		reflect.TypeFor[CompareRow]():           "CompareRow",
		reflect.TypeFor[Completeness]():         "Completeness",
		reflect.TypeFor[EwesWithoutIndex]():     "EwesWithoutIndex",
		reflect.TypeFor[FlockAnswer]():          "FlockAnswer",
		reflect.TypeFor[FlockComputed]():        "FlockComputed",
		reflect.TypeFor[FlockLeftOut]():         "FlockLeftOut",
		reflect.TypeFor[FlockTrait]():           "FlockTrait",
		reflect.TypeFor[ForEwes]():              "ForEwes",
		reflect.TypeFor[IgnoredValue]():         "IgnoredValue",
		reflect.TypeFor[IgnoredValues]():        "IgnoredValues",
		reflect.TypeFor[IndexRankAnswer]():      "IndexRankAnswer",
		reflect.TypeFor[IndexRankComputed]():    "IndexRankComputed",
		reflect.TypeFor[MatingAnswer]():         "MatingAnswer",
		reflect.TypeFor[MatingComputed]():       "MatingComputed",
		reflect.TypeFor[MatingParent]():         "MatingParent",
		reflect.TypeFor[Midparent]():            "Midparent",
		reflect.TypeFor[Named]():                "Named",
		reflect.TypeFor[NextCall]():             "NextAnalysisCall",
		reflect.TypeFor[NonFiniteValues]():      "NonFiniteValues",
		reflect.TypeFor[NotRanked]():            "NotRanked",
		reflect.TypeFor[Percentiles]():          "Percentiles",
		reflect.TypeFor[PercentilesAnswer]():    "PercentilesAnswer",
		reflect.TypeFor[PlanAnswer]():           "PlanAnswer",
		reflect.TypeFor[PlanComputed]():         "PlanComputed",
		reflect.TypeFor[PlanUnresolved]():       "PlanUnresolved",
		reflect.TypeFor[RankAnswer]():           "RankAnswer",
		reflect.TypeFor[RankComputed]():         "RankComputed",
		reflect.TypeFor[RestCall]():             "RestCall",
		reflect.TypeFor[SexStats]():             "SexStats",
		reflect.TypeFor[Upstream]():             "Upstream",
	}
}
