package transport

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// ParseTrustedProxies reads a comma-separated list of IP addresses and CIDR
// prefixes (e.g. "10.0.0.5, 172.28.0.0/24"): the peers whose
// X-Forwarded-For is believed. Empty gives none.
func ParseTrustedProxies(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for part := range strings.SplitSeq(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if strings.Contains(part, "/") {
			p, err := netip.ParsePrefix(part)
			if err != nil {
				return nil, fmt.Errorf("%q is not a CIDR prefix such as 10.0.0.0/8", part)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP address such as 10.0.0.5", part)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// requester is who a request comes from, as far as bounds are concerned: the
// identity its sessions and sessionless calls are counted under, and how
// many sessions that identity may hold.
type requester struct {
	id    caller.ID
	bound int // MaxSessionsPerClient, or MaxSessions for a loopback peer under the default
}

type clientKey struct{}

// clientOf is the requester site.handler recorded for r, or, for a
// request that did not pass through it, r's own.
func (st *site) clientOf(r *http.Request) requester {
	if c, ok := r.Context().Value(clientKey{}).(requester); ok {
		return c
	}
	return st.identify(r)
}

// withClient records r's client for the bounds and, through caller, for
// everything that is owned or shared fairly.
func (st *site) withClient(r *http.Request) *http.Request {
	c := st.identify(r)
	ctx := caller.WithRequest(context.WithValue(r.Context(), clientKey{}, c), c.id)
	return r.WithContext(ctx)
}

// identify names r's client. The address is the peer's, or, when the peer
// is a trusted proxy, the rightmost X-Forwarded-For hop that is not one:
// the proxies append what they saw, so hops to its left are the client's
// own word. With a bearer token the ID is the token's fingerprint at that
// address: the server has one token, which every holder shares, so the
// token alone would put a breeder's assistant and a web app behind one
// name; the address keeps them apart.
func (st *site) identify(r *http.Request) requester {
	addr := st.addressOf(r)
	key := addressKey(addr)
	var id caller.ID
	if st.opts.AuthToken != "" && st.tokenGiven(r) {
		id = caller.TokenAt(st.tokenID, key)
	} else {
		id = caller.Address(key)
	}
	bound := st.opts.MaxSessionsPerClient
	if st.forwardedUntrusted(r, addr) {
		// A same-host proxy that is not listed: its clients all arrive as
		// loopback, and none of them is the same-host backend the
		// loopback allowance is for. They are one remote client, whose
		// ID says it stands for many (caller.Forwarded).
		return requester{id: caller.Forwarded(id), bound: bound}
	}
	// A same-host backend (a web app's server opening a session per user)
	// is one trusted client; under the default bound it could open only
	// a handful. An operator who set the bound gets it everywhere.
	if addr.IsValid() && addr.IsLoopback() && !st.opts.perClientSet {
		bound = st.opts.MaxSessions
	}
	return requester{id: id, bound: bound}
}

// settingTrustedProxies is what an operator sets to name the proxies whose
// X-Forwarded-For is believed.
const settingTrustedProxies = "MCP_TRUSTED_PROXIES"

// forwardedUntrusted reports whether r came from a loopback peer that says
// it forwards for someone else (X-Forwarded-For, Forwarded) while no proxy
// is trusted: a same-host proxy the operator has not listed. It logs the
// first such request, naming the setting.
func (st *site) forwardedUntrusted(r *http.Request, addr netip.Addr) bool {
	if len(st.opts.TrustedProxies) > 0 || !addr.IsValid() || !addr.IsLoopback() {
		return false
	}
	if r.Header.Get("X-Forwarded-For") == "" && r.Header.Get("Forwarded") == "" {
		return false
	}
	st.proxyWarned.Do(func() {
		st.log.Warn("a same-host proxy forwards requests, but no proxy is trusted: every client behind it is counted as one remote client, under remote bounds, and is refused tasks without a session; list the proxy in "+settingTrustedProxies+" to tell its clients apart",
			"peer", addr.String(), "setting", settingTrustedProxies)
	})
	return true
}

// addressOf is the client address of r (see identify); the zero Addr when
// the peer's address cannot be read.
func (st *site) addressOf(r *http.Request) netip.Addr {
	peer := parseHost(r.RemoteAddr)
	if !st.trusted(peer) {
		return peer
	}
	hops := r.Header.Values("X-Forwarded-For")
	var all []string
	for _, h := range hops {
		all = append(all, strings.Split(h, ",")...)
	}
	for i := len(all) - 1; i >= 0; i-- {
		hop := parseHost(strings.TrimSpace(all[i]))
		if !hop.IsValid() {
			// Garbage in the chain: the last hop that could be read
			// is all that is known.
			return peer
		}
		peer = hop
		if !st.trusted(hop) {
			return hop
		}
	}
	return peer
}

func (st *site) trusted(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	for _, p := range st.opts.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseHost reads an IP from "ip", "ip:port" or "[ip]:port".
func parseHost(s string) netip.Addr {
	host, _, err := net.SplitHostPort(s)
	if err != nil {
		host = strings.Trim(s, "[]")
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap().WithZone("")
}

// addressKey is what an address is counted under: an IPv4 address, or the
// /64 of an IPv6 one, since one host commonly holds a whole /64.
func addressKey(a netip.Addr) string {
	switch {
	case !a.IsValid():
		return "unknown"
	case a.Is6():
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// tokenFingerprint names a token in IDs and logs without revealing it.
func tokenFingerprint(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:8])
}
