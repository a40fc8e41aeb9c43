package argcheck

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// A breeder names his breed ("Katahdin"), and a model often sends the ID
// it read as text ("640"). Both are read as the breed's ID before the call
// is validated, the name through NSIP's breed list (nsip_list_breeds's
// cached answer, read only when a name is sent), and the answer says how.

// nearestBreeds is how many breeds an unknown name's refusal offers.
const nearestBreeds = 5

// ReadNames reads the breed IDs at paths (dotted) of sent given as text: a
// number is that ID, a name or the unambiguous start of one the breed of
// NSIP's list so named, ignoring case. It gives the call with IDs in their
// place and a reading for each; a name no breed or several breeds answer
// to is a problem naming the nearest breeds with their IDs.
func (b *Breeds) ReadNames(ctx context.Context, sent param.Sent, paths []string) (param.Sent, []string, []param.FieldError) {
	var reads []string
	var errs []param.FieldError
	type breed struct {
		id   int
		name string
	}
	var list []breed
	listed := false
	for _, path := range paths {
		raw, _ := sent.Value(path)
		s, ok := raw.(string)
		if !ok {
			continue // a number, or nothing: validation judges it
		}
		t := strings.TrimSpace(s)
		if t == "" { // names nothing: no reason to ask NSIP for its breeds
			errs = append(errs, param.FieldError{Field: path, Problem: fmt.Sprintf("%s is empty", param.QuoteShort(s)),
				Expected: "the breed's number, e.g. 640, or its name; " + toolname.ListBreeds + " lists them"})
			continue
		}
		if id, err := strconv.Atoi(t); err == nil { // out of range: validation says so
			sent = sent.WithAt(path, id)
			reads = append(reads, fmt.Sprintf("%s read as breed %d", param.QuoteShort(s), id))
			continue
		}
		if !listed {
			listed = true
			if bg, ok := b.List(ctx); ok && bg != nil {
				for _, g := range bg.Groups {
					for _, br := range g.Breeds {
						list = append(list, breed{br.ID, br.Name})
					}
				}
			}
		}
		if len(list) == 0 {
			errs = append(errs, param.FieldError{Field: path,
				Problem:  fmt.Sprintf("%s cannot be read as a breed now: NSIP's breed list could not be had", param.QuoteShort(s)),
				Expected: "the breed's number, e.g. 640; " + toolname.ListBreeds + " lists them"})
			continue
		}
		names := make([]string, len(list))
		for i, br := range list {
			names[i] = br.name
		}
		matches := breedsNamed(t, names)
		if len(matches) == 1 {
			br := list[matches[0]]
			sent = sent.WithAt(path, br.id)
			reads = append(reads, fmt.Sprintf("%s read as breed %d (%s)", param.QuoteShort(s), br.id, br.name))
			continue
		}
		problem := fmt.Sprintf("%s names no breed NSIP has", param.QuoteShort(s))
		if len(matches) > 1 {
			problem = fmt.Sprintf("%s could be any of %d breeds", param.QuoteShort(s), len(matches))
		} else {
			matches = nearestNames(t, names, nearestBreeds)
		}
		each := make([]string, len(matches))
		for i, m := range matches {
			each[i] = fmt.Sprintf("%d %s", list[m].id, list[m].name)
		}
		errs = append(errs, param.FieldError{Field: path, Problem: problem,
			Expected: "a breed's number or full name, the nearest being " + strings.Join(each, ", ") + "; " + toolname.ListBreeds + " lists them all"})
	}
	return sent, reads, errs
}

// BreedPaths are the dotted paths of ps's breed IDs (the arguments whose
// completions offer breeds), in objects' fields too.
func BreedPaths(ps []param.Spec) []string {
	var out []string
	for i := range ps {
		p := &ps[i]
		if p.Complete == param.Breeds {
			out = append(out, p.Name)
		}
		for _, q := range BreedPaths(p.Props) {
			out = append(out, p.Name+"."+q)
		}
	}
	return out
}

// breedsNamed are the positions in names of the breeds s names: the one
// whose name is s, ignoring case, else every one whose name starts with s.
func breedsNamed(s string, names []string) []int {
	var starts []int
	for i, n := range names {
		if strings.EqualFold(n, s) {
			return []int{i}
		}
		if s != "" && strings.HasPrefix(strings.ToLower(n), strings.ToLower(s)) {
			starts = append(starts, i)
		}
	}
	return starts
}

// nearestNames are the positions of the n names nearest to s by edits,
// ignoring case, the nearest first.
func nearestNames(s string, names []string, n int) []int {
	if r := []rune(s); len(r) > param.MaxShown {
		s = string(r[:param.MaxShown]) // a long name costs no more than a short one
	}
	order := make([]int, len(names))
	d := make([]int, len(names))
	for i, x := range names {
		order[i], d[i] = i, param.Levenshtein(strings.ToLower(s), strings.ToLower(x))
	}
	slices.SortStableFunc(order, func(a, b int) int { return d[a] - d[b] })
	return order[:min(n, len(order))]
}
