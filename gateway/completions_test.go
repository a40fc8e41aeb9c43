package gateway

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/transport/rpctest"
)

func complete(t *testing.T, c *client.Client, ref any, name, value string) mcp.Completion {
	t.Helper()
	req := mcp.CompleteRequest{}
	req.Params.Ref = ref
	req.Params.Argument.Name = name
	req.Params.Argument.Value = value
	res, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("complete %s=%q: %v", name, value, err)
	}
	return res.Completion
}

var (
	animalTemplate = mcp.ResourceReference{Type: "ref/resource", URI: "nsip://animals/{lpn_id}"}
	rangesTemplate = mcp.ResourceReference{Type: "ref/resource", URI: "nsip://breeds/{breed_id}/trait-ranges"}
)

func promptRef(name string) mcp.PromptReference {
	return mcp.PromptReference{Type: "ref/prompt", Name: name}
}

func TestCompleteBreedIDsByNumberOrName(t *testing.T) {
	e := newEnv(t)
	groups := e.up.Data().BreedGroups()
	b := groups[0].Breeds[0]
	id := strconv.Itoa(b.ID)

	got := complete(t, e.client, rangesTemplate, "breed_id", id[:1]).Values
	var want []string
	for _, g := range groups {
		for _, br := range g.Breeds {
			if s := strconv.Itoa(br.ID); strings.HasPrefix(s, id[:1]) {
				want = append(want, s)
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("breed_id %q: %v, want %v (every ID with that prefix, in served order)", id[:1], got, want)
	}
	// A word matches inside breed names, ignoring case.
	word := strings.ToLower(b.Name[1:4])
	got = complete(t, e.client, promptRef("choose_replacement_ewes"), "breed_id", word).Values
	if !slices.Contains(got, id) {
		t.Errorf("breed_id %q: %v lacks %s (%s)", word, got, id, b.Name)
	}
	// The breed list came once from NSIP and then from the cache.
	complete(t, e.client, rangesTemplate, "breed_id", "")
	if n := e.up.Requests(nsiptest.EndpointBreedGroups); n > 1 {
		t.Errorf("breed groups fetched %d times, want once", n)
	}
}

func TestCompleteTraitsAndStatuses(t *testing.T) {
	e := newEnv(t)
	got := complete(t, e.client, promptRef("choose_replacement_ewes"), "trait", "pw").Values
	if want := []string{"PWWT", "PWT", "PWEC"}; !slices.Equal(got, want) {
		t.Errorf("trait pw: %v, want %v (glossary order)", got, want)
	}
	if all := complete(t, e.client, promptRef("choose_replacement_ewes"), "trait", ""); len(all.Values) != len(nsip.Glossary()) {
		t.Errorf("trait \"\": %d values, want all %d glossary codes", len(all.Values), len(nsip.Glossary()))
	}
	statuses := e.up.Data().Statuses()
	got = complete(t, e.client, promptRef("compare_flock_to_breed"), "status", strings.ToLower(statuses[0][:2])).Values
	if len(got) == 0 || got[0] != statuses[0] {
		t.Errorf("status %q: %v, want %s first", statuses[0][:2], got, statuses[0])
	}
	// Unknown prompts and templates, and arguments of no known kind, get nothing.
	for _, c := range []mcp.Completion{
		complete(t, e.client, promptRef("no_such_prompt"), "trait", ""),
		complete(t, e.client, mcp.ResourceReference{Type: "ref/resource", URI: "nsip://nothing/{x}"}, "breed_id", ""),
		complete(t, e.client, promptRef("evaluate_ram_for_purchase"), "goal", "more"),
	} {
		if len(c.Values) != 0 {
			t.Errorf("unexpected completions %v", c.Values)
		}
	}
}

// LPN IDs are offered once this session has met them, and only to it.
func TestCompleteLPNsSeenInThisSession(t *testing.T) {
	e := newEnv(t)
	if got := complete(t, e.client, animalTemplate, "lpn_id", "").Values; len(got) != 0 {
		t.Fatalf("a fresh session is offered %v", got)
	}
	d := e.up.Data()
	lpn := d.MostProgeny()
	e.call("nsip_get_progeny", map[string]any{"lpn_id": lpn, "page_size": 5}).mustOK(t)
	kids := d.Progeny(lpn)[:5]

	got := complete(t, e.client, animalTemplate, "lpn_id", "").Values
	for _, id := range append([]string{lpn}, kids...) {
		if !slices.Contains(got, id) {
			t.Errorf("seen LPN %s not offered: %v", id, got)
		}
	}
	// Typing narrows them; case does not matter.
	prefix := strings.ToLower(kids[0][:len(kids[0])-2])
	for _, id := range complete(t, e.client, promptRef("check_planned_mating"), "ewe_lpn_id", prefix).Values {
		if !strings.HasPrefix(strings.ToLower(id), prefix) {
			t.Errorf("%s offered for %q", id, prefix)
		}
	}
	// A resource read counts as meeting the animal and its parents.
	a, _ := d.Animal(kids[0])
	if _, err := e.read("nsip://animals/" + kids[0]); err != nil {
		t.Fatal(err)
	}
	got = complete(t, e.client, animalTemplate, "lpn_id", "").Values
	if a.Dam != "" && !slices.Contains(got, a.Dam) {
		t.Errorf("dam %s of %s not offered after reading its record: %v", a.Dam, kids[0], got)
	}
	// Rows of a summarized search count too.
	r := e.call("nsip_search_animals", map[string]any{"page_size": 60}).mustOK(t)
	var sum struct {
		Summary bool    `json:"summary"`
		Rows    [][]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(r.text), &sum); err != nil || !sum.Summary || len(sum.Rows) == 0 {
		t.Fatalf("want a summarized search: %v %.200s", err, r.text)
	}
	row := sum.Rows[len(sum.Rows)-1][0].(string)
	if got := complete(t, e.client, animalTemplate, "lpn_id", row).Values; !slices.Equal(got, []string{row}) {
		t.Errorf("summary row %s: offered %v", row, got)
	}
	// Another session has met nothing.
	other := connect(t, e.srv)
	if got := complete(t, other, animalTemplate, "lpn_id", "").Values; len(got) != 0 {
		t.Errorf("another session is offered %v", got)
	}
}

func TestInitializeDescribesTheServerAndDatesItsFigures(t *testing.T) {
	e := newEnv(t)
	// Clients of the legacy protocol initialize; newer ones discover.
	init := func(version string) *mcp.InitializeResult {
		_, res := rpctest.Connect(t, e.srv, version)
		return res
	}
	versions := []string{mcp.LATEST_LEGACY_PROTOCOL_VERSION, mcp.LATEST_PROTOCOL_VERSION}
	res := init(versions[0])
	if res.ServerInfo.Description == "" || res.ServerInfo.WebsiteURL != serverWebsite || res.ServerInfo.Title != serverTitle {
		t.Errorf("server info %+v", res.ServerInfo)
	}
	caps := res.Capabilities
	if caps.Resources == nil || caps.Prompts == nil || caps.Completions == nil || caps.Tools == nil {
		t.Errorf("capabilities %+v, want tools, resources, prompts and completions", caps)
	}
	for _, v := range versions {
		res := init(v)
		for _, want := range []string{"nsip://traits", "evaluate_ram_for_purchase", "nsip_search_animals"} {
			if !strings.Contains(res.Instructions, want) {
				t.Errorf("%s: instructions lack %s", v, want)
			}
		}
		if strings.Contains(res.Instructions, "evaluation of") || e.up.TotalRequests() != 0 {
			t.Errorf("%s: before any call the instructions named a date or asked NSIP (%d requests): %s", v, e.up.TotalRequests(), res.Instructions)
		}
	}
	e.call("nsip_get_last_update", map[string]any{}).mustOK(t)
	date := e.up.Data().LastUpdated()
	for _, v := range versions {
		if res := init(v); !strings.Contains(res.Instructions, "NSIP evaluation of "+date) {
			t.Errorf("%s: after the date is known the instructions do not name %s: %s", v, date, res.Instructions)
		}
	}
}
