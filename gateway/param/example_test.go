package param_test

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

// lookup is a tool's arguments: the json tags give the names and which
// are required (no omitempty), the Table the rest.
type lookup struct {
	LPN  string `json:"lpn_id"`
	Page int    `json:"page,omitempty"`
}

var lookupArgs = param.MustStruct[lookup](param.Table{
	reflect.TypeFor[lookup](): {
		"LPN":  nsiparg.LPN("The animal's LPN ID."),
		"Page": {Desc: "Page of results, from 0.", Default: 0, Min: param.Bound(0), Max: param.Bound(99), Example: 1},
	},
})

// An argument struct and its descriptions give the schema a host shows its
// model and the validation of every call: names normalised, defaults
// filled in, and each problem naming its field with a did-you-mean.
func Example() {
	schema, _ := json.Marshal(param.InputSchema(lookupArgs.Specs))
	fmt.Println(string(schema))

	args, problems := param.ValidateObject("", lookupArgs.Specs, param.SentOf(map[string]any{"lpn_id": "6402382024ncs310", "pages": 2}))
	fmt.Println(args.Members())
	for _, p := range problems {
		fmt.Printf("%s: %s\n", p.Field, p.Problem)
	}
	// The example of a correct call an error carries keeps what was right.
	fmt.Println(param.Example(lookupArgs.Specs, param.SentOf(map[string]any{"lpn_id": "6402382024NCS310", "page": 200})))
	// Output:
	// {"additionalProperties":false,"properties":{"lpn_id":{"description":"The animal's LPN ID.","maxLength":32,"minLength":5,"pattern":"^[A-Za-z0-9]+$","type":"string"},"page":{"default":0,"description":"Page of results, from 0.","maximum":99,"minimum":0,"type":"integer"}},"required":["lpn_id"],"type":"object"}
	// map[lpn_id:6402382024NCS310 page:0]
	// pages: is not an argument of this tool; did you mean "page"?
	// {"lpn_id":"6402382024NCS310","page":1}
}
