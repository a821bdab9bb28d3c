package memories

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// fakeBackend is an in-memory Backend: just enough of a vault and an index to
// test the services' own logic. It records what the services asked of it.
type fakeBackend struct {
	t *testing.T

	mems map[string]*Memory // by path; the truth
	// ids overrides the index's id of a note (by path), as the store does for a
	// copied file whose frontmatter id another note holds.
	ids map[string]string

	views, updates int
	// gets counts the calls of Get.
	gets int
	// entriesCalls counts the calls of Entries (every entry decoded), and
	// selected lists the paths EntriesWhere returned.
	entriesCalls int
	selected     []string
	// selects makes snapshots EntrySelectors, as the store's are.
	selects bool
	// counts makes snapshots TermCounters, as the store's are;
	// docFreqCalls counts their DocFreqs calls.
	counts       bool
	docFreqCalls int
	creates      []*Memory // copies, as written
	patches      []patchCall
	events       []Event
	logged       []Event // through Log: refusals
	searches     []SearchRequest

	loadErr map[string]error // by path
	// reverse makes Search return its hits worst first, so a test sees that
	// the service ranks them itself.
	reverse   bool
	searchErr error
	createErr error
	// updateErr fails Update before it runs its function (a write lock
	// that times out); waitInUpdate makes it wait for its context to end
	// instead (a lock held by another writer).
	updateErr    error
	waitInUpdate bool
	// unproposed lists notes (by path) a text search never returns, as an
	// index that proposes other memories first.
	unproposed map[string]bool
}

type patchCall struct {
	Path string
	Keys []string
}

func newFake(t *testing.T, ms ...*Memory) *fakeBackend {
	t.Helper()
	f := &fakeBackend{t: t, mems: map[string]*Memory{}, ids: map[string]string{}, loadErr: map[string]error{}}
	for _, m := range ms {
		f.add(m)
	}
	return f
}

// add puts m in the store as it is, filling in its path when it has none.
func (f *fakeBackend) add(m *Memory) *Memory {
	f.t.Helper()
	m = cloneMemory(m)
	if m.Path == "" {
		m.Path = fakePath(m)
	}
	if _, dup := f.mems[m.Path]; dup {
		f.t.Fatalf("fake: two memories at %s", m.Path)
	}
	f.mems[m.Path] = m
	return m
}

func fakePath(m *Memory) string { return fmt.Sprintf("memories/%s/%s.md", m.Project, m.ID) }

func (f *fakeBackend) View(_ context.Context, fn func(Snapshot) error) error {
	f.views++
	if f.counts {
		return fn(&countingTx{fakeTx{f}})
	}
	if f.selects {
		return fn(&selectingTx{fakeTx{f}})
	}
	return fn(&fakeTx{f})
}

func (f *fakeBackend) Update(ctx context.Context, fn func(Tx) error) error {
	f.updates++
	if f.updateErr != nil {
		return f.updateErr
	}
	if f.waitInUpdate {
		<-ctx.Done()
		return ctx.Err()
	}
	return fn(&fakeTx{f})
}

func (f *fakeBackend) Log(_ context.Context, ev Event) error {
	f.logged = append(f.logged, ev)
	return nil
}

// stored returns the memory at path, failing the test when there is none.
func (f *fakeBackend) stored(path string) *Memory {
	f.t.Helper()
	m, ok := f.mems[path]
	if !ok {
		f.t.Fatalf("fake: no memory at %s", path)
	}
	return m
}

// wrote reports whether the services wrote anything at all.
func (f *fakeBackend) wrote() bool {
	return len(f.creates) > 0 || len(f.patches) > 0 || len(f.events) > 0
}

type fakeTx struct{ f *fakeBackend }

var _ Tx = (*fakeTx)(nil)

func (x *fakeTx) entry(m *Memory) Entry {
	e := EntryOf(m)
	if id, ok := x.f.ids[m.Path]; ok {
		e.ID = id
	}
	return e
}

// Entries lists the entries in path order, which tests arrange to differ from
// any order the services must produce.
func (x *fakeTx) Entries() ([]Entry, error) {
	x.f.entriesCalls++
	return x.entries(), nil
}

func (x *fakeTx) entries() []Entry {
	paths := make([]string, 0, len(x.f.mems))
	for p := range x.f.mems {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([]Entry, len(paths))
	for i, p := range paths {
		out[i] = x.entry(x.f.mems[p])
	}
	return out
}

// selectingTx is a snapshot that is an EntrySelector.
type selectingTx struct{ fakeTx }

var _ EntrySelector = (*selectingTx)(nil)

// EntriesWhere is Entries filtered, as the store's catalog gives it without
// decoding the entries keep refuses.
func (x *selectingTx) EntriesWhere(keep func(project, area, name string) bool) ([]Entry, error) {
	var out []Entry
	for _, e := range x.entries() {
		if keep(e.Project, e.Area, path.Base(e.Path)) {
			out = append(out, e)
			x.f.selected = append(x.f.selected, e.Path)
		}
	}
	return out, nil
}

func (x *fakeTx) Get(id string) (Entry, error) {
	x.f.gets++
	for _, m := range x.f.mems {
		if e := x.entry(m); e.ID == id {
			return e, nil
		}
	}
	return Entry{}, &NotFoundError{Ref: id}
}

func (x *fakeTx) ByPath(path string) (Entry, bool, error) {
	m, ok := x.f.mems[path]
	if !ok {
		return Entry{}, false, nil
	}
	return x.entry(m), true, nil
}

func (x *fakeTx) allIDs() []string {
	var ids []string
	for _, m := range x.f.mems {
		ids = append(ids, x.entry(m).ID)
	}
	sort.Strings(ids)
	return ids
}

func (x *fakeTx) IDsWithPrefix(prefix string, limit int) ([]string, error) {
	var out []string
	for _, id := range x.allIDs() {
		if strings.HasPrefix(id, prefix) {
			out = append(out, id)
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (x *fakeTx) ShortID(id string) string {
	n := MinPrefix
	for _, other := range x.allIDs() {
		if other == id {
			continue
		}
		l := 0
		for l < len(id) && l < len(other) && id[l] == other[l] {
			l++
		}
		n = max(n, l+1)
	}
	return id[:min(n, len(id))]
}

// Search matches the terms of the request case-insensitively in titles, bodies
// and tags. A hit's score is the number of terms it matches, a title match
// counting double.
func (x *fakeTx) Search(_ context.Context, req SearchRequest) ([]Hit, error) {
	x.f.searches = append(x.f.searches, req)
	if x.f.searchErr != nil {
		return nil, x.f.searchErr
	}
	terms := strings.Fields(strings.ToLower(req.Text))
	var hits []Hit
	for _, m := range x.f.mems {
		e := x.entry(m)
		if req.Text != "" && x.f.unproposed[m.Path] ||
			req.Project != "" && e.Project != req.Project ||
			len(req.Projects) > 0 && !slices.Contains(req.Projects, e.Project) ||
			req.Area != "" && e.Area != req.Area ||
			req.Type != "" && e.Type != req.Type ||
			req.Status != "" && e.Status != req.Status ||
			!req.UpdatedSince.IsZero() && e.Updated.Before(req.UpdatedSince) ||
			len(req.CreatedIn) > 0 && !inSpans(e.Created, req.CreatedIn) ||
			!hasAll(e.Tags, req.Tags) ||
			len(req.SourceHashes) > 0 && !slices.Contains(req.SourceHashes, m.Provenance.SourceHash) ||
			!req.IncludeSuperseded && !e.Live() {
			continue
		}
		score, matched := 0.0, 0
		title, body := strings.ToLower(m.Title), strings.ToLower(m.Body)
		for _, term := range terms {
			switch {
			case strings.Contains(title, term):
				score += 2
			case strings.Contains(body, term) || slices.Contains(m.Tags, term):
				score++
			default:
				continue
			}
			matched++
		}
		if len(terms) > 0 && (matched == 0 || !req.AnyTerm && matched < len(terms)) {
			continue
		}
		hits = append(hits, Hit{Entry: e, Score: score})
	}
	sort.Slice(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if !a.Updated.Equal(b.Updated) {
			return a.Updated.After(b.Updated)
		}
		return a.ID < b.ID
	})
	if req.Size > 0 && len(hits) > req.Size {
		hits = hits[:req.Size]
	}
	if x.f.reverse {
		slices.Reverse(hits)
	}
	return hits, nil
}

func inSpans(t time.Time, spans []TimeSpan) bool {
	for _, sp := range spans {
		if !t.Before(sp.From) && !t.After(sp.To) {
			return true
		}
	}
	return false
}

func hasAll(have, want []string) bool {
	for _, t := range want {
		if !slices.Contains(have, t) {
			return false
		}
	}
	return true
}

func (x *fakeTx) Load(_ context.Context, path string) (*Memory, error) {
	if err := x.f.loadErr[path]; err != nil {
		return nil, err
	}
	m, ok := x.f.mems[path]
	if !ok {
		return nil, fmt.Errorf("load %s: %w", path, fs.ErrNotExist)
	}
	return cloneMemory(m), nil
}

func (x *fakeTx) Create(_ context.Context, m *Memory) error {
	if x.f.createErr != nil {
		return x.f.createErr
	}
	if m.Path != "" {
		x.f.t.Errorf("fake: Create of a memory that has a path: %s", m.Path)
	}
	m.Path = fakePath(m)
	if _, dup := x.f.mems[m.Path]; dup {
		return fmt.Errorf("fake: %s exists", m.Path)
	}
	x.f.mems[m.Path] = cloneMemory(m)
	x.f.creates = append(x.f.creates, cloneMemory(m))
	return nil
}

// Patch copies the named fields of m onto the stored note; a key it does not
// know is an error, so a misspelt key fails the test.
func (x *fakeTx) AssignPaths(ms []*Memory) error {
	for _, m := range ms {
		if m.Path == "" {
			m.Path = fakePath(m)
		}
	}
	return nil
}

func (x *fakeTx) CreateAll(_ context.Context, ms []*Memory) error {
	if x.f.createErr != nil {
		return x.f.createErr
	}
	if err := x.AssignPaths(ms); err != nil {
		return err
	}
	for _, m := range ms {
		if _, dup := x.f.mems[m.Path]; dup {
			return fmt.Errorf("fake: %s exists", m.Path)
		}
		x.f.mems[m.Path] = cloneMemory(m)
		x.f.creates = append(x.f.creates, cloneMemory(m))
	}
	return nil
}

func (x *fakeTx) Patch(_ context.Context, m *Memory, keys ...string) error {
	x.f.patches = append(x.f.patches, patchCall{Path: m.Path, Keys: slices.Clone(keys)})
	dst, ok := x.f.mems[m.Path]
	if !ok {
		return fmt.Errorf("patch %s: %w", m.Path, fs.ErrNotExist)
	}
	for _, k := range keys {
		switch k {
		case "title":
			dst.Title = m.Title
		case "tags":
			dst.Tags = slices.Clone(m.Tags)
		case "status":
			dst.Status = m.Status
		case "importance":
			dst.Importance = m.Importance
		case "updated":
			dst.Updated = m.Updated
		case "related":
			dst.Related = slices.Clone(m.Related)
		case "supersedes":
			dst.Supersedes, dst.SupersedesNote = m.Supersedes, m.SupersedesNote
		case "superseded_by":
			dst.SupersededBy, dst.SupersededByNote = m.SupersededBy, m.SupersededByNote
		case "superseded_at":
			dst.SupersededAt = m.SupersededAt
		case "supersede_reason":
			dst.SupersedeReason = m.SupersedeReason
		default:
			return fmt.Errorf("fake: patch of unknown key %q", k)
		}
	}
	return nil
}

// Rewrite replaces the stored memory with m, whatever keys are named, and
// reports false, as the store does, when the note already reads so.
func (x *fakeTx) Rewrite(_ context.Context, m *Memory, keys ...string) (bool, error) {
	x.f.patches = append(x.f.patches, patchCall{Path: m.Path, Keys: append(slices.Clone(keys), "body")})
	old, ok := x.f.mems[m.Path]
	if !ok {
		return false, fmt.Errorf("rewrite %s: %w", m.Path, fs.ErrNotExist)
	}
	if reflect.DeepEqual(old, cloneMemory(m)) {
		return false, nil
	}
	x.f.mems[m.Path] = cloneMemory(m)
	return true, nil
}

func (x *fakeTx) Record(ev Event) { x.f.events = append(x.f.events, ev) }

func cloneMemory(m *Memory) *Memory {
	c := *m
	c.Tags = slices.Clone(m.Tags)
	c.Related = slices.Clone(m.Related)
	c.Provenance.EventIDs = slices.Clone(m.Provenance.EventIDs)
	return &c
}

// seqIDs mints predictable ids and remembers the times it was given.
type seqIDs struct {
	prefix string
	n      int
	times  []time.Time
}

func (g *seqIDs) NewID(t time.Time) string {
	g.times = append(g.times, t)
	g.n++
	return fmt.Sprintf("%s%0*d", g.prefix, IDLen-len(g.prefix), g.n)
}

// testNow is the fixed clock of the service tests; it has sub-second digits so
// the tests see where the services truncate.
var testNow = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.UTC)

// newTestService is a service over f with the fixed clock and ids "01jq…0001",
// "01jq…0002", ….
func newTestService(f *fakeBackend, opts ...Option) (*Service, *seqIDs) {
	ids := &seqIDs{prefix: "01jq"}
	// The test memories are mostly made at one time, which makes every one
	// the neighbour of the next: the tests of neighbours turn them on.
	r := DefaultRanking()
	r.Off = FeatureNeighbours
	opts = append([]Option{WithClock(func() time.Time { return testNow }), WithIDGen(ids), WithRanking(r)}, opts...)
	return NewService(f, opts...), ids
}

// checkArgError fails the test unless err is an *ArgError for arg that wraps
// ErrInvalid and whose message contains every one of parts.
func checkArgError(t *testing.T, err error, arg string, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want an error about %s", arg)
	}
	var ae *ArgError
	if !errors.As(err, &ae) {
		t.Fatalf("got error %q (%T), want an *ArgError", err, err)
	}
	if ae.Arg != arg {
		t.Errorf("got Arg %q, want %q (error %q)", ae.Arg, arg, err)
	}
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("errors.Is(%q, ErrInvalid) is false", err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}
