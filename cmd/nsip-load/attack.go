package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Attacks --attack runs beside the honest sessions.
const (
	attackNone      = ""
	attackSlowBody  = "slow-body"  // GET /healthz declaring a body sent one byte a second
	attackInitFlood = "init-flood" // initialize posted to /mcp in a loop, sessions never ended
)

// attackHeadStart is how long an attack runs before the honest sessions
// open.
const attackHeadStart = 2 * time.Second

// attackerAddr is the loopback address attackers connect from, so that the
// server tells them from the honest sessions on 127.0.0.1.
const attackerAddr = "127.0.0.2"

// AttackStats counts what the attackers got while the honest sessions ran.
type AttackStats struct {
	Kind      string `json:"kind"`
	Attackers int    `json:"attackers"`
	Attempts  int64  `json:"attempts"` // connections opened or requests sent
	Accepted  int64  `json:"accepted"` // init-flood: sessions the server granted
	Refused   int64  `json:"refused"`  // init-flood: 429 or 503
	Cut       int64  `json:"cut"`      // slow-body: connections the server answered and closed
	Failed    int64  `json:"failed"`   // could not connect, or anything else
	// unread-links: Accepted are reads answered with the link's data,
	// Refused reads answered with an error; LinkBytes is a served
	// read's response size.
	LinkBytes int64 `json:"link_bytes,omitempty"`
}

// attack runs cfg's attack against base until ctx ends and returns the
// counts once every attacker has stopped.
func attack(ctx context.Context, cfg config, base string) func() *AttackStats {
	st := &AttackStats{Kind: cfg.attack, Attackers: cfg.attackers}
	if cfg.attack == attackNone {
		return func() *AttackStats { return nil }
	}
	if cfg.attack == attackUnreadLinks {
		return unreadLinks(ctx, cfg, base, st)
	}
	var counts struct{ attempts, accepted, refused, cut, failed atomic.Int64 }
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(attackerAddr)}, Timeout: 5 * time.Second}
	host := base
	if u, err := url.Parse(base); err == nil {
		host = u.Host
	}
	hc := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext, MaxIdleConnsPerHost: cfg.attackers}}
	var wg sync.WaitGroup
	for range cfg.attackers {
		wg.Go(func() {
			for ctx.Err() == nil {
				counts.attempts.Add(1)
				switch cfg.attack {
				case attackSlowBody:
					switch err := slowBody(ctx, dialer, host); {
					case err == nil:
						counts.cut.Add(1)
					case ctx.Err() != nil: // the run is over, not the attack's doing
					default:
						counts.failed.Add(1)
						_ = pause(ctx, time.Second)
					}
				case attackInitFlood:
					switch code := initialize(ctx, hc, base); {
					case code == http.StatusOK:
						counts.accepted.Add(1)
					case code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable:
						counts.refused.Add(1)
					case ctx.Err() == nil:
						counts.failed.Add(1)
						_ = pause(ctx, time.Second)
					}
				}
			}
		})
	}
	return func() *AttackStats {
		wg.Wait()
		hc.CloseIdleConnections()
		st.Attempts, st.Accepted, st.Refused = counts.attempts.Load(), counts.accepted.Load(), counts.refused.Load()
		st.Cut, st.Failed = counts.cut.Load(), counts.failed.Load()
		return st
	}
}

// slowBody sends a request that declares a body and then trickles it, one
// byte a second; nil means the server answered and closed the connection.
func slowBody(ctx context.Context, d *net.Dialer, host string) error {
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\nx"); err != nil {
		return err
	}
	closed := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, conn); closed <- err }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-closed:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err // nil: the server closed it
		case <-tick.C:
			_, _ = conn.Write([]byte("x"))
		}
	}
}

// initialize posts one initialize and returns the status, 0 on failure.
func initialize(ctx context.Context, hc *http.Client, base string) int {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"attacker","version":"1"}}}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/mcp", bytes.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}
