package lookup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// SearchByLPN is nsip_search_by_lpn: an animal's profile, assembled by the
// gateway from the cache entries of three lookups (Animal, Lineage and
// Progeny's first page).
var SearchByLPN = define(&Def{
	Def: tooldef.Def{
		Name: toolname.SearchByLPN, Title: "NSIP animal profile", Method: "search_by_lpn",
		Toolset: toolsets.Lookup,
		Kind:    summarize.KindProfile,
		Subject: "lpn_id", What: "animal with LPN ID", Next: "check the LPN ID, or find animals with " + toolname.SearchAnimals,
		Desc: `An animal's profile in one call: details, pedigree and first 10 offspring. ` +
			`Summaries fill the budget with identity, contact, EBVs, indexes, parents, grandparents and offspring, listing each part left out with the call for it. ` +
			`Arguments: lpn_id; traits. Shares the cache of the single-part tools.`,
	},
	run: runProfile,
	fields: param.Of(func(a *ProfileArgs) param.Described {
		return param.Described{&a.LPNID: nsiparg.LPN("")}
	}),
	fetch: argsOnly[ProfileArgs, nsip.AnimalProfile](),
})

// ProfileArgs is nsip_search_by_lpn's.
type ProfileArgs struct {
	LPNID string `json:"lpn_id"`
	ViewTraits
	param.Budget
}

// ProfileParts are the lookups the profile of the animal id is assembled
// from: the calls of nsip_get_animal, nsip_get_lineage and
// nsip_get_progeny (its first page of nsip.ProfilePageSize) that ask the
// same, whose cache entries the profile shares. The parts of the profiles
// asked for lately are remembered: keyed as users' calls are (Keyed),
// they cost a profile served from the cache a third of its allocations.
// Their arguments are shared by the calls that read them, and only read.
func ProfileParts(id string) ([3]Read, error) {
	if parts, ok := recentProfiles.Get(id); ok {
		return parts, nil
	}
	defs := [3]*Def{Animal, Lineage, Progeny}
	typed := [3]any{
		DetailsArgs{SearchString: id},
		LPNArgs{LPNID: id},
		ProgenyArgs{LPNID: id, PageSize: nsip.ProfilePageSize},
	}
	var parts [3]Read
	for i, d := range defs {
		var err error
		if parts[i], err = d.Keyed(typed[i]); err != nil {
			return parts, err
		}
	}
	recentProfiles.Add(id, parts)
	return parts, nil
}

// recentProfiles holds the parts of the last profiles asked for, a few
// hundred bytes each: far fewer than the cache holds answers, and bounded
// whatever IDs a caller sends.
var recentProfiles = func() *lru.Cache[string, [3]Read] {
	c, err := lru.New[string, [3]Read](1024)
	if err != nil {
		panic(err) // only for a size under 1
	}
	return c
}()

// runProfile answers nsip_search_by_lpn from the same three cache entries
// that nsip_get_animal, nsip_get_lineage and nsip_get_progeny (first page of
// nsip.ProfilePageSize) use, fetching only the parts not cached, at the same
// time. The text is what the client's ByLPN would give:
// {"details":…,"lineage":…,"progeny":…} with each member the upstream body.
// The fitted profile is cached under the call's key and reused while the
// parts are unchanged, as fitting one means counting thousands of tokens.
func runProfile(ctx context.Context, d *Def, c toolcall.Call, src Source) toolcall.Outcome {
	r := d.Read(c.Args)
	o := profile(ctx, d, r, c, src)
	// Logged with the arguments that key it, as a lookup's call is.
	o.Params = r.Key[len(d.Method)+1:]
	return o
}

// profile is runProfile's answer of the read r of call c.
func profile(ctx context.Context, d *Def, r Read, c toolcall.Call, src Source) toolcall.Outcome {
	// Read with a check rather than decoded from the key as a fetch's
	// arguments are: this runs on every call, hits included.
	field := d.Args.Name("LPNID")
	id, ok := r.Args.String(field)
	if !ok {
		v, _ := r.Args.Value(field)
		return toolcall.Failed(src.MapError(r.Args, ArgsMismatch(field, fmt.Errorf("%s is %T", field, v))))
	}
	parts, err := ProfileParts(id)
	if err != nil {
		return toolcall.Failed(src.MapError(r.Args, err))
	}
	obs := make([]toolcall.Obtained, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			obs[i], errs[i] = src.Obtain(ctx, p)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return toolcall.Failed(src.MapError(r.Args, err))
	}
	o := toolcall.Outcome{Source: toolcall.Hit, Value: profileModel(obs), PageLinks: true}
	ids := make([]uint64, len(obs))
	for i, ob := range obs {
		ids[i] = ob.A.ID
		if o.FormatNote == "" {
			o.FormatNote = ob.A.Note()
		}
		switch {
		case ob.Source == toolcall.Stale:
			o.Source = toolcall.Stale
			o.StaleAge = max(o.StaleAge, ob.StaleAge)
			if o.StaleReason == "" {
				o.StaleReason = ob.StaleReason
			}
		case ob.Source == toolcall.Miss && (o.Source == toolcall.Hit || o.Source == toolcall.Shared):
			o.Source = toolcall.Miss
		case ob.Source == toolcall.Shared && o.Source == toolcall.Hit:
			o.Source = toolcall.Shared
		}
	}
	o.Cache = o.Source
	kind := profileKind(d, obs)
	fit := func(ctx context.Context, c toolcall.Call) (summarize.Result, error) {
		p := assembleProfile(obs)
		return src.Fit(ctx, kind, c, p, p.Raw)
	}
	if c.View.Set() {
		// A view of its own is fitted for this call alone.
		if o.Res, err = fit(ctx, c); err != nil {
			return toolcall.Failed(src.MapError(c.Args, err))
		}
	} else {
		o.Res, err = src.FitOnce(ctx, r.Key, ids, func(ctx context.Context) (summarize.Result, error) {
			return fit(ctx, toolcall.Call{Args: r.Args})
		})
	}
	if err != nil {
		return toolcall.Failed(src.MapError(r.Args, err))
	}
	if o.Res.Summarized {
		o.Data = src.Data([]string{parts[0].Key, parts[1].Key, parts[2].Key}, ids, joinProfile)
	}
	return o
}

// profileKind is the summarizer a profile takes: the generic one when a
// part came in a shape the client could not read.
func profileKind(d *Def, obs []toolcall.Obtained) summarize.Kind {
	for _, ob := range obs {
		if ob.A.Drift != nil {
			return summarize.KindGeneric
		}
	}
	return d.Kind
}

// joinProfile is a profile's JSON made of its parts' upstream bodies.
func joinProfile(parts []*upstream.Answer) json.RawMessage {
	raw := []byte{}
	for i, name := range []string{`{"details":`, `,"lineage":`, `,"progeny":`} {
		raw = append(append(raw, name...), parts[i].Raw...)
	}
	return append(raw, '}')
}

// assembleProfile puts a profile together from its three parts.
func assembleProfile(obs []toolcall.Obtained) *nsip.AnimalProfile {
	p := profileModel(obs)
	as := make([]*upstream.Answer, len(obs))
	for i, ob := range obs {
		as[i] = ob.A
	}
	p.Raw = joinProfile(as)
	return p
}

// profileModel is a profile's parts as models, without its upstream JSON.
func profileModel(obs []toolcall.Obtained) *nsip.AnimalProfile {
	var p nsip.AnimalProfile
	p.Details, _ = obs[0].A.Value.(*nsip.AnimalDetails)
	p.Lineage, _ = obs[1].A.Value.(*nsip.Lineage)
	p.Progeny, _ = obs[2].A.Value.(*nsip.ProgenyPage)
	return &p
}
