package summarize

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// fitter measures candidate summaries against one token limit. Texts no
// longer than the limit in bytes need no encoding (see Counter.AtMost), so
// most probes of a small summary are free.
type fitter struct {
	c       *Counter
	limit   int
	density float64 // tokens per byte of the original, for first guesses
	// pages are the page summaries rendered during this fit with the next
	// call each one shows, so that the chosen one's need not be decoded
	// from its text again.
	pages []renderedPage
}

type renderedPage struct {
	out      []byte
	next     *NextCall
	withheld string // why the page offers no next call, when it proves none can match
}

// rendered records a page summary and the next call in it.
func (f *fitter) rendered(out []byte, next *NextCall) {
	if f != nil && len(out) > 0 {
		f.pages = append(f.pages, renderedPage{out: out, next: next})
	}
}

// withheld records why the page summary rendered last offers no next call.
func (f *fitter) withheld(why string) {
	if f != nil && len(f.pages) > 0 {
		f.pages[len(f.pages)-1].withheld = why
	}
}

// withheldIn is what withheld recorded for text, a page summary this fit
// rendered.
func (f *fitter) withheldIn(text []byte) string {
	if f == nil || len(text) == 0 {
		return ""
	}
	for _, p := range f.pages {
		if len(p.out) == len(text) && &p.out[0] == &text[0] {
			return p.withheld
		}
	}
	return ""
}

// nextIn returns the next call of text when text is a page summary this
// fit rendered (the same bytes, not a copy).
func (f *fitter) nextIn(text []byte) (*NextCall, bool) {
	if f == nil || len(text) == 0 {
		return nil, false
	}
	for _, p := range f.pages {
		if len(p.out) == len(text) && &p.out[0] == &text[0] {
			return p.next, true
		}
	}
	return nil, false
}

// fits reports whether b is within the limit.
func (f *fitter) fits(b []byte) bool {
	if len(b) <= f.limit && utf8.Valid(b) {
		return true
	}
	return f.c.Count(string(b)) <= f.limit
}

// largest finds the largest k in [0, n] whose rendering fits, assuming
// that renderings grow with k. It starts at guess and gallops towards the
// answer, so a good guess costs two or three encodings whatever n is.
// ok is false when not even k = 0 fits.
func (f *fitter) largest(n, guess int, render func(k int) ([]byte, error)) (k int, out []byte, ok bool, err error) {
	lo, hi := -1, n+1 // lo fits, hi does not (sentinels outside [0, n])
	var loOut []byte
	try := func(k int) (bool, error) {
		b, err := render(k)
		if err != nil {
			return false, err
		}
		if f.fits(b) {
			lo, loOut = k, b
			return true, nil
		}
		hi = k
		return false, nil
	}
	guess = max(0, min(n, guess))
	good, err := try(guess)
	if err != nil {
		return 0, nil, false, err
	}
	for step := 1; ; step *= 2 {
		k := min(guess+step, hi-1)
		if !good {
			k = max(guess-step, lo+1)
		}
		if k <= lo || k >= hi {
			break
		}
		fit, err := try(k)
		if err != nil {
			return 0, nil, false, err
		}
		if fit != good {
			break
		}
	}
	for hi-lo > 1 {
		if _, err := try(lo + (hi-lo)/2); err != nil {
			return 0, nil, false, err
		}
	}
	if lo < 0 {
		return 0, nil, false, nil
	}
	return lo, loOut, true, nil
}

// refine improves a first guess of how many rows fit by measuring: the
// tokens of the frame without rows (fixed) and of guess rows give the
// tokens per row, which the room left divides. Rows of one page are alike,
// so this lands within a row or two of the answer whatever the density of
// the original was.
func (f *fitter) refine(n, guess, fixed int, render func(k int) ([]byte, error)) (int, error) {
	guess = max(1, min(n, guess))
	some, err := render(guess)
	if err != nil {
		return 0, err
	}
	per := float64(f.c.Count(string(some))-fixed) / float64(guess)
	if per <= 0 {
		return guess, nil
	}
	return max(0, min(n, int(float64(f.limit-fixed)/per))), nil
}

// guessRows estimates how many rows of the given encoded sizes fit after a
// fixed part of fixed bytes, at the original's density.
func (f *fitter) guessRows(fixed int, rows []int) int {
	budget := float64(f.limit) / f.density
	used := float64(fixed)
	for i, r := range rows {
		used += float64(r + 1) // the comma
		if used > budget {
			return i
		}
	}
	return len(rows)
}

// clipLevels are the longest strings (in bytes) a summary keeps, tried in
// turn: values of real answers never reach the first, and a pathological
// value still cannot crowd out everything else.
var clipLevels = []int{256, 64, 24}

// clip shortens s to at most n bytes, cut at a character boundary, and says
// how much it cut so a shortened value is never taken for the whole one.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…(+" + strconv.Itoa(utf8.RuneCountInString(s[cut:])) + " chars)"
}

// round keeps d decimals: summary statistics need no more, and each digit
// costs tokens.
func round(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	r := math.Round(v*p) / p
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return v
	}
	return r
}

// note is the last resort: the largest of a few fixed texts that fits, first
// within the share limit and failing that within the budget. "{}" is one
// token, so something always fits a positive budget.
func note(f *fitter, kind Kind, budget int) []byte {
	texts := [][]byte{
		[]byte(`{"summary":true,"kind":"` + string(kind) + `","note":"the answer is too large to summarize within the token budget; ask for less (a smaller page_size or narrower filters)"}`),
		[]byte(`{"summary":true,"kind":"` + string(kind) + `","note":"too large; ask for less"}`),
		[]byte(`{"summary":true,"kind":"` + string(kind) + `"}`),
		[]byte(`{"summary":true}`),
	}
	for _, limit := range []int{f.limit, budget} {
		for _, t := range texts {
			if f.c.AtMost(string(t), limit) {
				return t
			}
		}
	}
	return []byte(`{}`)
}
