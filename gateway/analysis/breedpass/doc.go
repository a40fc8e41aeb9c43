// Package breedpass holds a breed pass: every animal of one breed under
// one evaluation, compactly, with its encoding for keeping between calls
// and replicas, and the rows a search of the breed would give, filtered as
// NSIP filters them. It knows nothing of how a pass is read, so that the
// analyses and the gateway's store can share it.
package breedpass
