// Package param describes tool arguments once and derives everything else
// from that description: the JSON schema a host shows its model, the
// validation and normalisation a call's arguments go through before any
// upstream request, the example of a correct call that an error carries,
// and the did-you-mean suggestions for misspelt names and values.
//
// A tool's arguments may be one Go struct (fields.go): the json tags and
// Go types give names, JSON types and required-ness, a Fields table the
// rest, and Table.Struct derives the Specs from both, refusing a field
// without its description or a description without its field.
//
// It knows JSON and the shapes of NSIP's identifiers (LPN IDs, trait codes,
// dates), and nothing of tools, caching or the upstream: the gateway and the
// analyses build their tool definitions from it.
package param
