package tasks

import (
	"encoding/json"
	"testing"
)

// Whatever encoding/json would read as a task member or method passes the
// cheap test to the full check: any case, any escape.
func TestMentionsTasks(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"method":"tools/call","params":{"name":"x","task":{}}}`:      true,
		`{"method":"tools/call","params":{"name":"x","TASK":{}}}`:      true,
		`{"method":"tools/call","params":{"name":"x","t\u0061sk":{}}}`: true,
		`{"method":"tasks\/get","params":{"taskId":"1"}}`:              true,
		`{"method":"TaSkS/list"}`:                                      true,
		`{"method":"tools/call","params":{"name":"x","arguments":{}}}`: false,
	} {
		if got := mentionsTasks(json.RawMessage(raw)); got != want {
			t.Errorf("mentionsTasks(%s) = %v, want %v", raw, got, want)
		}
	}
}
