// Package percentile finds where a value stands in its breed (its
// top_percent): from the breed's pass when one is kept or cheaper to read,
// else by a binary search over NSIP's sorted pages, within the call's
// lookups and time. Comparisons and rankings ask it for their values, and
// nsip_get_animal with percentiles is the analysis of its own here
// (AnimalPercentiles). Its answer types are here, beside it.
package percentile
