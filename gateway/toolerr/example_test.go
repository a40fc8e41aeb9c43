package toolerr_test

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A lookup NSIP has nothing for names the argument and what to do next;
// there is nothing for the log.
func ExampleMap() {
	about := toolerr.About{
		Subject: "lpn_id", What: "pedigree for LPN ID", Next: "check the LPN ID",
		Specs: []param.Spec{{Name: "lpn_id", Kind: param.String, Required: true}},
	}
	te, note := toolerr.Map(&nsip.Error{Kind: nsip.KindNotFound}, about, param.SentOf(map[string]any{"lpn_id": "X1"}), toolerr.Env{})
	fmt.Println(te.Result().Content[0].(mcp.TextContent).Text)
	fmt.Printf("to log: %q\n", note.Msg)
	// Output:
	// {"error":{"code":"not_found","field":"lpn_id","value":"X1","problem":"NSIP has no pedigree for LPN ID \"X1\"","next":"check the LPN ID"}}
	// to log: ""
}
