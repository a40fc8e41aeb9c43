package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// analysesCommand is the first argument that runs the analyses mode: each
// analysis asked once, cold, of its own server at the default configuration,
// against the stand-in at a set latency.
const analysesCommand = "analyses"

const analysesUsage = `nsip-load analyses asks each analysis one question, cold, and reports per
question the wall time, the NSIP lookups the answer says it made, and how
complete the answer is (percentiles computed out of asked, the time limit,
exact or not proven).

It starts the stand-in NSIP in this process with --latency per answer
(and --big-breed animals in breed 649, whose questions are then asked of
that breed), and one nsip-mcp over stdio per question, at its default
configuration plus any --server-env, so that no question is served from an
earlier one's cache.

  nsip-load analyses --latency 1s
  nsip-load analyses --latency 300ms --big-breed 50000 --only rank_top10,get_animal_pct

A question named after another (rank_index_current after rank_index,
group_rams_after after group_breed) is asked on a server that has just
answered that other one, unmeasured: what it kept is what this one finds.
Questions after the same one share its server: breed_pass reads the
breed's pass as a task (its time is the whole read, followed with
tasks/get), and each held_* question is then answered on that server.
Each row also gives the server's memory after the question (VmRSS, VmHWM)
and the bytes its kept breed passes take (/metrics).

  nsip-load analyses --latency 0 --big-breed 100000 \
    --only breed_pass,held_get_animal_pct,held_check_mating,held_plan_10x100,held_rank_for_ewes,held_diversity

Flags:
`

// analysesConfig is what the analyses mode's flags ask for.
type analysesConfig struct {
	latency     time.Duration
	bigBreed    int
	seed        int64
	animals     int
	serverBin   string
	serverEnv   []string
	only        []string
	callTimeout time.Duration
	passTimeout time.Duration
	protocol    string
	jsonOut     bool
	answersDir  string
}

func parseAnalysesArgs(args []string, out io.Writer) (analysesConfig, error) {
	var c analysesConfig
	fs := flag.NewFlagSet("nsip-load analyses", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.DurationVar(&c.latency, "latency", 0, "the stand-in's delay before every answer, e.g. 1s")
	fs.IntVar(&c.bigBreed, "big-breed", 0, fmt.Sprintf("add breed %d of this many animals to the stand-in and ask about it", nsiptest.BigBreedID))
	fs.Int64Var(&c.seed, "seed", 1, "stand-in data seed")
	fs.IntVar(&c.animals, "animals", 4000, "stand-in data size, besides --big-breed")
	fs.StringVar(&c.serverBin, "server-bin", "", "nsip-mcp binary to start (default: next to nsip-load, else on PATH)")
	fs.Var(multiFlag{&c.serverEnv}, "server-env", "`KEY=VALUE` for the servers (repeatable), e.g. NSIP_MAX_CONCURRENT=8")
	only := fs.String("only", "", "comma-separated question names to ask (default all): "+strings.Join(questionNames(), ", "))
	fs.DurationVar(&c.callTimeout, "call-timeout", 2*time.Minute, "limit for one question")
	fs.DurationVar(&c.passTimeout, "pass-timeout", 30*time.Minute, "limit for a question that reads a breed's pass, the read included")
	fs.StringVar(&c.protocol, "protocol", "2025-11-25", "MCP protocol version to ask for")
	fs.BoolVar(&c.jsonOut, "json", false, "print the results as JSON instead of a table")
	fs.StringVar(&c.answersDir, "answers", "", "also write each answer's text to `DIR`/QUESTION.json")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(out)
			fmt.Fprint(out, analysesUsage)
			fs.PrintDefaults()
		}
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected argument %q: nsip-load analyses takes flags only", fs.Arg(0))
	case c.latency < 0 || c.latency > time.Minute:
		return c, fmt.Errorf("--latency %s: want 0 to 1m", c.latency)
	case c.bigBreed < 0 || c.bigBreed > 200_000:
		return c, fmt.Errorf("--big-breed %d: want 0 to 200000", c.bigBreed)
	case c.animals < 200:
		return c, fmt.Errorf("--animals %d: want 200 or more", c.animals)
	case c.callTimeout <= 0:
		return c, fmt.Errorf("--call-timeout %s: want a positive duration", c.callTimeout)
	case c.passTimeout <= 0:
		return c, fmt.Errorf("--pass-timeout %s: want a positive duration", c.passTimeout)
	}
	for _, q := range strings.Split(*only, ",") {
		if q = strings.TrimSpace(q); q == "" {
			continue
		}
		if !slices.Contains(questionNames(), q) {
			return c, fmt.Errorf("--only %q: unknown question (want %s)", q, strings.Join(questionNames(), ", "))
		}
		c.only = append(c.only, q)
	}
	return c, nil
}

// question is one analysis call to measure. After names a question asked
// first on the same server (unmeasured, unless it was just asked there),
// so that what it kept (a breed's pass) is what this one finds; "" for a
// cold server. ReadsPass marks a call that may start the breed's pass in
// the background: it is followed until the pass is read.
type question struct {
	Name      string         `json:"name"`
	Tool      string         `json:"tool"`
	Args      map[string]any `json:"arguments"`
	After     string         `json:"after,omitempty"`
	ReadsPass bool           `json:"reads_pass,omitempty"`
}

// Answered is what one question came to.
type Answered struct {
	question
	WallSeconds      float64 `json:"wall_seconds"`
	Error            string  `json:"error,omitempty"`
	Lookups          int     `json:"lookups"`
	Fetched          int     `json:"fetched"`
	Ceiling          int     `json:"ceiling"`
	TimeLimitReached bool    `json:"time_limit_reached"`
	Summarized       bool    `json:"summarized"`
	// Percentiles counts top_percent values computed out of those the
	// answer holds; Exact is the answer's own claim, a ranking's exact or
	// a group summary's complete ("" when it makes none).
	PercentilesComputed int    `json:"percentiles_computed"`
	PercentilesTotal    int    `json:"percentiles_total"`
	Exact               string `json:"exact,omitempty"`
	NotComputed         string `json:"not_computed,omitempty"`
	// Via is how the answer says it read its animals ("breed pass",
	// "search pages", "binary search"), the first it names.
	Via          string `json:"via,omitempty"`
	NSIPRequests int    `json:"nsip_requests"`
	PeakInFlight int    `json:"peak_in_flight"`
	// NSIPReads is NSIPRequests by endpoint, e.g. "getLineage 25,
	// getDateLastUpdated 1": what an answer that should need none read.
	NSIPReads string `json:"nsip_reads,omitempty"`
	// Pass is how a ReadsPass question's read went: its task and last
	// status, or the calls it took until the answer came from the pass.
	Pass string `json:"pass,omitempty"`
	// The server's memory after the question, in KiB (0 where /proc
	// cannot be read), and what its kept breed passes take by its own
	// count (-1 where /metrics did not say).
	// Server is the process ID of the server that answered: the same for
	// questions that shared one.
	Server    int   `json:"server_pid"`
	RSSKiB    int64 `json:"rss_kib"`
	PeakKiB   int64 `json:"rss_peak_kib"`
	PassBytes int64 `json:"pass_bytes"`
}

// questionNames lists the questions in the order they are asked.
func questionNames() []string {
	return []string{"check_mating", "rank_top10", "rank_for_ewes", "compare5_pct", "flock_summary", "group_rams", "plan_matings", "get_animal_pct",
		"rank_index", "rank_index_current", "group_breed", "group_rams_after",
		"breed_pass", "held_get_animal_pct", "held_check_mating", "held_plan_10x100", "held_rank_for_ewes", "held_diversity"}
}

// questions builds the questions from the stand-in's data: about the big
// breed when there is one, else about the largest breed.
func questions(d *nsiptest.Dataset, big bool) []question {
	breed := nsiptest.BigBreedID
	if !big {
		breed = 640
	}
	var herd []nsiptest.Animal
	for _, id := range d.AnimalIDs() {
		if a, _ := d.Animal(id); a.BreedID == breed {
			herd = append(herd, a)
		}
	}
	// The most recent animals with the deepest pedigrees, living, by sex.
	slices.SortStableFunc(herd, func(x, y nsiptest.Animal) int {
		if c := cmp.Compare(d.PedigreeDepth(y.LPNID), d.PedigreeDepth(x.LPNID)); c != 0 {
			return c
		}
		return y.Born.Compare(x.Born)
	})
	pick := func(sex string, n int) []string {
		var out []string
		for _, a := range herd {
			if a.Gender == sex && a.Status == "CURRENT" && len(out) < n {
				out = append(out, a.LPNID)
			}
		}
		return out
	}
	rams, ewes := pick("Male", 10), pick("Female", 100)
	weights := map[string]any{"WWT": 1, "BWT": -0.5}
	sire, _ := d.Animal(rams[0])
	groupRams := map[string]any{"search": map[string]any{"breed_id": breed, "search_criteria": map[string]any{"gender": "Male"}}}
	// "US Index" is also each hair breed's "US Hair Index" (its aliases).
	rankIndex := map[string]any{"breed_id": breed, "top_n": 10, "index": "US Index"}
	// A status the kept pass answers exactly: NSIP's rows carry it, and no sex.
	rankIndexCurrent := map[string]any{"breed_id": breed, "top_n": 10, "index": "US Index", "search_criteria": map[string]any{"status": "CURRENT"}}
	diversity := map[string]any{"breed_id": breed}
	return []question{
		{"check_mating", toolname.CheckMating, map[string]any{"sire_lpn_id": rams[0], "dam_lpn_id": ewes[0]}, "", false},
		{"rank_top10", toolname.RankAnimals, map[string]any{"breed_id": breed, "top_n": 10, "weights": weights}, "", false},
		{"rank_for_ewes", toolname.RankAnimals, map[string]any{"breed_id": breed, "top_n": 10, "weights": weights, "for_ewes": ewes[:20]}, "", false},
		{"compare5_pct", toolname.CompareAnimals, map[string]any{"lpn_ids": append(rams[:3:3], ewes[:2]...), "percentiles": true}, "", false},
		{"flock_summary", toolname.FlockSummary, map[string]any{"flock_id": sire.FlockCode}, "", false},
		// Every page of the breed's rams, up to the summary's page limit.
		{"group_rams", toolname.FlockSummary, groupRams, "", false},
		{"plan_matings", toolname.PlanMatings, map[string]any{"ram_lpn_ids": rams[:3], "ewe_lpn_ids": ewes[:8], "weights": weights}, "", false},
		{"get_animal_pct", toolname.GetAnimal, map[string]any{"search_string": rams[0], "percentiles": true}, "", false},
		// By NSIP's own index (every page read: NSIP cannot sort by one),
		// then its rams on the same server, which a kept pass answers.
		{"rank_index", toolname.RankAnimals, rankIndex, "", false},
		{"rank_index_current", toolname.RankAnimals, rankIndexCurrent, "rank_index", false},
		// The whole breed's statistics, then its rams' on the same server.
		{"group_breed", toolname.FlockSummary, map[string]any{"search": map[string]any{"breed_id": breed}}, "", false},
		{"group_rams_after", toolname.FlockSummary, groupRams, "group_breed", false},
		// The breed's pass read as a task, then what it holds asked of the
		// same server: each should need no NSIP request but the date.
		{"breed_pass", toolname.BreedDiversity, diversity, "", true},
		{"held_get_animal_pct", toolname.GetAnimal, map[string]any{"search_string": rams[0], "percentiles": true}, "breed_pass", false},
		{"held_check_mating", toolname.CheckMating, map[string]any{"sire_lpn_id": rams[0], "dam_lpn_id": ewes[0]}, "breed_pass", false},
		{"held_plan_10x100", toolname.PlanMatings, map[string]any{"ram_lpn_ids": rams, "ewe_lpn_ids": ewes, "weights": weights}, "breed_pass", false},
		{"held_rank_for_ewes", toolname.RankAnimals, map[string]any{"breed_id": breed, "top_n": 10, "weights": weights, "for_ewes": ewes[:20]}, "breed_pass", false},
		{"held_diversity", toolname.BreedDiversity, diversity, "breed_pass", false},
	}
}

// runAnalyses is the analyses mode: the results go to stdout, progress and
// problems to stderr.
func runAnalyses(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parseAnalysesArgs(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "nsip-load analyses: %v\nRun nsip-load analyses --help for usage.\n", err)
		return 2
	}
	bin, err := findServer(c.serverBin)
	if err != nil {
		fmt.Fprintf(stderr, "nsip-load analyses: %v\n", err)
		return 1
	}
	stub := nsiptest.Start(nsiptest.Options{Seed: c.seed, Animals: c.animals, Latency: c.latency, BigBreed: c.bigBreed})
	defer stub.Close()
	env := mergeEnv(cleanEnviron(), append([]string{"NSIP_BASE_URL=" + stub.URL(), "MCP_TRANSPORT=stdio", "LOG_LEVEL=warn"}, c.serverEnv...))
	var out []Answered
	qs := questions(stub.Data(), c.bigBreed > 0)
	var srv *analysisServer
	defer func() { srv.close() }()
	for _, q := range qs {
		if len(c.only) > 0 && !slices.Contains(c.only, q.Name) {
			continue
		}
		fmt.Fprintf(stderr, "nsip-load analyses: %s (%s)…\n", q.Name, q.Tool)
		if q.After == "" || !srv.answered(q.After) {
			srv.close()
			if srv, err = openAnalysisServer(ctx, c, bin, env, stderr); err != nil {
				out = append(out, Answered{question: q, Error: err.Error(), PassBytes: -1})
				continue
			}
			if i := slices.IndexFunc(qs, func(p question) bool { return p.Name == q.After }); i >= 0 {
				if a := srv.ask(ctx, c, qs[i], stderr); a.Error != "" {
					fmt.Fprintf(stderr, "nsip-load analyses: %s, asked before %s, failed: %s\n", qs[i].Name, q.Name, a.Error)
				}
			}
		}
		// Counted from here, so that the requests are this question's
		// alone: what an earlier one asked, kept or read is not, nor what
		// it left under way when it answered.
		quiet(ctx, stub.TotalRequests)
		stub.ResetCounts()
		a := srv.ask(ctx, c, q, stderr)
		a.NSIPRequests, a.PeakInFlight = stub.TotalRequests(), stub.PeakInFlight()
		a.NSIPReads = readsOf(stub)
		srv.memory(ctx, &a)
		out = append(out, a)
	}
	if c.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
		return 0
	}
	writeAnswered(stdout, out)
	return 0
}

// ask puts q to the server and reads the answer, following the pass it
// starts when q reads one; the server remembers q as answered.
func (v *analysisServer) ask(ctx context.Context, c analysesConfig, q question, logs io.Writer) Answered {
	v.asked = append(v.asked, q.Name)
	a := Answered{question: q, PassBytes: -1}
	limit := c.callTimeout
	if q.ReadsPass {
		limit = c.passTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = q.Tool, q.Args
	start := time.Now()
	res, err := v.s.c.CallTool(cctx, req)
	var followed error // a pass not read: the answer that started it still says what it could
	if err == nil && q.ReadsPass {
		a.Pass, res, followed = v.followPass(cctx, req, res)
	}
	a.WallSeconds = round3(time.Since(start).Seconds())
	if err != nil {
		a.Error = err.Error()
		return a
	}
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(mcp.TextContent); ok {
			text = tc.Text
		}
	}
	if res.IsError {
		a.Error = truncate(text, 200)
	}
	if res.Meta != nil {
		readMeta(&a, res.Meta.AdditionalFields)
	}
	if c.answersDir != "" {
		if err := os.WriteFile(filepath.Join(c.answersDir, q.Name+".json"), []byte(text), 0o644); err != nil {
			fmt.Fprintf(logs, "nsip-load analyses: %v\n", err)
		}
	}
	var body any
	if json.Unmarshal([]byte(text), &body) == nil {
		walkAnswer(&a, body)
	}
	if followed != nil {
		a.Error = followed.Error()
	}
	return a
}

// readsOf is the stand-in's requests by endpoint since its counts were
// reset, in its endpoints' order.
func readsOf(stub *nsiptest.Server) string {
	var out []string
	for _, ep := range nsiptest.Endpoints() {
		if n := stub.Requests(ep); n > 0 {
			_, name, _ := strings.Cut(ep, "/")
			out = append(out, fmt.Sprintf("%s %d", name, n))
		}
	}
	return strings.Join(out, ", ")
}

// readMeta takes the lookups and the time limit from _meta.upstream.
func readMeta(a *Answered, meta map[string]any) {
	a.Summarized, _ = meta["summarized"].(bool)
	b, err := json.Marshal(meta["upstream"])
	if err != nil {
		return
	}
	var up struct {
		Lookups          int  `json:"lookups"`
		Fetched          int  `json:"fetched"`
		Ceiling          int  `json:"ceiling"`
		TimeLimitReached bool `json:"time_limit_reached"`
	}
	if json.Unmarshal(b, &up) == nil {
		a.Lookups, a.Fetched, a.Ceiling, a.TimeLimitReached = up.Lookups, up.Fetched, up.Ceiling, up.TimeLimitReached
	}
}

// walkAnswer reads what an answer says of its completeness wherever it
// says it: top_percent values (null where not computed), exact, and the
// percentiles' not_computed reason.
func walkAnswer(a *Answered, v any) {
	switch x := v.(type) {
	case map[string]any:
		countColumns(a, x)
		for k, e := range x {
			switch k {
			case "left_out":
				if s, ok := e.(string); ok && a.NotComputed == "" {
					a.NotComputed = "percentiles left out " + truncate(s, 140)
				}
			case "top_percent":
				countPercentiles(a, e)
			case "exact", "complete": // a ranking's claim, or a group summary's
				if b, ok := e.(bool); ok && a.Exact != "no" {
					a.Exact = map[bool]string{true: "yes", false: "no"}[b]
				}
			case "not_computed":
				if s, ok := e.(string); ok && a.NotComputed == "" {
					a.NotComputed = truncate(s, 160)
				}
			case "via":
				if s, ok := e.(string); ok && a.Via == "" {
					a.Via = s
				}
			case "time_limit_reached":
				if b, _ := e.(bool); b {
					a.TimeLimitReached = true
				}
			}
			walkAnswer(a, e)
		}
	case []any:
		for _, e := range x {
			walkAnswer(a, e)
		}
	}
}

// countPercentiles counts a top_percent value or list: null is one not
// computed.
func countPercentiles(a *Answered, v any) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			countPercentiles(a, e)
		}
	case map[string]any:
		for _, e := range x {
			countPercentiles(a, e)
		}
	case nil:
		a.PercentilesTotal++
	case float64:
		a.PercentilesTotal++
		a.PercentilesComputed++
	}
}

// countColumns counts the top_percent column of the tables in m: a list
// of column names (a key ending in "columns") beside lists of rows.
func countColumns(a *Answered, m map[string]any) {
	for k, v := range m {
		cols, ok := v.([]any)
		if !ok || !strings.HasSuffix(k, "columns") {
			continue
		}
		at := slices.Index(cols, any("top_percent"))
		if at < 0 {
			continue
		}
		for rk, rv := range m {
			rows, ok := rv.([]any)
			if rk == k || !ok {
				continue
			}
			for _, r := range rows {
				if row, ok := r.([]any); ok && len(row) == len(cols) {
					countPercentiles(a, row[at])
				}
			}
		}
	}
}

// writeAnswered prints one row per question.
func writeAnswered(w io.Writer, as []Answered) {
	fmt.Fprintf(w, "%-19s %8s %8s %8s %6s %10s %6s %6s %5s %-13s %7s %7s %7s %s\n",
		"question", "wall_s", "lookups", "nsip_req", "peak", "pct", "limit", "exact", "cut", "via", "rss_MiB", "hwm_MiB", "passMiB", "error; not computed; pass; NSIP reads")
	for _, a := range as {
		pct := "-"
		if a.PercentilesTotal > 0 {
			pct = fmt.Sprintf("%d/%d", a.PercentilesComputed, a.PercentilesTotal)
		}
		note := strings.Join(slices.DeleteFunc([]string{a.Error, a.NotComputed, a.Pass, a.NSIPReads}, func(s string) bool { return s == "" }), "; ")
		passMiB := "-"
		if a.PassBytes >= 0 {
			passMiB = fmt.Sprintf("%.1f", float64(a.PassBytes)/(1<<20))
		}
		fmt.Fprintf(w, "%-19s %8.3f %8d %8d %6d %10s %6s %6s %5s %-13s %7.0f %7.0f %7s %s\n", a.Name, a.WallSeconds, a.Lookups, a.NSIPRequests,
			a.PeakInFlight, pct, yesNo(a.TimeLimitReached), cmp.Or(a.Exact, "-"), yesNo(a.Summarized), cmp.Or(a.Via, "-"),
			float64(a.RSSKiB)/1024, float64(a.PeakKiB)/1024, passMiB, note)
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
