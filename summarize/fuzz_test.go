package summarize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// fuzzKinds are the kinds FuzzFit picks from.
var fuzzKinds = []Kind{KindSearch, KindProgeny, KindLineage, KindAnimal, KindProfile, KindGeneric}

// fuzzValue decodes raw into the model of kind, so that the shape-aware
// summarizers see whatever the bytes make of it; nil when they make nothing.
func fuzzValue(kind Kind, raw []byte) any {
	var v any
	switch kind {
	case KindSearch:
		v = new(nsip.SearchResults)
	case KindProgeny:
		v = new(nsip.ProgenyPage)
	case KindLineage:
		v = new(nsip.Lineage)
	case KindAnimal:
		v = new(nsip.AnimalDetails)
	case KindProfile:
		v = new(nsip.AnimalProfile)
	default:
		return nil
	}
	if json.Unmarshal(raw, v) != nil {
		return nil
	}
	return v
}

// fuzzTraits are thirteen traits with values and accuracies that vary by i.
func fuzzTraits(i int) []nsip.Trait {
	ts := make([]nsip.Trait, len(nsip.TraitCodes))
	for j, code := range nsip.TraitCodes {
		ts[j] = nsip.Trait{Code: code, Value: float64(i*7+j)/10 - 1, Accuracy: float64((i*13 + j*17) % 100), HasAccuracy: true}
	}
	return ts
}

func fuzzLineage(id string, depth int) *nsip.LineageNode {
	n := &nsip.LineageNode{LPNID: id, Farm: "Ridge & Hollow Farm", DOB: "2/13/2020", Sex: "Male", Status: "CURRENT",
		Indexes: []nsip.Index{{Name: "US Hair Index", Value: 101.5}}, Content: "<div>Ridge &amp; Hollow Farm</div><div>DOB: 2/13/2020</div>"}
	if depth > 0 {
		n.Sire, n.Dam = fuzzLineage(id+"S", depth-1), fuzzLineage(id+"D", depth-1)
	}
	return n
}

// fuzzSeeds are answers of every kind, large enough to be summarized, plus
// JSON and non-JSON oddities.
func fuzzSeeds() map[Kind][]any {
	search := &nsip.SearchResults{TotalCount: 1523, Page: 0, PageSize: 10}
	progeny := &nsip.ProgenyPage{LPNID: "6402382024NCS310", TotalCount: 283, PageSize: 10}
	for i := range 10 {
		id := fmt.Sprintf("64023820%02dNCS%03d", 10+i%15, i)
		search.Results = append(search.Results, nsip.AnimalRow{LPNID: id, Sire: id + "S", Dam: id + "D", Status: "CURRENT", Traits: fuzzTraits(i),
			Indexes: []nsip.Index{{Name: "US Index", Value: 100 + float64(i)}}})
		progeny.Animals = append(progeny.Animals, nsip.ProgenyRow{LPNID: id, Sex: "F", DateOfBirth: "02/17/2022", Traits: fuzzTraits(i)})
	}
	details := &nsip.AnimalDetails{LPNID: "6402382024NCS310", Breed: "Katahdin", BreedID: 640, Gender: "Male", Status: "CURRENT",
		Sire: "6400462020VPI007", Dam: "6402382022NCS087", TotalProgeny: 25, Traits: fuzzTraits(3),
		Contact: nsip.ContactInfo{FarmName: "Schäferei Müller", Phone: "555-0100", Email: "flock@example.org", City: "Raleigh", State: "NC"},
		// NSIP's answer carries more than the model keeps: long enough to be summarized.
		Raw: json.RawMessage(`{"success":true,"data":{"lpnId":"6402382024NCS310","notes":"` + strings.Repeat("long note ", 300) + `"}}`)}
	lineage := &nsip.Lineage{Subject: *fuzzLineage("6402382024NCS310", 4)}
	return map[Kind][]any{
		KindSearch:  {search, &nsip.SearchResults{}},
		KindProgeny: {progeny},
		KindLineage: {lineage},
		KindAnimal:  {details},
		KindProfile: {&nsip.AnimalProfile{Details: details, Lineage: lineage, Progeny: progeny}, &nsip.AnimalProfile{}},
		KindGeneric: {
			json.RawMessage(`[` + strings.Repeat(`"CURRENT","SOLD",`, 300) + `"DEAD"]`),
			json.RawMessage(strings.Repeat(`[`, 400) + strings.Repeat(`]`, 400)),
			json.RawMessage(`{"n":[1e308,-1e308,123456789012345678901234567890,-0,5e-324]}`),
			json.RawMessage(`{"` + strings.Repeat("k", 2000) + `":"` + strings.Repeat("牧場", 1000) + `"}`),
			json.RawMessage(`"\ud800\udfff\u0000"`),
			json.RawMessage(`<!DOCTYPE html><html><body>` + strings.Repeat("Server Error ", 300) + `</body></html>`),
			json.RawMessage(``),
		},
	}
}

// maxFuzzAnswer bounds the answers FuzzFit tries, so that each run stays
// fast enough to explore; the limits it checks do not depend on size.
const maxFuzzAnswer = 24 << 10

// FuzzFit fits arbitrary bytes, read as the model of each kind and passed as
// the raw upstream answer, into budgets from 256 to 4096 tokens. Whatever
// the input, the text is valid JSON within the budget, its token count is
// right, and an answer within the budget passes through unchanged.
func FuzzFit(f *testing.F) {
	for k, vals := range fuzzSeeds() {
		ki := 0
		for i, fk := range fuzzKinds {
			if fk == k {
				ki = i
			}
		}
		for _, v := range vals {
			raw, ok := v.(json.RawMessage)
			if !ok {
				var err error
				if raw, err = json.Marshal(v); err != nil {
					f.Fatal(err)
				}
			}
			f.Add(uint8(ki), uint16(0), []byte(raw))
			f.Add(uint8(ki), uint16(1744), []byte(raw))
		}
	}
	c, err := NewCounter()
	if err != nil {
		f.Fatal(err)
	}
	s := New(c)
	f.Fuzz(func(t *testing.T, kind uint8, budget uint16, raw []byte) {
		if len(raw) > maxFuzzAnswer {
			return // larger answers cost time, not new paths
		}
		k := fuzzKinds[int(kind)%len(fuzzKinds)]
		b := 256 + int(budget)%3841
		req := Request{Kind: k, Value: fuzzValue(k, raw), Raw: raw, Budget: b,
			Tool: "nsip_search_animals", Args: map[string]any{"page": 0, "page_size": 40, "breed_id": 640}}
		res := s.Fit(req)
		if !json.Valid([]byte(res.Text)) {
			t.Fatalf("%s at budget %d: text is not JSON: %.300q", k, b, res.Text)
		}
		if n := c.Count(res.Text); n != res.Tokens {
			t.Errorf("%s at budget %d: Tokens = %d, the text has %d", k, b, res.Tokens, n)
		}
		if res.Tokens > b {
			t.Errorf("%s at budget %d: %d tokens (original %d, summarized %v): %.300s", k, b, res.Tokens, res.OriginalTokens, res.Summarized, res.Text)
		}
		if res.Summarized != (res.OriginalTokens > b) {
			t.Errorf("%s at budget %d: summarized %v for an original of %d tokens", k, b, res.Summarized, res.OriginalTokens)
		}
		var compact bytes.Buffer
		if !res.Summarized && json.Compact(&compact, raw) == nil && compact.Len() > 0 && res.Text != compact.String() {
			t.Errorf("%s at budget %d: pass-through %.200q differs from the compacted answer %.200q", k, b, res.Text, compact.String())
		}
	})
}
