// Command nsip-stub serves a stand-in for the NSIP Search API on a local
// port, with generated data and optional faults, for offline demos and load
// runs. It is a test double: nsip-mcp talks to the real API unless
// NSIP_BASE_URL points it here.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `nsip-stub: a stand-in NSIP Search API for offline demos and load runs.

It is a test double, not a mirror: every animal, flock and breeder in it is
generated from --seed, and the same seed always gives the same answers. It
serves the eight NSIP endpoints under /api/ in the shapes captured from the
live API (or, with --format, in shapes other clients assumed) and can be
told to misbehave. It holds the example ram 6402382024NCS310 with his
sire, dam and 25 offspring. Point nsip-mcp at it with the URL it prints:

  nsip-stub --seed 1 &
  NSIP_BASE_URL=http://127.0.0.1:8089/api nsip-mcp

Usage:
  nsip-stub [flags]

Flags:
`

const faultHelp = `
Faults (--fault ENDPOINT=KIND[:N][:TIMES], repeatable):
  ENDPOINT  an API path such as details/getAnimalDetails, a short name
            (last-updated, breed-groups, statuses, trait-ranges, search,
            details, lineage, progeny) or all
  KIND      status, status-html, rate-limit, html200, truncated,
            wrong-shape, reset, hang, oversize
  N         the HTTP status (status: default 500, status-html: default 503),
            the Retry-After seconds (rate-limit) or the body size in MiB
            (oversize: default 20); other kinds take none
  TIMES     affect only the next TIMES requests (default: every request)
  e.g. --fault details=status:503:2 --fault search=rate-limit:3 --fault lineage=hang

Exit status: 0 after SIGINT or SIGTERM, 1 if the address cannot be served,
2 for bad flags.
`

// maxBigBreed bounds --big-breed: 200,000 animals take about 450 MB.
const maxBigBreed = 200_000

// config is what the flags ask for.
type config struct {
	addr    string
	opts    nsiptest.Options
	faults  []endpointFault
	animals int
}

type endpointFault struct {
	endpoint string
	fault    nsiptest.Fault
}

// faultFlags collects repeated --fault values.
type faultFlags struct{ list *[]endpointFault }

func (f faultFlags) String() string { return "" }

func (f faultFlags) Set(s string) error {
	efs, err := parseFault(s)
	if err != nil {
		return err
	}
	*f.list = append(*f.list, efs...)
	return nil
}

// parseArgs reads the flags. Problems are reported on errOut, one line and
// a pointer to --help; --help itself returns flag.ErrHelp and the caller
// prints the full text with writeHelp.
func parseArgs(args []string, errOut io.Writer) (config, *flag.FlagSet, error) {
	var c config
	fs := flag.NewFlagSet("nsip-stub", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Usage = func() {}
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8089", "`host:port` to listen on (port 0 picks a free one)")
	fs.Int64Var(&c.opts.Seed, "seed", 1, "data seed; the same seed serves the same bytes")
	format := fs.String("format", "live", "response format: live (as captured from NSIP: progeny beside success, sex 1/2, ISO dates), "+
		"or the shapes other clients assumed: current (camelCase, bare progeny pages) or legacy (flat PascalCase)")
	fs.DurationVar(&c.opts.Latency, "latency", 0, "delay before every answer, e.g. 50ms")
	fs.IntVar(&c.animals, "animals", 4000, "about how many animals to generate (200 or more)")
	fs.IntVar(&c.opts.BigBreed, "big-breed", 0, fmt.Sprintf("add breed %d (%s, Hair group) of this many animals, e.g. 50000, with pedigrees, progeny and sorted pages like the others; 0 for none, at most %d",
		nsiptest.BigBreedID, nsiptest.BigBreedName, maxBigBreed))
	fs.BoolVar(&c.opts.RichRows, "rich-rows", false, "search rows also carry dateOfBirth, gender, breedId, flockCode, genotyped and progenyCount, and progeny rows their traits, "+
		"as other clients assumed; by default rows carry only what live NSIP answers were seen to")
	fs.Var(faultFlags{&c.faults}, "fault", "make an endpoint misbehave: `ENDPOINT=KIND[:N][:TIMES]` (see below; repeatable)")
	if err := fs.Parse(args); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(errOut, "Run nsip-stub --help for usage.")
		}
		return c, fs, err
	}
	var err error
	if c.opts.Format, err = nsiptest.ParseFormat(*format); err != nil {
		return c, fs, badFlag(fs, "format", err.Error())
	}
	switch {
	case fs.NArg() > 0:
		return c, fs, badFlag(fs, "", fmt.Sprintf("unexpected argument %q: nsip-stub takes flags only", fs.Arg(0)))
	case c.opts.Latency < 0:
		return c, fs, badFlag(fs, "latency", "must not be negative")
	case c.animals < 200:
		return c, fs, badFlag(fs, "animals", fmt.Sprintf("%d is too few; use 200 or more", c.animals))
	case c.opts.BigBreed < 0 || c.opts.BigBreed > maxBigBreed:
		return c, fs, badFlag(fs, "big-breed", fmt.Sprintf("%d is outside 0..%d", c.opts.BigBreed, maxBigBreed))
	}
	if _, _, err := net.SplitHostPort(c.addr); err != nil {
		return c, fs, badFlag(fs, "addr", fmt.Sprintf("%q is not host:port", c.addr))
	}
	c.opts.Animals = c.animals
	return c, fs, nil
}

func writeHelp(fs *flag.FlagSet, w io.Writer) {
	fs.SetOutput(w)
	fmt.Fprint(w, usage)
	fs.PrintDefaults()
	fmt.Fprint(w, faultHelp)
}

// badFlag reports a flag whose value parsed but makes no sense, as the
// flag package reports the ones that do not parse.
func badFlag(fs *flag.FlagSet, name, msg string) error {
	if name != "" {
		msg = "invalid value for flag -" + name + ": " + msg
	}
	fmt.Fprintln(fs.Output(), msg)
	fmt.Fprintln(fs.Output(), "Run nsip-stub --help for usage.")
	return errors.New(msg)
}

var shortNames = map[string]string{
	"last-updated": nsiptest.EndpointLastUpdated,
	"breed-groups": nsiptest.EndpointBreedGroups,
	"statuses":     nsiptest.EndpointStatuses,
	"trait-ranges": nsiptest.EndpointTraitRanges,
	"search":       nsiptest.EndpointSearch,
	"details":      nsiptest.EndpointDetails,
	"lineage":      nsiptest.EndpointLineage,
	"progeny":      nsiptest.EndpointProgeny,
}

// parseFault reads ENDPOINT=KIND[:N][:TIMES]; "all" expands to every
// endpoint.
func parseFault(s string) ([]endpointFault, error) {
	ep, spec, ok := strings.Cut(s, "=")
	if !ok || ep == "" || spec == "" {
		return nil, fmt.Errorf("%q: want ENDPOINT=KIND[:N][:TIMES], e.g. details=status:503:2", s)
	}
	var eps []string
	switch p := strings.TrimPrefix(ep, "/api/"); {
	case p == "all":
		eps = nsiptest.Endpoints()
	case shortNames[p] != "":
		eps = []string{shortNames[p]}
	default:
		for _, known := range nsiptest.Endpoints() {
			if p == known {
				eps = []string{known}
			}
		}
	}
	if eps == nil {
		return nil, fmt.Errorf("unknown endpoint %q (want a short name such as details, an API path such as details/getAnimalDetails, or all)", ep)
	}
	parts := strings.Split(spec, ":")
	if len(parts) > 3 {
		return nil, fmt.Errorf("%q: too many fields, want KIND[:N][:TIMES]", spec)
	}
	kind, err := nsiptest.ParseFaultKind(parts[0])
	if err != nil {
		return nil, err
	}
	f := nsiptest.Fault{Kind: kind}
	num := func(i int, what string) (int, error) {
		if len(parts) <= i || parts[i] == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(parts[i])
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q: %s %q is not a whole number >= 0", spec, what, parts[i])
		}
		return n, nil
	}
	n, err := num(1, "N")
	if err != nil {
		return nil, err
	}
	if f.Times, err = num(2, "TIMES"); err != nil {
		return nil, err
	}
	switch kind {
	case nsiptest.FaultStatus, nsiptest.FaultStatusHTML:
		if n != 0 && (n < 100 || n > 599) {
			return nil, fmt.Errorf("%q: status %d is not an HTTP status", spec, n)
		}
		f.Status = n
	case nsiptest.FaultRateLimit:
		f.RetryAfter = time.Duration(n) * time.Second
	case nsiptest.FaultOversize:
		f.Bytes = n << 20
	default:
		if n != 0 {
			return nil, fmt.Errorf("%q: %s takes no N", spec, kind)
		}
	}
	out := make([]endpointFault, len(eps))
	for i, e := range eps {
		out[i] = endpointFault{e, f}
	}
	return out, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// Help goes to stdout when asked for; errors go to stderr.
	c, fs, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		writeHelp(fs, stdout)
		return 0
	}
	if err != nil {
		return 2
	}
	h := nsiptest.NewHandler(c.opts)
	for _, ef := range c.faults {
		h.SetFault(ef.endpoint, ef.fault)
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		fmt.Fprintf(stderr, "nsip-stub: cannot listen on %s: %v\n", c.addr, err)
		return 1
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	big := ""
	if c.opts.BigBreed > 0 {
		big = fmt.Sprintf(" of which %d in breed %d", c.opts.BigBreed, nsiptest.BigBreedID)
	}
	fmt.Fprintf(stderr, "nsip-stub: test double of the NSIP API (seed %d, %d animals%s, %s format, %d faults); NSIP_BASE_URL=http://%s/api\n",
		c.opts.Seed, h.Data().Len(), big, c.opts.Format, len(c.faults), ln.Addr())

	select {
	case err := <-served:
		fmt.Fprintf(stderr, "nsip-stub: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	h.Close() // drop requests held by latency or a hang
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
	}
	return 0
}
