package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// passPollEvery is how often a breed pass being read is asked after: the
// read's time is known to within it, and the asking costs the server next
// to nothing beside the read.
const passPollEvery = 250 * time.Millisecond

// analysisServer is one nsip-mcp over stdio and the questions it has
// answered, so that a question after one of them can be asked of it.
type analysisServer struct {
	s       *mcpSession
	asked   []string
	metrics string // its /metrics, "" if it serves none
	hc      *http.Client
}

// openAnalysisServer starts a server for the analyses mode. It declares
// tasks, so that a breed pass it reads in the background is the caller's
// to follow (tasks/get), and serves /metrics on a free local port, for
// the bytes its kept passes take.
func openAnalysisServer(ctx context.Context, c analysesConfig, bin string, env []string, logs io.Writer) (*analysisServer, error) {
	v := &analysisServer{hc: &http.Client{Timeout: 10 * time.Second}}
	if addr, err := freeLocalAddr(); err == nil {
		env = mergeEnv(env, []string{"MCP_HEALTH_ADDR=" + addr})
		v.metrics = "http://" + addr + "/metrics"
	}
	s, err := dialStdio(ctx, bin, env, c.protocol, mcp.ClientCapabilities{Tasks: &mcp.TasksCapability{}}, logs)
	if err != nil {
		return nil, err
	}
	v.s = s
	return v, nil
}

// freeLocalAddr is a loopback address no one listens on just now.
func freeLocalAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// answered reports whether the server (nil: none) has answered question
// name.
func (v *analysisServer) answered(name string) bool {
	return v != nil && slices.Contains(v.asked, name)
}

func (v *analysisServer) close() {
	if v != nil {
		v.s.close()
	}
}

// memory records the server's process ID, its resident memory now and at its peak, and
// what its kept breed passes take by its own count.
func (v *analysisServer) memory(ctx context.Context, a *Answered) {
	a.Server = v.s.pid()
	if rss, hwm, err := readRSS(v.s.pid()); err == nil {
		a.RSSKiB, a.PeakKiB = rss, hwm
	}
	if n, ok := v.passBytes(ctx); ok {
		a.PassBytes = n
	}
}

// passBytesMetric is the gauge of what the kept breed passes take.
const passBytesMetric = "nsip_mcp_breed_pass_bytes"

func (v *analysisServer) passBytes(ctx context.Context) (int64, bool) {
	if v.metrics == "" {
		return 0, false
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.metrics, nil)
	if err != nil {
		return 0, false
	}
	resp, err := v.hc.Do(req)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, false
	}
	return gauge(resp.Body, passBytesMetric)
}

// gauge is the value of an unlabelled metric in the Prometheus text
// format.
func gauge(r io.Reader, name string) (int64, bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), name+" ")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		return int64(f), err == nil
	}
	return 0, false
}

// pendingPass is what an answer says of a breed pass not yet kept: the
// diversity's answer while its pass is read (breed_pass and next at the
// top), with the task that reads it when there is one.
type pendingPass struct {
	BreedPass string `json:"breed_pass"`
	TaskID    string `json:"task_id"`
	Next      string `json:"next"`
}

func pendingOf(res *mcp.CallToolResult) (pendingPass, bool) {
	var p pendingPass
	if res == nil || res.IsError || len(res.Content) == 0 {
		return p, false
	}
	tc, ok := res.Content[0].(mcp.TextContent)
	if !ok || json.Unmarshal([]byte(tc.Text), &p) != nil {
		return p, false
	}
	return p, p.BreedPass != "" && p.Next != ""
}

// followPass waits until the breed pass the answer res says is being read
// has been read: by tasks/get while it is the caller's task, else by
// asking req again until the answer comes from the pass. It says how, and
// returns the last answer.
func (v *analysisServer) followPass(ctx context.Context, req mcp.CallToolRequest, res *mcp.CallToolResult) (string, *mcp.CallToolResult, error) {
	p, pending := pendingOf(res)
	switch {
	case !pending:
		return "none read: the answer came from a kept pass", res, nil
	case strings.HasPrefix(p.BreedPass, "not read"):
		return "", res, fmt.Errorf("the pass is not read: %s", truncate(p.BreedPass, 200))
	}
	tick := time.NewTicker(passPollEvery)
	defer tick.Stop()
	last := "" // the task's last word while it ran: how far the read got
	for polls := 1; ; polls++ {
		select {
		case <-ctx.Done():
			return "", res, fmt.Errorf("the pass was still being read after %d polls: %w", polls-1, ctx.Err())
		case <-tick.C:
		}
		if p.TaskID != "" {
			g, err := v.s.c.GetTask(ctx, mcp.GetTaskRequest{Params: mcp.GetTaskParams{TaskId: p.TaskID}})
			switch {
			case err != nil:
				return "", res, fmt.Errorf("tasks/get %s: %w", p.TaskID, err)
			case g.Status == mcp.TaskStatusCompleted:
				return fmt.Sprintf("task %s completed (%d polls; last running: %s)", p.TaskID, polls, cmp.Or(g.StatusMessage, last, "-")), res, nil
			case g.Status.IsTerminal():
				return "", res, fmt.Errorf("task %s %s: %s", p.TaskID, g.Status, cmp.Or(g.StatusMessage, last))
			}
			last = cmp.Or(g.StatusMessage, last)
			continue
		}
		again, err := v.s.c.CallTool(ctx, req)
		if err != nil {
			return "", res, err
		}
		if _, still := pendingOf(again); !still {
			return fmt.Sprintf("no task to follow (%s); answered from the pass at call %d", truncate(p.BreedPass, 120), polls+1), again, nil
		}
	}
}

// Quiet is how long the stand-in must have had no request for a question
// before the next to be counted from there, and quietAtMost how long that
// is waited for.
const (
	quietFor    = 500 * time.Millisecond
	quietAtMost = 15 * time.Second
)

// quiet waits until total (the stand-in's count of requests) has not
// moved for quietFor, or quietAtMost has passed: lookups an answer left
// under way (a call cut at its time limit) are then not counted against
// the next question.
func quiet(ctx context.Context, total func() int) {
	const step = 50 * time.Millisecond
	last, still := total(), time.Duration(0)
	for waited := time.Duration(0); still < quietFor && waited < quietAtMost; waited += step {
		select {
		case <-ctx.Done():
			return
		case <-time.After(step):
		}
		if n := total(); n != last {
			last, still = n, 0
		} else {
			still += step
		}
	}
}
