// Package plan is the mating plan: rams assigned to ewes for the best
// total of a breeding objective, within a limit on each lamb's inbreeding
// and on the ewes per ram. Its answer types are here, beside the analysis
// that writes them.
package plan
