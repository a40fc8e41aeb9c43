package cache

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Key builds the cache key "method:params" where params is the compact JSON
// of params with object keys sorted at every depth, e.g.
// get_animal_details:{"search_string":"6402382024NCS310"}. Nil params encode
// as {}. Callers fill in defaults first so that omitted and explicit defaults
// share a key.
//
// encoding/json writes map keys sorted; any other value (a struct, whose
// fields it writes in declaration order) is first reduced to maps by a
// marshal and decode. HTML escaping is off so that <, > and & stay readable
// in keys and logs.
func Key(method string, params any) string {
	if params == nil {
		return method + ":{}"
	}
	if _, ok := params.(map[string]any); !ok {
		raw, err := json.Marshal(params)
		if err != nil {
			return fmt.Sprintf("%s:%#v", method, params)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber() // numbers stay as written
		if dec.Decode(&params) != nil {
			return fmt.Sprintf("%s:%#v", method, params)
		}
	}
	var b bytes.Buffer
	b.Grow(len(method) + 128)
	b.WriteString(method)
	b.WriteByte(':')
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(params); err != nil {
		// Only values JSON cannot represent get here (channels, NaN); %#v is
		// deterministic for them and cannot collide with a JSON key, which
		// never starts with "map[" or a Go type name.
		return fmt.Sprintf("%s:%#v", method, params)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
