package nsip

import (
	"bytes"
	"encoding/json"
)

// PlainJSON is json.Marshal without HTML escaping: <, > and & stay as
// themselves. Everything this module writes is read by NSIP or a model,
// never embedded in a page, and "&" in a farm name costs one byte that way
// instead of six. It is the one such helper; the gateway and the
// summarizers use it too.
func PlainJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
