package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// checkingUpstream answers every request with a small, valid answer and
// notes any argument that breaks a rule the tool schemas promise, so a fuzz
// run can tell whether invalid input got past validation.
type checkingUpstream struct {
	mu       sync.Mutex // analyses fetch in parallel
	calls    int
	breaches []string
}

func (u *checkingUpstream) count() {
	u.mu.Lock()
	u.calls++
	u.mu.Unlock()
}

// reset forgets the last input's requests.
func (u *checkingUpstream) reset() {
	u.mu.Lock()
	u.calls, u.breaches = 0, nil
	u.mu.Unlock()
}

// seen returns the requests and breaches since the last reset.
func (u *checkingUpstream) seen() (int, []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.calls, slices.Clone(u.breaches)
}

var (
	lpnRule    = regexp.MustCompile(`^[A-Za-z0-9]{5,32}$`)
	searchRule = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]{1,63}$`)
	statusRule = regexp.MustCompile(`^[A-Z][A-Z _-]{0,31}$`)
	flockRule  = regexp.MustCompile(`^[A-Za-z0-9]{1,32}$`)
)

func (u *checkingUpstream) breach(format string, a ...any) {
	u.mu.Lock()
	u.breaches = append(u.breaches, fmt.Sprintf(format, a...))
	u.mu.Unlock()
}

func (u *checkingUpstream) page(page, size int) {
	if page < 0 || page > 100000 || size < 1 || size > 100 {
		u.breach("page %d, page size %d", page, size)
	}
}

func (u *checkingUpstream) DateLastUpdated(context.Context) (*nsip.LastUpdate, error) {
	u.count()
	return &nsip.LastUpdate{Date: "09/23/2025", Raw: json.RawMessage(`{"date":"09/23/2025"}`)}, nil
}

// BreedGroups is not counted: reading a breed named in words takes NSIP's
// breed list, the one request validation itself may make, once per
// gateway (then cached), so a rejection would count it or not by which
// input came first.
func (u *checkingUpstream) BreedGroups(context.Context) (*nsip.BreedGroups, error) {
	return &nsip.BreedGroups{Raw: json.RawMessage(`{"success":true,"data":[]}`)}, nil
}

func (u *checkingUpstream) Statuses(context.Context) (*nsip.Statuses, error) {
	u.count()
	return &nsip.Statuses{Values: []string{"CURRENT"}, Raw: json.RawMessage(`["CURRENT"]`)}, nil
}

func (u *checkingUpstream) TraitRanges(_ context.Context, breedID int) (*nsip.TraitRanges, error) {
	u.count()
	if breedID < 1 || breedID > 99999 {
		u.breach("breed ID %d", breedID)
	}
	return &nsip.TraitRanges{BreedID: breedID, Raw: json.RawMessage(`{"BWT":{"min":-1,"max":1}}`)}, nil
}

func (u *checkingUpstream) SearchAnimals(_ context.Context, p nsip.SearchParams) (*nsip.SearchResults, error) {
	u.count()
	u.page(p.Page, p.PageSize)
	c := p.Criteria
	if p.BreedID < 0 || p.BreedID > 99999 || c.BreedID < 0 || c.BreedID > 99999 || c.BreedGroupID < 0 || c.BreedGroupID > 99999 {
		u.breach("breed %d / %d, group %d", p.BreedID, c.BreedID, c.BreedGroupID)
	}
	// Any well-formed code may reach NSIP: without a breed's trait list it judges.
	if p.SortedTrait != "" && (!nsiparg.TraitCodePattern.MatchString(p.SortedTrait) || p.SortedTrait != strings.ToUpper(p.SortedTrait)) {
		u.breach("sort trait %q", p.SortedTrait)
	}
	if c.Gender != "" && !slices.Contains([]string{"Male", "Female", "Both"}, c.Gender) {
		u.breach("gender %q", c.Gender)
	}
	for _, d := range []string{c.BornAfter, c.BornBefore} {
		if _, err := time.Parse(time.DateOnly, d); d != "" && err != nil {
			u.breach("date %q", d)
		}
	}
	if c.BornAfter != "" && c.BornBefore != "" && c.BornAfter > c.BornBefore {
		u.breach("born after %s but before %s", c.BornAfter, c.BornBefore)
	}
	if (c.Status != "" && !statusRule.MatchString(c.Status)) || (c.FlockID != "" && !flockRule.MatchString(c.FlockID)) {
		u.breach("status %q, flock %q", c.Status, c.FlockID)
	}
	for code, r := range c.TraitRanges {
		if !nsiparg.TraitCodePattern.MatchString(code) || code != strings.ToUpper(code) || math.IsNaN(r.Min) || math.IsNaN(r.Max) || r.Min > r.Max {
			u.breach("trait range %s %+v", code, r)
		}
	}
	return &nsip.SearchResults{Page: p.Page, PageSize: p.PageSize, Raw: json.RawMessage(`{"recordCount":0,"records":[]}`)}, nil
}

func (u *checkingUpstream) AnimalDetails(_ context.Context, s string) (*nsip.AnimalDetails, error) {
	u.count()
	if !searchRule.MatchString(s) {
		u.breach("search string %q", s)
	}
	return &nsip.AnimalDetails{LPNID: s, Raw: json.RawMessage(`{"success":true,"data":{"progenyCount":0}}`)}, nil
}

func (u *checkingUpstream) Lineage(_ context.Context, id string) (*nsip.Lineage, error) {
	u.count()
	if !lpnRule.MatchString(id) {
		u.breach("LPN ID %q", id)
	}
	return &nsip.Lineage{Subject: nsip.LineageNode{LPNID: id}, Raw: json.RawMessage(`{"success":true,"data":{"lpnId":"A","content":"","children":[]}}`)}, nil
}

func (u *checkingUpstream) Progeny(_ context.Context, id string, page, size int) (*nsip.ProgenyPage, error) {
	u.count()
	if !lpnRule.MatchString(id) {
		u.breach("LPN ID %q", id)
	}
	u.page(page, size)
	return &nsip.ProgenyPage{LPNID: id, Page: page, PageSize: size, Raw: json.RawMessage(`{"recordCount":0,"records":[]}`)}, nil
}

// FuzzToolArguments sends arbitrary argument bytes to each tool's handler.
// Whatever arrives, the handler returns one result and no Go error; a
// rejection is an invalid_argument result naming a field of the tool and
// sends nothing upstream; anything accepted reaches the upstream only with
// values inside the published limits.
func FuzzToolArguments(f *testing.F) {
	seeds := map[string][]string{
		"nsip_get_last_update":  {`{}`, `null`, `[]`, `{"date":1}`},
		"nsip_list_breeds":      {``, `{"x":{"y":{"z":[]}}}`},
		"nsip_get_statuses":     {`"CURRENT"`, `{"breed_id":640}`},
		"nsip_get_trait_ranges": {`{"breed_id":640}`, `{"breed_id":"640"}`, `{"breed_id":1e400}`, `{"breed_id":-0}`, `{"breed_id":640.0}`, `{"breed_id":99999999999999999999999}`, `{"breed_id":640,"breed_id":0}`},
		"nsip_search_animals": {
			`{"page":0,"page_size":15,"breed_id":640,"sorted_trait":"wwt","reverse":true}`,
			`{"search_criteria":{"gender":"female","born_after":"2022-01-01","born_before":"2024-12-31","status":"current","flock_id":"640238","proven_only":true}}`,
			`{"search_criteria":{"trait_ranges":{"wwt":{"min":1,"max":5},"BWT":{"min":-1e308,"max":1e308}}}}`,
			`{"search_criteria":{"trait_ranges":{"WWT":{"min":"NaN","max":1}}}}`,
			`{"search_criteria":{"born_after":"2024-02-30"}}`,
			`{"search_criteria":{"status":"CURRENT\u0000DEAD"}}`,
			`{"page_size":100.5}`,
			`{"search_criteria":` + strings.Repeat(`{"a":`, 64) + `1` + strings.Repeat(`}`, 64) + `}`,
		},
		"nsip_get_animal":    {`{"search_string":"6402382024NCS310"}`, `{"search_string":"  640\u00a0238 "}`, `{"search_string":"../../etc/passwd"}`, `{"search_string":"640?x=1&y=2"}`, `{"search_string":"٦٤٠٢٣٨٢٠٢٤"}`},
		"nsip_get_lineage":   {`{"lpn_id":"6402382024NCS310"}`, `{"lpn_id":"6402382024ＮCS310"}`, `{"lpn_id":["6402382024NCS310"]}`, `{"lpn_id":"\ud800abcde"}`},
		"nsip_get_progeny":   {`{"lpn_id":"6402382024NCS310","page":2,"page_size":100}`, `{"lpn_id":"6402382024NCS310","page":1e5,"page_size":1}`, `{"lpn_id":"6402382024NCS310","page":-1}`},
		"nsip_search_by_lpn": {`{"lpn_id":"6402382024NCS310"}`, `{"lpn_id":"6402382024NCS310","extra":true}`, `{"lpn_id":"` + strings.Repeat("A", 33) + `"}`, `{`},
	}
	for i, d := range lookupToolDefs {
		for _, s := range seeds[d.Name] {
			f.Add(uint8(i), []byte(s))
		}
	}
	up := &checkingUpstream{}
	sum, _ := summarizer(f)
	g, err := New(up, sum, Config{Logger: discard(), RateLimit: 1e6, RateBurst: 1e6})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tool uint8, raw []byte) {
		d := lookupToolDefs[int(tool)%len(lookupToolDefs)]
		req := mcp.CallToolRequest{}
		req.Params.Name = d.Name
		req.Params.RawArguments = raw
		up.reset()
		res, err := g.handler(d)(context.Background(), req)
		if err != nil || res == nil || len(res.Content) != 1 {
			t.Fatalf("%s(%q): result %v, error %v; want one result and no error", d.Name, raw, res, err)
		}
		text, ok := mcp.AsTextContent(res.Content[0])
		if !ok || !json.Valid([]byte(text.Text)) {
			t.Fatalf("%s(%q): content %#v is not JSON text", d.Name, raw, res.Content[0])
		}
		calls, breaches := up.seen()
		if len(breaches) > 0 {
			t.Fatalf("%s(%q) reached the upstream with %v", d.Name, raw, breaches)
		}
		if !res.IsError {
			return
		}
		var body struct{ Error *toolerr.Error }
		if err := json.Unmarshal([]byte(text.Text), &body); err != nil || body.Error == nil {
			t.Fatalf("%s(%q): error body %s", d.Name, raw, text.Text)
		}
		e := body.Error
		if e.Code != toolerr.CodeInvalidArgument {
			t.Fatalf("%s(%q): %s from an upstream that cannot fail: %s", d.Name, raw, e.Code, e.Problem)
		}
		if calls != 0 {
			t.Errorf("%s(%q): rejected (%s) after %d upstream requests", d.Name, raw, e.Problem, calls)
		}
		if !namesField(d, raw, e.Field) || !strings.Contains(e.Problem, e.Field) || e.Expected == "" {
			t.Errorf("%s(%q): error %+v does not name a field of the tool and what it expects", d.Name, raw, e)
		}
	})
}

// namesField reports whether field names what was wrong: "arguments" as a
// whole, a name the caller sent, or a path into one of the tool's own
// parameters. An empty name, or a path ending in an empty one, names nothing.
func namesField(d *toolDef, raw []byte, field string) bool {
	if field == "" || strings.HasSuffix(field, ".") {
		return false
	}
	if field == "arguments" || slices.ContainsFunc(d.Args.Specs, func(p param.Spec) bool {
		return field == p.Name || strings.HasPrefix(field, p.Name+".")
	}) {
		return true
	}
	// The handler reads the first JSON value after any leading white space,
	// Unicode's as well as JSON's, as decodeArguments does.
	var sent map[string]json.RawMessage
	_ = json.NewDecoder(bytes.NewReader(bytes.TrimSpace(raw))).Decode(&sent)
	if _, ok := sent[field]; ok {
		return true
	}
	// Unusual names are quoted, and very long ones cut short after the quote.
	quoted, cut := strings.CutSuffix(field, "…")
	k, err := strconv.Unquote(quoted)
	if err != nil {
		return false
	}
	for s := range sent {
		if s == k || (cut && strings.HasPrefix(s, k)) {
			return true
		}
	}
	return false
}
