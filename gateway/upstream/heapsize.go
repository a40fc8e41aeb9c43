package upstream

import (
	"math/bits"
	"reflect"
	"unsafe"
)

// heapSize measures the heap memory reachable from v that is not already in
// seen: every string, slice backing array, map, boxed interface value and
// pointee, each rounded up as the allocator rounds it. The cache charges
// decoded models by this measure because no fixed multiple of the JSON
// holds: a page of many tiny records decodes to some 50 times its bytes
// (a struct and an Extra map per record), a typical page to about 3.
//
// Strings and slices sharing one backing array are counted once per
// distinct start; a sub-slice counts again, which errs high.
func heapSize(v any, seen map[uintptr]bool) int64 {
	if v == nil {
		return 0
	}
	m := measurer{seen: seen}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Map || rv.Kind() == reflect.Slice || rv.Kind() == reflect.String {
		return m.indirect(rv)
	}
	// A non-pointer value in an interface is boxed.
	return allocSize(rv.Type().Size()) + m.indirect(rv)
}

type measurer struct {
	seen map[uintptr]bool
}

// first reports whether p has not been counted yet, and marks it.
func (m *measurer) first(p uintptr) bool {
	if p == 0 || m.seen[p] {
		return false
	}
	m.seen[p] = true
	return true
}

// indirect is what v points to, not v's own bytes, which its container
// (a struct, a slice's array, a map) has counted already.
func (m *measurer) indirect(v reflect.Value) int64 {
	switch v.Kind() {
	case reflect.String:
		if v.Len() == 0 {
			return 0
		}
		if !m.first(uintptr(unsafe.Pointer(unsafe.StringData(v.String())))) {
			return 0
		}
		return allocSize(uintptr(v.Len()))
	case reflect.Pointer:
		if v.IsNil() || !m.first(v.Pointer()) {
			return 0
		}
		return allocSize(v.Type().Elem().Size()) + m.indirect(v.Elem())
	case reflect.Slice:
		if v.IsNil() || v.Cap() == 0 || !m.first(v.Pointer()) {
			return 0
		}
		n := allocSize(uintptr(v.Cap()) * v.Type().Elem().Size())
		if holdsPointers(v.Type().Elem()) {
			for i := range v.Len() {
				n += m.indirect(v.Index(i))
			}
		}
		return n
	case reflect.Array:
		var n int64
		if holdsPointers(v.Type().Elem()) {
			for i := range v.Len() {
				n += m.indirect(v.Index(i))
			}
		}
		return n
	case reflect.Struct:
		var n int64
		for i := range v.NumField() {
			if holdsPointers(v.Type().Field(i).Type) {
				n += m.indirect(v.Field(i))
			}
		}
		return n
	case reflect.Map:
		if v.IsNil() || !m.first(v.Pointer()) {
			return 0
		}
		n := mapSize(v.Len(), v.Type().Key().Size()+v.Type().Elem().Size())
		it := v.MapRange()
		for it.Next() {
			n += m.indirect(it.Key()) + m.indirect(it.Value())
		}
		return n
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		switch e.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
			return m.indirect(e)
		}
		return allocSize(e.Type().Size()) + m.indirect(e)
	}
	return 0
}

// holdsPointers reports whether a value of t can reach other memory.
func holdsPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return true
	case reflect.Array:
		return t.Len() > 0 && holdsPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// mapSize approximates a Go map of n entries of slot bytes each: groups of
// eight slots with a control word, filled to at most 7/8, in tables that
// double, plus the map header. A large map is a directory of tables of at
// most 1024 slots that split one by one, which leaves more room empty than
// one doubling table would; a quarter more matched the heap for maps of
// 20,000 entries (TestCacheBoundHoldsForHostileShapes).
func mapSize(n int, slot uintptr) int64 {
	const header = 48
	if n == 0 {
		return header
	}
	groups := 1
	for groups*8*7/8 < n {
		groups *= 2
	}
	size := allocSize(uintptr(groups) * (8 + 8*slot))
	if groups > 128 {
		size += size / 4
	}
	return header + size
}

// allocSize rounds a request up roughly as Go's size classes do: 8 and 16
// bytes, steps of 16 to 256, of 64 to 1 KiB, of an eighth up to 32 KiB, and
// whole 8 KiB pages beyond.
func allocSize(n uintptr) int64 {
	var r uintptr
	switch {
	case n == 0:
		return 0
	case n <= 8:
		r = 8
	case n <= 256:
		r = (n + 15) &^ 15
	case n <= 1024:
		r = (n + 63) &^ 63
	case n <= 32<<10:
		step := uintptr(1) << (bits.Len(uint(n)) - 4) // an eighth of the power of two below
		r = (n + step - 1) &^ (step - 1)
	default:
		r = (n + 8191) &^ 8191
	}
	return int64(r)
}
