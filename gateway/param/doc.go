// Package param describes tool arguments once and derives everything else
// from that description: the JSON schema a host shows its model, the
// validation and normalisation a call's arguments go through before any
// upstream request, the example of a correct call that an error carries,
// and the did-you-mean suggestions for misspelt names and values.
//
// It knows JSON and the shapes of NSIP's identifiers (LPN IDs, trait codes,
// dates), and nothing of tools, caching or the upstream: the gateway and the
// analyses build their tool definitions from it.
package param
