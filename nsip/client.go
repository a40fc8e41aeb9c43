// Package nsip is a client for the National Sheep Improvement Program
// (NSIP) Search API. It reads the answers as NSIP sends them (and the shapes
// other clients assumed) into one set of models, keeps every answer's exact
// bytes beside the model, and reports failures as *Error values with a Kind
// a caller can act on.
package nsip

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// DefaultBaseURL is the public NSIP Search API. It is plain HTTP because the
// host has no valid TLS certificate.
const DefaultBaseURL = "http://nsipsearch.nsip.org/api"

// Defaults used when the matching option is not given.
const (
	DefaultTimeout      = 15 * time.Second // per request, see WithTimeout; half a call's 30 s, leaving room for a retry
	DefaultMaxBodyBytes = 16 << 20         // see WithMaxBodyBytes
	// ProfilePageSize is how many offspring ByLPN fetches with a profile.
	ProfilePageSize = 10
)

// Version names this build in the default User-Agent. The command sets it
// (for example with -ldflags "-X github.com/nsip-tools/nsip-mcp/nsip.Version=1.2.3")
// before creating clients.
var Version = "dev"

// RetryPolicy says how often and how patiently a failed request is repeated.
// Only upstream failures (5xx), timeouts, connection failures and 429 are
// retried; the caller's context bounds every wait.
//
// Error.Attempts counts the client's own requests. Go's HTTP transport may in
// addition resend a GET once by itself when a pooled keep-alive connection
// turns out to be dead before any answer arrived.
type RetryPolicy struct {
	MaxAttempts   int           // requests per call, including the first; 1 disables retries
	BaseDelay     time.Duration // backoff before the second attempt; doubles after each failure
	MaxDelay      time.Duration // ceiling of the backoff
	MaxRetryAfter time.Duration // longest Retry-After honoured; a longer one is returned as an error instead
}

// DefaultRetryPolicy is used unless WithRetryPolicy says otherwise.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 3, BaseDelay: 200 * time.Millisecond, MaxDelay: 2 * time.Second, MaxRetryAfter: 5 * time.Second}
}

// Client talks to the NSIP Search API. It is safe for concurrent use; its
// settings do not change after NewClient returns.
type Client struct {
	baseURL    *url.URL
	httpClient *http.Client
	timeout    time.Duration
	userAgent  string
	retry      RetryPolicy
	maxBody    int64
	hook       func(context.Context, RequestInfo)
	// verified is set once the base URL has answered JSON: from then on a
	// 404 or an HTML page is NSIP's answer, not a sign of a wrong base URL.
	verified atomic.Bool
}

// RequestInfo describes one HTTP request the client made, for WithRequestHook.
type RequestInfo struct {
	Method   string        // GET or POST
	Endpoint string        // API path, e.g. "details/getAnimalDetails"
	Attempt  int           // 1 for the first request of a call, 2 for its first retry…
	Status   int           // HTTP status, 0 when no response arrived
	Latency  time.Duration // from sending the request to its body read (or its failure)
	Err      error         // nil on success; else the *Error this attempt ended with
	Probe    bool          // a check of the base URL the client made on its own
}

// WithRequestHook has f called after every HTTP request, retries and base
// URL probes included, with the caller's context (so that f can read what
// the caller put there, such as a call ID for its logs). f runs on the
// calling goroutine and must be quick and safe for concurrent use.
func WithRequestHook(f func(context.Context, RequestInfo)) Option {
	return func(c *Client) error {
		c.hook = f
		return nil
	}
}

// RetryGate is asked before each retry of a call (attempt is 2 for the
// first retry), after the backoff and with the failure being retried. A
// caller that bounds what it sends (a rate limit, a circuit breaker) bounds
// the call's first request itself; the gate lets it bound every retry the
// same way, a rate-limit token and a breaker admission per HTTP request.
// A non-nil error means the retry is not sent, and the call returns the
// failure it would have retried.
type RetryGate func(ctx context.Context, attempt int, failed *Error) error

type retryGateKey struct{}

// WithRetryGate returns a context under which every retry of a client call
// first passes gate.
func WithRetryGate(ctx context.Context, gate RetryGate) context.Context {
	return context.WithValue(ctx, retryGateKey{}, gate)
}

// Option configures a Client.
type Option func(*Client) error

// WithBaseURL points the client at another API root, such as a mirror or a
// local stand-in. It must be an absolute http or https URL, e.g.
// "http://127.0.0.1:8080/api".
func WithBaseURL(raw string) Option {
	return func(c *Client) error {
		u, err := url.Parse(raw)
		if err != nil {
			return fmt.Errorf("nsip: base URL %q: %w", raw, err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("nsip: base URL %q must be an absolute http or https URL, e.g. %s", raw, DefaultBaseURL)
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("nsip: base URL %q must not carry a query or fragment", raw)
		}
		c.baseURL = u
		return nil
	}
}

// WithHTTPClient replaces the pooled default HTTP client, e.g. to add a proxy
// or instrumentation. Its own Timeout, if any, applies on top of WithTimeout.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) error {
		if hc == nil {
			return errors.New("nsip: WithHTTPClient needs a non-nil *http.Client")
		}
		c.httpClient = hc
		return nil
	}
}

// WithTimeout limits each request (each attempt, not the whole call with its
// retries) to d, headers and body included. Zero removes the limit, leaving
// only the caller's context. The default is DefaultTimeout.
func WithTimeout(d time.Duration) Option {
	return func(c *Client) error {
		if d < 0 {
			return fmt.Errorf("nsip: timeout must not be negative, got %s", d)
		}
		c.timeout = d
		return nil
	}
}

// WithUserAgent sets the User-Agent header. The default is "nsip-mcp/" + Version.
func WithUserAgent(ua string) Option {
	return func(c *Client) error {
		if ua == "" || hasControl(ua) {
			return fmt.Errorf("nsip: user agent %q must be non-empty text without control characters", ua)
		}
		c.userAgent = ua
		return nil
	}
}

// WithRetryPolicy replaces DefaultRetryPolicy.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *Client) error {
		if p.MaxAttempts < 1 {
			return fmt.Errorf("nsip: retry policy needs MaxAttempts >= 1, got %d", p.MaxAttempts)
		}
		if p.BaseDelay < 0 || p.MaxDelay < 0 || p.MaxRetryAfter < 0 {
			return errors.New("nsip: retry policy delays must not be negative")
		}
		if p.MaxDelay < p.BaseDelay {
			return fmt.Errorf("nsip: retry policy MaxDelay (%s) is below BaseDelay (%s)", p.MaxDelay, p.BaseDelay)
		}
		c.retry = p
		return nil
	}
}

// WithMaxBodyBytes caps how much of a response body is read. A larger body
// fails with KindUnexpectedResponse rather than being cut short. The default
// is DefaultMaxBodyBytes.
func WithMaxBodyBytes(n int64) Option {
	return func(c *Client) error {
		if n < 1 {
			return fmt.Errorf("nsip: max body bytes must be positive, got %d", n)
		}
		c.maxBody = n
		return nil
	}
}

// NewClient returns a client for the NSIP API, by default the public one at
// DefaultBaseURL.
func NewClient(opts ...Option) (*Client, error) {
	base, _ := url.Parse(DefaultBaseURL)
	c := &Client{
		baseURL:   base,
		timeout:   DefaultTimeout,
		userAgent: "nsip-mcp/" + Version,
		retry:     DefaultRetryPolicy(),
		maxBody:   DefaultMaxBodyBytes,
	}
	for _, opt := range opts {
		if err := opt(c); err != nil {
			return nil, err
		}
	}
	if c.httpClient == nil {
		c.httpClient = defaultHTTPClient()
	}
	c.httpClient = c.keepToOrigin(c.httpClient)
	return c, nil
}

// BaseURL returns the API root the client sends requests to.
func (c *Client) BaseURL() string { return c.baseURL.String() }

// Timeout returns the per-request limit set by WithTimeout; zero means none.
func (c *Client) Timeout() time.Duration { return c.timeout }

// defaultHTTPClient keeps connections to the one upstream host alive and
// bounds every phase that could otherwise stall: dialling, TLS and waiting
// for headers. The overall limit is per request (WithTimeout).
func defaultHTTPClient() *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          32,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
		ExpectContinueTimeout: time.Second,
	}}
}

// API paths, relative to the base URL.
const (
	pathDateLastUpdated = "search/getDateLastUpdated"
	pathBreedGroups     = "search/getAvailableBreedGroups"
	pathStatuses        = "search/getStatusesByBreedGroup"
	pathTraitRanges     = "search/getTraitRangesByBreed"
	pathSearch          = "search/getPageOfSearchResults"
	pathDetails         = "details/getAnimalDetails"
	pathLineage         = "details/getLineage"
	pathProgeny         = "details/getPageOfProgeny"
)

// endpointNames are the endpoints as metrics and logs label them: the
// gateway's method names, one per endpoint, so that a request counts under
// the same label whether a tool call or the start-up check made it.
var endpointNames = map[string]string{
	pathDateLastUpdated: "get_date_last_updated",
	pathBreedGroups:     "get_available_breed_groups",
	pathStatuses:        "get_statuses_by_breed_group",
	pathTraitRanges:     "get_trait_ranges_by_breed",
	pathSearch:          "search_animals",
	pathDetails:         "get_animal_details",
	pathLineage:         "get_lineage",
	pathProgeny:         "get_progeny",
}

// EndpointName is the label of the endpoint at API path (RequestInfo.Endpoint,
// Error.Endpoint) in metrics and logs, e.g. "get_date_last_updated" for
// "search/getDateLastUpdated"; a path the client does not call is its own.
func EndpointName(path string) string {
	if n, ok := endpointNames[path]; ok {
		return n
	}
	return path
}

// DateLastUpdated calls GET search/getDateLastUpdated: the date of the latest
// genetic evaluation.
func (c *Client) DateLastUpdated(ctx context.Context) (*LastUpdate, error) {
	return fetch(ctx, c, call{method: http.MethodGet, path: pathDateLastUpdated}, decodeLastUpdate)
}

// BreedGroups calls GET search/getAvailableBreedGroups: every breed group
// with its breeds.
func (c *Client) BreedGroups(ctx context.Context) (*BreedGroups, error) {
	return fetch(ctx, c, call{method: http.MethodGet, path: pathBreedGroups}, decodeBreedGroups)
}

// Statuses calls GET search/getStatusesByBreedGroup: the animal statuses a
// search may filter on. An answer that is JSON but not a list means there are
// none, and yields an empty list.
func (c *Client) Statuses(ctx context.Context) (*Statuses, error) {
	return fetch(ctx, c, call{method: http.MethodGet, path: pathStatuses}, decodeStatuses)
}

// TraitRanges calls GET search/getTraitRangesByBreed?breedId=…: the lowest and
// highest value of each trait within one breed. The codes present are the
// breed's traits. An HTTP 400 (a breed with too few evaluated animals) is
// KindNoData.
func (c *Client) TraitRanges(ctx context.Context, breedID int) (*TraitRanges, error) {
	id := strconv.Itoa(breedID)
	if breedID <= 0 {
		return nil, invalid(pathTraitRanges, "breedId", id, "must be a positive breed ID, e.g. 640 for Katahdin; see BreedGroups")
	}
	cl := call{method: http.MethodGet, path: pathTraitRanges, query: url.Values{"breedId": {id}}, param: "breedId", value: id}
	r, err := fetch(ctx, c, cl, decodeTraitRanges)
	var e *Error
	if errors.As(err, &e) && e.Kind == KindInvalidArgument && e.Status == http.StatusBadRequest {
		// NSIP's way of saying the breed has too few evaluated animals:
		// the breed ID itself is fine.
		e.Kind, e.Reason = KindNoData, "NSIP has no trait data for breed "+id+" (its answer to a breed with too few evaluated animals)"
	}
	if err != nil {
		return nil, err
	}
	r.BreedID = breedID
	return r, nil
}

// SearchAnimals calls POST search/getPageOfSearchResults with the page, page
// size, breed, sort trait and order in the query and the criteria as the JSON
// body ({} when there are none).
func (c *Client) SearchAnimals(ctx context.Context, p SearchParams) (*SearchResults, error) {
	p, verr := checkSearch(pathSearch, p)
	if verr != nil {
		return nil, verr
	}
	q := url.Values{"page": {strconv.Itoa(p.Page)}, "pageSize": {strconv.Itoa(p.PageSize)}}
	if p.BreedID > 0 {
		q.Set("breedId", strconv.Itoa(p.BreedID))
	}
	if p.SortedTrait != "" {
		q.Set("sortedBreedTrait", p.SortedTrait)
	}
	if p.Reverse {
		q.Set("reverse", "true")
	}
	body, err := PlainJSON(p.Criteria)
	if err != nil {
		return nil, invalid(pathSearch, "criteria", "", "cannot be encoded as JSON: "+err.Error())
	}
	r, err := fetch(ctx, c, call{method: http.MethodPost, path: pathSearch, query: q, body: body}, decodeSearch)
	if err != nil {
		return nil, err
	}
	r.Page, r.PageSize = p.Page, p.PageSize
	return r, nil
}

// AnimalDetails calls GET details/getAnimalDetails?searchString=…, where the
// search string is an LPN ID or a registration number.
func (c *Client) AnimalDetails(ctx context.Context, searchString string) (*AnimalDetails, error) {
	s, verr := checkSearchString(pathDetails, searchString)
	if verr != nil {
		return nil, verr
	}
	cl := call{method: http.MethodGet, path: pathDetails, query: url.Values{"searchString": {s}}, param: "searchString", value: s}
	return fetch(ctx, c, cl, decodeDetails)
}

// Lineage calls GET details/getLineage?lpnId=…: the animal's pedigree.
func (c *Client) Lineage(ctx context.Context, lpnID string) (*Lineage, error) {
	id, verr := checkLPNID(pathLineage, lpnID)
	if verr != nil {
		return nil, verr
	}
	cl := call{method: http.MethodGet, path: pathLineage, query: url.Values{"lpnId": {id}}, param: "lpnId", value: id}
	return fetch(ctx, c, cl, decodeLineage)
}

// Progeny calls GET details/getPageOfProgeny?lpnId=…&page=…&pageSize=…: one
// page of the animal's offspring, pages numbered from 0.
func (c *Client) Progeny(ctx context.Context, lpnID string, page, pageSize int) (*ProgenyPage, error) {
	id, verr := checkLPNID(pathProgeny, lpnID)
	if verr != nil {
		return nil, verr
	}
	if verr := checkPage(pathProgeny, page, pageSize); verr != nil {
		return nil, verr
	}
	q := url.Values{"lpnId": {id}, "page": {strconv.Itoa(page)}, "pageSize": {strconv.Itoa(pageSize)}}
	cl := call{method: http.MethodGet, path: pathProgeny, query: q, param: "lpnId", value: id}
	r, err := fetch(ctx, c, cl, decodeProgeny)
	if err != nil {
		return nil, err
	}
	r.LPNID, r.Page, r.PageSize = id, page, pageSize
	return r, nil
}

// ByLPN fetches details (details/getAnimalDetails), lineage
// (details/getLineage) and the first ProfilePageSize offspring
// (details/getPageOfProgeny) at the same time. If any part fails the whole
// call fails, and the error names the part; the *Error underneath stays
// reachable with errors.As.
func (c *Client) ByLPN(ctx context.Context, lpnID string) (*AnimalProfile, error) {
	id, verr := checkLPNID("", lpnID)
	if verr != nil {
		return nil, verr
	}
	var p AnimalProfile
	g, gctx := errgroup.WithContext(ctx)
	part := func(name string, fn func() error) {
		g.Go(func() error {
			if err := fn(); err != nil {
				return fmt.Errorf("nsip: profile of %s: %s failed: %w", id, name, err)
			}
			return nil
		})
	}
	part("details", func() (err error) { p.Details, err = c.AnimalDetails(gctx, id); return })
	part("lineage", func() (err error) { p.Lineage, err = c.Lineage(gctx, id); return })
	part("progeny", func() (err error) { p.Progeny, err = c.Progeny(gctx, id, 0, ProfilePageSize); return })
	if err := g.Wait(); err != nil {
		return nil, err
	}
	raw := make([]byte, 0, len(p.Details.Raw)+len(p.Lineage.Raw)+len(p.Progeny.Raw)+40)
	raw = append(append(raw, `{"details":`...), p.Details.Raw...)
	raw = append(append(raw, `,"lineage":`...), p.Lineage.Raw...)
	raw = append(append(raw, `,"progeny":`...), p.Progeny.Raw...)
	p.Raw = append(raw, '}')
	return &p, nil
}
