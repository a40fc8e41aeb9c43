package nsiptest

import (
	"bytes"
	"testing"
)

// TestGenerationIsDeterministic generates the same seed twice, bypassing
// the cache, and compares everything that is served.
func TestGenerationIsDeterministic(t *testing.T) {
	render := func(d *Dataset) []byte {
		var b bytes.Buffer
		b.Write(renderLastUpdated(d.LastUpdated()))
		for _, f := range Formats() {
			b.Write(renderBreedGroups(d, f))
			b.Write(renderSearch(f, len(d.animals), d.animals, false))
			for _, a := range d.animals {
				b.Write(renderDetails(a, f, false))
				if a.idx%50 == 0 {
					b.Write(renderLineage(d, a, f, false))
				}
				kids := make([]*animal, len(a.progeny))
				for i, k := range a.progeny {
					kids[i] = d.animals[k]
				}
				b.Write(renderProgeny(f, len(kids), 10, kids, false))
			}
		}
		for _, id := range d.BreedIDs() {
			b.Write(renderTraitRanges(d.breedCodes(id), d.ranges[id]))
		}
		return b.Bytes()
	}
	one, two := render(generate(11, 600)), render(generate(11, 600))
	if !bytes.Equal(one, two) {
		t.Fatal("two generations of seed 11 serve different bytes")
	}
	if bytes.Equal(one, render(generate(12, 600))) {
		t.Fatal("seeds 11 and 12 serve the same bytes")
	}
	if first, again := NewDataset(11, 600), NewDataset(11, 600); first != again {
		t.Error("NewDataset does not reuse the dataset of a seed and size")
	}
}

// TestBigBreedIsDeterministic generates the big breed twice for one seed,
// bypassing the cache: the same animals, lineages and progeny, byte for
// byte.
func TestBigBreedIsDeterministic(t *testing.T) {
	render := func(d *Dataset) []byte {
		var b bytes.Buffer
		b.Write(renderBreedGroups(d, FormatLive))
		for _, a := range d.animals {
			if a.BreedID != BigBreedID {
				continue
			}
			b.Write(renderDetails(a, FormatLive, false))
			if a.idx%40 == 0 {
				b.Write(renderLineage(d, a, FormatLive, false))
			}
		}
		b.Write(renderTraitRanges(d.breedCodes(BigBreedID), d.ranges[BigBreedID]))
		return b.Bytes()
	}
	one, two := render(generateWithBig(11, 300, 2500)), render(generateWithBig(11, 300, 2500))
	if !bytes.Equal(one, two) {
		t.Fatal("two generations of seed 11's big breed serve different bytes")
	}
	if bytes.Equal(one, render(generateWithBig(12, 300, 2500))) {
		t.Fatal("seeds 11 and 12 serve the same big breed")
	}
}
