// Package tasks keeps the MCP tasks this server runs (a tools/call sent
// with "task": the client gets a task at once and polls tasks/get, waits on
// tasks/result, may tasks/cancel). Each task belongs to the caller that
// created it (transport/caller) and is invisible to every other: tasks/list
// shows only the caller's own, and tasks/get, tasks/result and tasks/cancel
// answer "not found" for anyone else's. The tasks one client holds
// (caller.Client: counted under its token or address, across all its
// sessions) and the tasks held in all are bounded, every task is forgotten
// TTL after its creation, and cancelling a task cancels its context, so an
// analysis stops before its next lookup. A task created in a session
// belongs to that session alone, so when the session ends nobody can read
// it any more: it is cancelled and forgotten then, and its place freed.
//
// mcp-go (v1.2.1) still creates the task record that tools/call answers
// with and that tasks/get and tasks/result read, but trusts a session ID only
// when both sides have one, and announces every record's status to every
// session. The hooks here (mcp.go) stand in front of it: requests for tasks
// not the caller's are refused before mcp-go sees them, and mcp-go's record
// carries an ID no client is ever told; clients know a task by the ID this
// store gives it, and its owner alone is sent its status. The network
// transports drop mcp-go's announcements, which name no ID Issued knows.
package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// Defaults: enough for a client that runs a few analyses side by side and
// keeps their results a while; a client that wants more asks for a
// shorter ttl, which frees its places sooner.
const (
	DefaultPerCaller = 16
	DefaultMax       = 256
	DefaultTTL       = 10 * time.Minute
)

// The settings that raise the bounds, named in refusals.
const (
	SettingPerCaller = "NSIP_TASKS_PER_CLIENT"
	SettingMax       = "NSIP_TASKS_MAX"
	SettingTTL       = "NSIP_TASK_TTL"
)

// Config bounds the store. Zero fields take the defaults.
type Config struct {
	PerCaller int              // tasks one caller may hold at once, running or finished
	Max       int              // tasks held at once in all
	TTL       time.Duration    // longest a task is kept after its creation, and the default
	Now       func() time.Time // the clock TTLs are measured on
	Logger    *slog.Logger
}

// ErrNoOwner refuses a task whose caller cannot be told apart from others:
// a network request without a session for which the transport recorded no
// token or address.
var ErrNoOwner = errors.New("tasks are not available to this client: the request has no session and no client identity, so its task could be read by other clients; call the tool without \"task\" (it answers directly), or connect with a session")

// ErrForwarded refuses a task to a client without a session whose address
// is a proxy's: every client behind that proxy has the same one, so any of
// them could read the task.
var ErrForwarded = errors.New("tasks are not available to this client: it reached the server through a proxy that is not trusted to name its clients (the operator lists it in MCP_TRUSTED_PROXIES), so every client behind that proxy has the same address and could read its task; call the tool without \"task\" (it answers directly)")

// ErrModern refuses tasks to MCP 2026-07-28 clients: that revision moved
// tasks to an extension that mcp-go v1.2.1 does not serve (it has no
// tasks/result for that era), so a task could be started but its result
// never collected.
var ErrModern = errors.New("tasks are not offered to MCP " + mcp.ProtocolVersion20260728 + " clients: call the tool without \"task\"; it answers directly and sends progress while it works")

// errNotFound is every answer about a task the caller does not own, so that
// another client's task and no task at all look the same.
func errNotFound(ttl time.Duration) error {
	return fmt.Errorf("task not found: no task with this taskId belongs to this client (a task is visible only to the client that created it, and is forgotten %s after its creation at the latest)", ttl)
}

// A Task is one task of the store.
type Task struct {
	id      string
	owner   caller.ID
	client  caller.ID // who the task is counted against (caller.Client)
	session string    // the owner's session, to send its status to; "" without one
	expires time.Time
	ttl     time.Duration

	// Set under the store's lock.
	shell   string        // mcp-go's ID for its record of the task
	wire    mcp.Task      // the task as its owner is shown it
	bound   chan struct{} // closed by bind or drop
	once    sync.Once
	cancel  context.CancelFunc
	stopped bool // cancelled, expired or shut down
	running bool
	held    bool // counted in the store
	work    Work // what a followed task reports on (follow.go); nil for a tool's
}

// ID is the task's ID as its owner knows it.
func (t *Task) ID() string { return t.id }

// Store holds the tasks. It is safe for concurrent use.
type Store struct {
	cfg Config
	log *slog.Logger

	mu      sync.Mutex
	byID    map[string]*Task
	byShell map[string]*Task
	held    map[caller.ID]int // by client
	working int               // tasks whose work has not ended, forgotten or not
	srv     *server.MCPServer
	follows bool // work may be followed as tasks (Offer)
}

// New returns an empty store; negative settings are an error.
func New(cfg Config) (*Store, error) {
	if cfg.PerCaller < 0 || cfg.Max < 0 || cfg.TTL < 0 {
		return nil, errors.New("tasks: bounds and TTL must not be negative")
	}
	if cfg.PerCaller == 0 {
		cfg.PerCaller = DefaultPerCaller
	}
	if cfg.Max == 0 {
		cfg.Max = DefaultMax
	}
	if cfg.TTL == 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Store{cfg: cfg, log: cfg.Logger, byID: map[string]*Task{}, byShell: map[string]*Task{}, held: map[caller.ID]int{}}, nil
}

// Owner is who a task created in ctx belongs to, or ErrNoOwner. A request
// with a session but no session ID came over the network without one
// (stateless HTTP, MCP 2026-07-28): it is someone's only when the transport
// recorded who.
func Owner(ctx context.Context) (caller.ID, error) {
	id := caller.Of(ctx)
	switch {
	case id == caller.Local && server.ClientSessionFromContext(ctx) != nil:
		return "", ErrNoOwner
	case !id.Owns():
		return "", ErrForwarded
	}
	return id, nil
}

// Admit reports whether client may create one more task now: the refusal,
// naming the setting that raises the bound, or nil.
func (s *Store) Admit(client caller.ID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked()
	return s.admitLocked(client)
}

func (s *Store) admitLocked(client caller.ID) error {
	switch why := s.quotaLocked(client); {
	case why == "":
		return nil
	case s.held[client] >= s.cfg.PerCaller:
		return fmt.Errorf("%s; a task is held until %s after its creation (ask for a shorter \"ttl\" to free places sooner), or call the tool without \"task\"", why, s.cfg.TTL)
	default:
		return fmt.Errorf("%s; retry later, or call the tool without \"task\"", why)
	}
}

// quotaLocked is why client may not hold one more task now, "" if it may.
func (s *Store) quotaLocked(client caller.ID) string {
	if n := s.held[client]; n >= s.cfg.PerCaller {
		return fmt.Sprintf("too many tasks: this client holds %d, the most one client may hold (%s=%d)", n, SettingPerCaller, s.cfg.PerCaller)
	}
	if len(s.byID) >= s.cfg.Max {
		return fmt.Sprintf("too many tasks: the server holds %d, the most it holds for all clients together (%s=%d)", len(s.byID), SettingMax, s.cfg.Max)
	}
	return ""
}

// create adds a task for the caller of ctx, kept for the ttl asked for (in
// milliseconds; nil or out of range means the longest, the store's TTL).
func (s *Store) create(ctx context.Context, ttlMs *int64) (*Task, error) {
	owner, err := Owner(ctx)
	if err != nil {
		return nil, err
	}
	ttl := s.cfg.TTL
	if ttlMs != nil && *ttlMs > 0 && *ttlMs < ttl.Milliseconds() {
		ttl = time.Duration(*ttlMs) * time.Millisecond
	}
	t := &Task{id: newID(), owner: owner, client: caller.Client(ctx), ttl: ttl, bound: make(chan struct{})}
	if sess := server.ClientSessionFromContext(ctx); sess != nil && owner == caller.Session(sess.SessionID()) {
		t.session = sess.SessionID()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked()
	if err := s.admitLocked(t.client); err != nil {
		return nil, err
	}
	t.expires = s.cfg.Now().Add(ttl)
	t.held = true
	s.byID[t.id] = t
	s.held[t.client]++
	return t, nil
}

// bind records mcp-go's ID for t's record and the task as created.
func (s *Store) bind(t *Task, created mcp.Task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t.shell = created.TaskId
	t.wire = created
	t.wire.TaskId = t.id
	if t.held {
		s.byShell[t.shell] = t
	}
	t.once.Do(func() { close(t.bound) })
}

// drop forgets t, which never became a task.
func (s *Store) drop(t *Task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked(t)
	s.removeLocked(t)
	t.once.Do(func() { close(t.bound) })
}

// lookup is the caller's task id, or errNotFound.
func (s *Store) lookup(ctx context.Context, id string) (*Task, error) {
	owner, err := Owner(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked()
	t, ok := s.byID[id]
	if !ok || t.owner != owner {
		return nil, errNotFound(s.cfg.TTL)
	}
	return t, nil
}

// shellOf is mcp-go's ID for the caller's task id, or "" (which mcp-go
// knows no task by).
func (s *Store) shellOf(ctx context.Context, id string) string {
	t, err := s.lookup(ctx, id)
	if err != nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return t.shell
}

// byShellID is the task whose mcp-go record is shell, or nil.
func (s *Store) byShellID(shell string) *Task {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byShell[shell]
}

// Cancel stops t's work: its context ends, so an analysis reads nothing
// more. tasks/cancel calls it once mcp-go has marked its record cancelled.
func (s *Store) Cancel(t *Task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked(t)
	if t.work != nil {
		t.work.Cancel() // followed work is stopped only when its task is cancelled
	}
}

func (s *Store) stopLocked(t *Task) {
	t.stopped = true
	if t.cancel != nil {
		t.cancel()
	}
}

// Start gives t's work its context: ctx's values (the session, for
// progress and logs) without the creating request's end, which comes as
// soon as the task is returned, but ended by Cancel, by the task's expiry
// and by Shutdown. done marks the work over; it waits until the task's
// ID is bound, so that mcp-go's status hooks find the task.
func (s *Store) Start(ctx context.Context, t *Task) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.mu.Lock()
	t.cancel, t.running = cancel, true
	s.working++
	if t.stopped || !t.held {
		cancel()
	}
	s.mu.Unlock()
	return ctx, func() {
		<-t.bound
		s.mu.Lock()
		t.running = false
		s.working--
		s.mu.Unlock()
		cancel()
	}
}

// finished records a change of t's status that mcp-go reported for its
// record, and returns what its owner is to be told, with the owner's
// session ("" for none).
func (s *Store) finished(shell string, status mcp.TaskStatus, message string, at time.Time) (mcp.Task, string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.byShell[shell]
	if !ok {
		return mcp.Task{}, "", false
	}
	t.wire.Status, t.wire.StatusMessage = status, message
	t.wire.LastUpdatedAt = at.UTC().Format(time.RFC3339)
	return t.wire, t.session, true
}

// list is, of the tasks mcp-go shows, the caller's, under their IDs.
func (s *Store) list(ctx context.Context, shown []mcp.Task) []mcp.Task {
	out := make([]mcp.Task, 0, len(shown))
	owner, err := Owner(ctx)
	if err != nil {
		return out
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked()
	for _, w := range shown {
		if t, ok := s.byShell[w.TaskId]; ok && t.owner == owner {
			w.TaskId = t.id
			if t.work != nil && w.Status == mcp.TaskStatusWorking {
				w.StatusMessage = t.work.Status()
			}
			out = append(out, w)
		}
	}
	return out
}

// SessionEnded cancels and forgets the tasks created in session id, which
// ended: they were its own, and nobody can read them any more. Their
// places are their client's again.
func (s *Store) SessionEnded(id string) {
	if id == "" {
		return
	}
	owner := caller.Session(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, t := range s.byID {
		if t.owner == owner {
			if t.running {
				n++
			}
			s.stopLocked(t)
			s.removeLocked(t)
		}
	}
	if n > 0 {
		s.log.Info("tasks of an ended session were cancelled", slog.String("session", id), slog.Int("running", n))
	}
}

// Issued reports whether id is a task this store gave a client and still
// holds. mcp-go announces its own records' status to every session under
// IDs no client was given; the transports drop those announcements, and
// only those, by asking this.
func (s *Store) Issued(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.byID[id]
	return ok
}

// Len is the number of tasks held, after forgetting those expired.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked()
	return len(s.byID)
}

// Running is the number of tasks whose work has not ended, including
// tasks already forgotten whose cancelled work is still winding down.
func (s *Store) Running() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.working
}

// Shutdown cancels every task still running, logs how many there were,
// and returns that number. Their clients will find them gone.
func (s *Store) Shutdown() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, t := range s.byID {
		if t.running {
			n++
			s.stopLocked(t)
		}
		if t.work != nil {
			// Followed work runs on its own, begun or not by its task.
			s.stopLocked(t)
			t.work.Cancel()
		}
	}
	if n > 0 {
		s.log.Warn("tasks still running at shutdown were cancelled", slog.Int("running", n), slog.Int("held", len(s.byID)))
	} else {
		s.log.Info("no task was running at shutdown", slog.Int("held", len(s.byID)))
	}
	return n
}

// sweepLocked forgets the tasks past their TTL, stopping any still at work.
func (s *Store) sweepLocked() {
	now := s.cfg.Now()
	for _, t := range s.byID {
		if !now.Before(t.expires) {
			s.stopLocked(t)
			s.removeLocked(t)
		}
	}
}

func (s *Store) removeLocked(t *Task) {
	if !t.held {
		return
	}
	t.held = false
	delete(s.byID, t.id)
	if t.shell != "" {
		delete(s.byShell, t.shell)
	}
	if s.held[t.client]--; s.held[t.client] <= 0 {
		delete(s.held, t.client)
	}
}

// newID is a task ID no one can guess: 128 random bits.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
