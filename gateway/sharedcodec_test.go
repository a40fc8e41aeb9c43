package gateway

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// TestSharedRecordRoundTripsEveryAnswer fetches one answer per fetching
// tool from the stand-in and checks that what another replica decodes from
// Redis is the same model, body and fitted result. A model field the JSON
// record cannot carry would fail here.
func TestSharedRecordRoundTripsEveryAnswer(t *testing.T) {
	e := newEnv(t)
	id := e.up.Data().MostProgeny()
	cases := map[*lookup.Def]map[string]any{
		lookup.LastUpdate:    {},
		lookup.ListBreeds:    {},
		lookup.Statuses:      {},
		lookup.TraitRanges:   {"breed_id": 640},
		lookup.SearchAnimals: {"page_size": 100},
		lookup.Animal:        {"search_string": id},
		lookup.Lineage:       {"lpn_id": id},
		lookup.Progeny:       {"lpn_id": id, "page_size": 100},
	}
	for d, sent := range cases {
		t.Run(d.Name, func(t *testing.T) {
			ob, err := e.gw.obtain(context.Background(), d.Read(validLookup(t, d, sent)))
			if err != nil {
				t.Fatal(err)
			}
			a := ob.A
			b, err := sharedCodec.Encode(a)
			if err != nil {
				t.Fatalf("encodeAnswer: %v", err)
			}
			got, err := sharedCodec.Decode(b)
			if err != nil {
				t.Fatalf("decodeAnswer: %v", err)
			}
			if reflect.TypeOf(got.Value) != reflect.TypeOf(a.Value) {
				t.Fatalf("model type %T, want %T", got.Value, a.Value)
			}
			wantModel, _ := nsip.PlainJSON(a.Value)
			gotModel, _ := nsip.PlainJSON(got.Value)
			if !bytes.Equal(gotModel, wantModel) {
				t.Errorf("model differs:\n got %.300s\nwant %.300s", gotModel, wantModel)
			}
			if !bytes.Equal(got.Raw, a.Raw) && !(bytes.Equal(got.Raw, []byte(a.Res.Text)) && bytes.Equal(a.Raw, []byte(a.Res.Text))) {
				t.Errorf("body differs: got %d bytes, want %d", len(got.Raw), len(a.Raw))
			}
			if !reflect.DeepEqual(got.Res, a.Res) {
				t.Errorf("fitted result differs:\n got %+v\nwant %+v", got.Res, a.Res)
			}
			if f := reflect.ValueOf(got.Value).Elem().FieldByName("Raw"); f.IsValid() && !bytes.Equal(f.Bytes(), a.Raw) {
				t.Errorf("the decoded model's Raw is not the body")
			}
			// Compact: below the body alone, once the record's fixed cost
			// (field names, the model's type) is small beside it.
			if len(a.Raw) >= 1024 && len(b) >= len(a.Raw) {
				t.Errorf("record is %d bytes for a %d-byte body; want it smaller", len(b), len(a.Raw))
			}
		})
	}
}
