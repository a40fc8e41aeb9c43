// Package features holds the MCP features beside the tools: resources and
// resource templates (each NSIP one a tool behind a URI), the prompts that
// start a breeder's workflow, and completions for their arguments.
//
// It reads through the Tools interface, which the gateway implements: a
// resource read runs its tool's whole call path, so a resource and its tool
// share cached answers and budgets; completions offer the values an
// argument's param.Spec names (breeds, statuses, trait codes, LPN IDs met).
package features
