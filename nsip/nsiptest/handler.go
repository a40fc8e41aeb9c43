package nsiptest

import (
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The eight endpoints, as paths below the /api/ prefix. They name endpoints
// in SetFault, SetLatency and Requests.
const (
	EndpointLastUpdated = "search/getDateLastUpdated"
	EndpointBreedGroups = "search/getAvailableBreedGroups"
	EndpointStatuses    = "search/getStatusesByBreedGroup"
	EndpointTraitRanges = "search/getTraitRangesByBreed"
	EndpointSearch      = "search/getPageOfSearchResults"
	EndpointDetails     = "details/getAnimalDetails"
	EndpointLineage     = "details/getLineage"
	EndpointProgeny     = "details/getPageOfProgeny"
)

// Endpoints lists the eight endpoint paths.
func Endpoints() []string {
	return []string{EndpointLastUpdated, EndpointBreedGroups, EndpointStatuses, EndpointTraitRanges,
		EndpointSearch, EndpointDetails, EndpointLineage, EndpointProgeny}
}

// PathPrefix is where the API lives on the stand-in, as on the real host.
const PathPrefix = "/api/"

// Options configures a stand-in.
type Options struct {
	Seed    int64         // data seed; the same seed gives the same bytes
	Format  Format        // the server-wide response format
	Animals int           // about how many animals to generate (at least 200); 0 means 4000
	Latency time.Duration // added before every answer
	// BigBreed > 0 adds breed BigBreedID with this many animals to the
	// Hair group, generated as the other breeds are (pedigrees, progeny,
	// statuses, trait ranges, sorted pages) from the same seed. 50,000
	// animals take a few seconds to generate and about 110 MB.
	BigBreed int
	// RichRows makes live search rows carry the members other clients
	// assumed and no live capture shows (dateOfBirth, gender, breedId,
	// flockCode, genotyped, progenyCount) and live progeny rows carry
	// traits, for tests that compare an answer built on either shape. By
	// default the stand-in sends no more than NSIP is known to.
	RichRows bool
}

// Handler is the stand-in upstream as an http.Handler. All its methods are
// safe for concurrent use with requests in flight.
type Handler struct {
	data *Dataset
	done chan struct{}
	once sync.Once

	mu        sync.Mutex
	format    Format
	perAnimal map[string]Format
	latency   map[string]time.Duration // "" is the default for every endpoint
	faults    map[string]*Fault
	counts    map[string]int
	total     int
	inFlight  int
	peak      int                          // most requests in flight at once since the last ResetCounts
	texts     map[string]map[string]string // LPN ID -> trait code -> the EBV's JSON as sent
	irr       Irregular
	date      string // getDateLastUpdated's answer in place of the dataset's
	searches  uint64 // search requests served, which draws UnstableTies' order
	// rowsUngenotyped empties genotyped in search rows.
	rowsUngenotyped bool
	rich            bool // Options.RichRows, or SetRichRows
}

// NewHandler builds the dataset for opts (cached per seed and size) and
// returns a handler serving it under /api/.
func NewHandler(opts Options) *Handler {
	return &Handler{
		data:      NewDatasetWithBigBreed(opts.Seed, opts.Animals, opts.BigBreed),
		done:      make(chan struct{}),
		format:    opts.Format,
		perAnimal: map[string]Format{},
		latency:   map[string]time.Duration{"": opts.Latency},
		faults:    map[string]*Fault{},
		counts:    map[string]int{},
		texts:     map[string]map[string]string{},
		rich:      opts.RichRows,
	}
}

// SetRichRows switches Options.RichRows on or off for later requests.
func (h *Handler) SetRichRows(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.rich = on
}

func (h *Handler) richRows() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.rich
}

// SetTraitText makes every answer that carries an animal's trait (details,
// search and progeny rows) send text, written into the JSON as it is, in
// place of the EBV: "1e154" for an absurd value, "1e999" for one no float
// holds. NSIP promises nothing about its numbers; this is how tests see
// what an analysis does with one. The animal must carry the trait; text ""
// restores the real value.
func (h *Handler) SetTraitText(lpnID, code, text string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.texts[lpnID] == nil {
		h.texts[lpnID] = map[string]string{}
	}
	h.texts[lpnID][strings.ToUpper(code)] = text
}

// patched is a as served: with any trait texts set for it and the traits
// Irregular.Round rounds, a copy when there are some.
func (h *Handler) patched(a *animal) *animal {
	h.mu.Lock()
	texts := h.texts[a.LPNID]
	ir := h.irr
	h.mu.Unlock()
	if len(texts) == 0 && len(ir.Round) == 0 {
		return a
	}
	c := *a
	c.Traits = slices.Clone(a.Traits)
	for i := range c.Traits {
		c.Traits[i].text = texts[strings.ToUpper(c.Traits[i].Code)]
		c.Traits[i].Value = ir.served(c.Traits[i].Code, c.Traits[i].Value)
	}
	return &c
}

func (h *Handler) patchedAll(as []*animal) []*animal {
	out := make([]*animal, len(as))
	for i, a := range as {
		out[i] = h.patched(a)
	}
	return out
}

// Data is the dataset being served.
func (h *Handler) Data() *Dataset { return h.data }

// Close drops the connections of requests held by latency or a FaultHang,
// and of any that would be held later, so that a server can shut down
// without waiting for its clients to give up.
func (h *Handler) Close() { h.once.Do(func() { close(h.done) }) }

// SetFormat switches the server-wide format. Animals given their own format
// with SetAnimalFormat keep it.
func (h *Handler) SetFormat(f Format) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.format = f
}

// SetAnimalFormat makes the details, lineage and progeny answers about one
// animal use f whatever the server-wide format.
func (h *Handler) SetAnimalFormat(lpnID string, f Format) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.perAnimal[lpnID] = f
}

// SetLatency delays every answer of an endpoint by d (replacing
// Options.Latency for it); endpoint "" sets the default for all endpoints.
func (h *Handler) SetLatency(endpoint string, d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.latency[endpoint] = d
}

// Requests is how many requests reached an endpoint since the start or
// the last ResetCounts, faulted ones included.
func (h *Handler) Requests(endpoint string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.counts[endpoint]
}

// TotalRequests counts every request, unknown paths included.
func (h *Handler) TotalRequests() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total
}

// ResetCounts sets every request counter to zero.
func (h *Handler) ResetCounts() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.counts)
	h.total = 0
	h.peak = h.inFlight
}

// PeakInFlight is the largest number of requests the stand-in held at once
// since the start or the last ResetCounts: concurrency observed by counting,
// which no load on the machine can fake.
func (h *Handler) PeakInFlight() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.peak
}

type endpoint struct {
	method string
	serve  func(h *Handler, r *http.Request, body []byte) (int, []byte)
}

var endpoints = map[string]endpoint{
	EndpointLastUpdated: {http.MethodGet, (*Handler).lastUpdated},
	EndpointBreedGroups: {http.MethodGet, (*Handler).breedGroups},
	EndpointStatuses:    {http.MethodGet, (*Handler).statuses},
	EndpointTraitRanges: {http.MethodGet, (*Handler).traitRanges},
	EndpointSearch:      {http.MethodPost, (*Handler).search},
	EndpointDetails:     {http.MethodGet, (*Handler).details},
	EndpointLineage:     {http.MethodGet, (*Handler).lineage},
	EndpointProgeny:     {http.MethodGet, (*Handler).progeny},
}

// maxBody bounds what the stand-in reads of a request body.
const maxBody = 1 << 20

// ServeHTTP counts the request, applies latency and any fault, then answers.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path, prefixed := strings.CutPrefix(r.URL.Path, PathPrefix)
	ep, known := endpoints[path]
	known = known && prefixed

	h.mu.Lock()
	h.total++
	h.inFlight++
	h.peak = max(h.peak, h.inFlight)
	defer func() {
		h.mu.Lock()
		h.inFlight--
		h.mu.Unlock()
	}()
	var f *Fault
	delay := h.latency[""]
	if known {
		h.counts[path]++
		if d, ok := h.latency[path]; ok {
			delay = d
		}
		f = h.takeFault(path)
	}
	format := h.format
	h.mu.Unlock()

	if f != nil {
		delay += f.Latency
	}
	if !h.wait(r, delay) {
		panic(http.ErrAbortHandler)
	}
	if f != nil && h.inject(w, r, path, *f) {
		return
	}
	if !known {
		write(w, http.StatusNotFound, renderError(format, "no such endpoint: "+r.URL.Path))
		return
	}
	if r.Method != ep.method {
		w.Header().Set("Allow", ep.method)
		write(w, http.StatusMethodNotAllowed, renderError(format, "use "+ep.method+" for "+path))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		write(w, http.StatusBadRequest, renderError(format, "cannot read request body"))
		return
	}
	status, out := ep.serve(h, r, body)
	if f != nil && f.Kind == FaultTruncated {
		out = out[:len(out)/2]
	}
	write(w, status, out)
}

// wait sleeps d unless the client gives up or the stand-in closes first;
// it reports whether the full time passed.
func (h *Handler) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-h.done:
	case <-r.Context().Done():
	}
	return false
}

func write(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// formatOf is the format for answers about one animal.
func (h *Handler) formatOf(lpnID string) Format {
	h.mu.Lock()
	defer h.mu.Unlock()
	if f, ok := h.perAnimal[lpnID]; ok {
		return f
	}
	return h.format
}

func (h *Handler) serverFormat() Format {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.format
}

// SetLastUpdated makes getDateLastUpdated answer date, as NSIP does once
// it publishes a new evaluation; "" restores the dataset's date.
func (h *Handler) SetLastUpdated(date string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.date = date
}

func (h *Handler) lastUpdated(*http.Request, []byte) (int, []byte) {
	h.mu.Lock()
	date := h.date
	h.mu.Unlock()
	if date == "" {
		date = h.data.LastUpdated()
	}
	return http.StatusOK, renderLastUpdated(date)
}

func (h *Handler) breedGroups(*http.Request, []byte) (int, []byte) {
	return http.StatusOK, renderBreedGroups(h.data, h.serverFormat())
}

func (h *Handler) statuses(*http.Request, []byte) (int, []byte) {
	return http.StatusOK, renderStatuses()
}

func (h *Handler) traitRanges(r *http.Request, _ []byte) (int, []byte) {
	f := h.serverFormat()
	q := params{r: r}
	id := q.int("breedId", true, 1, -1)
	if q.err != "" {
		return http.StatusBadRequest, renderError(f, q.err)
	}
	if _, ok := h.data.breeds[id]; ok && h.data.ranges[id] == nil {
		// What NSIP is taken to answer for a breed with too few evaluated
		// animals.
		return http.StatusBadRequest, renderError(f, "no trait data for breed "+strconv.Itoa(id))
	}
	if _, ok := h.data.ranges[id]; !ok {
		return http.StatusNotFound, renderError(f, "breed not found: "+strconv.Itoa(id))
	}
	h.mu.Lock()
	ir := h.irr
	h.mu.Unlock()
	return http.StatusOK, renderTraitRanges(h.data.breedCodes(id), ir.ranges(h.data.breedCodes(id), h.data.ranges[id]))
}

func (h *Handler) search(r *http.Request, body []byte) (int, []byte) {
	f := h.serverFormat()
	q := params{r: r}
	pg := q.int("page", true, 0, -1)
	size := q.int("pageSize", true, 1, 100)
	breed := q.int("breedId", false, 0, -1)
	rev := q.bool("reverse")
	if q.err != "" {
		return http.StatusBadRequest, renderError(f, q.err)
	}
	c, err := parseCriteria(body)
	if err != nil {
		return http.StatusBadRequest, renderError(f, err.Error())
	}
	ir, seq := h.irregular()
	// The request is checked whole, as NSIP checks it, before the ignored
	// criteria are dropped.
	if _, err := compile(c); err != nil {
		return http.StatusBadRequest, renderError(f, err.Error())
	}
	c, anyBreed := ir.ignoring(c)
	if anyBreed {
		breed = 0
	}
	sortTrait := r.URL.Query().Get("sortedBreedTrait")
	all, err := h.data.search(breed, c, sortTrait, rev)
	if err != nil {
		return http.StatusBadRequest, renderError(f, err.Error())
	}
	if ir.reorders(sortTrait) {
		all = slices.Clone(all) // the dataset's cached order stays as it is
	}
	ir.reorder(all, sortTrait, rev, seq)
	lo, hi := ir.cut(len(all), pg, size)
	rows := ir.padded(h.patchedAll(all[lo:hi]), pg)
	h.mu.Lock()
	bare := h.rowsUngenotyped
	h.mu.Unlock()
	if bare {
		for i, a := range rows {
			c := *a
			c.Genotyped = ""
			rows[i] = &c
		}
	}
	return http.StatusOK, renderSearch(f, len(all), rows, h.richRows())
}

// SetSearchRowsGenotyped(false) sends search rows whose genotyped is empty
// (details keep it): live answers are known to carry the status in details
// only, so an answer built on search rows must do without it.
func (h *Handler) SetSearchRowsGenotyped(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.rowsUngenotyped = !on
}

// animal resolves the lookup parameter of a details endpoint, or says why
// it cannot.
func (h *Handler) animal(r *http.Request, param string) (*animal, Format, int, []byte) {
	f := h.serverFormat()
	v := r.URL.Query().Get(param)
	if strings.TrimSpace(v) == "" {
		return nil, f, http.StatusBadRequest, renderError(f, "missing required parameter "+param)
	}
	var a *animal
	if param == "searchString" {
		a = h.data.lookup(v)
	} else {
		a = h.data.byID[v]
	}
	if a == nil {
		return nil, f, http.StatusNotFound, renderError(f, "animal not found: "+v)
	}
	return a, h.formatOf(a.LPNID), 0, nil
}

func (h *Handler) details(r *http.Request, _ []byte) (int, []byte) {
	a, f, st, msg := h.animal(r, "searchString")
	if a == nil {
		return st, msg
	}
	return http.StatusOK, renderDetails(h.patched(a), f, h.richRows())
}

func (h *Handler) lineage(r *http.Request, _ []byte) (int, []byte) {
	a, f, st, msg := h.animal(r, "lpnId")
	if a == nil {
		return st, msg
	}
	h.mu.Lock()
	loneDam := h.irr.OneChildLineages
	h.mu.Unlock()
	return http.StatusOK, renderLineage(h.data, a, f, loneDam)
}

func (h *Handler) progeny(r *http.Request, _ []byte) (int, []byte) {
	q := params{r: r}
	pg := q.int("page", true, 0, -1)
	size := q.int("pageSize", true, 1, 100)
	if q.err != "" {
		return http.StatusBadRequest, renderError(h.serverFormat(), q.err)
	}
	a, f, st, msg := h.animal(r, "lpnId")
	if a == nil {
		return st, msg
	}
	h.mu.Lock()
	ir := h.irr
	h.mu.Unlock()
	lo, hi := ir.cut(len(a.progeny), pg, size)
	kids := make([]*animal, 0, hi-lo)
	for _, k := range a.progeny[lo:hi] {
		kids = append(kids, h.data.animals[k])
	}
	return http.StatusOK, renderProgeny(f, len(a.progeny), size, h.patchedAll(kids), h.richRows())
}

// params reads query parameters, keeping the first problem found.
type params struct {
	r   *http.Request
	err string
}

// int reads an integer in [lo, hi] (hi < 0: no upper bound); absent
// optional parameters read as 0.
func (p *params) int(name string, required bool, lo, hi int) int {
	v := p.r.URL.Query().Get(name)
	if p.err != "" {
		return 0
	}
	if v == "" {
		if required {
			p.err = "missing required parameter " + name
		}
		return 0
	}
	n, err := strconv.Atoi(v)
	switch {
	case err != nil:
		p.err = "parameter " + name + " must be an integer, got " + strconv.Quote(v)
	case n < lo || hi >= 0 && n > hi:
		rng := "at least " + strconv.Itoa(lo)
		if hi >= 0 {
			rng = "between " + strconv.Itoa(lo) + " and " + strconv.Itoa(hi)
		}
		p.err = "parameter " + name + " must be " + rng + ", got " + v
	}
	return n
}

func (p *params) bool(name string) bool {
	v := p.r.URL.Query().Get(name)
	if p.err != "" || v == "" {
		return false
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		p.err = "parameter " + name + " must be true or false, got " + strconv.Quote(v)
	}
	return b
}
