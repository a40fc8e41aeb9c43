package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// TestSharedRecordRoundTripsEveryAnswer fetches one answer per fetching
// tool from the stand-in and checks that what another replica decodes from
// Redis is the same model, body and fitted result. A model field the JSON
// record cannot carry would fail here.
func TestSharedRecordRoundTripsEveryAnswer(t *testing.T) {
	e := newEnv(t)
	id := e.up.Data().MostProgeny()
	cases := map[*toolDef]map[string]any{
		lastUpdateDef:    {},
		listBreedsDef:    {},
		statusesDef:      {},
		traitRangesDef:   {"breed_id": 640},
		searchAnimalsDef: {"page_size": 100},
		animalDef:        {"search_string": id},
		lineageDef:       {"lpn_id": id},
		progenyDef:       {"lpn_id": id, "page_size": 100},
	}
	for d, sent := range cases {
		t.Run(d.name, func(t *testing.T) {
			args, errs := param.ValidateObject("", d.args.Specs, sent)
			if len(errs) > 0 {
				t.Fatalf("arguments %v: %v", sent, errs)
			}
			ob, err := e.gw.obtain(context.Background(), d, cache.Key(d.method, args), args)
			if err != nil {
				t.Fatal(err)
			}
			a := ob.a
			b, err := encodeAnswer(a)
			if err != nil {
				t.Fatalf("encodeAnswer: %v", err)
			}
			got, err := decodeAnswer(b)
			if err != nil {
				t.Fatalf("decodeAnswer: %v", err)
			}
			if reflect.TypeOf(got.value) != reflect.TypeOf(a.value) {
				t.Fatalf("model type %T, want %T", got.value, a.value)
			}
			wantModel, _ := nsip.PlainJSON(a.value)
			gotModel, _ := nsip.PlainJSON(got.value)
			if !bytes.Equal(gotModel, wantModel) {
				t.Errorf("model differs:\n got %.300s\nwant %.300s", gotModel, wantModel)
			}
			if !bytes.Equal(got.raw, a.raw) && !(bytes.Equal(got.raw, []byte(a.res.Text)) && bytes.Equal(a.raw, []byte(a.res.Text))) {
				t.Errorf("body differs: got %d bytes, want %d", len(got.raw), len(a.raw))
			}
			if !reflect.DeepEqual(got.res, a.res) {
				t.Errorf("fitted result differs:\n got %+v\nwant %+v", got.res, a.res)
			}
			if f := reflect.ValueOf(got.value).Elem().FieldByName("Raw"); f.IsValid() && !bytes.Equal(f.Bytes(), a.raw) {
				t.Errorf("the decoded model's Raw is not the body")
			}
			// Compact: below the body alone, once the record's fixed cost
			// (field names, the model's type) is small beside it.
			if len(a.raw) >= 1024 && len(b) >= len(a.raw) {
				t.Errorf("record is %d bytes for a %d-byte body; want it smaller", len(b), len(a.raw))
			}
		})
	}
}

// An answer whose fitted text or body is not JSON has no shared form: it is
// kept locally and never sent to Redis half-written.
func TestSharedRecordRefusesTextOrBodyThatIsNotJSON(t *testing.T) {
	good := &answer{value: &nsip.LastUpdate{}, raw: json.RawMessage(`{"date":"2026-01-01"}`), res: summarize.Result{Text: `{"date":"2026-01-01"}`}}
	if _, err := encodeAnswer(good); err != nil {
		t.Fatalf("a JSON answer: %v", err)
	}
	for name, a := range map[string]*answer{
		"empty text":       {value: good.value, raw: good.raw, res: summarize.Result{}},
		"text not JSON":    {value: good.value, raw: good.raw, res: summarize.Result{Text: `{"date":`}},
		"body not JSON":    {value: good.value, raw: json.RawMessage(`<html>`), res: good.res},
		"model not shared": {value: map[string]any{}, raw: good.raw, res: good.res},
	} {
		if b, err := encodeAnswer(a); err == nil {
			t.Errorf("%s: encoded as %d bytes, want an error", name, len(b))
		}
	}
}
