// Package analysis is the frame every analysis computed on the server is
// written in: the inbreeding of a planned mating (mating), a comparison of
// animals (compare), a breed ranking (rank), a group's statistics (flock),
// a mating plan (plan), a breed's diversity (diversity) and an animal's
// breed percentiles (percentile), each in a package of its own under this
// one, with its answer types beside it.
//
// Each analysis is a Def: the definition every tool has (tooldef.Def:
// name, title, description, arguments from its argument struct,
// summarizer, toolset), the most upstream lookups one call may make, and a
// computation written against a Source, through which it reads (an
// animal's details and lineage, a search page, a breed's trait ranges and
// evaluation date) and asks the user a question. The same Source says
// which breed passes it keeps between calls (Passes) and how much room
// the call has (Limits: lookups at once, time left, the rate limit), each
// with an answer for a source that keeps none or does not say, so that
// every capability is typed and none is found by inspecting the source's
// type. Run hands the computation a Call, the reader one run goes
// through. The gateway hands each call a Source that sends every
// lookup through its cache and upstream policy and counts it against the
// ceiling; a test can hand it a fake (analysistest) and no gateway at all.
//
// What the analyses share sits in small packages below this one, each with
// one job, so that an analysis imports only what it uses and none imports
// another: scan reads and checks NSIP's search pages and evaluation date,
// breedpass holds a breed's animals read once, pedigree gathers lineages
// and computes inbreeding over them, facts reads a row's or a record's
// values the same way everywhere. The answer pieces every analysis's answer
// holds (Upstream, Named, the call for the rest) stay here. The list of
// analyses served as tools is the gateway's; the breeding arithmetic itself
// lives in nsip/breeding.
package analysis
