package livecheck

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/nsip/shape"
)

// rowStats counts what the breed's search rows carry, by member name as
// sent, so that a row shape the contract does not know is counted too.
type rowStats struct {
	total     int // NSIP's recordCount, from the first page that gives one
	pages     int
	rows      int
	sire, dam int
	first     string         // the first row's LPN ID
	fields    map[string]int // rows carrying a value under each member name met
	accMax    float64        // the largest accuracy read, which tells their scale
}

// add reads one search page's rows and returns how many it had.
func (s *rowStats) add(body []byte) int {
	rows, total := pageRows(body, 0)
	s.pages++
	if s.total == 0 {
		s.total = total
	}
	if s.fields == nil {
		s.fields = map[string]int{}
	}
	for _, r := range rows {
		s.rows++
		for name, v := range r {
			s.fields[name] += carries(v)
			var acc float64
			if shape.IsAccuracy(strings.ToLower(name)) && json.Unmarshal(v, &acc) == nil {
				s.accMax = max(s.accMax, acc)
			}
		}
		if s.first == "" {
			_ = json.Unmarshal(memberOf(r, "lpnId"), &s.first)
		}
		s.sire += carries(memberOf(r, "lpnSre"))
		s.dam += carries(memberOf(r, "lpnDam"))
	}
	return len(rows)
}

// full reports whether every row NSIP counts has been read.
func (s *rowStats) full() bool { return s.total > 0 && s.rows >= s.total }

// pageRows finds a page's rows and count: records and recordCount as
// captured, in any case (the legacy Results and TotalCount too), at the top
// or under data, so that a page in a drifted shape still gives its rows.
func pageRows(body []byte, depth int) ([]map[string]json.RawMessage, int) {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil || depth > 1 {
		return nil, 0
	}
	var rows []map[string]json.RawMessage
	total := 0
	for k, v := range top {
		switch strings.ToLower(k) {
		case "records", "results":
			var list []json.RawMessage
			_ = json.Unmarshal(v, &list)
			for _, r := range list {
				var m map[string]json.RawMessage
				if json.Unmarshal(r, &m) == nil && m != nil {
					rows = append(rows, m)
				}
			}
		case "recordcount", "totalcount":
			_ = json.Unmarshal(v, &total)
		case "data":
			if r, n := pageRows(v, depth+1); r != nil {
				return r, n
			}
		}
	}
	return rows, total
}

// memberOf is the row's member of that name, or one spelled in another
// case.
func memberOf(r map[string]json.RawMessage, name string) json.RawMessage {
	if v, ok := r[name]; ok {
		return v
	}
	for k, v := range r {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return nil
}

// carries is 1 when v holds a value: not absent, null or "".
func carries(v json.RawMessage) int {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" || string(v) == `""` {
		return 0
	}
	return 1
}

// breed is the breed's part of the report: the contract's row members
// first, in its order, then the rest by name.
func (s *rowStats) breed(id int) Breed {
	b := Breed{ID: id, RecordCount: s.total, Pages: s.pages, Rows: s.rows,
		SirePct: pct(s.sire, s.rows), DamPct: pct(s.dam, s.rows), AccuracyMax: s.accMax, Fields: []Field{}}
	names := make([]string, 0, len(s.fields))
	for n := range s.fields {
		names = append(names, n)
	}
	rank := func(n string) int {
		if i := slices.Index(shape.RowMembers, n); i >= 0 {
			return i
		}
		return len(shape.RowMembers)
	}
	slices.SortFunc(names, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	for _, n := range names {
		b.Fields = append(b.Fields, Field{Name: n, Rows: s.fields[n], Pct: pct(s.fields[n], s.rows)})
	}
	return b
}

// pct is n of total as a percent with one decimal; 0 of none is 0.
func pct(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return math.Round(1000*float64(n)/float64(total)) / 10
}
