package nsip

import (
	"bytes"
	"encoding/json"
	"math"
	"net/url"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

func FuzzParseLineageContent(f *testing.F) {
	for _, seed := range []string{
		`<div>Pine Ridge Farm</div><div>US Hair Index: 102.03</div><div>SRC$ Index: 116.56</div><div>DOB: 2/13/2024</div><div>Sex: Male</div><div>Status: CURRENT</div>`,
		`<div>A &amp; B</div><div><b>US Index</b>: 99</div>`,
		`<div><div><div>Index: x</div>`,
		`<script>Sex: x</script><style>`,
		`</div></div><br/>DOB:`,
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, fragment string) {
		got := parseLineageContent(fragment)
		for _, s := range []string{got.farm, got.dob, got.sex, got.status} {
			if s != strings.TrimSpace(s) || strings.ContainsAny(s, "\n\t") {
				t.Errorf("field %q is not one trimmed line", s)
			}
		}
		for _, ix := range got.indexes {
			if !isIndexLabel(ix.Name) || math.IsNaN(ix.Value) || math.IsInf(ix.Value, 0) {
				t.Errorf("bad index %+v", ix)
			}
		}
	})
}

// FuzzDecodeBody feeds arbitrary bodies to every decoder: each either
// returns a model holding the body as Raw, an unexpected-response error
// with a reason, or, for JSON it cannot read, a format-changed error with a
// reason and the body. None may panic.
func FuzzDecodeBody(f *testing.F) {
	for _, seed := range []string{
		`{"success":true,"data":{"lpnId":"6402382024NCS310","content":"<div>F</div>","children":[{"lpnId":"S1"},null]}}`,
		`{"recordCount":1,"records":[{"lpnId":"6402382024NCS310","bwt":0.1,"accbwt":0.8,"usIndex":101}]}`,
		`{"TotalCount":1,"Results":[{"LpnId":"X1","Bwt":0.1,"AccBwt":80}]}`,
		`{"success":true,"data":{"searchResultViewModel":{"lpnId":"A1","wwt":1}},"contactInfo":{"farmName":"F"}}`,
		`{"LpnId":"A1","Traits":{"BWT":{"Value":1,"Accuracy":50}},"Indexes":[{"name":"US Index","value":1}]}`,
		`[{"breedGroupId":61,"breedGroupName":"Range","breeds":[{"breedId":486,"breedName":"Merino"}]}]`,
		`{"BWT":{"min":-0.7,"max":0}}`,
		`["CURRENT","SOLD"]`,
		`{"date":"09/23/2025"}`,
		`{"success":false,"message":"no"}`,
		`<html>error</html>`,
		`{"records":[`,
	} {
		f.Add([]byte(seed))
	}
	decoders := map[string]func([]byte) (json.RawMessage, *Error){
		"date":    rawOf(decodeLastUpdate, func(v *LastUpdate) json.RawMessage { return v.Raw }),
		"groups":  rawOf(decodeBreedGroups, func(v *BreedGroups) json.RawMessage { return v.Raw }),
		"ranges":  rawOf(decodeTraitRanges, func(v *TraitRanges) json.RawMessage { return v.Raw }),
		"search":  rawOf(decodeSearch, func(v *SearchResults) json.RawMessage { return v.Raw }),
		"progeny": rawOf(decodeProgeny, func(v *ProgenyPage) json.RawMessage { return v.Raw }),
		"lineage": rawOf(decodeLineage, func(v *Lineage) json.RawMessage { return v.Raw }),
		"details": rawOf(decodeDetails, func(v *AnimalDetails) json.RawMessage {
			if v.LPNID == "" {
				return nil // accepted without an LPN ID: reported as a Raw mismatch
			}
			for _, tr := range v.Traits {
				if tr.HasAccuracy && (tr.Accuracy < 0 || tr.Accuracy > 100) {
					return nil
				}
			}
			return v.Raw
		}),
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for name, decode := range decoders {
			raw, e := decode(body)
			if e != nil {
				formatChanged := e.Kind == KindFormatChanged && bytes.Equal(e.Body, body)
				if (e.Kind != KindUnexpectedResponse && !formatChanged) || e.Reason == "" {
					t.Errorf("%s: error %+v", name, e)
				}
			} else if !bytes.Equal(raw, body) {
				t.Errorf("%s: accepted, but Raw is not the body or the model breaks a rule", name)
			}
		}
		// Statuses fail only on bodies that are not JSON or that say
		// success=false.
		v, e := decodeStatuses(body)
		var env struct{ Success *bool }
		valid := checkJSON(body) == nil && (json.Unmarshal(body, &env) != nil || env.Success == nil || *env.Success)
		if (e == nil) != valid || (e == nil && !bytes.Equal(v.Raw, body)) {
			t.Errorf("statuses: error %v for a body whose JSON validity is %v", e, valid)
		}
	})
}

// rawOf adapts a decoder for FuzzDecodeBody: the model's Raw on success.
func rawOf[T any](dec decodeFunc[T], raw func(*T) json.RawMessage) func([]byte) (json.RawMessage, *Error) {
	return func(b []byte) (json.RawMessage, *Error) {
		v, e := dec(b)
		if e != nil {
			return nil, e
		}
		return raw(v), nil
	}
}

func BenchmarkDecodeSearchPage100(b *testing.B) {
	for _, f := range formats {
		b.Run(f.String(), func(b *testing.B) {
			s := nsiptest.NewServer(b, nsiptest.Options{Seed: 7, Format: f})
			body := upstreamBody(b, s, "POST", pathSearch, url.Values{"page": {"0"}, "pageSize": {"100"}}, "{}")
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				r, e := decodeSearch(body)
				if e != nil || len(r.Results) != 100 {
					b.Fatal(e)
				}
			}
		})
	}
}

func BenchmarkDecodeLineageDeep(b *testing.B) {
	for _, f := range formats {
		b.Run(f.String(), func(b *testing.B) {
			s := nsiptest.NewServer(b, nsiptest.Options{Seed: 7, Format: f})
			id := s.Data().DeepPedigree()
			body := upstreamBody(b, s, "GET", pathLineage, url.Values{"lpnId": {id}}, "")
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				l, e := decodeLineage(body)
				if e != nil || l.Subject.Sire == nil {
					b.Fatal(e)
				}
			}
		})
	}
}
