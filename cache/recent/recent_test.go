package recent

import (
	"fmt"
	"sync"
	"testing"
)

type text struct{ key, val string }

func keyIs(k string) func(*text) bool { return func(t *text) bool { return t.key == k } }

// Keys whose hashes pick the same set are all kept, up to Ways: asked
// over and over, none pushes another out. A key kept again takes its own
// place, and past Ways the newest is kept and the set still holds Ways.
func TestKeysSharingASetStayKept(t *testing.T) {
	p := New[text](8)
	const hash = 3 // every key below in one set
	keys := make([]string, Ways+1)
	for i := range keys {
		keys[i] = fmt.Sprintf("6402382024NCS%03d", i)
	}
	for _, k := range keys[:Ways] {
		p.Keep(hash, &text{k, k}, keyIs(k))
	}
	for round := range 3 {
		for _, k := range keys[:Ways] {
			if got := p.Find(hash, keyIs(k)); got == nil || got.val != k {
				t.Fatalf("round %d: %s gave %v; every key of a set with room must stay kept", round, k, got)
			}
		}
	}
	p.Keep(hash, &text{keys[0], "again"}, keyIs(keys[0]))
	if got := p.Find(hash, keyIs(keys[0])); got == nil || got.val != "again" {
		t.Fatalf("a key kept again gave %v", got)
	}
	for _, k := range keys[1:Ways] {
		if p.Find(hash, keyIs(k)) == nil {
			t.Fatalf("keeping %s again pushed out %s", keys[0], k)
		}
	}
	p.Keep(hash, &text{keys[Ways], "newest"}, keyIs(keys[Ways]))
	if got := p.Find(hash, keyIs(keys[Ways])); got == nil || got.val != "newest" {
		t.Fatalf("the newest key of a full set gave %v", got)
	}
	kept := 0
	for _, k := range keys {
		if p.Find(hash, keyIs(k)) != nil {
			kept++
		}
	}
	if kept != Ways {
		t.Errorf("a full set keeps %d keys, want %d", kept, Ways)
	}
	// Another set is untouched, and a hash past the sets wraps around.
	if p.Find(hash+1, keyIs(keys[Ways])) != nil {
		t.Error("a key was found in a set its hash does not pick")
	}
	if p.Find(hash+8, keyIs(keys[Ways])) == nil {
		t.Error("a hash past the number of sets did not pick the same set")
	}
}

// A full set gives up the place it filled longest ago: the last Ways keys
// kept are always found.
func TestAFullSetGivesUpItsOldestPlace(t *testing.T) {
	p := New[text](1)
	for i := range 3 * Ways {
		k := fmt.Sprint(i)
		p.Keep(0, &text{k, k}, keyIs(k))
		kept := 0
		for j := max(0, i-Ways+1); j <= i; j++ {
			if p.Find(0, keyIs(fmt.Sprint(j))) != nil {
				kept++
			}
		}
		if want := min(i+1, Ways); kept != want {
			t.Fatalf("after %d keys, %d of the last %d are kept", i+1, kept, want)
		}
	}
}

// Finding and keeping at once from many goroutines is safe, and a value
// found is always one kept for its key.
func TestConcurrentFindAndKeep(t *testing.T) {
	p := New[text](2)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				k := fmt.Sprint((g + i) % 12)
				if v := p.Find(uint64(len(k)), keyIs(k)); v != nil && v.val != k {
					t.Errorf("found %q for key %s", v.val, k)
					return
				}
				p.Keep(uint64(len(k)), &text{k, k}, keyIs(k))
			}
		})
	}
	wg.Wait()
}

// Finding allocates nothing: it is on every cached call's path.
func TestFindAllocatesNothing(t *testing.T) {
	p := New[text](4)
	p.Keep(1, &text{"a", "a"}, keyIs("a"))
	key := []byte("a")
	if n := testing.AllocsPerRun(100, func() {
		if p.Find(1, func(t *text) bool { return t.key == string(key) }) == nil {
			panic("not found")
		}
	}); n != 0 {
		t.Errorf("Find allocated %v times", n)
	}
}
