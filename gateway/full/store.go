// Package full keeps the complete data behind summarized answers, for the
// caller that asked, and serves it as JSON and CSV resources: a host can
// show or save every row without the model reading it.
//
// An answer's data gets an unguessable URI (nsip://full/<128 random
// bits>.json and .csv) that lives as long as a cached answer (the cache
// TTL, one hour by default) and that only the identity that made the call
// (caller.Of) can read; anyone else, like a URI never issued or expired,
// gets a not-found error. Each answer's data is bounded (MaxBytes); larger
// data gets no links and the answer says why. All links together are
// bounded too (StoreBytes); past it the oldest are dropped first.
package full

import (
	"container/list"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// Defaults: a 3,000-animal group summary is about 1 MiB of rows, a
// 100-row search page about 100 KiB.
const (
	DefaultMaxBytes   = 8 << 20
	DefaultStoreBytes = 32 << 20
)

// The URIs: Prefix, an ID, then ".json" or ".csv".
const (
	Prefix   = "nsip://full/"
	Template = Prefix + "{answer}"
	jsonMIME = "application/json"
	csvMIME  = "text/csv"
)

// Config bounds the store. Zero values take the defaults.
type Config struct {
	TTL        time.Duration // how long a link lives
	MaxBytes   int64         // the most data one answer may link
	StoreBytes int64         // the most data all links hold together
	Now        func() time.Time
}

// Store holds the data behind the links it has issued. It is safe for
// concurrent use.
type Store struct {
	cfg Config

	mu    sync.Mutex
	byID  map[string]*list.Element // of *entry, oldest at the front
	byRef map[string]*list.Element // the same data asked for again by its owner
	order *list.List
	bytes int64
}

type entry struct {
	id, ref string
	owner   caller.ID
	held    int64
	expires time.Time
	build   func() (*Table, error)
}

// Data is what an answer was made from, as the store is offered it.
type Data struct {
	// Ref, when not empty, names the data: the same caller offering the
	// same Ref again while its links live gets the same links.
	Ref string
	// Size is about how large the data is, bounded by MaxBytes; Held is
	// what keeping it costs until a read, counted against StoreBytes (a
	// lookup's data stays in the answer cache and costs the store little).
	Size, Held int64
	// Build makes the table on each read; an error there (the cached
	// answer it reads is gone) is a not-found.
	Build func() (*Table, error)
}

// New returns a store bounded by cfg.
func New(cfg Config) *Store {
	if cfg.TTL <= 0 {
		cfg.TTL = time.Hour
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.StoreBytes <= 0 {
		cfg.StoreBytes = DefaultStoreBytes
	}
	cfg.StoreBytes = max(cfg.StoreBytes, cfg.MaxBytes)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Store{cfg: cfg, byID: map[string]*list.Element{}, byRef: map[string]*list.Element{}, order: list.New()}
}

// Links are what an answer says of its complete data: the two URIs, or
// why there are none.
type Links struct {
	JSON, CSV string
	Note      string
}

// Meta is _meta.full.
func (l Links) Meta() map[string]any {
	if l.JSON == "" {
		return map[string]any{"note": l.Note}
	}
	return map[string]any{"json": l.JSON, "csv": l.CSV}
}

// Content is the two resource links.
func (l Links) Content() []mcp.Content {
	if l.JSON == "" {
		return nil
	}
	const desc = "Every row this answer was made from; only this caller can read it, while the answer is cached."
	return []mcp.Content{
		mcp.NewResourceLink(l.JSON, "full answer (JSON)", desc, jsonMIME),
		mcp.NewResourceLink(l.CSV, "full answer (CSV)", desc, csvMIME),
	}
}

// Offer keeps d for the caller of ctx and returns its links.
func (s *Store) Offer(ctx context.Context, d Data) Links {
	if d.Size > s.cfg.MaxBytes {
		return Links{Note: fmt.Sprintf("the complete data (%s) is over this server's limit of %s per answer (NSIP_FULL_MAX_BYTES), so no link is given; narrow the call (a smaller page, a tighter search) to get one",
			Bytes(d.Size), Bytes(s.cfg.MaxBytes))}
	}
	ref, size := d.Ref, d.Held+entryOverhead
	owner := caller.Of(ctx)
	now := s.cfg.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	key := ""
	if ref != "" {
		key = string(owner) + "\x00" + ref
		if el, ok := s.byRef[key]; ok {
			return links(el.Value.(*entry).id)
		}
	}
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	e := &entry{id: hex.EncodeToString(b[:]), ref: key, owner: owner, held: size, expires: now.Add(s.cfg.TTL), build: d.Build}
	el := s.order.PushBack(e)
	s.byID[e.id] = el
	if key != "" {
		s.byRef[key] = el
	}
	s.bytes += size
	for s.bytes > s.cfg.StoreBytes && s.order.Len() > 1 {
		s.drop(s.order.Front())
	}
	return links(e.id)
}

func links(id string) Links {
	return Links{JSON: Prefix + id + ".json", CSV: Prefix + id + ".csv"}
}

// expire drops the links past their time; entries expire in the order
// they were made, as every one lives the same TTL.
func (s *Store) expire(now time.Time) {
	for el := s.order.Front(); el != nil && !now.Before(el.Value.(*entry).expires); el = s.order.Front() {
		s.drop(el)
	}
}

func (s *Store) drop(el *list.Element) {
	e := el.Value.(*entry)
	s.order.Remove(el)
	delete(s.byID, e.id)
	if e.ref != "" {
		delete(s.byRef, e.ref)
	}
	s.bytes -= e.held
}

// entryOverhead is the bookkeeping of one link.
const entryOverhead = 256

// Len and Bytes are the links held and the data they hold.
func (s *Store) Len() (int, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order.Len(), s.bytes
}

// ErrGone is a Build's error when the data it reads is no longer kept.
var ErrGone = errors.New("the data behind this link is no longer kept")

// notFound is every failed read: a link never issued, expired, dropped
// or issued to another caller, which must not learn which.
func (s *Store) notFound() error {
	return fmt.Errorf("%w: no full answer at this URI for this caller; links last %s from the call and only the caller that made it can read them: make the call again for a new one",
		server.ErrResourceNotFound, s.cfg.TTL)
}

// Read returns the data at uri for the caller of ctx.
func (s *Store) Read(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
	name, ok := strings.CutPrefix(uri, Prefix)
	if !ok {
		return nil, s.notFound()
	}
	id, format, _ := strings.Cut(name, ".")
	s.mu.Lock()
	s.expire(s.cfg.Now())
	el, ok := s.byID[id]
	var e *entry
	if ok {
		e = el.Value.(*entry)
	}
	s.mu.Unlock()
	if e == nil || e.owner != caller.Of(ctx) || (format != "json" && format != "csv") {
		return nil, s.notFound()
	}
	// Built anew on each read, so that a table is held only while read.
	t, err := e.build()
	if errors.Is(err, ErrGone) {
		return nil, s.notFound()
	}
	if err != nil {
		return nil, fmt.Errorf("the full answer could not be built: %w", err)
	}
	var body []byte
	mime := jsonMIME
	if format == "csv" {
		body, err = t.CSV()
		mime = csvMIME
	} else {
		body, err = t.JSON()
	}
	if err != nil {
		return nil, fmt.Errorf("the full answer could not be encoded: %w", err)
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: mime, Text: string(body)}}, nil
}

// ResourceTemplate is the links' template, for resources/templates/list
// and resources/read.
func (s *Store) ResourceTemplate() server.ServerResourceTemplate {
	t := mcp.NewResourceTemplate(Template, "full-answer",
		mcp.WithTemplateDescription("Every row a summarized answer was made from, as .json or .csv; the URIs come in the answer's _meta.full and resource links, live as long as the cached answer (an hour by default) and only the caller that made the call can read them."))
	t.Title = "A summarized answer's complete data"
	return server.ServerResourceTemplate{Template: t, Handler: func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return s.Read(ctx, req.Params.URI)
	}}
}

// Bytes formats n as the settings write sizes.
func Bytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}
