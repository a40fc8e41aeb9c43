package full

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Table is the complete data behind a summarized answer: one row per
// record, its columns named as the summary names them. A nil cell is a
// value the record does not have, written as an empty CSV field and a JSON
// null.
type Table struct {
	Columns []string
	Rows    [][]any
}

// Answer is an analysis's answer with the table it was computed from. It
// encodes as the answer alone, so the table never reaches the model's
// context unless a host reads the link.
type Answer struct {
	Value any
	Table *Table
}

// MarshalJSON encodes the answer without its table.
func (a *Answer) MarshalJSON() ([]byte, error) { return json.Marshal(a.Value) }

// Split returns an analysis answer and its table, if it came with one.
func Split(v any) (any, *Table) {
	if a, ok := v.(*Answer); ok {
		return a.Value, a.Table
	}
	return v, nil
}

// JSON encodes t as {"columns": [...], "rows": [{column: value}, ...],
// "count": n}: objects a reader can use without the header.
func (t *Table) JSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"columns":`)
	cols, err := json.Marshal(t.Columns)
	if err != nil {
		return nil, err
	}
	b.Write(cols)
	b.WriteString(`,"count":`)
	b.WriteString(strconv.Itoa(len(t.Rows)))
	b.WriteString(`,"rows":[`)
	// Each column's key, encoded once rather than once a row.
	keys := make([][]byte, len(t.Columns))
	for j, c := range t.Columns {
		keys[j], _ = json.Marshal(c)
	}
	for i, row := range t.Rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		for j, c := range t.Columns {
			if j > 0 {
				b.WriteByte(',')
			}
			b.Write(keys[j])
			b.WriteByte(':')
			if j >= len(row) || row[j] == nil {
				b.WriteString("null")
				continue
			}
			v, err := json.Marshal(row[j])
			if err != nil {
				return nil, fmt.Errorf("row %d, column %s: %w", i, c, err)
			}
			b.Write(v)
		}
		b.WriteByte('}')
	}
	b.WriteString("]}")
	return b.Bytes(), nil
}

// CSV encodes t as RFC 4180 CSV: the header, then one line per row.
// Every field, the header's too, is written as text a spreadsheet will
// not run (safeCell): farm and breeder names are typed into NSIP by
// breeders, and reach this server over plain HTTP.
func (t *Table) CSV() ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	line := make([]string, len(t.Columns))
	for j, c := range t.Columns {
		line[j] = safeCell(c)
	}
	if err := w.Write(line); err != nil {
		return nil, err
	}
	for _, row := range t.Rows {
		for j := range line {
			line[j] = ""
			if j < len(row) {
				line[j] = safeCell(cellText(row[j]))
			}
		}
		if err := w.Write(line); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// plainNumber is a decimal number as a spreadsheet reads one: -0.25,
// +3, 1e-7. Anything else starting with a sign (-1+2, -Inf) it would read
// as a formula.
var plainNumber = regexp.MustCompile(`^[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?$`)

// safeCell neutralises a field a spreadsheet would run as a formula
// (CWE-1236) by OWASP's rule, applied wherever a spreadsheet may start a
// cell: a leading single quote, which spreadsheets take as "this is text"
// and do not show, goes before a cell that starts with a formula character
// (formulaRune) after any leading spaces, unless it is a plain number.
// A cell starts at the field's start and after each separator a
// spreadsheet may split on (cellSeparator): Go's CSV writer quotes a field
// only for a comma, quote, newline or leading space, so "Maple Leaf;=1+1"
// is one field here and two cells, the second a formula, where ; splits.
// The quote goes at the cell's start, before its spaces, so that a
// spreadsheet that trims them still finds it first.
func safeCell(s string) string {
	var b strings.Builder
	last := 0 // s[:last] is in b
	for i := 0; i < len(s); i++ {
		if (i == 0 || cellSeparator(s[i-1])) && runsAsFormula(s[i:]) {
			b.WriteString(s[last:i])
			b.WriteByte('\'')
			last = i
		}
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// cellSeparators are where a spreadsheet may split a field into cells: a
// comma, a semicolon (the list separator of many European locales), a tab
// or a bar. All are ASCII, so a byte of one is never part of a multi-byte
// character.
const cellSeparators = ",;\t|"

func cellSeparator(b byte) bool { return strings.IndexByte(cellSeparators, b) >= 0 }

// formulaRune reports whether a cell starting with r is run as a
// formula: =, +, -, @, a tab or a carriage return (which some
// spreadsheets drop, reading on), or the full-width ＝ ＋ － ＠ that some
// read as their ASCII selves.
func formulaRune(r rune) bool {
	switch r {
	case '=', '+', '-', '@', '\t', '\r', '＝', '＋', '－', '＠':
		return true
	}
	return false
}

// leadingSpace is what a spreadsheet may trim before reading a cell: any
// space but the tab and carriage return, formula characters themselves.
func leadingSpace(r rune) bool { return r != '\t' && r != '\r' && unicode.IsSpace(r) }

// runsAsFormula reports whether the cell that starts rest (and ends at
// its next separator) runs as a formula.
func runsAsFormula(rest string) bool {
	body := strings.TrimLeftFunc(rest, leadingSpace)
	r, _ := utf8.DecodeRuneInString(body)
	if !formulaRune(r) {
		return false
	}
	if r == '\t' || r == '\r' {
		return true // never part of a number
	}
	cell := body
	if end := strings.IndexAny(body, cellSeparators); end >= 0 {
		cell = body[:end]
	}
	return !plainNumber.MatchString(strings.TrimRightFunc(cell, unicode.IsSpace))
}

func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int:
		return strconv.Itoa(x)
	case bool:
		return strconv.FormatBool(x)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		if string(b) == "null" {
			// A nil pointer is an unknown value, like a nil cell.
			return ""
		}
		return string(b)
	}
}

// Size is about how many bytes the table takes to hold and to encode,
// which the store's bounds are counted in.
func (t *Table) Size() int64 {
	n := int64(0)
	for _, c := range t.Columns {
		n += int64(len(c)) + 16
	}
	for _, row := range t.Rows {
		n += 24
		for _, cell := range row {
			switch x := cell.(type) {
			case string:
				n += int64(len(x)) + 16
			default:
				n += 24
			}
		}
	}
	return n
}
