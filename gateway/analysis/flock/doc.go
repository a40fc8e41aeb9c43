// Package flock is the summary of a group of animals (a flock, a sire's
// progeny or a search): counts by sex, status and birth year and each
// trait's statistics, from NSIP's pages or a breed pass. Its answer types
// are here, beside the analysis that writes them.
package flock
