package finite

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// Encode renders an analysis answer as nsip.PlainJSON does. JSON has no
// Inf or NaN, and arithmetic on extreme values (a huge weight times an
// EBV) can make one, so rather than fail, such a number becomes null and
// the answer's "non_finite_values" names where (when the answer is a JSON
// object).
func Encode(v any) ([]byte, error) {
	b, err := nsip.PlainJSON(v)
	var ue *json.UnsupportedValueError
	if err == nil || !errors.As(err, &ue) {
		return b, err
	}
	var where []string
	t := jsonTree(reflect.ValueOf(v), "", &where)
	if m, ok := t.(map[string]any); ok && len(where) > 0 {
		const shown = 10
		nf := map[string]any{
			"note":  "these numbers overflowed (infinite or undefined) in the arithmetic and are shown as null",
			"paths": trimDots(where[:min(len(where), shown)]),
		}
		if len(where) > shown {
			nf["not_shown"] = len(where) - shown
		}
		m["non_finite_values"] = nf
	}
	return nsip.PlainJSON(t)
}

func trimDots(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = strings.TrimPrefix(p, ".")
	}
	return out
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

// jsonTree is v as encoding/json would see it (field names, omitempty,
// embedded structs), built of maps, slices and plain values, with every
// non-finite float replaced by nil and its path appended to where.
func jsonTree(v reflect.Value, path string, where *[]string) any {
	if !v.IsValid() {
		return nil
	}
	if v.Type().Implements(marshalerType) && (v.Kind() != reflect.Pointer || !v.IsNil()) {
		b, err := json.Marshal(v.Interface())
		if err != nil {
			*where = append(*where, path)
			return nil
		}
		return json.RawMessage(b)
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			*where = append(*where, path)
			return nil
		}
		return f
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return jsonTree(v.Elem(), path, where)
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		out := make(map[string]any, v.Len())
		for _, k := range v.MapKeys() {
			name := fmt.Sprint(k.Interface())
			out[name] = jsonTree(v.MapIndex(k), path+"."+name, where)
		}
		return out
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Interface()
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = jsonTree(v.Index(i), fmt.Sprintf("%s[%d]", path, i), where)
		}
		return out
	case reflect.Struct:
		out := map[string]any{}
		structFields(v, path, where, out)
		return out
	}
	return v.Interface()
}

func structFields(v reflect.Value, path string, where *[]string, out map[string]any) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" || (!sf.IsExported() && !sf.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := v.Field(i)
		if sf.Anonymous && name == "" {
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			if fv.Kind() == reflect.Struct {
				structFields(fv, path, where, out)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		o := strings.Split(opts, ",")
		if slices.Contains(o, "omitempty") && emptyValue(fv) || slices.Contains(o, "omitzero") && fv.IsZero() {
			continue
		}
		out[name] = jsonTree(fv, path+"."+name, where)
	}
}

// emptyValue is encoding/json's omitempty rule.
func emptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return v.IsZero()
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}
