package features

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// Prompts start a breeder's workflow from a host's menu. Each is written for
// the person at the keyboard (plain words, what to decide, what to watch
// for) and names the tools it expects the model to use, so a host can show
// them and a model does not have to guess.

// promptArg is one argument of a prompt, validated like a tool argument.
type promptArg struct {
	name     string
	title    string
	desc     string
	required bool
	check    *param.Spec // how the value is validated; nil takes any text
}

// promptDef is one prompt.
type promptDef struct {
	name  string
	title string
	desc  string
	tools []string // the tools the text asks the model to use, in order
	// optional are those of tools the text does without when the server
	// does not offer them; the prompt is left out when any other is missing.
	optional []string
	args     []promptArg
	// text renders the request from validated arguments (absent optional
	// arguments are "") for a server that offers the tools offers reports.
	text func(a map[string]string, offers func(tool string) bool) string
	// glossary attaches nsip://traits to the request.
	glossary bool
}

var (
	lpnCheck    = nsiparg.LPN("")
	breedCheck  = nsiparg.BreedID
	traitCheck  = param.Spec{Name: "trait", Kind: param.String, Complete: param.Traits, Enum: nsip.GlossaryCodes(), Upper: true}
	statusCheck = param.Spec{Name: "status", Kind: param.String, Complete: param.Statuses, MaxLen: nsip.MaxCriteriaLength, Pattern: param.StatusPattern, Upper: true}
	flockCheck  = param.Spec{Name: "flock_id", Kind: param.String, MaxLen: nsip.MaxCriteriaLength, Pattern: param.AlnumPattern}
	// Free text goes into the prompt as written; the bound keeps a pasted
	// document out of it.
	goalCheck = param.Spec{Name: "goal", Kind: param.String, MaxLen: 500}
)

var promptDefs = []*promptDef{
	{
		name: "evaluate_ram_for_purchase", title: "Evaluate a ram before buying him",
		desc:  "Weigh a ram's EBVs, their accuracy, his pedigree and his offspring against his breed before a purchase.",
		tools: []string{toolname.GetAnimal, toolname.GetTraitRanges, toolname.GetLineage, toolname.GetProgeny, toolname.GetLastUpdate},
		args: []promptArg{
			{name: "lpn_id", title: "Ram's LPN ID", desc: "The ram's LPN ID, e.g. 6402382024NCS310.", required: true, check: &lpnCheck},
			{name: "goal", title: "Breeding goal", desc: "What the flock needs from him, in your words, e.g. \"heavier lambs at weaning without bigger birth weights\".", check: &goalCheck},
		},
		text: func(a map[string]string, _ func(string) bool) string {
			goal := a["goal"]
			if goal == "" {
				goal = "not stated: ask me what I want him to improve before recommending"
			}
			return fmt.Sprintf(`I am thinking of buying the ram with LPN ID %s. Help me decide.

1. Get his record with `+toolname.GetAnimal+`: breed, age, status, EBVs with their accuracy, and indexes.
2. Get his breed's trait ranges with `+toolname.GetTraitRanges+`, and say where each of his EBVs sits within his breed (top, middle or bottom of the range). Use the trait glossary (resource nsip://traits) for which direction is better; do not rank a trait whose direction is unknown.
3. Look at his pedigree with `+toolname.GetLineage+`: name the sire and dam and anything notable, such as the same ancestor on both sides.
4. Look at his offspring with `+toolname.GetProgeny+`: how many, and whether they bear out his EBVs.
5. Say how current the figures are with `+toolname.GetLastUpdate+`.

My goal: %s.
Finish with a plain recommendation (buy, do not buy, or what to check first), the two or three reasons that matter most, and how much to trust the figures given their accuracy.`, a["lpn_id"], goal)
		},
	},
	{
		name: "choose_replacement_ewes", title: "Choose replacement ewes",
		desc:  "Shortlist young ewes of a breed to keep or buy as replacements, ranked on the traits that matter to you.",
		tools: []string{toolname.GetTraitRanges, toolname.SearchAnimals, toolname.GetAnimal},
		args: []promptArg{
			{name: "breed_id", title: "Breed", desc: "Breed ID from nsip://breeds or " + toolname.ListBreeds + ", e.g. 640 (Katahdin).", required: true, check: &breedCheck},
			{name: "trait", title: "Most important trait", desc: "The trait code to rank on first, e.g. NLB (lambs born) or WWT; see nsip://traits.", check: &traitCheck},
			{name: "flock_id", title: "Flock", desc: "Only ewes of this flock ID, e.g. your own.", check: &flockCheck},
		},
		text: func(a map[string]string, _ func(string) bool) string {
			trait := a["trait"]
			if trait == "" {
				trait = "not stated: ask me which traits matter most (for example lambs born NLB, weaning weight WWT, parasite resistance WFEC) before ranking"
			}
			flock := "any flock"
			if a["flock_id"] != "" {
				flock = "flock " + a["flock_id"]
			}
			return fmt.Sprintf(`I need replacement ewes of breed %s from %s.

1. Get the breed's trait ranges with `+toolname.GetTraitRanges+` so you can judge what is good for this breed.
2. Search with `+toolname.SearchAnimals+` for current females born in the last two years (search_criteria gender "Female", status "CURRENT", born_after), sorted on the trait below, in small pages (page_size 10).
3. For the five most promising, check `+toolname.GetAnimal+` for accuracy and any weakness in other traits.

Trait to rank on: %s.
Give me a short table (LPN ID, the ranking trait, two other useful traits, accuracy) and one sentence per ewe on why she is on the list. Warn me about ewes whose figures rest on low accuracy.`, a["breed_id"], flock, trait)
		},
	},
	{
		name: "check_planned_mating", title: "Check a planned mating",
		desc:     "Before joining a ram and a ewe: are they related, and what might their lambs inherit?",
		tools:    []string{toolname.CheckMating, toolname.GetLineage, toolname.GetAnimal},
		optional: []string{toolname.CheckMating},
		args: []promptArg{
			{name: "ram_lpn_id", title: "Ram's LPN ID", desc: "The ram's LPN ID.", required: true, check: &lpnCheck},
			{name: "ewe_lpn_id", title: "Ewe's LPN ID", desc: "The ewe's LPN ID.", required: true, check: &lpnCheck},
		},
		text: func(a map[string]string, offers func(string) bool) string {
			// Without the analysis the model compares the pedigrees itself;
			// the text then does not name a tool it cannot call.
			const pedigrees = "both pedigrees with " + toolname.GetLineage + " and list every ancestor that appears on both sides, with the generation on each side."
			step1 := "Fetch " + pedigrees
			if offers(toolname.CheckMating) {
				step1 = "Use " + toolname.CheckMating + " for the expected inbreeding of their lambs and the shared ancestors; if it cannot compute them, fetch " + pedigrees
			}
			return fmt.Sprintf(`I plan to join ram %s with ewe %s. Check the mating for me.

1. %s
2. Fetch both records with `+toolname.GetAnimal+` and estimate the lambs' EBVs as the average of the parents' EBVs, trait by trait.

Tell me plainly whether the pair is related, how closely, and whether that is a concern (flag expected inbreeding above 6.25%%, the level of a first-cousin mating; a half-sibling mating gives 12.5%%). Then say which traits the lambs should be strong or weak in.`, a["ram_lpn_id"], a["ewe_lpn_id"], step1)
		},
	},
	{
		name: "explain_animal_ebvs", title: "Explain an animal's EBVs to a newcomer",
		desc:     "Explain what an animal's EBVs mean in everyday words, for someone new to genetic evaluations.",
		tools:    []string{toolname.GetAnimal, toolname.GetTraitRanges, toolname.GetLastUpdate},
		glossary: true,
		args: []promptArg{
			{name: "lpn_id", title: "LPN ID", desc: "The animal's LPN ID, e.g. 6402382024NCS310.", required: true, check: &lpnCheck},
		},
		text: func(a map[string]string, _ func(string) bool) string {
			return fmt.Sprintf(`I am new to sheep genetics. Explain the EBVs of the animal with LPN ID %s to me.

Get its record with `+toolname.GetAnimal+` and its breed's ranges with `+toolname.GetTraitRanges+`; the attached trait glossary says what each code measures, in what unit, and which direction is better. Say when the figures were computed (`+toolname.GetLastUpdate+`).

Explain, without jargon: what an EBV is (the animal's expected genetic merit passed on to its lambs, compared with the breed's base, not its own weight or count); what accuracy means and why a young animal's is low; then for each trait the animal has, one line on what it measures, its value with the unit, and whether that is good for the breed. Leave out traits whose meaning the glossary does not know, and say you did.`, a["lpn_id"])
		},
	},
	{
		name: "compare_flock_to_breed", title: "Compare a flock to its breed",
		desc:  "See where a flock's animals stand against the whole breed, trait by trait, and where to improve.",
		tools: []string{toolname.GetTraitRanges, toolname.SearchAnimals},
		args: []promptArg{
			{name: "breed_id", title: "Breed", desc: "Breed ID, e.g. 640 (Katahdin).", required: true, check: &breedCheck},
			{name: "flock_id", title: "Flock", desc: "The flock ID to compare, e.g. 640238.", required: true, check: &flockCheck},
			{name: "status", title: "Which animals", desc: "A status from " + toolname.GetStatuses + " to compare, e.g. CURRENT (the default).", check: &statusCheck},
		},
		text: func(a map[string]string, _ func(string) bool) string {
			status := a["status"]
			if status == "" {
				status = "CURRENT"
			}
			return fmt.Sprintf(`Compare flock %s with the rest of breed %s.

1. Get the breed's trait ranges with `+toolname.GetTraitRanges+`.
2. Search the flock's animals with `+toolname.SearchAnimals+` (breed_id %s, search_criteria flock_id %s and status %s); the summary's trait statistics are enough, do not page through every animal.
3. Search the breed's animals of the same status without flock_id, for the breed's averages.

Show a table of the main traits: flock average, breed average, breed range. Then tell me in plain words the flock's two strongest and two weakest traits and what kind of ram would help most. Use nsip://traits for which direction is better.`, a["flock_id"], a["breed_id"], a["breed_id"], a["flock_id"], status)
		},
	},
}

func promptByName(name string) *promptDef {
	for _, d := range promptDefs {
		if d.name == name {
			return d
		}
	}
	return nil
}

// offered are the prompts whose text works with the tools this server
// offers, each with the tools it would use here.
func (f *Features) offered() []offeredPrompt {
	var out []offeredPrompt
	for _, d := range promptDefs {
		var tools []string
		usable := true
		for _, name := range d.tools {
			switch {
			case f.t.Offers(name):
				tools = append(tools, name)
			case !slices.Contains(d.optional, name):
				usable = false
			}
		}
		if usable {
			out = append(out, offeredPrompt{d, tools})
		}
	}
	return out
}

type offeredPrompt struct {
	*promptDef
	uses []string
}

// Prompts returns the breeder workflows bound to this gateway, leaving out
// those that need a tool it does not offer. A prompt names only the tools
// offered, so that a host showing them never points at a missing one.
func (f *Features) Prompts() []server.ServerPrompt {
	var out []server.ServerPrompt
	for _, o := range f.offered() {
		d := o.promptDef
		opts := []mcp.PromptOption{
			mcp.WithPromptTitle(d.title),
			mcp.WithPromptDescription(d.desc + " Uses " + strings.Join(o.uses, ", ") + "."),
		}
		for _, a := range d.args {
			aopts := []mcp.ArgumentOption{mcp.ArgumentTitle(a.title), mcp.ArgumentDescription(a.desc)}
			if a.required {
				aopts = append(aopts, mcp.RequiredArgument())
			}
			opts = append(opts, mcp.WithArgument(a.name, aopts...))
		}
		p := mcp.NewPrompt(d.name, opts...)
		p.Meta = &mcp.Meta{}
		p.Meta.SetMetaField("tools", o.uses)
		out = append(out, server.ServerPrompt{Prompt: p, Handler: f.promptHandler(d)})
	}
	return out
}

// PromptError is a prompt request with arguments that cannot be used; its
// message is the same JSON a tool answers with, naming the argument.
type PromptError struct{ Body string }

func (e *PromptError) Error() string { return e.Body }

// AddHooks makes a prompts/get whose arguments cannot be used an
// invalid-params error (-32602), as the protocol has it. mcp-go answers
// every error of a prompt handler -32603, internal error, and offers no
// way to choose the code; it answers -32602 only for a prompt it does not
// have. So the hook checks the arguments before mcp-go looks the prompt
// up, and on a refusal asks it for a prompt named by the refusal, which
// it does not have: the message then reads "prompt 'NAME' refused:
// {"error":{...}}; the prompt 'NAME with these arguments' not found",
// naming the argument and its fix in the JSON a tool answers with.
func (f *Features) AddHooks(h *server.Hooks) {
	h.AddBeforeGetPrompt(func(_ context.Context, _ any, req *mcp.GetPromptRequest) {
		for _, o := range f.offered() {
			if o.name != req.Params.Name {
				continue
			}
			if _, err := o.validate(f.t, req.Params.Arguments); err != nil {
				req.Params.Name = refusedPrompt(o.name, err)
			}
			return
		}
	})
}

// refusedPrompt is the name that makes mcp-go's "prompt '%s' not found"
// say why the prompt was refused.
func refusedPrompt(name string, err error) string {
	return name + "' refused: " + err.Error() + "; the prompt '" + name + " with these arguments"
}

func (f *Features) promptHandler(d *promptDef) server.PromptHandlerFunc {
	return func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		vals, err := d.validate(f.t, req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		content := []mcp.Content{mcp.NewTextContent(d.text(vals, f.t.Offers))}
		msgs := []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, content[0])}
		if d.glossary {
			b, err := GlossaryJSON()
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, mcp.NewPromptMessage(mcp.RoleUser, mcp.NewEmbeddedResource(
				mcp.TextResourceContents{URI: uriTraits, MIMEType: jsonMIME, Text: string(b)})))
		}
		return mcp.NewGetPromptResult(d.title, msgs), nil
	}
}

// validate checks the arguments like a tool's and returns them normalised.
func (d *promptDef) validate(t Tools, args map[string]string) (map[string]string, error) {
	out := map[string]string{}
	var errs []param.FieldError
	for _, a := range d.args {
		v := strings.TrimSpace(args[a.name])
		if v == "" {
			if a.required {
				errs = append(errs, param.FieldError{Field: a.name, Problem: "is required", Expected: a.desc})
			}
			continue
		}
		if a.check != nil {
			nv, fe := a.check.Validate(a.name, param.FromText(a.check, v))
			if len(fe) > 0 {
				errs = append(errs, fe...)
				continue
			}
			v = fmt.Sprint(nv)
		}
		out[a.name] = v
	}
	// In name order, so that the problems an error lists (the first few,
	// param.MaxProblems) are the same on every call.
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if !slices.ContainsFunc(d.args, func(a promptArg) bool { return a.name == name }) {
			errs = append(errs, param.FieldError{Field: name, Problem: "is not an argument of " + d.name, Expected: "one of " + argNames(d.args)})
		}
	}
	if len(errs) == 0 {
		return out, nil
	}
	return nil, &PromptError{Body: t.InvalidArgs(d.name, errs)}
}

func argNames(as []promptArg) string {
	names := make([]string, len(as))
	for i, a := range as {
		names[i] = a.name
	}
	b, _ := json.Marshal(names)
	return string(b)
}

// Note tells a model, in the server's instructions, about the resources
// and the prompts offered; hosts that only use tools lose nothing by it.
func (f *Features) Note() string {
	note := ` Resources: nsip://breeds, nsip://traits (what each trait code means and which direction is better), ` +
		`nsip://breeds/{breed_id}/trait-ranges, nsip://animals/{lpn_id}, nsip://animals/{lpn_id}/lineage, nsip://animals/{lpn_id}/progeny{?page,page_size,skip}.`
	if names := f.PromptNames(); len(names) > 0 {
		note += ` Prompts start breeder workflows: ` + strings.Join(names, ", ") + `.`
	}
	return note
}

// PromptNames are the names of the prompts offered, in the order
// prompts/list shows them.
func (f *Features) PromptNames() []string {
	var names []string
	for _, o := range f.offered() {
		names = append(names, o.name)
	}
	return names
}
