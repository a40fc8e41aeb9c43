// Package mating is nsip_check_mating: the inbreeding (COI) of the lamb
// of a planned mating, over the pedigree gathered behind both parents, with
// the ancestors they share, how complete the pedigree is and the midparent
// EBVs. Its answer types are here, beside the analysis that writes them.
package mating
