package nsip

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// MaxLineageDepth bounds how many generations (the subject included) the
// client reads from a pedigree. Real ones are a handful deep; the bound keeps
// a hostile or broken answer from driving unbounded work.
const MaxLineageDepth = 16

// wireNode is a pedigree node as sent. Field names match without regard to
// case, so both formats decode in one pass over the body; the depth bound is
// applied while converting.
type wireNode struct {
	LPNID    text        `json:"lpnId"`
	Content  text        `json:"content"`
	Children []*wireNode `json:"children"`
}

func decodeLineage(body []byte) (*Lineage, *Error) {
	data, e := unwrap(body)
	if e != nil {
		return nil, e
	}
	var root *wireNode
	if err := json.Unmarshal(data, &root); err != nil {
		where, want := "the lineage", "a node"
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if te.Field != "" {
				where = "the lineage's " + te.Field
			}
			if te.Type.Kind() == reflect.Slice {
				want = "a list of parent nodes"
			}
			return nil, changed(body, "%s holds a JSON %s where %s belongs: %s", where, te.Value, want, snippet(data))
		}
		return nil, changed(body, "the lineage cannot be read (%v): %s", err, snippet(data))
	}
	subject, e := convertNode(root, 1, map[string]lineageFacts{})
	if e != nil {
		return nil, e
	}
	if subject == nil || subject.LPNID == "" {
		return nil, changed(body, "the lineage has no subject lpnId: %s", snippet(data))
	}
	return &Lineage{Subject: *subject, Raw: json.RawMessage(body)}, nil
}

// convertNode turns a wire node and its ancestors into the model; depth
// counts generations from the subject (1). A null node is an unknown parent.
// An ancestor reached by several paths repeats its fragment, so facts keeps
// what each fragment said; each node still gets Indexes of its own.
func convertNode(w *wireNode, depth int, facts map[string]lineageFacts) (*LineageNode, *Error) {
	if w == nil {
		return nil, nil
	}
	if depth > MaxLineageDepth {
		return nil, unexpected("the pedigree is deeper than %d generations", MaxLineageDepth)
	}
	n := &LineageNode{}
	n.LPNID, n.Content = string(w.LPNID), string(w.Content)
	f, seen := facts[n.Content]
	if !seen {
		f = parseLineageContent(n.Content)
		facts[n.Content] = f
	}
	n.Farm, n.DOB, n.Sex, n.Status, n.Indexes = f.farm, f.dob, f.sex, f.status, slices.Clone(f.indexes)
	for i, c := range w.Children {
		child, e := convertNode(c, depth+1, facts)
		if e != nil {
			return nil, e
		}
		switch {
		case i == 0:
			n.Sire = child
		case i == 1:
			n.Dam = child
		case child != nil:
			n.Others = append(n.Others, child)
		}
	}
	return n, nil
}

// lineageFacts is what a node's HTML fragment says about the animal.
type lineageFacts struct {
	farm, dob, sex, status string
	indexes                []Index
}

// parseLineageContent reads a fragment such as
//
//	<div>Farm Name</div><div>US Hair Index: 102.03</div><div>DOB: 2/13/2024</div>
//
// Each block of text is one line: the first, when it has no known label, is
// the farm; "<name> Index: <number>" lines are indexes; DOB, Sex and Status
// are labelled. Anything else is ignored here (the fragment itself is kept in
// LineageNode.Content), and anything missing stays empty.
func parseLineageContent(fragment string) lineageFacts {
	var f lineageFacts
	for i, line := range contentLines(fragment) {
		label, value, labelled := strings.Cut(line, ":")
		label, value = strings.TrimSpace(label), strings.TrimSpace(value)
		switch {
		case labelled && isIndexLabel(label):
			if v, err := strconv.ParseFloat(strings.ReplaceAll(value, ",", ""), 64); err == nil && finite(v) {
				f.indexes = append(f.indexes, Index{Name: label, Value: v})
			}
		case labelled && (strings.EqualFold(label, "DOB") || strings.EqualFold(label, "Date of Birth")):
			f.dob = value
		case labelled && (strings.EqualFold(label, "Sex") || strings.EqualFold(label, "Gender")):
			f.sex = value
		case labelled && strings.EqualFold(label, "Status"):
			f.status = value
		case i == 0:
			f.farm = line
		}
	}
	return f
}

func isIndexLabel(label string) bool {
	return len(label) > len(" index") && strings.EqualFold(label[len(label)-len(" index"):], " index")
}

// inlineTags do not break a line of text.
var inlineTags = map[atom.Atom]bool{
	atom.A: true, atom.B: true, atom.I: true, atom.Em: true, atom.Strong: true, atom.Span: true,
	atom.Font: true, atom.U: true, atom.Small: true, atom.Sup: true, atom.Sub: true, atom.Label: true,
}

// contentLines splits an HTML fragment into its lines of visible text, with
// entities decoded and white space collapsed. It tokenizes without building
// a tree, so nesting depth costs nothing.
func contentLines(fragment string) []string {
	if fragment == "" {
		return nil
	}
	var lines []string
	var cur strings.Builder
	flush := func() {
		if s := strings.Join(strings.Fields(cur.String()), " "); s != "" {
			lines = append(lines, s)
		}
		cur.Reset()
	}
	z := html.NewTokenizer(strings.NewReader(fragment))
	var hidden atom.Atom // inside <script> or <style>
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			flush()
			return lines
		case html.TextToken:
			if hidden == 0 {
				cur.Write(z.Text())
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			tag := atom.Lookup(name)
			switch {
			case tag == atom.Script || tag == atom.Style:
				if tt == html.StartTagToken {
					hidden = tag
				} else if tag == hidden {
					hidden = 0
				}
			case !inlineTags[tag]:
				flush()
			}
		}
	}
}
