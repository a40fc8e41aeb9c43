// Package full keeps the complete data behind summarized answers, for the
// caller that asked, and serves it as JSON and CSV resources: a host can
// show or save every row without the model reading it.
//
// An answer's data gets an unguessable URI (nsip://full/<128 random
// bits>.json and .csv) that lives as long as a cached answer (the cache
// TTL, one hour by default) and that only the identity that made the call
// (caller.Of) can read; anyone else, like a URI never issued or expired,
// gets a not-found error.
//
// The data is encoded once, when the link is given, and kept encoded: a
// read hands out those bytes and does no work of its own, and a link no
// longer depends on the answer cache keeping the answer. Each answer's
// data is bounded (MaxBytes, as JSON and as CSV); all links together are
// bounded too (StoreBytes), counted in their encoded bytes. The store is
// shared fairly among clients (the identity a transport recorded, so a
// client's sessions are one holder): past the bound, the client holding
// the most gives way, its oldest link first. A client holding no more than
// an even share of the store therefore keeps its links for the whole TTL,
// however many links others make; a client's own new links drop its own
// oldest once it is the largest holder.
//
// A read is refused while the client's earlier answers lie unread past
// Config.UnreadBytes (caller.Backlog, kept by the network transports): a
// client that asks for link after link and reads none would otherwise
// make the server hold an encoded copy of each until it is written out.
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
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// Defaults: a 3,000-animal group summary is about 1 MiB of rows, a
// 100-row search page about 100 KiB.
const (
	DefaultMaxBytes   = 8 << 20
	DefaultStoreBytes = 32 << 20
	// DefaultUnreadBytes lets a client have three 1.2 MB reads unread at
	// once, more than a host reading its links ever has.
	DefaultUnreadBytes = 4 << 20
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
	MaxBytes   int64         // the most data one answer may link, in each format
	StoreBytes int64         // the most encoded data all links hold together
	// UnreadBytes is how much of a client's earlier answers may lie
	// unread (caller.Backlog) for a read to be served: past it, reads
	// are refused until the client takes its answers.
	UnreadBytes int64
	Now         func() time.Time
}

// Store holds the data behind the links it has issued. It is safe for
// concurrent use.
type Store struct {
	cfg Config

	mu      sync.Mutex
	byID    map[string]*entry
	byRef   map[string]*entry // the same data asked for again by its owner
	order   *list.List        // every entry, oldest at the front
	holders map[caller.ID]*holder
	bytes   int64
}

// holder is one client's links, oldest at the front, and their bytes.
type holder struct {
	id    caller.ID
	links *list.List
	bytes int64
}

type entry struct {
	id, ref   string
	owner     caller.ID // who may read it: the caller that made the call
	holder    *holder   // whose share it counts against: that caller's client
	held      int64
	expires   time.Time
	json, csv encoded
	all, mine *list.Element
}

// encoded is one format of an answer's data as read, or why it cannot be.
type encoded struct {
	text string // a string, so that every read shares it uncopied
	wire int64  // its length as a JSON string, as a read's response carries it
	err  error
}

// Data is what an answer was made from, as the store is offered it.
type Data struct {
	// Ref, when not empty, names the data: the same caller offering the
	// same Ref again while its links live gets the same links, without
	// building or encoding anything.
	Ref string
	// Size is about how large the data is, checked against MaxBytes
	// before anything is built.
	Size int64
	// Build makes the table, once, when the links are given; ErrGone
	// there (the cached answer it reads was replaced meanwhile) gives no
	// links and a note.
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
	if cfg.UnreadBytes <= 0 {
		cfg.UnreadBytes = DefaultUnreadBytes
	}
	// One answer may be MaxBytes in each format.
	cfg.StoreBytes = max(cfg.StoreBytes, 2*cfg.MaxBytes+entryOverhead)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Store{cfg: cfg, byID: map[string]*entry{}, byRef: map[string]*entry{}, order: list.New(), holders: map[caller.ID]*holder{}}
}

// Links are what an answer says of its complete data: the two URIs, or
// why there are none.
type Links struct {
	JSON, CSV string
	Note      string
}

// Meta is _meta.full: the two links, or the note saying why there are
// none. Its members are declared in the order of their names, as the
// published answers spell them.
type Meta struct {
	CSV  string `json:"csv,omitempty"`
	JSON string `json:"json,omitempty"`
	Note string `json:"note,omitempty"`
}

// Meta is what _meta.full says of l.
func (l Links) Meta() Meta {
	if l.JSON == "" {
		return Meta{Note: l.Note}
	}
	return Meta{JSON: l.JSON, CSV: l.CSV}
}

// CSVNote is what the CSV's readers are told of its cells, in the CSV
// link's description and the template's.
const CSVNote = "In the CSV, text a spreadsheet would run as a formula (starting, after any spaces, with =, +, -, @, a tab, a carriage return or a full-width ＝ ＋ － ＠, other than a plain number such as -0.25) is written with a leading ' so that it is shown as text: at a cell's start and after each , ; tab or | a spreadsheet may split the cell at."

// Content is the two resource links.
func (l Links) Content() []mcp.Content {
	if l.JSON == "" {
		return nil
	}
	const desc = "Every row this answer was made from; only this caller can read it, for the cache TTL from the call."
	return []mcp.Content{
		mcp.NewResourceLink(l.JSON, "full answer (JSON)", desc, jsonMIME),
		mcp.NewResourceLink(l.CSV, "full answer (CSV)", desc+" "+CSVNote, csvMIME),
	}
}

// Offer keeps d for the caller of ctx and returns its links. The data is
// built and encoded here, once, outside the store's lock.
func (s *Store) Offer(ctx context.Context, d Data) Links {
	if d.Size > s.cfg.MaxBytes {
		return Links{Note: fmt.Sprintf("the complete data (%s) is over this server's limit of %s per answer (NSIP_FULL_MAX_BYTES), so no link is given; narrow the call (a smaller page, a tighter search) to get one",
			Bytes(d.Size), Bytes(s.cfg.MaxBytes))}
	}
	owner := caller.Of(ctx)
	if !owner.Owns() {
		// A sessionless caller behind a proxy that is not trusted to name
		// its clients is every client behind that proxy: a link it made
		// would be readable by all of them.
		return Links{Note: "no link is given to a caller without a session behind a proxy this server does not trust to name its clients; open a session, or ask the operator to list the proxy in MCP_TRUSTED_PROXIES"}
	}
	key := ""
	if d.Ref != "" {
		key = string(owner) + "\x00" + d.Ref
		if l, ok := s.linked(key); ok {
			return l
		}
	}
	t, err := d.Build()
	if errors.Is(err, ErrGone) {
		return Links{Note: "the complete data was replaced in the cache while this answer was made, so no link is given; make the call again to get one"}
	}
	if err != nil {
		return Links{Note: "the complete data could not be built, so no link is given: " + err.Error()}
	}
	e := &entry{ref: key, owner: owner, json: encode(t.JSON), csv: encode(t.CSV)}
	if e.json.err != nil && e.csv.err != nil {
		return Links{Note: "the complete data could not be encoded, so no link is given: " + e.json.err.Error()}
	}
	if j, c := int64(len(e.json.text)), int64(len(e.csv.text)); j > s.cfg.MaxBytes || c > s.cfg.MaxBytes {
		return Links{Note: fmt.Sprintf("the complete data (%s as JSON, %s as CSV) is over this server's limit of %s per answer (NSIP_FULL_MAX_BYTES), so no link is given; narrow the call (a smaller page, a tighter search) to get one",
			Bytes(j), Bytes(c), Bytes(s.cfg.MaxBytes))}
	}
	e.held = int64(len(e.json.text)+len(e.csv.text)) + entryOverhead
	// The share is the client's (caller.Client), which all its sessions
	// share: keyed by session, a client would take a new share with each
	// session it opens.
	return s.keep(e, caller.Client(ctx))
}

func encode(f func() ([]byte, error)) encoded {
	b, err := f()
	if err != nil {
		return encoded{err: err}
	}
	return encoded{text: string(b), wire: jsonStringSize(b)}
}

// jsonStringSize is the length of b encoded as a JSON string by
// encoding/json (which escapes <, > and & too), counted without encoding
// it: a read asks its client's account for the bytes its response will
// hold before anything is written.
func jsonStringSize(b []byte) int64 {
	n := int64(2)
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += int64(size)
		}
		i += size
	}
	return n
}

// linked is the links already given under key, if they live.
func (s *Store) linked(key string) (Links, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(s.cfg.Now())
	if e, ok := s.byRef[key]; ok {
		return links(e.id), true
	}
	return Links{}, false
}

// keep stores e under client's share and makes room for it past the
// store's bound.
func (s *Store) keep(e *entry, client caller.ID) Links {
	now := s.cfg.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	if e.ref != "" {
		// Another call with the same data may have been quicker.
		if had, ok := s.byRef[e.ref]; ok {
			return links(had.id)
		}
	}
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	e.id, e.expires = hex.EncodeToString(b[:]), now.Add(s.cfg.TTL)
	h := s.holders[client]
	if h == nil {
		h = &holder{id: client, links: list.New()}
		s.holders[client] = h
	}
	e.holder = h
	e.all, e.mine = s.order.PushBack(e), h.links.PushBack(e)
	s.byID[e.id] = e
	if e.ref != "" {
		s.byRef[e.ref] = e
	}
	h.bytes += e.held
	s.bytes += e.held
	for s.bytes > s.cfg.StoreBytes {
		v := s.victim(e)
		if v == nil {
			break
		}
		s.drop(v)
	}
	return links(e.id)
}

// victim is the link to drop to make room for e: the oldest of the client
// holding the most, never e itself. Ties go to e's own client, so that a
// client's new links take its own room first.
func (s *Store) victim(e *entry) *entry {
	var top *holder
	for _, h := range s.holders {
		if h.links.Front().Value.(*entry) == e && h.links.Len() == 1 {
			continue
		}
		if top == nil || h.bytes > top.bytes || (h.bytes == top.bytes && h == e.holder) {
			top = h
		}
	}
	if top == nil {
		return nil
	}
	return top.links.Front().Value.(*entry)
}

func links(id string) Links {
	return Links{JSON: Prefix + id + ".json", CSV: Prefix + id + ".csv"}
}

// expire drops the links past their time; entries expire in the order
// they were made, as every one lives the same TTL.
func (s *Store) expire(now time.Time) {
	for el := s.order.Front(); el != nil && !now.Before(el.Value.(*entry).expires); el = s.order.Front() {
		s.drop(el.Value.(*entry))
	}
}

func (s *Store) drop(e *entry) {
	s.order.Remove(e.all)
	h := e.holder
	h.links.Remove(e.mine)
	h.bytes -= e.held
	if h.links.Len() == 0 {
		delete(s.holders, h.id)
	}
	delete(s.byID, e.id)
	if e.ref != "" && s.byRef[e.ref] == e {
		delete(s.byRef, e.ref)
	}
	s.bytes -= e.held
}

// entryOverhead is the bookkeeping of one link.
const entryOverhead = 256

// readOverhead is a read's JSON-RPC response beyond its text and URI.
const readOverhead = 128

// Len and Bytes are the links held and the data they hold.
func (s *Store) Len() (int, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order.Len(), s.bytes
}

// Held is what client's links hold in the store.
func (s *Store) Held(client caller.ID) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.holders[client]; h != nil {
		return h.bytes
	}
	return 0
}

// ErrGone is a Build's error when the data it reads is no longer kept.
var ErrGone = errors.New("the data behind this link is no longer kept")

// notFound is every failed read: a link never issued, expired, dropped
// or issued to another caller, which must not learn which.
func (s *Store) notFound() error {
	return fmt.Errorf("%w: no full answer at this URI for this caller; links last %s from the call and only the caller that made it can read them: make the call again for a new one",
		server.ErrResourceNotFound, s.cfg.TTL)
}

// Read returns the data at uri for the caller of ctx: the bytes encoded
// when the link was given, shared by every read.
func (s *Store) Read(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
	name, ok := strings.CutPrefix(uri, Prefix)
	if !ok {
		return nil, s.notFound()
	}
	id, format, _ := strings.Cut(name, ".")
	s.mu.Lock()
	s.expire(s.cfg.Now())
	e := s.byID[id]
	s.mu.Unlock()
	if e == nil || e.owner != caller.Of(ctx) || (format != "json" && format != "csv") {
		return nil, s.notFound()
	}
	body, mime := e.json, jsonMIME
	if format == "csv" {
		body, mime = e.csv, csvMIME
	}
	if body.err != nil {
		return nil, fmt.Errorf("the full answer could not be encoded as %s: %w", strings.ToUpper(format), body.err)
	}
	if b := caller.BacklogOf(ctx); b != nil {
		// The response holds the text once more, escaped, until the
		// client takes it: a client that asks for link after link and
		// reads none would otherwise hold as many copies as it asks for,
		// and the time to make them, however it is bounded elsewhere.
		if unread, ok := b.Hold(body.wire+int64(len(uri))+readOverhead, s.cfg.UnreadBytes); !ok {
			return nil, fmt.Errorf("not read now: %s is %s, and this client's earlier answers (%d bytes) are still unread by it, over this server's bound of %s per client (NSIP_FULL_UNREAD_MAX_BYTES); read the responses already sent (or wait for them to finish) and then retry this read",
				uri, Bytes(body.wire), unread, Bytes(s.cfg.UnreadBytes))
		}
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: mime, Text: body.text}}, nil
}

// ResourceTemplate is the links' template, for resources/templates/list
// and resources/read.
func (s *Store) ResourceTemplate() server.ServerResourceTemplate {
	t := mcp.NewResourceTemplate(Template, "full-answer",
		mcp.WithTemplateDescription("Every row a summarized answer was made from, as .json or .csv; the URIs come in the answer's _meta.full and resource links, live for the cache TTL from the call (an hour by default) and only the caller that made the call can read them. "+CSVNote))
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
