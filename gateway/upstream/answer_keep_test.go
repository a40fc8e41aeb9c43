package upstream

import (
	"runtime"
	"testing"
	"weak"
)

// An answer keeps the last KeptPlaces values given it, and lets the one
// kept longest ago go when another comes: the values held only weakly
// elsewhere are then found while they are among the latest, and not after.
func TestAnAnswerKeepsItsLatestValues(t *testing.T) {
	a := &Answer{}
	var held []weak.Pointer[[64]byte]
	for range KeptPlaces + 1 {
		v := new([64]byte)
		held = append(held, weak.Make(v))
		a.Keep(v)
	}
	for i := 0; i < 100 && held[0].Value() != nil; i++ {
		runtime.GC()
	}
	if held[0].Value() != nil {
		t.Error("the value kept first was still held after four more were kept")
	}
	for i, w := range held[1:] {
		if w.Value() == nil {
			t.Errorf("value %d of the latest %d was let go", i+2, KeptPlaces)
		}
	}
	runtime.KeepAlive(a)
}
