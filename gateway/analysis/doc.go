// Package analysis holds the five analyses computed on the server from
// several NSIP answers: the inbreeding of a planned mating, a comparison of
// animals, a breed ranking by an index, a flock's statistics and a mating
// plan.
//
// Each is a Def, one file each with its test beside it: the definition
// every tool has (tooldef.Def: name, title, description, arguments from
// its argument struct, summarizer, toolset), the most upstream lookups
// one call may make, and a computation written against a
// Source, the small surface it reads through (an animal's details and
// lineage, a search page, a breed's trait ranges, a question to the user).
// The gateway hands each call a Source that sends every lookup through its
// cache and upstream policy and counts it against the ceiling; a test can
// hand it a fake and no gateway at all. The breeding arithmetic itself
// lives in nsip/breeding.
package analysis
