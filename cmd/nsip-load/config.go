package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// Transports nsip-load speaks. sse is the legacy HTTP+SSE pair (/sse and
// /message) and streamable is /mcp; both live on an http-sse server.
const (
	transportWebSocket  = "websocket"
	transportSSE        = "sse"
	transportStreamable = "streamable"
	transportStdio      = "stdio"
)

// Scenarios: mix is a weighted random mix of the nine tools over hot and cold
// keys; breeder replays one scripted breeder session per MCP session;
// collapse has every session ask for the same uncached answer at the same
// moment, round after round.
const (
	scenarioMix      = "mix"
	scenarioBreeder  = "breeder"
	scenarioCollapse = "collapse"
)

// Upper bounds that keep a run finite whatever the flags say.
const (
	maxSessions = 5000
	maxDuration = 30 * time.Minute
	maxCalls    = 5_000_000
	maxRate     = 100_000 // calls per second, --rate
)

// config is what the flags ask for.
type config struct {
	transport string
	scenario  string
	url       string // base URL of a running network server
	upstream  string // stdio without --spawn: the stand-in's API root for the servers it starts
	spawn     bool
	serverBin string
	serverEnv []string // KEY=VALUE for the servers nsip-load starts
	serverPID int      // a running server's process, for its RSS
	replicas  int      // --spawn: servers started side by side, sessions spread over them
	latency   time.Duration
	seed      int64
	animals   int

	sessions    int
	duration    time.Duration
	calls       int
	think       time.Duration
	hot         float64
	hotKeys     int
	tools       []string // mix: the tools drawn from; empty means all nine
	callTimeout time.Duration
	connectPar  int
	protocol    string
	progress    time.Duration
	jsonOut     bool
	failOnError bool
	attack      string // run beside the honest sessions; "" for none
	attackers   int
	// versusPhases > 0 runs nsip-mcp beside a bare server (--versus-bare)
	// in this many alternating phases.
	versusPhases int
	// bareServer is what serves the bare server's answers: bareOurs (this
	// project's transport package) or bareMCPGo (mcp-go's own streamable
	// HTTP server, so that the comparison charges nsip-mcp for its
	// transport too).
	bareServer string
	// rate > 0 schedules calls open-loop: this many per second across the
	// sessions, each at a fixed time whether or not earlier ones answered.
	rate float64
}

const usage = `nsip-load drives an nsip-mcp server with many concurrent MCP sessions and
reports throughput, latency percentiles, errors by kind, upstream requests
per tool call and the server's memory.

It talks to loopback addresses only. Either it starts everything itself
(--spawn: the stand-in NSIP upstream in this process, with --latency, and
the nsip-mcp binary pointed at it), or it drives a server you started with
NSIP_BASE_URL pointing at nsip-stub (--url), never at the real API.

  nsip-load --spawn --transport websocket --sessions 200 --duration 20s
  nsip-load --url http://127.0.0.1:8000 --transport streamable --sessions 50
  nsip-load --spawn --scenario breeder --sessions 50 --json

--versus-bare N also starts a bare mcp-go server answering with nsip-mcp's
cached answer to an animal's details (the hot key) and reports the two processes' CPU per call:

  nsip-load --spawn --transport streamable --sessions 200 --rate 700 --latency 0 --versus-bare 6
  nsip-load --spawn --transport streamable --sessions 200 --rate 700 --latency 0 --versus-bare 6 --bare-server mcp-go

The first serves the bare server with this project's transport, as
nsip-mcp is served, so the ratio is what the gateway adds; the second
serves it with mcp-go's own server.NewStreamableHTTPServer, so the ratio
also counts what nsip-mcp's transport adds.

Every run ends at --duration or after --calls tool calls, whichever comes
first. Exit status: 0 when every call succeeded, 1 when the run could not
be carried out, 2 for bad flags, 3 when some calls failed.

Flags:
`

// multiFlag collects a repeatable string flag.
type multiFlag struct{ list *[]string }

func (m multiFlag) String() string { return "" }

func (m multiFlag) Set(s string) error {
	*m.list = append(*m.list, s)
	return nil
}

// parseArgs reads and checks the flags. Problems come back as one error
// naming the flag; --help returns flag.ErrHelp after printing the usage.
func parseArgs(args []string, out io.Writer) (config, error) {
	c := config{}
	fs := flag.NewFlagSet("nsip-load", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.transport, "transport", transportWebSocket, "websocket, sse (legacy /sse + /message), streamable (/mcp) or stdio")
	fs.StringVar(&c.scenario, "scenario", scenarioMix, "mix, breeder or collapse")
	fs.StringVar(&c.url, "url", "", "base `URL` of a running server on loopback, e.g. http://127.0.0.1:8000 (not with --spawn or stdio)")
	fs.StringVar(&c.upstream, "upstream", "", "stdio without --spawn: the stand-in's API root on loopback, e.g. http://127.0.0.1:8089/api")
	fs.BoolVar(&c.spawn, "spawn", false, "start the stand-in upstream in this process and nsip-mcp pointed at it")
	fs.StringVar(&c.serverBin, "server-bin", "", "nsip-mcp binary to start (default: next to nsip-load, else on PATH)")
	fs.Var(multiFlag{&c.serverEnv}, "server-env", "`KEY=VALUE` for the servers nsip-load starts (repeatable), e.g. NSIP_CACHE_MAX_BYTES=8MiB")
	fs.IntVar(&c.serverPID, "server-pid", 0, "process ID of a running server, to report its RSS")
	fs.IntVar(&c.replicas, "replicas", 1, "--spawn with a network transport: start this many servers (NSIP_REPLICAS set to match) and spread the sessions over them round-robin; share a Redis with --server-env NSIP_REDIS_URL=redis://127.0.0.1:6379/0")
	fs.DurationVar(&c.latency, "latency", 50*time.Millisecond, "--spawn: the stand-in's delay before every answer")
	fs.Int64Var(&c.seed, "seed", 1, "stand-in data seed (match nsip-stub's when not spawning)")
	fs.IntVar(&c.animals, "animals", 4000, "stand-in data size (match nsip-stub's when not spawning)")
	fs.IntVar(&c.sessions, "sessions", 50, fmt.Sprintf("concurrent MCP sessions, 1..%d", maxSessions))
	fs.DurationVar(&c.duration, "duration", 10*time.Second, fmt.Sprintf("longest run, up to %s", maxDuration))
	fs.IntVar(&c.calls, "calls", 1_000_000, fmt.Sprintf("most tool calls, 1..%d", maxCalls))
	fs.DurationVar(&c.think, "think", 0, "mean pause between a session's calls (exponentially distributed); 0 sends the next call at once")
	fs.Float64Var(&c.hot, "hot", 0.8, "mix: share of calls on hot keys, 0..1")
	fs.IntVar(&c.hotKeys, "hot-keys", 16, "mix and breeder: how many animals are hot")
	toolList := fs.String("tools", "", "mix: comma-separated tool names to draw from, e.g. "+toolname.GetAnimal+","+toolname.GetLineage+" (default all nine)")
	fs.DurationVar(&c.callTimeout, "call-timeout", 30*time.Second, "limit for one tool call")
	fs.IntVar(&c.connectPar, "connect-parallel", 32, "sessions opened at once while connecting")
	fs.StringVar(&c.protocol, "protocol", "2025-11-25", "MCP protocol version to ask for")
	fs.DurationVar(&c.progress, "progress", time.Second, "interval of the progress line on stderr; 0 turns it off")
	fs.BoolVar(&c.jsonOut, "json", false, "print the summary as JSON instead of text")
	fs.BoolVar(&c.failOnError, "fail-on-error", true, "exit with status 3 when any call failed")
	fs.StringVar(&c.attack, "attack", attackNone, "run an attack beside the honest sessions: slow-body or init-flood from 127.0.0.2, or unread-links (--attackers reads of a large full-answer link over /mcp from 127.0.0.2 and 127.0.0.3, none read until the run ends; needs an http-sse server) (network transports only)")
	fs.IntVar(&c.versusPhases, "versus-bare", 0, "with --spawn over websocket or streamable: also start a bare mcp-go server (the nine tool names answering nsip-mcp's cached "+toolname.GetAnimal+" text, over this project's transports), drive both alike in this many alternating phases (even, 2..20) splitting --duration, every call on a hot key, and report each process's CPU per call and their ratio")
	fs.StringVar(&c.bareServer, "bare-server", bareOurs, "--versus-bare: what serves the bare server, "+bareOurs+" (this project's transport package, like nsip-mcp) or "+bareMCPGo+" (mcp-go's own server.NewStreamableHTTPServer on /mcp, no transport code of this project; --transport streamable only), so that the ratio also counts what nsip-mcp's transport adds")
	fs.Float64Var(&c.rate, "rate", 0, fmt.Sprintf("open loop: calls per second in total across the sessions, each due at a fixed time (a session still waiting for its previous answer counts the call as missed); 0 keeps the closed loop (a call after each answer and --think), up to %d", maxRate))
	fs.IntVar(&c.attackers, "attackers", 200, "--attack: concurrent attackers, 1..5000")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(out)
			fmt.Fprint(out, usage)
			fs.PrintDefaults()
		}
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q: nsip-load takes flags only", fs.Arg(0))
	}
	for _, t := range strings.Split(*toolList, ",") {
		if t = strings.TrimSpace(t); t != "" {
			c.tools = append(c.tools, t)
		}
	}
	return c, c.check()
}

// check rejects flags that parse but make no sense together.
func (c *config) check() error {
	bad := func(name, msg string, a ...any) error {
		return fmt.Errorf("invalid value for flag --%s: %s", name, fmt.Sprintf(msg, a...))
	}
	switch c.transport {
	case transportWebSocket, transportSSE, transportStreamable, transportStdio:
	default:
		return bad("transport", "%q: use websocket, sse, streamable or stdio", c.transport)
	}
	switch c.scenario {
	case scenarioMix, scenarioBreeder, scenarioCollapse:
	default:
		return bad("scenario", "%q: use mix, breeder or collapse", c.scenario)
	}
	switch {
	case c.sessions < 1 || c.sessions > maxSessions:
		return bad("sessions", "%d is outside 1..%d", c.sessions, maxSessions)
	case c.duration <= 0 || c.duration > maxDuration:
		return bad("duration", "%s is outside (0, %s]", c.duration, maxDuration)
	case c.calls < 1 || c.calls > maxCalls:
		return bad("calls", "%d is outside 1..%d", c.calls, maxCalls)
	case c.think < 0:
		return bad("think", "must not be negative")
	case c.hot < 0 || c.hot > 1:
		return bad("hot", "%g is outside 0..1", c.hot)
	case c.hotKeys < 1:
		return bad("hot-keys", "needs at least 1")
	case c.callTimeout <= 0:
		return bad("call-timeout", "must be positive")
	case c.connectPar < 1:
		return bad("connect-parallel", "needs at least 1")
	case c.latency < 0:
		return bad("latency", "must not be negative")
	case c.animals < 200:
		return bad("animals", "%d is too few; the stand-in needs 200 or more", c.animals)
	case c.progress < 0:
		return bad("progress", "must not be negative")
	case c.serverPID < 0:
		return bad("server-pid", "must not be negative")
	case c.attack != attackNone && c.attack != attackSlowBody && c.attack != attackInitFlood && c.attack != attackUnreadLinks:
		return bad("attack", "%q: use slow-body, init-flood or unread-links", c.attack)
	case c.attack == attackUnreadLinks && c.transport == transportWebSocket:
		return bad("attack", "unread-links reads over /mcp: use --transport streamable or sse")
	case c.attack != attackNone && c.transport == transportStdio:
		return bad("attack", "needs a network transport")
	case c.attackers < 1 || c.attackers > maxSessions:
		return bad("attackers", "%d is outside 1..%d", c.attackers, maxSessions)
	case c.rate < 0 || c.rate > maxRate || c.rate != c.rate:
		return bad("rate", "%g is outside 0..%d calls per second (0 keeps the closed loop)", c.rate, maxRate)
	case c.rate > 0 && c.think > 0:
		return bad("rate", "schedules calls at fixed times; leave out --think, which paces the closed loop")
	case c.rate > 0 && c.scenario == scenarioCollapse:
		return bad("rate", "the collapse scenario releases its sessions together, not on a schedule; use mix or breeder")
	case c.rate > 0 && float64(c.sessions)/c.rate > float64(maxDuration/time.Second):
		return bad("rate", "%g calls per second over %d sessions leaves each session less than one call in %s", c.rate, c.sessions, maxDuration)
	}
	if c.versusPhases != 0 {
		if err := c.checkVersus(); err != nil {
			return err
		}
	} else if c.bareServer != bareOurs {
		return errors.New("--bare-server chooses the server of --versus-bare: add --versus-bare")
	}
	for _, t := range c.tools {
		if !slices.Contains(toolNames[:], t) {
			return bad("tools", "%q is not one of the nine tools (%s)", t, strings.Join(toolNames[:], ", "))
		}
	}
	if len(c.tools) > 0 && c.scenario != scenarioMix {
		return bad("tools", "only applies to the mix scenario")
	}
	for _, kv := range c.serverEnv {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return bad("server-env", "%q is not KEY=VALUE", kv)
		}
	}
	return c.checkTarget()
}

// checkTarget decides where the load goes and refuses anything that is not
// loopback, so that a run never reaches the real NSIP API or a remote host.
func (c *config) checkTarget() error {
	stdio := c.transport == transportStdio
	switch {
	case c.spawn && c.url != "":
		return errors.New("--spawn starts its own server; leave out --url")
	case c.spawn && c.upstream != "":
		return errors.New("--spawn serves its own upstream; leave out --upstream")
	case stdio && c.url != "":
		return errors.New("stdio starts one server per session; use --spawn or --upstream instead of --url")
	case !stdio && c.upstream != "":
		return errors.New("--upstream is for stdio only; a network server has its own NSIP_BASE_URL")
	case !c.spawn && stdio && c.upstream == "":
		return errors.New("stdio needs --spawn or --upstream (the stand-in's API root on loopback)")
	case !c.spawn && !stdio && c.url == "":
		return errors.New("give --url of a running server on loopback, or --spawn")
	case c.spawn && c.serverPID != 0:
		return errors.New("--server-pid is for a server you started; --spawn knows its own")
	case c.replicas < 1 || c.replicas > 16:
		return fmt.Errorf("invalid value %d for flag --replicas: use 1..16", c.replicas)
	case c.replicas > 1 && (!c.spawn || stdio):
		return errors.New("--replicas starts servers side by side: it needs --spawn and a network transport")
	}
	if c.url != "" {
		u, err := loopbackURL("url", c.url)
		if err != nil {
			return err
		}
		c.url = strings.TrimRight(u.String(), "/")
	}
	if c.upstream != "" {
		u, err := loopbackURL("upstream", c.upstream)
		if err != nil {
			return err
		}
		c.upstream = strings.TrimRight(u.String(), "/")
	}
	for _, kv := range c.serverEnv {
		if k, v, _ := strings.Cut(kv, "="); k == "NSIP_BASE_URL" {
			return fmt.Errorf("--server-env NSIP_BASE_URL=%s: nsip-load sets the upstream itself (--spawn or --upstream)", v)
		} else if k == "MCP_HOST" && !isLoopbackHost(v) {
			return fmt.Errorf("--server-env MCP_HOST=%s: servers started by nsip-load listen on loopback only", v)
		}
	}
	return nil
}

// loopbackURL parses an http URL whose host is a loopback address or
// localhost, naming the flag when it is not.
func loopbackURL(name, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("invalid value for flag --%s: %q is not an absolute http URL such as http://127.0.0.1:8000", name, raw)
	}
	if !isLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("invalid value for flag --%s: %q is not on loopback; nsip-load only drives 127.0.0.0/8, ::1 or localhost", name, raw)
	}
	return u, nil
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// checkVersus checks --versus-bare and narrows the plan to what a cached
// call measures: every call on a hot key, nsip_get_animal unless --tools
// names others.
func (c *config) checkVersus() error {
	switch {
	case c.versusPhases < 2 || c.versusPhases > 20 || c.versusPhases%2 != 0:
		return fmt.Errorf("invalid value %d for flag --versus-bare: use an even number of phases, 2..20, e.g. 6", c.versusPhases)
	case !c.spawn:
		return errors.New("--versus-bare starts both servers itself: add --spawn")
	case c.transport != transportWebSocket && c.transport != transportStreamable:
		return fmt.Errorf("--versus-bare compares over websocket or streamable, not %s", c.transport)
	case c.scenario != scenarioMix:
		return errors.New("--versus-bare runs the mix scenario only")
	case c.replicas != 1:
		return errors.New("--versus-bare compares one server with one: leave out --replicas")
	case c.attack != attackNone:
		return errors.New("--versus-bare and --attack do not go together")
	case c.bareServer != bareOurs && c.bareServer != bareMCPGo:
		return fmt.Errorf("invalid value %q for flag --bare-server: use %s or %s", c.bareServer, bareOurs, bareMCPGo)
	case c.bareServer == bareMCPGo && c.transport != transportStreamable:
		return fmt.Errorf("--bare-server %s serves streamable HTTP only: add --transport streamable", bareMCPGo)
	}
	c.hot = 1
	if len(c.tools) == 0 {
		c.tools = []string{toolNames[toolAnimal]}
	}
	return nil
}
