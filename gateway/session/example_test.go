package session_test

import (
	"fmt"

	"github.com/nsip-tools/nsip-mcp/gateway/session"
)

// A session's LPN IDs come back most recently met first, and go with the
// session.
func ExampleLPNs() {
	var seen session.LPNs
	seen.Add("s1", []string{"6402382024NCS310", "6400462020VPI007"})
	seen.Add("s1", []string{"6402382024NCS310"})
	fmt.Println(seen.List("s1"))
	seen.Forget("s1")
	fmt.Println(seen.List("s1"))
	// Output:
	// [6402382024NCS310 6400462020VPI007]
	// []
}
