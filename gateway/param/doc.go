// Package param describes tool arguments once and derives everything else
// from that description: the JSON schema a host shows its model
// ([InputSchema], [Spec.Schema]), the validation and normalisation a
// call's arguments go through before any upstream request
// ([ValidateObject], [List.Validate]), the example of a correct call that
// an error carries ([Example] builds it as a [Call], which errors change
// through its methods and [Edit]s), and the did-you-mean suggestions for
// misspelt names and values ([Closest]).
//
// A tool's arguments are best one Go struct: the json tags and Go types
// give names, JSON types and required-ness, a [Table] of [Fields] the rest
// (descriptions, bounds, enums, examples), and [MustStruct] derives the
// [Args] from both, refusing a field without its description or a
// description without its field. The package example shows one.
//
// A call travels as typed values, never as a bare JSON object: [Decode]
// gives the arguments as sent, a [Sent]; [Args.Validate] judges them and
// gives them normalised, a [Valid], read by name ([Valid.Int],
// [Valid.String], …) or decoded whole into the tool's struct
// ([Valid.Decode]); [Args.Example] builds an error's [Call] from the
// [Sent].
//
// Problems are [FieldError] values naming the field, what is wrong and
// what is expected; a validation lists [MaxProblems] and counts the rest
// ([More]).
//
// It knows JSON, and nothing of NSIP's rules, tools, caching or the
// upstream. What a list holds is told to it ([Items]): gateway/nsiparg
// reads LPN IDs, trait codes, trait ranges and weights, gathering its
// problems in a [Problems] so that they are bounded as param's own are.
// The gateway and the analyses build their tool definitions from both.
package param
