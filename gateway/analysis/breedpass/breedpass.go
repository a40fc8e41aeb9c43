package breedpass

import (
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
// animal of the breed, a ranking by any of NSIP's own indexes and a group
// summary of the breed's animals of a sex or status (serve.go),
// at no further lookup, so a second question about the breed under the
// same evaluation reads no search page. The gateway keeps
// passes (analysis.Passes) between calls and shares them between replicas.

// BreedPass is one breed's animals under one evaluation, held compactly:
// per animal its LPN ID, sex, status, birth date, whether genotyped, sire,
// dam and flock, the value of each trait and of each of NSIP's own indexes.
// All but the ID and the values are indexes into tables of what the rows
// gave, as sent, since the rows share them (a sire has many lambs, a date
// many births).
type BreedPass struct {
	Breed      int
	Evaluation string
	IDs        []string
	Sex        []uint8  // index into Sexes
	Sexes      []string // the sexes the rows gave ("Male", "Female", "" or as sent), in order seen
	Status     []uint8  // index into Statuses
	Statuses   []string // the status names the rows gave, in order seen
	Born       []uint32 // index into Dates
	Dates      []string // the birth dates the rows gave, as sent, in order seen
	Geno       []uint8  // index into Genotypes
	Genotypes  []string // what the rows said of genotyping, as sent, in order seen
	Sire, Dam  []uint32 // indexes into Parents
	Parents    []string // the sires' and dams' LPN IDs the rows gave ("" for none), in order seen
	Flock      []uint32 // index into Flocks
	Flocks     []string // the flock codes the rows gave, in order seen
	Codes      []string // the trait codes any row carries, sorted
	// Values holds, per code, every animal's value, NaN where its row has
	// none.
	Values [][]float64
	// IndexNames are the names of NSIP's own indexes (usIndex, ...) any
	// row carries, as NSIP spells them, sorted; IndexValues holds per name
	// every animal's value, NaN where its row has none.
	IndexNames  []string
	IndexValues [][]float64
	// held is the breed's pedigree once built (BreedPedigree): memory
	// only, never encoded, so each replica builds its own once.
	held *heldPedigree
}

// PassKey is the key a pass is kept and shared under.
func PassKey(breed int, evaluation string) string {
	return fmt.Sprintf(`breed_pass:{"breed_id":%d,"evaluation":%q}`, breed, evaluation)
}

// Column is the values of code, nil when no animal has it.
func (p *BreedPass) Column(code string) []float64 {
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
	col := p.Column(code)
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

// Bytes is about what the pass takes in memory: its IDs and the names of
// its tables, a byte of sex, of status and of genotyped and four each of
// birth date, sire, dam and flock per animal, a float per trait and per
// index per animal, and its pedigree, counted whether built yet or not.
func (p *BreedPass) Bytes() int64 {
	n := int64(len(p.Evaluation)) + 128 + p.pedigreeBytes()
	for _, ids := range [][]string{p.IDs, p.Sexes, p.Statuses, p.Dates, p.Genotypes, p.Parents, p.Flocks} {
		for _, id := range ids {
			n += int64(len(id)) + 16
		}
	}
	n += int64(len(p.Sex)+len(p.Status)+len(p.Geno)) + 4*int64(len(p.Born)+len(p.Sire)+len(p.Dam)+len(p.Flock))
	for i, c := range p.Codes {
		n += int64(len(c)) + 16 + 24 + 8*int64(len(p.Values[i]))
	}
	for i, c := range p.IndexNames {
		n += int64(len(c)) + 16 + 24 + 8*int64(len(p.IndexValues[i]))
	}
	return n
}

// interned numbers the strings it is given in the order first seen,
// adding what each new one takes to text when set.
type interned struct {
	of    map[string]int
	names *[]string
	text  *int64
}

func (t *interned) at(s string) int {
	k, ok := t.of[s]
	if !ok {
		k = len(*t.names)
		t.of[s] = k
		*t.names = append(*t.names, s)
		if t.text != nil {
			*t.text += int64(len(s)) + 16
		}
	}
	return k
}

// NewPassOf builds a pass from the rows of breed's pages.
func NewPassOf(breed int, eval string, rows []nsip.AnimalRow) *BreedPass {
	b := NewBuilder(breed, eval)
	for _, row := range rows {
		b.Add(row)
	}
	return b.Pass()
}

// A Builder makes a pass a row at a time, so that a breed's pages are
// kept as the pass as they are read and their rows let go: the rows take
// several times what the pass keeps of them.
type Builder struct {
	p                                         *BreedPass
	values, indexes                           columns
	sex, status, dates, geno, parents, flocks interned
	// text is what the IDs and the interned strings take, counted as
	// they come, so that Bytes costs nothing per page read.
	text int64
}

// NewBuilder starts the pass of breed under eval.
func NewBuilder(breed int, eval string) *Builder {
	p := &BreedPass{Breed: breed, Evaluation: eval}
	b := &Builder{p: p, values: columns{at: map[string]int{}}, indexes: columns{at: map[string]int{}}}
	for t, names := range map[*interned]*[]string{&b.sex: &p.Sexes, &b.status: &p.Statuses, &b.dates: &p.Dates,
		&b.geno: &p.Genotypes, &b.parents: &p.Parents, &b.flocks: &p.Flocks} {
		*t = interned{of: map[string]int{}, names: names, text: &b.text}
	}
	return b
}

// Add adds row's animal as the pass's next.
func (b *Builder) Add(row nsip.AnimalRow) {
	p := b.p
	p.IDs = append(p.IDs, row.LPNID)
	b.text += int64(len(row.LPNID)) + 16
	// More names than a byte numbers would be a breed unlike any NSIP
	// has; the rest share the last name rather than wrap.
	p.Sex = append(p.Sex, uint8(min(b.sex.at(row.Sex), math.MaxUint8)))
	p.Status = append(p.Status, uint8(min(b.status.at(row.Status), math.MaxUint8)))
	p.Geno = append(p.Geno, uint8(min(b.geno.at(row.Genotyped), math.MaxUint8)))
	p.Born = append(p.Born, uint32(b.dates.at(row.DateOfBirth)))
	p.Sire = append(p.Sire, uint32(b.parents.at(row.Sire)))
	p.Dam = append(p.Dam, uint32(b.parents.at(row.Dam)))
	p.Flock = append(p.Flock, uint32(b.flocks.at(row.FlockCode)))
	j := len(p.IDs) - 1
	b.values.grow(j + 1)
	for _, t := range row.Traits {
		b.values.set(j, strings.ToUpper(t.Code), t.Value)
	}
	b.indexes.grow(j + 1)
	for _, ix := range row.Indexes {
		b.indexes.set(j, ix.Name, ix.Value)
	}
}

// Animals is how many animals have been added.
func (b *Builder) Animals() int { return len(b.p.IDs) }

// Bytes is what the pass built so far takes, as BreedPass.Bytes counts
// it, from counts kept as the rows came.
func (b *Builder) Bytes() int64 {
	p := b.p
	n := int64(len(p.IDs))
	cols := int64(len(b.values.names) + len(b.indexes.names))
	return int64(len(p.Evaluation)) + 128 + p.pedigreeBytes() + b.text + 3*n + 16*n +
		b.values.nameBytes + b.indexes.nameBytes + cols*(16+24) + 8*n*cols
}

// Pass is the pass built, its traits and indexes sorted by name. The
// builder is not to be used after.
func (b *Builder) Pass() *BreedPass {
	p := b.p
	// Copied to their length: a slice grown row by row holds up to
	// twice what it uses.
	p.IDs, p.Sex, p.Status, p.Geno = slices.Clone(p.IDs), slices.Clone(p.Sex), slices.Clone(p.Status), slices.Clone(p.Geno)
	p.Born, p.Sire, p.Dam, p.Flock = slices.Clone(p.Born), slices.Clone(p.Sire), slices.Clone(p.Dam), slices.Clone(p.Flock)
	p.Codes, p.Values = b.values.sorted()
	p.IndexNames, p.IndexValues = b.indexes.sorted()
	p.held = newHeld(p.IDs)
	return p
}

// columns are a value column per name, NaN where an animal has none, in
// the order the names were first seen.
type columns struct {
	names     []string
	cols      [][]float64
	at        map[string]int
	n         int   // animals
	nameBytes int64 // what the names take
}

// grow gives every column n animals, the new ones NaN.
func (c *columns) grow(n int) {
	for i := range c.cols {
		for len(c.cols[i]) < n {
			c.cols[i] = append(c.cols[i], math.NaN())
		}
	}
	c.n = n
}

// set sets name's value for animal j, adding its column when new.
func (c *columns) set(j int, name string, v float64) {
	i, ok := c.at[name]
	if !ok {
		i = len(c.names)
		c.at[name] = i
		c.names = append(c.names, name)
		c.nameBytes += int64(len(name))
		col := make([]float64, c.n)
		for k := range col {
			col[k] = math.NaN()
		}
		c.cols = append(c.cols, col)
	}
	c.cols[i][j] = v
}

// sorted are the names sorted and their columns in the same order, each
// no longer than its animals.
func (c *columns) sorted() ([]string, [][]float64) {
	order := make([]int, len(c.names))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(c.names[a], c.names[b]) })
	names, cols := make([]string, len(order)), make([][]float64, len(order))
	for k, i := range order {
		names[k], cols[k] = c.names[i], slices.Clone(c.cols[i])
	}
	return names, cols
}

// passVersion leads an encoded pass; another version is not read, so a
// pass kept in an older form is read again rather than misread. Version 2
// added the birth dates, genotyped, parents, flocks and NSIP's indexes,
// and the sexes as sent.
const passVersion = 2

// MarshalBinary encodes the pass for the shared tier: a version, the
// breed and evaluation, the tables of names (sexes, statuses, birth dates,
// genotyped, parents, flocks), the trait codes and index names, then per
// animal its ID, sex, status, genotyped, birth date, sire, dam and flock,
// and per trait and per index a
// bit per animal for whether it has a value followed by the values it has.
func (p *BreedPass) MarshalBinary() ([]byte, error) {
	if !p.whole() {
		return nil, errors.New("breed pass: its columns do not each hold every animal")
	}
	b := []byte{passVersion}
	b = binary.AppendUvarint(b, uint64(p.Breed))
	b = appendString(b, p.Evaluation)
	for _, ss := range [][]string{p.Sexes, p.Statuses, p.Dates, p.Genotypes, p.Parents, p.Flocks, p.Codes, p.IndexNames} {
		b = appendStrings(b, ss)
	}
	b = binary.AppendUvarint(b, uint64(len(p.IDs)))
	for j, id := range p.IDs {
		b = appendString(b, id)
		b = append(b, p.Sex[j], p.Status[j], p.Geno[j])
		for _, k := range []uint32{p.Born[j], p.Sire[j], p.Dam[j], p.Flock[j]} {
			b = binary.AppendUvarint(b, uint64(k))
		}
	}
	for _, col := range slices.Concat(p.Values, p.IndexValues) {
		b = appendColumn(b, col)
	}
	return b, nil
}

// whole reports whether every column holds a value for every animal and
// every table entry named is in its table, as NewPassOf makes them.
func (p *BreedPass) whole() bool {
	n := len(p.IDs)
	if len(p.Sex) != n || len(p.Status) != n || len(p.Born) != n || len(p.Geno) != n || len(p.Sire) != n || len(p.Dam) != n || len(p.Flock) != n ||
		len(p.Values) != len(p.Codes) || len(p.IndexValues) != len(p.IndexNames) {
		return false
	}
	for _, col := range slices.Concat(p.Values, p.IndexValues) {
		if len(col) != n {
			return false
		}
	}
	for j := range n {
		if int(p.Sex[j]) >= len(p.Sexes) || int(p.Status[j]) >= len(p.Statuses) || int(p.Born[j]) >= len(p.Dates) || int(p.Geno[j]) >= len(p.Genotypes) ||
			int(p.Sire[j]) >= len(p.Parents) || int(p.Dam[j]) >= len(p.Parents) || int(p.Flock[j]) >= len(p.Flocks) {
			return false
		}
	}
	return true
}

// appendColumn encodes col: a bit per animal for whether it has a value,
// then the values it has.
func appendColumn(b []byte, col []float64) []byte {
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
	return b
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

// column reads a column of n animals appendColumn wrote.
func (r *passReader) column(n uint64) []float64 {
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
	return col
}

// UnmarshalBinary reads a pass MarshalBinary wrote, refusing one of
// another version, cut short, with bytes left over or naming an entry
// beyond its tables.
func (p *BreedPass) UnmarshalBinary(b []byte) error {
	if len(b) == 0 || b[0] != passVersion {
		return errPassCodec
	}
	r := &passReader{b: b[1:]}
	// No count may claim more than the bytes left could hold.
	left := uint64(len(b))
	q := BreedPass{Breed: int(r.uvarint(math.MaxInt32)), Evaluation: r.string(), Sexes: r.strings(math.MaxUint8 + 1), Statuses: r.strings(math.MaxUint8 + 1),
		Dates: r.strings(left), Genotypes: r.strings(math.MaxUint8 + 1), Parents: r.strings(left), Flocks: r.strings(left), Codes: r.strings(left), IndexNames: r.strings(left)}
	n := r.uvarint(left)
	if n > 0 && (len(q.Sexes) == 0 || len(q.Statuses) == 0 || len(q.Dates) == 0 || len(q.Genotypes) == 0 || len(q.Parents) == 0 || len(q.Flocks) == 0) {
		return errPassCodec // every animal names an entry of each table
	}
	q.IDs, q.Sex, q.Status, q.Geno = make([]string, n), make([]uint8, n), make([]uint8, n), make([]uint8, n)
	q.Born, q.Sire, q.Dam, q.Flock = make([]uint32, n), make([]uint32, n), make([]uint32, n), make([]uint32, n)
	for j := range q.IDs {
		q.IDs[j] = r.string()
		if sx := r.bytes(3); sx != nil {
			q.Sex[j], q.Status[j], q.Geno[j] = sx[0], sx[1], sx[2]
		}
		q.Born[j] = uint32(r.uvarint(uint64(max(1, len(q.Dates)) - 1)))
		q.Sire[j] = uint32(r.uvarint(uint64(max(1, len(q.Parents)) - 1)))
		q.Dam[j] = uint32(r.uvarint(uint64(max(1, len(q.Parents)) - 1)))
		q.Flock[j] = uint32(r.uvarint(uint64(max(1, len(q.Flocks)) - 1)))
		if int(q.Sex[j]) >= len(q.Sexes) || int(q.Status[j]) >= len(q.Statuses) || int(q.Geno[j]) >= len(q.Genotypes) {
			r.err = errPassCodec
		}
		if r.err != nil {
			return errPassCodec
		}
	}
	for i := range len(q.Codes) + len(q.IndexNames) {
		col := r.column(n)
		if r.err != nil {
			return errPassCodec
		}
		if i < len(q.Codes) {
			q.Values = append(q.Values, col)
		} else {
			q.IndexValues = append(q.IndexValues, col)
		}
	}
	if r.err != nil || len(r.b) != 0 {
		return errPassCodec
	}
	q.held = newHeld(q.IDs)
	*p = q
	return nil
}
