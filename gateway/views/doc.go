// Package views holds the server's MCP Apps views: one self-contained HTML
// page per kind of answer a breeder would rather see than read (a pedigree
// chart, EBV bars, an inbreeding matrix, a sortable ranking, flock
// distributions), the ui:// resources that serve them, and the _meta by
// which each tool names its view.
//
// The pages are built from src/ by `make views` (npm and esbuild) into
// dist/, which is committed and embedded, so building the server needs no
// Node; make test checks that a fresh build equals dist/. A view gets the
// same compact answer the model gets and reads anything larger itself
// through the host (the answer's _meta.full link, or a tool call of its
// own), so nothing a view needs passes through what a host hands the model.
package views
