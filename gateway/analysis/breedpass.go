package analysis

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A breed pass is every animal of one breed as NSIP's search pages gave
// them under one evaluation: read once, unsorted, a page of 100 at a time,
// and checked as the binary search checks its pages (full pages before
// the last, NSIP's count unchanged, no animal twice, the same evaluation
// date before and after). It answers the top_percent of every EBV of every
// animal of the breed at no further lookup, so a second question about the
// breed under the same evaluation reads no search page. The gateway keeps
// passes (PassStore) between calls and shares them between replicas.

// BreedPass is one breed's animals under one evaluation, held compactly:
// per animal its LPN ID, sex, status and the value of each trait.
type BreedPass struct {
	Breed      int
	Evaluation string
	IDs        []string
	Sex        []byte   // 'M', 'F', or 0 when the row gives neither
	Status     []uint8  // index into Statuses
	Statuses   []string // the status names the rows gave, in order seen
	Codes      []string // the trait codes any row carries, sorted
	// Values holds, per code, every animal's value, NaN where its row has
	// none.
	Values [][]float64
}

// PassStore keeps breed passes between calls. A Source that is one lets
// percentiles read a breed once per evaluation; without one, each value is
// found by the binary search over NSIP's sorted pages.
type PassStore interface {
	// LoadPass is the pass of breed under evaluation, nil when none is kept.
	LoadPass(ctx context.Context, breed int, evaluation string) *BreedPass
	// StorePass keeps p, within the store's bound.
	StorePass(ctx context.Context, p *BreedPass)
}

// PassFiller is a PassStore that can read a pass on its own, beyond the
// call that asked: a breed too large for one call's lookups is then read
// in the background, and a later call finds it kept.
type PassFiller interface {
	// FillPass starts the read, or says why it does not ("" when the
	// pass is being read).
	FillPass(breed int, evaluation string) string
}

// PassKey is the key a pass is kept and shared under.
func PassKey(breed int, evaluation string) string {
	return fmt.Sprintf(`breed_pass:{"breed_id":%d,"evaluation":%q}`, breed, evaluation)
}

// column is the values of code, nil when no animal has it.
func (p *BreedPass) column(code string) []float64 {
	for i, c := range p.Codes {
		if strings.EqualFold(c, code) {
			return p.Values[i]
		}
	}
	return nil
}

// TopPercent is v's top_percent among the breed's animals with code, as
// the binary search defines it (percentile.go): the share in percent of
// those whose EBV is as good as v or better by the trait's preferred
// direction (lower first for a trait with none), ties counting as as good,
// rounded to two decimals. false when no animal of the breed has code.
func (p *BreedPass) TopPercent(code string, v float64) (float64, bool) {
	col := p.column(code)
	info, _ := nsip.LookupTrait(code)
	higher := info.Direction == "higher"
	n, good := 0, 0
	for _, x := range col {
		if math.IsNaN(x) {
			continue
		}
		n++
		if x == v || higher && x > v || !higher && x < v {
			good++
		}
	}
	if n == 0 {
		return 0, false
	}
	return math.Round(10000*float64(good)/float64(n)) / 100, true
}

// Animals is how many animals the pass holds.
func (p *BreedPass) Animals() int { return len(p.IDs) }

// Bytes is about what the pass takes in memory: its IDs, a byte of sex
// and of status and a float per trait per animal.
func (p *BreedPass) Bytes() int64 {
	n := int64(len(p.Evaluation)) + 128
	for _, id := range p.IDs {
		n += int64(len(id)) + 16
	}
	n += int64(len(p.Sex) + len(p.Status))
	for _, s := range p.Statuses {
		n += int64(len(s)) + 16
	}
	for i, c := range p.Codes {
		n += int64(len(c)) + 16 + 24 + 8*int64(len(p.Values[i]))
	}
	return n
}

// newPassOf builds a pass from the rows of breed's pages.
func newPassOf(breed int, eval string, rows []nsip.AnimalRow) *BreedPass {
	p := &BreedPass{Breed: breed, Evaluation: eval, IDs: make([]string, len(rows)), Sex: make([]byte, len(rows)), Status: make([]uint8, len(rows))}
	codes := map[string]int{}
	for _, row := range rows {
		for _, t := range row.Traits {
			codes[strings.ToUpper(t.Code)] = 0
		}
	}
	for c := range codes {
		p.Codes = append(p.Codes, c)
	}
	slices.Sort(p.Codes)
	for i, c := range p.Codes {
		codes[c] = i
		col := make([]float64, len(rows))
		for j := range col {
			col[j] = math.NaN()
		}
		p.Values = append(p.Values, col)
	}
	status := map[string]uint8{}
	for j, row := range rows {
		p.IDs[j] = row.LPNID
		switch row.Sex {
		case "Male":
			p.Sex[j] = 'M'
		case "Female":
			p.Sex[j] = 'F'
		}
		k, ok := status[row.Status]
		if !ok && len(p.Statuses) < math.MaxUint8 {
			k = uint8(len(p.Statuses))
			status[row.Status] = k
			p.Statuses = append(p.Statuses, row.Status)
		}
		p.Status[j] = k
		for _, t := range row.Traits {
			p.Values[codes[strings.ToUpper(t.Code)]][j] = t.Value
		}
	}
	return p
}

// passVersion leads an encoded pass; another version is not read.
const passVersion = 1

// MarshalBinary encodes the pass for the shared tier: a version, the
// breed and evaluation, the status names and trait codes, then per animal
// its ID, sex and status, and per trait a bit per animal for whether it has
// a value followed by the values it has.
func (p *BreedPass) MarshalBinary() ([]byte, error) {
	b := []byte{passVersion}
	b = binary.AppendUvarint(b, uint64(p.Breed))
	b = appendString(b, p.Evaluation)
	b = appendStrings(b, p.Statuses)
	b = appendStrings(b, p.Codes)
	b = binary.AppendUvarint(b, uint64(len(p.IDs)))
	for j, id := range p.IDs {
		b = appendString(b, id)
		b = append(b, p.Sex[j], p.Status[j])
	}
	for _, col := range p.Values {
		bits := make([]byte, (len(col)+7)/8)
		for j, x := range col {
			if !math.IsNaN(x) {
				bits[j/8] |= 1 << (j % 8)
			}
		}
		b = append(b, bits...)
		for _, x := range col {
			if !math.IsNaN(x) {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
			}
		}
	}
	return b, nil
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}

var errPassCodec = errors.New("not an encoded breed pass of this version")

// passReader reads an encoded pass, failing on anything short or out of
// bounds rather than trusting a length it was given.
type passReader struct {
	b   []byte
	err error
}

func (r *passReader) uvarint(most uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > most {
		r.err = errPassCodec
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *passReader) bytes(n int) []byte {
	if r.err != nil || n > len(r.b) {
		r.err = errPassCodec
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *passReader) string() string { return string(r.bytes(int(r.uvarint(1 << 16)))) }

func (r *passReader) strings(most uint64) []string {
	out := make([]string, r.uvarint(most))
	for i := range out {
		out[i] = r.string()
	}
	return out
}

// UnmarshalBinary reads a pass MarshalBinary wrote.
func (p *BreedPass) UnmarshalBinary(b []byte) error {
	if len(b) == 0 || b[0] != passVersion {
		return errPassCodec
	}
	r := &passReader{b: b[1:]}
	// No count may claim more than the bytes left could hold.
	left := uint64(len(b))
	q := BreedPass{Breed: int(r.uvarint(math.MaxInt32)), Evaluation: r.string(), Statuses: r.strings(math.MaxUint8), Codes: r.strings(left)}
	n := r.uvarint(left)
	q.IDs, q.Sex, q.Status = make([]string, n), make([]byte, n), make([]uint8, n)
	for j := range q.IDs {
		q.IDs[j] = r.string()
		sx := r.bytes(2)
		if sx != nil {
			q.Sex[j], q.Status[j] = sx[0], sx[1]
		}
		if int(q.Status[j]) >= max(1, len(q.Statuses)) {
			r.err = errPassCodec
		}
	}
	for range q.Codes {
		bits := r.bytes(int((n + 7) / 8))
		col := make([]float64, n)
		for j := range col {
			col[j] = math.NaN()
			if r.err != nil || bits[j/8]&(1<<(j%8)) == 0 {
				continue
			}
			if x := r.bytes(8); x != nil {
				col[j] = math.Float64frombits(binary.LittleEndian.Uint64(x))
			}
		}
		q.Values = append(q.Values, col)
		if r.err != nil {
			break
		}
	}
	if r.err != nil || len(r.b) != 0 {
		return errPassCodec
	}
	*p = q
	return nil
}
