package gateway

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine they started is still
// running once they are all done. mcp-go forgets its record of each task in
// a goroutine that sleeps the task's TTL (gateway/tasks bounds how many).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/mark3labs/mcp-go/server.(*MCPServer).scheduleTaskCleanup"))
}
