// Package compare is the comparison of up to 20 animals side by side:
// their EBVs and accuracies per trait, the best of each, and on request
// each value's top_percent in its breed. Its answer types are here, beside
// the analysis that writes them.
package compare
