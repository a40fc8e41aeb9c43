// Package facts reads what an NSIP row or record says (a trait's value
// and accuracy, a sex, a birth year, whether genotyped, a status) the same
// way for every analysis, so that two answers never disagree about one
// animal.
package facts
