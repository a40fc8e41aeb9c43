package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// attackUnreadLinks asks for a large full-answer link again and again over
// streamable HTTP and reads none of the answers: each read on its own
// connection, left open and unread until the run ends.
const attackUnreadLinks = "unread-links"

// unreadAddrs are the two addresses the unread reads come from; each is a
// client of its own to the server.
var unreadAddrs = []string{"127.0.0.2", "127.0.0.3"}

// readsPerSession stays under the transport's 32 calls running per session,
// so that every read reaches the link store rather than that bound.
const readsPerSession = 30

var fullLink = regexp.MustCompile(`nsip://full/[0-9a-f]+\.json`)

// unreadLinks runs the attack: cfg.attackers reads in all, spread over the
// two addresses, each address's over sessions of readsPerSession reads
// each, every session reading the link its own call made (a link is its
// session's). It returns the counts once the run is over: a read answered
// with a result is accepted, one answered with an error refused.
func unreadLinks(ctx context.Context, cfg config, base string, st *AttackStats) func() *AttackStats {
	host := base
	if u, err := url.Parse(base); err == nil {
		host = u.Host
	}
	args := fmt.Sprintf(`{"search":{"breed_id":%d}}`, largestBreed(cfg))
	var counts struct{ attempts, accepted, refused, failed, linkBytes atomic.Int64 }
	var wg sync.WaitGroup
	for a, addr := range unreadAddrs {
		share := cfg.attackers / len(unreadAddrs)
		if a < cfg.attackers%len(unreadAddrs) {
			share++
		}
		wg.Go(func() {
			d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(addr)}, Timeout: 5 * time.Second}
			hc := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}, Timeout: time.Minute}
			defer hc.CloseIdleConnections()
			var reads sync.WaitGroup
			for share > 0 && ctx.Err() == nil {
				n := min(share, readsPerSession)
				share -= n
				session, uri, err := linkSession(ctx, hc, base, args)
				if err != nil {
					counts.failed.Add(int64(n))
					continue
				}
				for range n {
					reads.Go(func() {
						counts.attempts.Add(1)
						switch got, size := unreadRead(ctx, d, host, session, uri, counts.linkBytes.Load() == 0); got {
						case "result":
							counts.accepted.Add(1)
							if size > 0 {
								counts.linkBytes.Store(size)
							}
						case "error":
							counts.refused.Add(1)
						default:
							counts.failed.Add(1)
						}
					})
				}
			}
			reads.Wait()
		})
	}
	return func() *AttackStats {
		wg.Wait()
		st.Attempts, st.Accepted, st.Refused, st.Failed = counts.attempts.Load(), counts.accepted.Load(), counts.refused.Load(), counts.failed.Load()
		st.LinkBytes = counts.linkBytes.Load()
		return st
	}
}

// largestBreed is the stand-in's breed with the most animals: its
// group summary links the most rows.
func largestBreed(cfg config) int {
	ds := nsiptest.NewDataset(cfg.seed, cfg.animals)
	n := map[int]int{}
	best := 0
	for _, id := range ds.AnimalIDs() {
		a, _ := ds.Animal(id)
		n[a.BreedID]++
		if n[a.BreedID] > n[best] {
			best = a.BreedID
		}
	}
	return best
}

// linkSession opens a streamable HTTP session and makes the call that
// gives it a link.
func linkSession(ctx context.Context, hc *http.Client, base, args string) (session, uri string, err error) {
	_, h, err := rpcPost(ctx, hc, base, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"unread-links","version":"1"}}}`)
	if err != nil {
		return "", "", err
	}
	session = h.Get("Mcp-Session-Id")
	if _, _, err := rpcPost(ctx, hc, base, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return "", "", err
	}
	body, _, err := rpcPost(ctx, hc, base, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+toolname.FlockSummary+`","arguments":`+args+`}}`)
	if err != nil {
		return "", "", err
	}
	if uri = fullLink.FindString(body); uri == "" {
		return "", "", fmt.Errorf("no link in the answer: %.200s", body)
	}
	return session, uri, nil
}

func rpcPost(ctx context.Context, hc *http.Client, base, session, body string) (string, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/mcp", strings.NewReader(body))
	if err != nil {
		return "", nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return "", nil, fmt.Errorf("status %d: %.200s", resp.StatusCode, b)
	}
	return string(b), resp.Header, err
}

// unreadRead sends one read of uri on a connection of its own and reads
// nothing until the run is over; then it reads the answer's start, to tell
// a result from an error, and, when measure is set, the whole answer, for
// its size.
func unreadRead(ctx context.Context, d *net.Dialer, host, session, uri string, measure bool) (kind string, size int64) {
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return "", 0
	}
	defer conn.Close()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":%q}}`, uri)
	if _, err := fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s", host, session, len(body), body); err != nil {
		return "", 0
	}
	<-ctx.Done()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	var got []byte
	buf := make([]byte, 4096)
	for len(got) < 64<<10 {
		n, err := conn.Read(buf)
		got = append(got, buf[:n]...)
		switch {
		case bytes.Contains(got, []byte(`"result"`)):
			if measure {
				_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
				resp, err := http.ReadResponse(bufio.NewReader(io.MultiReader(bytes.NewReader(got), conn)), nil)
				if err == nil {
					size, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
			return "result", size
		case bytes.Contains(got, []byte(`"error"`)):
			return "error", 0
		case err != nil:
			return "", 0
		}
	}
	return "", 0
}
