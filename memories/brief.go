package memories

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cortexmem/cortex/dedup"
)

// Sections of a briefing, in the order they are offered: what needs doing
// first, then what the project knows, then its latest decisions, then what
// holds beyond it.
const (
	SectionOpen      = "open"
	SectionProject   = "project"
	SectionDecisions = "decisions"
	SectionArea      = "area"
)

// Briefing limits.
const (
	// DefaultBriefLimit is how many memories a section offers at most.
	DefaultBriefLimit = 10
	// maxOpenLoads bounds the open action items read for their due dates
	// (the index does not hold them): the newest ones of the project.
	maxOpenLoads = 100
	// briefAreas is how many of the project's areas the area section draws on.
	briefAreas = 2
)

// BriefRequest asks what an agent starting a session in a project should
// know.
type BriefRequest struct {
	// Project is the L0 scope; empty briefs from general alone.
	Project string
	// Limit is how many memories the briefing is for (default 10, at most
	// 50): the open items, the latest decisions and the area's and general
	// memories offer a quarter of it each, the project's memories the rest,
	// at least half. The caller's budget then takes what fits.
	Limit int
}

// BriefItem is one memory a briefing offers, with why.
type BriefItem struct {
	Recalled
	Section string
	// Due is an action item's due date; Overdue says it has passed.
	Due     string
	Overdue bool
	// Why says in a few words why the memory is offered.
	Why string
}

// Briefing is what a session starts with: each section's memories, best
// first. Nothing is recorded as accessed: the caller records what it injects
// (RecordAccess), once its budget has chosen.
type Briefing struct {
	Project string
	// Areas are the L1 areas drawn on: those the project's memories are
	// filed under, most used first.
	Areas    []string
	Sections []BriefSection
	// Considered counts the memories looked at.
	Considered int
}

// BriefSection is one section of a briefing.
type BriefSection struct {
	Name  string
	Items []BriefItem
}

// Items are every item of the briefing, section by section.
func (b *Briefing) Items() []BriefItem {
	var out []BriefItem
	for _, s := range b.Sections {
		out = append(out, s.Items...)
	}
	return out
}

// briefExcluded are the types a briefing leaves out of its ranked sections:
// records of sessions and edits are history, not knowledge, and action items
// have their own section.
func briefExcluded(t Type) bool {
	return t == TypeSession || t == TypeEpisode || t == TypeAction
}

// Brief gathers, in one look at the store, what a session in a project
// starts with (SPEC §4.13): the open action items of the project and general
// (overdue first), the project's memories (L0) ranked by activation, recency
// and importance, its latest decisions (last updated first), and the
// memories of its areas and of general (L1), ranked alike. A memory appears
// in one section only.
func (s *Service) Brief(ctx context.Context, req BriefRequest) (*Briefing, error) {
	project, err := NormalizeScope("project", req.Project)
	if err != nil {
		return nil, err
	}
	if project == "" {
		project = DefaultProject
	}
	limit := req.Limit
	if limit == 0 {
		limit = DefaultBriefLimit
	}
	if err := CheckRange("limit", limit, 1, MaxRecallLimit); err != nil {
		return nil, err
	}
	b := &Briefing{Project: project}
	err = s.backend.View(ctx, func(snap Snapshot) error {
		return s.brief(ctx, snap, b, limit)
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// briefShare is the share of a briefing's limit each section but the
// project's may offer (a quarter); the project's memories take the rest, at
// least half. A briefing then always holds some of each section that has
// anything — general conventions are not crowded out by a busy project — and
// no more notes are read than a briefing can hold.
func briefShare(limit int) int { return max(1, (limit+3)/4) }

func (s *Service) brief(ctx context.Context, snap Snapshot, b *Briefing, limit int) error {
	share := briefShare(limit)
	now := s.now()
	st := &briefStats{s: s, asked: map[string]bool{}}
	shown := map[string]bool{}
	considered := map[string]bool{}
	project := b.Project
	scope := withGeneral(project)
	// Every list below is the catalog's, ordered as an index search without
	// text orders it: one pass over the catalog costs less than opening the
	// index for as many searches sorted by date. The entries of the projects
	// in scope are searched here, those of the areas below, each in one pass
	// that decodes only the entries the lists keep (a project may hold
	// thousands). The decisions' list is asked for at the longest it can be
	// needed (l0Limit is at most limit), and cut to its length below: the
	// first n of a list in this order are those a search of size n finds.
	size := max(limit*candidateFactor, minCandidates)
	lists, err := SearchEntriesWhere(snap, func(p, _, _ string) bool { return containsString(scope, p) }, []SearchRequest{
		{Projects: scope, Type: TypeAction, Status: StatusOpen, Size: maxOpenLoads},
		{Projects: scope, Size: 2 * size},
		{Projects: []string{project}, Type: TypeDecision, Size: limit + 2*share},
	})
	if err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	open, recent, decisions := lists[0], lists[1], lists[2]

	// Open action items: read for their due dates.
	var items []BriefItem
	today := now.Format(time.DateOnly)
	stats := st.of(ctx, open)
	for _, h := range open {
		considered[h.ID] = true
		m, err := loadHit(ctx, snap, h)
		if err != nil {
			return err
		}
		if m == nil {
			continue
		}
		it := BriefItem{Recalled: Recalled{Memory: m, ShortID: snap.ShortID(m.ID), Signals: s.signals(h.Entry, stats, now)},
			Section: SectionOpen, Due: m.Due}
		switch {
		case m.Due != "" && m.Due < today:
			it.Overdue, it.Why = true, "overdue since "+m.Due
		case m.Due != "":
			it.Why = "open, due " + m.Due
		default:
			it.Why = "open"
		}
		items = append(items, it)
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, c := items[i], items[j]
		if a.Overdue != c.Overdue {
			return a.Overdue
		}
		if (a.Due != "") != (c.Due != "") {
			return a.Due != ""
		}
		if a.Due != c.Due {
			return a.Due < c.Due
		}
		if !a.Memory.Updated.Equal(c.Memory.Updated) {
			return a.Memory.Updated.After(c.Memory.Updated)
		}
		return a.Memory.ID < c.Memory.ID
	})
	if len(items) > share {
		items = items[:share]
	}
	for _, it := range items {
		shown[it.Memory.ID] = true
	}
	b.Sections = append(b.Sections, BriefSection{Name: SectionOpen, Items: items})

	// L0 and general: one search of both, newest first, and the most
	// activated memories of each (an old memory used every day must be
	// found; without a query the index orders by date alone).
	l0Limit := max((limit+1)/2, limit-len(items)-2*share)
	byProject := map[string][]Hit{}
	seen := map[string]bool{}
	for _, h := range recent {
		seen[h.ID] = true
		byProject[h.Project] = append(byProject[h.Project], h)
	}
	active, err := st.activated(ctx, snap, now, scope, seen)
	if err != nil {
		return err
	}
	for _, h := range active {
		byProject[h.Project] = append(byProject[h.Project], h)
	}
	hits := byProject[project]
	areas := map[string]int{}
	for _, h := range hits {
		considered[h.ID] = true
		if h.Area != "" {
			areas[h.Area]++
		}
	}
	l0, err := s.briefRanked(ctx, snap, hits, st.of(ctx, hits), shown, l0Limit, SectionProject, func(Recalled) string { return "ranked by use, recency and importance" })
	if err != nil {
		return err
	}
	b.Sections = append(b.Sections, BriefSection{Name: SectionProject, Items: l0})

	// The project's latest decisions (last updated first) not already shown:
	// from the newest memories already found when they hold enough of them,
	// or hold all the project's (the search was not cut short), else from a
	// search of the project's decisions.
	var decs []Hit
	for _, h := range recent {
		if h.Project == project && h.Type == TypeDecision {
			decs = append(decs, h)
		}
	}
	if len(recent) == 2*size && len(decs) < l0Limit+share {
		decs = decisions[:min(len(decisions), l0Limit+2*share)]
	}
	sort.SliceStable(decs, func(i, j int) bool {
		if !decs[i].Updated.Equal(decs[j].Updated) {
			return decs[i].Updated.After(decs[j].Updated)
		}
		return decs[i].ID > decs[j].ID
	})
	var latest []BriefItem
	stats = st.of(ctx, decs)
	for _, h := range decs {
		considered[h.ID] = true
		if len(latest) == share {
			break
		}
		if shown[h.ID] {
			continue
		}
		m, err := loadHit(ctx, snap, h)
		if err != nil {
			return err
		}
		if m == nil {
			continue
		}
		shown[m.ID] = true
		sig := s.signals(h.Entry, stats, now)
		latest = append(latest, BriefItem{Recalled: Recalled{Memory: m, ShortID: snap.ShortID(m.ID), Signals: sig,
			Score: s.ranking.Score(sig, false), Weights: s.ranking.Effective(false)},
			Section: SectionDecisions, Why: "decided " + m.Created.UTC().Format(time.DateOnly)})
	}
	b.Sections = append(b.Sections, BriefSection{Name: SectionDecisions, Items: latest})

	// L1: the project's areas (memories of other projects filed under them)
	// and general.
	b.Areas = topAreas(areas, briefAreas)
	var wide []Hit
	inWide := map[string]bool{}
	add := func(hs []Hit) {
		for _, h := range hs {
			if !inWide[h.ID] && h.Project != project {
				inWide[h.ID] = true
				wide = append(wide, h)
			}
		}
	}
	if len(b.Areas) > 0 {
		reqs := make([]SearchRequest, len(b.Areas))
		for i, a := range b.Areas {
			reqs[i] = SearchRequest{Area: a, Size: size}
		}
		inAreas, err := SearchEntriesWhere(snap, func(_, a, _ string) bool { return containsString(b.Areas, a) }, reqs)
		if err != nil {
			return fmt.Errorf("catalog: %w", err)
		}
		for _, hs := range inAreas {
			add(hs)
		}
	}
	if project != DefaultProject {
		add(byProject[DefaultProject])
	}
	for _, h := range wide {
		considered[h.ID] = true
	}
	l1, err := s.briefRanked(ctx, snap, wide, st.of(ctx, wide), shown, share, SectionArea, func(r Recalled) string {
		if r.Memory.Project == DefaultProject {
			return "general memory"
		}
		return "area " + r.Memory.Area
	})
	if err != nil {
		return err
	}
	b.Sections = append(b.Sections, BriefSection{Name: SectionArea, Items: l1})
	b.Considered = len(considered)
	return nil
}

// SearchEntries is what Snapshot.Search returns for req without text, from
// the catalog's entries alone: the entries that pass req's filters (project,
// projects, area, type, status, tags, updated since, superseded or not),
// last updated first, ties by id, at most req.Size. A request with text,
// or with a filter the catalog does not hold (source hashes, creation
// hours), is an error: only the index can answer it.
func SearchEntries(entries []Entry, req SearchRequest) ([]Hit, error) {
	if req.Text != "" || len(req.SourceHashes) > 0 || len(req.CreatedIn) > 0 {
		return nil, errors.New("search entries: text, source hashes and creation hours need the index")
	}
	if req.Size <= 0 {
		return nil, nil
	}
	// Sorted by pointer, then copied: an Entry is large, and a briefing
	// keeps a few dozen of the thousands that match. The comparisons are
	// those of a sort of the entries themselves, so is the order.
	var match []*Entry
	for i := range entries {
		if e := &entries[i]; req.KeepsEntry(e) {
			match = append(match, e)
		}
	}
	slices.SortFunc(match, CompareEntries)
	if len(match) > req.Size {
		match = match[:req.Size]
	}
	if len(match) == 0 {
		return nil, nil
	}
	out := make([]Hit, len(match))
	for i, e := range match {
		out[i] = Hit{Entry: *e}
	}
	return out, nil
}

// KeepsEntry reports whether e passes req's filters as a search without
// text applies them (SearchEntries): project, projects, area, type, status,
// tags, updated since, superseded or not. Of e it reads only those fields
// and Updated.
func (req *SearchRequest) KeepsEntry(e *Entry) bool {
	switch {
	case req.Project != "" && e.Project != req.Project,
		len(req.Projects) > 0 && !containsString(req.Projects, e.Project),
		req.Area != "" && e.Area != req.Area,
		req.Type != "" && e.Type != req.Type,
		req.Status != "" && e.Status != req.Status,
		!req.IncludeSuperseded && e.Status == StatusSuperseded,
		!req.UpdatedSince.IsZero() && e.Updated.Before(req.UpdatedSince),
		!hasTags(e.Tags, req.Tags):
		return false
	}
	return true
}

// CompareEntries orders entries as a search without text lists them: last
// updated first, ties by id. Of each it reads Updated and ID alone.
func CompareEntries(a, b *Entry) int {
	if c := b.Updated.Compare(a.Updated); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// EntrySearcher is a Snapshot that can answer searches without text over
// the entries of some projects or areas without decoding every one: a
// briefing keeps a few dozen of a project's thousands of memories.
type EntrySearcher interface {
	// SearchEntriesWhere is, for each of reqs, SearchEntries over the
	// entries EntriesWhere(keep) lists.
	SearchEntriesWhere(keep func(project, area, name string) bool, reqs []SearchRequest) ([][]Hit, error)
}

// SearchEntriesWhere is, for each of reqs, SearchEntries over the entries
// of snap that keep accepts (see EntriesWhere): through EntrySearcher when
// snap is one.
func SearchEntriesWhere(snap Snapshot, keep func(project, area, name string) bool, reqs []SearchRequest) ([][]Hit, error) {
	if s, ok := snap.(EntrySearcher); ok {
		return s.SearchEntriesWhere(keep, reqs)
	}
	entries, err := EntriesWhere(snap, keep)
	if err != nil {
		return nil, err
	}
	return SearchEntriesEach(entries, reqs)
}

// SearchEntriesEach is SearchEntries over entries for each of reqs.
func SearchEntriesEach(entries []Entry, reqs []SearchRequest) ([][]Hit, error) {
	out := make([][]Hit, len(reqs))
	for i, req := range reqs {
		var err error
		if out[i], err = SearchEntries(entries, req); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// hasTags says whether have holds every one of want.
func hasTags(have, want []string) bool {
	for _, t := range want {
		if !containsString(have, t) {
			return false
		}
	}
	return true
}

// briefRanked ranks hits without a query and loads the best limit of those
// not yet shown and not excluded.
func (s *Service) briefRanked(ctx context.Context, snap Snapshot, hits []Hit, stats map[string]AccessStat, shown map[string]bool,
	limit int, section string, why func(Recalled) string) ([]BriefItem, error) {
	var out []BriefItem
	for _, r := range s.rank(hits, stats, false) {
		if len(out) == limit {
			break
		}
		if shown[r.hit.ID] || briefExcluded(r.hit.Type) || !r.hit.Live() {
			continue
		}
		m, err := loadHit(ctx, snap, r.hit)
		if err != nil {
			return nil, err
		}
		if m == nil {
			continue
		}
		shown[m.ID] = true
		rec := Recalled{Memory: m, ShortID: snap.ShortID(m.ID), Score: r.score, Signals: r.signals, Weights: s.ranking.Effective(false)}
		out = append(out, BriefItem{Recalled: rec, Section: section, Why: why(rec)})
	}
	return out, nil
}

// EntryPeeker is a Snapshot that can look at the entries of many ids
// without decoding and copying each one whole.
type EntryPeeker interface {
	// PeekByIDs calls fn, in order, with the entry of each of ids the
	// snapshot holds (it passes over the others), until fn returns false.
	// The entry is valid only during the call (its strings may share the
	// snapshot's memory), and its Path may be unset.
	PeekByIDs(ids []string, fn func(id string, e *Entry) bool) error
}

// PeekByIDs looks at the entries of ids in snap as EntryPeeker does: through
// it when snap is one, else by Get, one by one.
func PeekByIDs(snap Snapshot, ids []string, fn func(id string, e *Entry) bool) error {
	if p, ok := snap.(EntryPeeker); ok {
		return p.PeekByIDs(ids, fn)
	}
	for _, id := range ids {
		e, found, err := held(snap, id)
		if err != nil {
			return err
		}
		if !found {
			continue
		}
		if !fn(id, &e) {
			return nil
		}
	}
	return nil
}

// EntrySelector is a Snapshot that can list the entries of some projects,
// areas or file names without decoding every entry of its catalog.
type EntrySelector interface {
	// EntriesWhere lists the entries Entries lists whose project, area and
	// file name (the last element of its path) keep accepts. keep is asked
	// about every entry (and may be about others), in the same order
	// whatever it answers.
	EntriesWhere(keep func(project, area, name string) bool) ([]Entry, error)
}

// EntriesWhere lists snap's entries whose project, area and file name keep
// accepts: through EntrySelector when snap is one, else from Entries.
func EntriesWhere(snap Snapshot, keep func(project, area, name string) bool) ([]Entry, error) {
	if sel, ok := snap.(EntrySelector); ok {
		return sel.EntriesWhere(keep)
	}
	all, err := snap.Entries()
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, e := range all {
		if keep(e.Project, e.Area, path.Base(e.Path)) {
			out = append(out, e)
		}
	}
	return out, nil
}

// loadHit reads the note of a hit, with the index's id; nil when it is gone
// since it was indexed.
func loadHit(ctx context.Context, snap Snapshot, h Hit) (*Memory, error) {
	m, err := snap.Load(ctx, h.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m.ID = h.ID
	return m, nil
}

// briefStats are the accesses a briefing reads: every memory's once, one by
// one, for the most activated, and the sums of those it ranks, as it comes to
// them; a briefing ranks a few hundred memories of many thousands, and a map
// of every memory's accesses costs more than the rest of it. Without an
// access log, or when it cannot be read (a warning, once), every activation
// is 0.
type briefStats struct {
	s      *Service
	m      map[string]AccessStat
	asked  map[string]bool
	failed bool
}

// of returns the stats of hits, and of every memory asked about before.
func (b *briefStats) of(ctx context.Context, hits []Hit) map[string]AccessStat {
	if b.s.access == nil || b.failed {
		return nil
	}
	var ids []string
	for _, h := range hits {
		if !b.asked[h.ID] {
			b.asked[h.ID] = true
			ids = append(ids, h.ID)
		}
	}
	if len(ids) == 0 { // Stats of no ids would be every memory's
		return b.m
	}
	got, err := b.s.access.Stats(ctx, ids)
	if err != nil {
		b.fail(err)
		return nil
	}
	if b.m == nil {
		b.m = got
	} else {
		maps.Copy(b.m, got)
	}
	return b.m
}

func (b *briefStats) fail(err error) {
	b.failed, b.m = true, nil
	b.s.warn(fmt.Sprintf("access log: %v", err))
}

// each calls fn with every accessed memory's stat: one by one from a log
// that can (AccessVisitor), else from the map of them all.
func (b *briefStats) each(ctx context.Context, fn func(id string, st AccessStat)) {
	if b.s.access == nil || b.failed {
		return
	}
	if v, ok := b.s.access.(AccessVisitor); ok {
		if err := v.EachStat(ctx, fn); err != nil {
			b.fail(err)
		}
		return
	}
	all, err := b.s.access.Stats(ctx, nil)
	if err != nil {
		b.fail(err)
		return
	}
	for id, st := range all {
		fn(id, st)
	}
}

// maxActivatedLooks bounds the most activated memories a briefing looks up
// to find those of its projects.
const maxActivatedLooks = 200

// activated is, of the live memories of projects not in seen, the most
// activated ones: up to activeCandidates per project, looking at no more than maxActivatedLooks of them.
func (b *briefStats) activated(ctx context.Context, snap Snapshot, now time.Time, projects []string, seen map[string]bool) ([]Hit, error) {
	// Only the first maxActivatedLooks in order are ever looked at, so keep
	// just those: a bounded heap over every accessed memory, not a sort of
	// them all (thousands, at each session start).
	top := activeTop{k: maxActivatedLooks}
	b.eachActivation(ctx, now, func(id string, a float64) {
		if a > 0 && !seen[id] {
			top.offer(activeAct{id, a})
		}
	})
	// Looked at in place (PeekByIDs): most are of other projects, and only
	// those kept are read whole.
	added := map[string]int{}
	full := 0
	var keep []string
	err := PeekByIDs(snap, idsOf(top.sorted()), func(id string, e *Entry) bool {
		if full == len(projects) {
			return false
		}
		if !e.Live() || !containsString(projects, e.Project) || added[e.Project] == activeCandidates {
			return true
		}
		keep = append(keep, id)
		if added[e.Project]++; added[e.Project] == activeCandidates {
			full++
		}
		return full < len(projects)
	})
	if err != nil {
		return nil, err
	}
	return appendHits(snap, nil, keep)
}

// appendHits appends to hits those of ids snap holds, read whole (a memory
// gone from the vault is passed over).
func appendHits(snap Snapshot, hits []Hit, ids []string) ([]Hit, error) {
	for _, id := range ids {
		e, found, err := held(snap, id)
		if err != nil {
			return nil, err
		}
		if found {
			hits = append(hits, Hit{Entry: e})
		}
	}
	return hits, nil
}

// held is snap's entry of id; found is false for a memory gone from the
// vault.
func held(snap Snapshot, id string) (e Entry, found bool, err error) {
	e, err = snap.Get(id)
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return Entry{}, false, nil
	}
	return e, err == nil, err
}

// activeAct is a memory's activation, as activated ranks it.
type activeAct struct {
	id string
	a  float64
}

// before orders activations: the higher first, ties by id.
func (x activeAct) before(y activeAct) bool {
	if x.a != y.a {
		return x.a > y.a
	}
	return x.id < y.id
}

// activeTop keeps the k first activations offered, in activeAct.before's
// order: a heap whose root is the last of those kept, so most offers are
// refused with one comparison.
type activeTop struct {
	k    int
	heap []activeAct
}

func (t *activeTop) offer(x activeAct) {
	h := t.heap
	if len(h) < t.k {
		h = append(h, x)
		for i := len(h) - 1; i > 0; { // up while x comes after its parent
			p := (i - 1) / 2
			if !h[p].before(h[i]) {
				break
			}
			h[p], h[i] = h[i], h[p]
			i = p
		}
		t.heap = h
		return
	}
	if len(h) == 0 || !x.before(h[0]) {
		return
	}
	h[0] = x
	for i := 0; ; { // down while a child comes after it
		last, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h[last].before(h[l]) {
			last = l
		}
		if r < len(h) && h[last].before(h[r]) {
			last = r
		}
		if last == i {
			break
		}
		h[i], h[last] = h[last], h[i]
		i = last
	}
}

// sorted is what was kept, first first.
func (t *activeTop) sorted() []activeAct {
	slices.SortFunc(t.heap, compareActs)
	return t.heap
}

// idsOf is the ids of acts, in order.
func idsOf(acts []activeAct) []string {
	ids := make([]string, len(acts))
	for i, a := range acts {
		ids[i] = a.id
	}
	return ids
}

// compareActs orders activations by activeAct.before.
func compareActs(x, y activeAct) int {
	switch {
	case x.before(y):
		return -1
	case y.before(x):
		return 1
	}
	return 0
}

// topAreas are the n areas named most often, ties by name.
func topAreas(counts map[string]int, n int) []string {
	var names []string
	for a := range counts {
		names = append(names, a)
	}
	sort.Slice(names, func(i, j int) bool {
		if counts[names[i]] != counts[names[j]] {
			return counts[names[i]] > counts[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > n {
		names = names[:n]
	}
	return names
}

// RecordAccess records that the memories with these ids were shown, from
// source (AccessSessionStart for a briefing). A failure is returned: the
// caller decides whether it matters.
func (s *Service) RecordAccess(ctx context.Context, ids []string, source string) error {
	if s.access == nil || len(ids) == 0 {
		return nil
	}
	now := s.now().UTC()
	as := make([]Access, len(ids))
	for i, id := range ids {
		as[i] = Access{ID: id, Time: now, Source: source}
	}
	if err := s.access.Record(ctx, as); err != nil {
		return fmt.Errorf("access log: %w", err)
	}
	return nil
}

// PromptMatch is a recalled memory with how much of a prompt it answers.
type PromptMatch struct {
	Recalled
	// Coverage is the share of the prompt's key words the memory holds, 0
	// to 1: recall's own relevance is relative to the other results, so it
	// cannot say whether the best of them is any good.
	Coverage float64
}

// promptTerms is how many key words of a prompt are searched for.
const promptTerms = 12

// PromptRecall recalls for a prompt a person just typed (the prompt hook): the
// prompt's key words are the query, the project's memories and general's are
// searched, and each result says how many of those words it holds. Related
// memories are left out, and nothing is recorded as accessed: the caller
// records what it injects.
func (s *Service) PromptRecall(ctx context.Context, prompt, project string, limit int) ([]PromptMatch, error) {
	terms := dedup.QueryTerms("", prompt, promptTerms)
	if len(terms) == 0 {
		return nil, nil
	}
	query := strings.Join(terms, " ")
	req := RecallRequest{Query: query, Project: project, Limit: limit}
	p, err := s.planRecall(&req)
	if err != nil {
		return nil, err
	}
	res := &RecallResult{Query: p.search.Text}
	if err := s.backend.View(ctx, func(snap Snapshot) error { return s.recall(ctx, snap, p, res) }); err != nil {
		return nil, err
	}
	want := dedup.New(query)
	var out []PromptMatch
	for _, r := range res.Results {
		if r.Related {
			continue
		}
		m := r.Memory
		have := dedup.New(m.Title + "\n" + m.Content() + "\n" + strings.Join(m.Tags, " "))
		out = append(out, PromptMatch{Recalled: r, Coverage: dedup.Compare(want, have).Words})
	}
	return out, nil
}
