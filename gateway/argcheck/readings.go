package argcheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// Reading is the line an answer carries for a trait read from a word.
func Reading(sent, code string) string {
	return fmt.Sprintf("%s read as %s", param.QuoteShort(strings.TrimSpace(sent)), nsip.TraitMeaning(code))
}

// Readings are the lines saying how each trait word of a call was read,
// from the arguments as sent and as validated: one for each string (a
// value, a list item or an object's key) that validation turned into a
// trait code other than its own spelling. A code sent as a code, in any
// case, is no reading. The lines come sorted, so that one call always
// reads the same.
func Readings(sent param.Sent, args param.Valid) []string {
	var out []string
	readingsIn(&out, sent.Members(), args.Members())
	slices.Sort(out)
	return slices.Compact(out)
}

// readingsIn adds the readings of sent, validated as valid.
func readingsIn(out *[]string, sent, valid any) {
	switch s := sent.(type) {
	case string:
		if c, ok := valid.(string); ok && !strings.EqualFold(strings.TrimSpace(s), c) {
			addReading(out, s, valid, false)
		}
	case []any:
		for _, e := range s {
			if str, ok := e.(string); ok {
				addReading(out, str, valid, false)
			}
		}
	case map[string]any:
		for k, sv := range s {
			if vv, ok := member(valid, k); ok {
				readingsIn(out, sv, vv)
				continue
			}
			// A key read as a code: a weight or a range by trait name.
			addReading(out, k, valid, true)
		}
	}
}

// addReading adds the reading of s when s, not a code itself, was read as
// a trait code that valid holds: as its value, an item of it, or (key) a
// key of it. A code in any case is passed over before any reading, so
// that a call of codes costs no more than it did.
func addReading(out *[]string, s string, valid any, key bool) {
	t := strings.TrimSpace(s)
	if _, isCode := nsip.LookupTrait(t); isCode {
		return
	}
	code, _ := nsip.ReadTrait(t)
	if code == "" {
		return
	}
	_, kept := member(valid, code)
	if !key {
		kept = valid == any(code) || holds(valid, code)
	}
	if kept {
		*out = append(*out, Reading(s, code))
	}
}

// holds reports whether a validated list holds code.
func holds(list any, code string) bool {
	switch l := list.(type) {
	case []string:
		return slices.Contains(l, code)
	case []any:
		return slices.Contains(l, any(code))
	}
	return false
}

// member is the value at key of a validated object.
func member(obj any, key string) (any, bool) {
	switch o := obj.(type) {
	case map[string]any:
		v, ok := o[key]
		return v, ok
	case map[string]float64:
		v, ok := o[key]
		return v, ok
	}
	return nil, false
}
