package full

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// FromAnswer returns how to build the table of an upstream answer: its
// rows for a search or progeny page and a pedigree, and for any other
// answer (one animal, breed lists, one NSIP did not answer in a known
// shape) every value of its JSON as a path and a value.
func FromAnswer(v any, raw json.RawMessage) func() (*Table, error) {
	return func() (*Table, error) {
		switch x := v.(type) {
		case *nsip.SearchResults:
			return searchTable(x), nil
		case *nsip.ProgenyPage:
			return progenyTable(x), nil
		case *nsip.Lineage:
			return lineageTable(x), nil
		case *nsip.AnimalProfile:
			return flatTable(x.Raw)
		}
		return flatTable(raw)
	}
}

// traitColumns are the trait codes of rows in the glossary's order (the
// models' own), each as CODE then CODE_acc.
func traitColumns(traits [][]nsip.Trait) ([]string, map[string]int) {
	var codes []string
	seen := map[string]bool{}
	for _, ts := range traits {
		for _, t := range ts {
			if !seen[t.Code] {
				seen[t.Code] = true
				codes = append(codes, t.Code)
			}
		}
	}
	slices.SortStableFunc(codes, func(a, b string) int {
		if d := nsip.TraitOrder(a) - nsip.TraitOrder(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	var cols []string
	at := map[string]int{}
	for _, c := range codes {
		at[c] = len(cols)
		cols = append(cols, c, c+"_acc")
	}
	return cols, at
}

func traitCells(cells []any, base int, at map[string]int, ts []nsip.Trait) {
	for _, t := range ts {
		j := base + at[t.Code]
		cells[j] = t.Value
		if t.HasAccuracy {
			cells[j+1] = t.Accuracy
		}
	}
}

func orNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func searchTable(v *nsip.SearchResults) *Table {
	base := []string{"lpn_id", "sex", "dob", "status", "breed", "breed_id", "flock_id", "sire", "dam", "registration_number"}
	ts := make([][]nsip.Trait, len(v.Results))
	for i, r := range v.Results {
		ts[i] = r.Traits
	}
	tc, at := traitColumns(ts)
	t := &Table{Columns: append(base, tc...)}
	for _, r := range v.Results {
		cells := []any{r.LPNID, orNil(r.Sex), orNil(r.DateOfBirth), orNil(r.Status), orNil(r.BreedName), nil, orNil(r.FlockCode), orNil(r.Sire), orNil(r.Dam), orNil(r.RegistrationNumber)}
		if r.BreedID != 0 {
			cells[5] = r.BreedID
		}
		cells = append(cells, make([]any, len(tc))...)
		traitCells(cells, len(base), at, r.Traits)
		t.Rows = append(t.Rows, cells)
	}
	return t
}

func progenyTable(v *nsip.ProgenyPage) *Table {
	base := []string{"lpn_id", "sex", "dob"}
	ts := make([][]nsip.Trait, len(v.Animals))
	for i, r := range v.Animals {
		ts[i] = r.Traits
	}
	tc, at := traitColumns(ts)
	t := &Table{Columns: append(base, tc...)}
	for _, r := range v.Animals {
		cells := append([]any{r.LPNID, orNil(r.Sex), orNil(r.DateOfBirth)}, make([]any, len(tc))...)
		traitCells(cells, len(base), at, r.Traits)
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// lineageTable is one row per animal of the pedigree, the subject first:
// its path from the subject (S sire, D dam, "" the subject), generation and
// record.
func lineageTable(v *nsip.Lineage) *Table {
	t := &Table{Columns: []string{"path", "generation", "lpn_id", "sex", "dob", "status", "farm", "sire", "dam"}}
	var walk func(n *nsip.LineageNode, path string)
	walk = func(n *nsip.LineageNode, path string) {
		if n == nil {
			return
		}
		var sire, dam any
		if n.Sire != nil {
			sire = orNil(n.Sire.LPNID)
		}
		if n.Dam != nil {
			dam = orNil(n.Dam.LPNID)
		}
		t.Rows = append(t.Rows, []any{path, len(path), orNil(n.LPNID), orNil(n.Sex), orNil(n.DOB), orNil(n.Status), orNil(n.Farm), sire, dam})
		walk(n.Sire, path+"S")
		walk(n.Dam, path+"D")
	}
	walk(&v.Subject, "")
	return t
}

// flatTable is every scalar of a JSON document with its path, e.g.
// "breedGroups[0].breeds[2].name".
func flatTable(raw json.RawMessage) (*Table, error) {
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("the answer is not JSON: %w", err)
	}
	t := &Table{Columns: []string{"path", "value"}}
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				p := k
				if path != "" {
					p = path + "." + k
				}
				walk(x[k], p)
			}
		case []any:
			for i, e := range x {
				walk(e, path+"["+strconv.Itoa(i)+"]")
			}
		default:
			t.Rows = append(t.Rows, []any{path, x})
		}
	}
	walk(doc, "")
	return t, nil
}
