package nsiptest_test

import (
	"context"
	"fmt"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// Start the stand-in on loopback, point the real client at it and ask for
// the example ram: the data is generated from the seed, so the answer is
// the same on every run, and the stand-in counts what it was asked.
func Example() {
	srv := nsiptest.Start(nsiptest.Options{Seed: 1})
	defer srv.Close()
	c, err := nsip.NewClient(nsip.WithBaseURL(srv.URL()))
	if err != nil {
		panic(err)
	}
	ram, err := c.AnimalDetails(context.Background(), nsiptest.ExampleRam)
	if err != nil {
		panic(err)
	}
	fmt.Println(ram.LPNID, ram.Gender, "sire", ram.Sire, "dam", ram.Dam)
	fmt.Println("details requests:", srv.Requests(nsiptest.EndpointDetails))

	// Misbehave on request: the next details request is a 503, which the
	// client retries.
	srv.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 503, Times: 1})
	_, err = c.AnimalDetails(context.Background(), nsiptest.ExampleRam)
	fmt.Println("after a 503:", err, "- details requests:", srv.Requests(nsiptest.EndpointDetails))
	// Output:
	// 6402382024NCS310 Male sire 6400462020VPI007 dam 6402382022NCS087
	// details requests: 1
	// after a 503: <nil> - details requests: 3
}
