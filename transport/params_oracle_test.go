package transport

import (
	"bytes"
	"encoding/json"
	"strings"
)

// repeatedMember is the token-by-token reading of the rule walk applies
// in one pass (walk.go); tests and fuzzing hold the two together.
//
// It returns a member name that appears twice in one object
// anywhere inside v, which is valid JSON. Parsers disagree on which of
// the two counts, and encoding/json takes the last: a check that read the
// first would pass what then runs. In v's own members, which mcp-go
// decodes into structs whose fields match in any case, names that differ
// only in case are repeats too.
func repeatedMember(v json.RawMessage) (string, bool) {
	type object struct {
		names map[string]bool
		key   bool // the next string is a member name
	}
	var stack []*object // nil entries are arrays
	dec := json.NewDecoder(bytes.NewReader(v))
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false // the end, or invalid JSON, which classify refuses first
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, &object{names: map[string]bool{}, key: true})
				continue
			case '[':
				stack = append(stack, nil)
				continue
			}
			stack = stack[:len(stack)-1]
		} else if s, ok := tok.(string); ok && len(stack) > 0 && stack[len(stack)-1] != nil && stack[len(stack)-1].key {
			top := stack[len(stack)-1]
			name := s
			if len(stack) == 1 {
				name = strings.ToUpper(strings.ToLower(s)) // as encoding/json folds
			}
			if top.names[name] {
				return s, true
			}
			top.names[name] = true
			top.key = false
			continue
		}
		// A value ended; in an object a name comes next.
		if len(stack) > 0 && stack[len(stack)-1] != nil {
			stack[len(stack)-1].key = true
		}
	}
}
