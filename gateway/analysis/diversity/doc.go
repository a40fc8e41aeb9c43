// Package diversity is a breed's genetic diversity from its pedigree: the
// inbreeding of every animal by birth year, the rate of inbreeding and the
// effective population size it implies, and the effective numbers of
// founders and ancestors of its youngest animals, all from the breed's
// pass (../breedpass) with no NSIP request beyond the date that proves the
// pass current. Its answer types are here, beside the analysis.
package diversity
