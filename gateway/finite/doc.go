// Package finite keeps the numbers in an analysis's answer honest when
// NSIP's, or the arithmetic on them, are not.
//
// NSIP promises nothing about its numbers: an EBV of 1e154 or one no float
// holds arrives now and then. The client treats such values as missing and
// lists them ([nsip.IgnoredValue]); an analysis collects those lists in an
// [Ignored] as it reads, and [Ignored.AddTo] names them in its answer under
// "ignored_values". Arithmetic on values each within reason can still
// overflow (a weight of 1e308 times an EBV): [Encode] writes such a number
// as null rather than fail, and names where under "non_finite_values".
package finite
