// Package pedigree gathers the pedigree behind a set of animals through
// their lineages, within a call's lookups, noting what could not be read or
// is doubtful, and computes the inbreeding of a mating over it. Both the
// mating check and the plan (and the ranking for ewes) rest on the same
// pedigree, so it is gathered and judged the same way for each.
package pedigree
