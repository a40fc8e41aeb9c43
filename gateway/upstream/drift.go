package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// DriftEntry is one endpoint answering in one unrecognized shape, or
// answering a search while ignoring one of its criteria.
type DriftEntry struct {
	Endpoint  string `json:"endpoint"`
	Signature string `json:"signature"` // the answer's keys and value types, never its values
	// Criterion, set on entries of the second kind, is the criterion NSIP
	// returned rows against (gender, breed_id, trait_ranges.WWT, …);
	// Signature is then empty.
	Criterion string    `json:"criterion,omitempty"`
	Reason    string    `json:"reason"` // what the client missed the first time, or a row that broke the criterion
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
	Count     int64     `json:"count"`
}

// maxDriftEntries bounds the shapes remembered; a shape past the bound is
// counted under the endpoint's "other shapes" entry.
const maxDriftEntries = 64

// otherShapes is the signature counting shapes past maxDriftEntries.
const otherShapes = "(other shapes)"

type Drift struct {
	mu      sync.Mutex
	entries map[string]*DriftEntry // by endpoint and signature
}

// Note records one unrecognized answer and reports whether its endpoint
// and shape are new.
func (d *Drift) Note(endpoint, sig, reason string, now time.Time) bool {
	return d.note(DriftEntry{Endpoint: endpoint, Signature: sig, Reason: reason}, now)
}

// noteIgnored records an answer whose rows show NSIP ignored criterion
// (example names one such row) and reports whether its endpoint and
// criterion are new. Such an answer is well formed, so only its rows tell:
// operators learn NSIP stopped honouring a filter from here, not from
// breeders finding ewes among their rams.
func (d *Drift) noteIgnored(endpoint, criterion, example string, now time.Time) bool {
	return d.note(DriftEntry{Endpoint: endpoint, Criterion: criterion, Reason: example}, now)
}

// NoteIgnoredRows records each criterion c's rows show NSIP ignored at
// endpoint, and warns log of each endpoint and criterion the first time.
// The answer is still served: a summary leaves those rows out, a
// pass-through keeps them, and either way _meta.contradicting_criteria
// says so.
func (d *Drift) NoteIgnoredRows(endpoint string, c *summarize.Contradicting, now time.Time, log *slog.Logger) {
	if c == nil {
		return
	}
	for _, crit := range c.Criteria() {
		example := exampleOf(c.Rows, crit)
		if d.noteIgnored(endpoint, crit, example, now) {
			log.Warn("NSIP returned rows that contradict a criterion of the call, a sign it ignored it; they are left out of summaries and named in _meta",
				slog.String("endpoint", endpoint),
				slog.String("criterion", crit),
				slog.Int("rows", c.ByCriterion[crit]),
				slog.String("example", example))
		}
	}
}

// exampleOf is the first named row that broke crit: the rows name the
// criterion as asked ("gender Male asked", "breed_id 640 asked"), or the
// first row when none does in those words.
func exampleOf(rows []string, crit string) string {
	word := crit
	if i := strings.LastIndexByte(crit, '.'); i >= 0 {
		word = crit[i+1:] // trait_ranges.WWT: rows say "WWT 1.9, asked …"
	}
	for _, r := range rows {
		if strings.Contains(r, word) {
			return r
		}
	}
	if len(rows) > 0 {
		return rows[0]
	}
	return ""
}

func (d *Drift) note(n DriftEntry, now time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.entries == nil {
		d.entries = map[string]*DriftEntry{}
	}
	key := n.Endpoint + "\x00" + n.Signature + "\x00" + n.Criterion
	e, ok := d.entries[key]
	if !ok && len(d.entries) >= maxDriftEntries {
		n.Signature, n.Criterion = otherShapes, ""
		key = n.Endpoint + "\x00" + n.Signature + "\x00"
		e, ok = d.entries[key]
	}
	if !ok {
		n.FirstSeen = now
		e = &n
		d.entries[key] = e
	}
	e.LastSeen = now
	e.Count++
	return !ok
}

func (d *Drift) Snapshot() []DriftEntry {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]DriftEntry, 0, len(d.entries))
	for _, e := range d.entries {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b DriftEntry) int {
		return strings.Compare(a.Endpoint+"\x00"+a.Signature+"\x00"+a.Criterion, b.Endpoint+"\x00"+b.Signature+"\x00"+b.Criterion)
	})
	return out
}

// Unrecognized returns the client's error when err says NSIP answered with
// JSON in a shape the client cannot read, and the body is there to pass on.
func Unrecognized(err error) *nsip.Error {
	var ne *nsip.Error
	if errors.As(err, &ne) && ne.Kind == nsip.KindFormatChanged && json.Valid(ne.Body) {
		return ne
	}
	return nil
}

// FormatNote is what _meta says of an answer in an unrecognized shape.
func FormatNote(ne *nsip.Error) string {
	return fmt.Sprintf("NSIP's answer format changed: %s sent JSON this server does not recognize (%s). "+
		"This is NSIP's answer as sent (summarized generically when over the budget); retrying will not change it.",
		ne.Endpoint, ReasonHead(ne.Reason))
}

// ReasonHead is the client's reason without the snippet of the body it
// quotes after the last colon.
func ReasonHead(r string) string {
	if i := strings.LastIndex(r, ": "); i > 0 {
		return r[:i]
	}
	return r
}

// Signature describes the structure of a JSON answer: object keys (sorted)
// with the types of their values, the first element of arrays, nested to a
// few levels, never a value. Two answers of one shape share a signature.
func Signature(body []byte) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return "(not JSON)"
	}
	var b strings.Builder
	writeShape(&b, v, 0)
	s := b.String()
	const limit = 400
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return s
}

const (
	signatureDepth = 3
	signatureKeys  = 24
)

func writeShape(b *strings.Builder, v any, depth int) {
	switch x := v.(type) {
	case map[string]any:
		if depth >= signatureDepth {
			b.WriteString("object")
			return
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i == signatureKeys {
				fmt.Fprintf(b, ",…+%d", len(keys)-i)
				break
			}
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(k)
			b.WriteByte(':')
			writeShape(b, x[k], depth+1)
		}
		b.WriteByte('}')
	case []any:
		if len(x) == 0 || depth >= signatureDepth {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		writeShape(b, x[0], depth+1)
		b.WriteByte(']')
	case string:
		b.WriteString("string")
	case json.Number:
		b.WriteString("number")
	case bool:
		b.WriteString("bool")
	default:
		b.WriteString("null")
	}
}
