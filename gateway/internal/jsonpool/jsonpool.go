// Package jsonpool decodes JSON with decoders kept for reuse: every tool
// call decodes its arguments twice, and a new json.Decoder with its buffer
// is most of what that allocates.
package jsonpool

import (
	"bytes"
	"encoding/json"
	"sync"
)

// Every call decodes its arguments (Decode), and a fetch decodes them again
// into its request's struct (DecodeInto); a json.Decoder with the buffer
// it reads into is most of what each decoding allocates. Decoders are kept for reuse here, but only
// once they are back where a new one starts: the whole of one object
// read, nothing left in the buffer, no error. A decoder that stopped
// anywhere else is dropped, so that what it had buffered can never reach
// the next call's value.
type pooledDecoder struct {
	r   bytes.Reader
	dec *json.Decoder
}

var (
	numberDecoders = sync.Pool{New: func() any { return newPooledDecoder(func(d *json.Decoder) { d.UseNumber() }) }}
	strictDecoders = sync.Pool{New: func() any { return newPooledDecoder(func(d *json.Decoder) { d.DisallowUnknownFields() }) }}
)

func newPooledDecoder(set func(*json.Decoder)) *pooledDecoder {
	p := &pooledDecoder{}
	p.dec = json.NewDecoder(&p.r)
	set(p.dec)
	return p
}

// decodeWith decodes the first JSON value in raw into v with a decoder
// from pool, as json.NewDecoder(bytes.NewReader(raw)) set up alike would.
func decodeWith(pool *sync.Pool, raw []byte, v any) error {
	p := pool.Get().(*pooledDecoder)
	p.r.Reset(raw)
	err := p.dec.Decode(v)
	if err == nil && len(raw) > 0 && raw[0] == '{' && p.dec.InputOffset() == int64(len(raw)) {
		p.r.Reset(nil)
		pool.Put(p)
	}
	return err
}

// Numbers decodes the first JSON value in raw into v as a new decoder
// with UseNumber would.
func Numbers(raw []byte, v any) error { return decodeWith(&numberDecoders, raw, v) }

// Strict decodes the first JSON value in raw into v as a new decoder with
// DisallowUnknownFields would.
func Strict(raw []byte, v any) error { return decodeWith(&strictDecoders, raw, v) }
