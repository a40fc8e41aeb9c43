package upstream

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/nsip-tools/nsip-mcp/summarize"
)

// An answer travels through Redis as one JSON record compressed with flate.
// The decoded model goes with it, so that a replica can fit profiles from
// answers another one fetched without a decoder of its own; the upstream
// body only when it is not the text already (a pass-through is the body,
// compacted). JSON rather than gob: gob sends its type descriptions with
// every value, which made a small answer's record larger than the answer.
type sharedRecord struct {
	Shape          uint64            `json:"s"` // the writer's Codec.shape; another shape is foreign
	Type           string            `json:"t"` // the model's type name, a key of Codec.models
	Model          any               `json:"m"` // the model when written, a *json.RawMessage when read
	Raw            json.RawMessage   `json:"r,omitempty"`
	Text           json.RawMessage   `json:"x"` // summarize.Result.Text is compact JSON
	Tokens         int               `json:"n"`
	OriginalTokens int               `json:"o"`
	Summarized     bool              `json:"z,omitempty"`
	Kind           summarize.Kind    `json:"k,omitempty"`
	Paging         *summarize.Paging `json:"p,omitempty"`
}

// Codec writes answers for Redis and reads them back. It knows the models
// a fetch can produce, by type name: each lookup tool's, as the gateway's
// tool definitions declare them.
type Codec struct {
	models map[string]reflect.Type
	// shape fingerprints the field names, types and JSON tags of the
	// models, so that a record written by a build whose models differ is
	// ignored rather than half-decoded.
	shape uint64
}

// NewCodec is the codec of answers whose models are among models (struct
// types, named).
func NewCodec(models ...reflect.Type) *Codec {
	c := &Codec{models: map[string]reflect.Type{}}
	for _, t := range models {
		c.models[t.Name()] = t
	}
	names := make([]string, 0, len(c.models))
	for n := range c.models {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	seen := map[reflect.Type]bool{}
	for _, n := range names {
		describeType(&b, c.models[n], seen)
	}
	h := fnv.New64a()
	_, _ = io.WriteString(h, b.String())
	c.shape = h.Sum64()
	return c
}

func describeType(b *strings.Builder, t reflect.Type, seen map[reflect.Type]bool) {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		b.WriteString(t.Kind().String() + "(")
		describeType(b, t.Elem(), seen)
		b.WriteString(")")
	case reflect.Map:
		b.WriteString("map(")
		describeType(b, t.Key(), seen)
		b.WriteString(",")
		describeType(b, t.Elem(), seen)
		b.WriteString(")")
	case reflect.Struct:
		b.WriteString(t.Name())
		if seen[t] {
			return
		}
		seen[t] = true
		b.WriteString("{")
		for i := range t.NumField() {
			f := t.Field(i)
			b.WriteString(f.Name + " " + string(f.Tag) + ":")
			describeType(b, f.Type, seen)
			b.WriteString(";")
		}
		b.WriteString("}")
	default:
		b.WriteString(t.Kind().String())
	}
}

var flateWriters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// Encode renders a for Redis. The model's Raw field has a "-" tag,
// so the body is not repeated inside the model. The model is encoded
// straight into the record, and the encoder checks that text and body are
// JSON as it copies them: each is scanned once.
func (c *Codec) Encode(a *Answer) ([]byte, error) {
	t := reflect.TypeOf(a.Value)
	if t == nil || t.Kind() != reflect.Pointer || c.models[t.Elem().Name()] != t.Elem() {
		return nil, fmt.Errorf("no shared form for %T", a.Value)
	}
	if a.Res.Text == "" {
		return nil, errors.New("no fitted text") // an empty RawMessage would be sent as null
	}
	rec := sharedRecord{
		Shape: c.shape, Type: t.Elem().Name(), Model: a.Value, Text: json.RawMessage(a.Res.Text),
		Tokens: a.Res.Tokens, OriginalTokens: a.Res.OriginalTokens, Summarized: a.Res.Summarized, Kind: a.Res.Kind,
		Paging: a.Res.Paging,
	}
	if !bytes.Equal(a.Raw, []byte(a.Res.Text)) {
		rec.Raw = a.Raw
	}
	var buf bytes.Buffer
	w := flateWriters.Get().(*flate.Writer)
	defer flateWriters.Put(w)
	w.Reset(&buf)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // keeps Text and Raw byte for byte; streams into the compressor, so not nsip.PlainJSON
	if err := enc.Encode(&rec); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Decode is Encode's inverse. It fails on anything it did not
// write, which the caller treats as a miss.
func (c *Codec) Decode(b []byte) (*Answer, error) {
	var model json.RawMessage
	rec := sharedRecord{Model: &model}
	dec := json.NewDecoder(flate.NewReader(bytes.NewReader(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return nil, err
	}
	if rec.Shape != c.shape {
		return nil, errors.New("written by a build with other data shapes")
	}
	t, ok := c.models[rec.Type]
	if !ok || len(rec.Text) == 0 {
		return nil, fmt.Errorf("unknown model type %q or no text", rec.Type)
	}
	v := reflect.New(t)
	if err := json.Unmarshal(model, v.Interface()); err != nil {
		return nil, err
	}
	raw := rec.Raw
	if raw == nil {
		raw = rec.Text
	}
	if f := v.Elem().FieldByName("Raw"); f.IsValid() && f.CanSet() && f.Kind() == reflect.Slice {
		f.SetBytes(raw)
	}
	return &Answer{
		Value: v.Interface(),
		Raw:   raw,
		Res: summarize.Result{
			Text: string(rec.Text), Tokens: rec.Tokens, OriginalTokens: rec.OriginalTokens,
			Summarized: rec.Summarized, Kind: rec.Kind, Paging: rec.Paging,
		},
	}, nil
}
