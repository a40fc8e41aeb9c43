package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/nsip-tools/nsip-mcp/nsip/livecheck"
)

const checkUsage = `nsip-mcp check-nsip asks the NSIP Search API each of its endpoints once and
reads the first search pages of one breed, then reports on stdout how each
answer's shape compares with the contract (nsip/shape: members missing,
members new, values of another kind), its latency, errors and 429 answers,
and the share of the breed's rows that carry a sire, a dam and each member.
Its requests go one at a time at NSIP_RATE_LIMIT, each within NSIP_TIMEOUT,
to NSIP_BASE_URL, all read as the server reads them. Logs go to stderr.

Usage:
  nsip-mcp check-nsip [-format text|json] [-breed 640] [-pages 2]

Flags:
`

const checkExits = `
Exit status:
  0  no drift: every endpoint answered in its contract's shape
  1  drift: some answer differs from its contract
  2  NSIP could not be reached (connection refused, DNS, timeout) or not
     every endpoint could be checked (5xx, 429), or a usage error
`

// checkArgs are check-nsip's flags.
type checkArgs struct {
	format string
	breed  int
	pages  int
}

// parseCheckArgs reads the flags. A problem is one line naming the flag and
// a pointer to -h on errOut; -h itself returns flag.ErrHelp.
func parseCheckArgs(args []string, errOut io.Writer) (checkArgs, *flag.FlagSet, error) {
	var a checkArgs
	fs := flag.NewFlagSet("nsip-mcp check-nsip", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Usage = func() {}
	fs.StringVar(&a.format, "format", "text", "`text` (a few lines) or json (one object)")
	fs.IntVar(&a.breed, "breed", 640, "the breed ID whose search pages are read (640 is Katahdin)")
	fs.IntVar(&a.pages, "pages", 2, fmt.Sprintf("search pages of %d rows to read, 1 to %d", livecheck.PageSize, livecheck.MaxPages))
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return a, fs, err
	case err != nil:
		// The flag package has said which flag and why.
		err = usageError(fs, "")
	case a.format != "text" && a.format != "json":
		err = usageError(fs, fmt.Sprintf("invalid value %q for flag -format: want text or json", a.format))
	case a.breed < 1:
		err = usageError(fs, fmt.Sprintf("invalid value %d for flag -breed: want a breed ID, e.g. 640 for Katahdin", a.breed))
	case a.pages < 1 || a.pages > livecheck.MaxPages:
		err = usageError(fs, fmt.Sprintf("invalid value %d for flag -pages: want 1 to %d", a.pages, livecheck.MaxPages))
	case fs.NArg() > 0:
		err = usageError(fs, fmt.Sprintf("unexpected argument %q: check-nsip takes flags only", fs.Arg(0)))
	}
	return a, fs, err
}

// usageError writes msg, when there is one, and the pointer to -h.
func usageError(fs *flag.FlagSet, msg string) error {
	if msg != "" {
		fmt.Fprintln(fs.Output(), "nsip-mcp check-nsip: "+msg)
	}
	fmt.Fprintln(fs.Output(), "Run nsip-mcp check-nsip -h for usage.")
	return errors.New("usage")
}

// checkNSIP runs nsip-mcp check-nsip and returns its exit status: the
// report's (livecheck.ExitNoDrift, ExitDrift, ExitIncomplete), or 2 for a
// usage or configuration error. Only the report goes to stdout.
func checkNSIP(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	a, fs, err := parseCheckArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stdout)
		fmt.Fprint(stdout, checkUsage)
		fs.PrintDefaults()
		fmt.Fprint(stdout, checkExits)
		return 0
	}
	if err != nil {
		return 2
	}
	cfg, err := Load(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "nsip-mcp check-nsip: %v\n", err)
		return 2
	}
	logger := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger.Info("check-nsip starting", "version", build.Version, "nsip_base_url", redactURL(cfg.NSIP.BaseURL),
		"breed", a.breed, "pages", a.pages, "rate_limit", cfg.Gateway.RateLimit)
	r, err := livecheck.Run(ctx, livecheck.Config{
		BaseURL: cfg.NSIP.BaseURL, ShownURL: redactURL(cfg.NSIP.BaseURL), Timeout: cfg.NSIP.Timeout,
		UserAgent: "nsip-mcp/" + build.Version + " (check-nsip)", Rate: cfg.Gateway.RateLimit,
		Breed: a.breed, Pages: a.pages, Logger: logger,
	})
	if err != nil {
		fmt.Fprintf(stderr, "nsip-mcp check-nsip: %v\n", err)
		return 2
	}
	if a.format == "json" {
		err = r.WriteJSON(stdout)
	} else {
		err = r.WriteText(stdout)
	}
	if err != nil {
		logger.Error("check-nsip could not write its report", "error", err)
		return 2
	}
	return r.ExitCode
}
