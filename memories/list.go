package memories

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sahilm/fuzzy"
)

// ListRequest selects memories to list. Listing is read-only: it records no access.
type ListRequest struct {
	Project string
	// Filter fuzzy-matches titles; matches come best first.
	Filter string
	Type   string
	// Status keeps one status; empty keeps the live memories (every status
	// but superseded: Status.Live), "all" keeps everything.
	Status string
	// Limit is the most memories listed, the first in the list's order;
	// 0 lists them all. The total and the sources count every memory of
	// the scope, listed or not. The command line and the MCP tool ask for
	// DefaultListLimit unless told otherwise.
	Limit int
}

// DefaultListLimit is how many memories list shows unless asked for another
// number: a screen's worth to read, a few kilobytes for an agent. The whole
// inventory of a 10,000-note vault was 0.7 MB of text (4.9 MB as JSON), more
// than an agent can take in one answer.
const DefaultListLimit = 100

// ListItem is one listed memory.
type ListItem struct {
	*Entry
	ShortID string
}

// ListResult is the inventory of a scope.
type ListResult struct {
	Project string
	Total   int
	// Sources counts the listed memories by source.
	Sources map[Source]int
	Items   []ListItem
}

// SourceSummary renders the source breakdown, biggest first: "mined:32, user:12".
func (r *ListResult) SourceSummary() string {
	type kv struct {
		s Source
		n int
	}
	var kvs []kv
	for s, n := range r.Sources {
		kvs = append(kvs, kv{s, n})
	}
	sort.Slice(kvs, func(i, j int) bool {
		if kvs[i].n != kvs[j].n {
			return kvs[i].n > kvs[j].n
		}
		return kvs[i].s < kvs[j].s
	})
	parts := make([]string, len(kvs))
	for i, p := range kvs {
		parts[i] = fmt.Sprintf("%s:%d", p.s, p.n)
	}
	return strings.Join(parts, ", ")
}

// More is how many memories of the scope the limit left out.
func (r *ListResult) More() int { return r.Total - len(r.Items) }

// MoreMessage is the line that ends a list the limit cut: how many more
// there are and how to see them, the arguments written with dash before
// them ("--" on the command line, "" for the MCP tool); "" when none was
// left out.
func (r *ListResult) MoreMessage(dash string) string {
	more := r.More()
	if more <= 0 {
		return ""
	}
	return fmt.Sprintf("… and %d more: %slimit 0 lists them all; %sproject, %sfilter or %stype narrow the list", more, dash, dash, dash, dash)
}

// EmptyMessage is what list says when the scope holds nothing.
func (r *ListResult) EmptyMessage() string {
	scope := r.Project
	if scope == "" {
		scope = "all"
	}
	return "No memories in scope: " + scope
}

// List returns the memories of a scope, newest first (best match first with a
// filter).
func (s *Service) List(ctx context.Context, req ListRequest) (*ListResult, error) {
	project, err := NormalizeScope("project", req.Project)
	if err != nil {
		return nil, err
	}
	var typ Type
	if req.Type != "" {
		if typ, err = ParseType(req.Type); err != nil {
			return nil, err
		}
	}
	keep, err := statusFilter(req.Status)
	if err != nil {
		return nil, err
	}
	if req.Limit < 0 {
		return nil, invalid("limit", "is %d; it must be 0 (list every memory) or more", req.Limit)
	}
	res := &ListResult{Project: project, Sources: map[Source]int{}}
	err = s.backend.View(ctx, func(snap Snapshot) error {
		entries, err := snap.Entries()
		if err != nil {
			return err
		}
		// The order's keys are copied side by side, so that sorting reads
		// no entry: at 100,000 notes the entries are 25 MB, and a
		// comparison that follows two pointers into them misses the cache.
		keys := make([]listKey, 0, len(entries))
		for i := range entries {
			e := &entries[i]
			if (project == "" || e.Project == project) && (typ == "" || e.Type == typ) && keep(e.Status) {
				keys = append(keys, listKey{sec: e.Created.Unix(), nsec: int32(e.Created.Nanosecond()), id: e.ID, at: int32(i)})
			}
		}
		slices.SortFunc(keys, compareNewer)
		sel := make([]*Entry, len(keys))
		for i, k := range keys {
			sel[i] = &entries[k.at]
		}
		if f := strings.TrimSpace(req.Filter); f != "" {
			sel = fuzzyFilter(f, sel)
		}
		for _, e := range sel {
			res.Sources[e.Source]++
		}
		res.Total = len(sel)
		if req.Limit > 0 && len(sel) > req.Limit {
			sel = sel[:req.Limit]
		}
		short := newShortener(entries)
		res.Items = make([]ListItem, 0, len(sel))
		for _, e := range sel {
			res.Items = append(res.Items, ListItem{Entry: e, ShortID: short.short(e.ID)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func statusFilter(s string) (func(Status) bool, error) {
	switch st := Status(strings.ToLower(strings.TrimSpace(s))); st {
	case "":
		// The default is what the map of contents counts in its totals.
		return Status.Live, nil
	case "all":
		return func(Status) bool { return true }, nil
	case StatusActive, StatusOpen, StatusDone, StatusSuperseded:
		return func(x Status) bool { return x == st }, nil
	default:
		return nil, invalid("status", "%q is not a status; use active, open, done, superseded or all", s)
	}
}

// newer orders entries newest first by creation, then by id (ids sort by time).
func newer(a, b *Entry) bool {
	if !a.Created.Equal(b.Created) {
		return a.Created.After(b.Created)
	}
	return a.ID > b.ID
}

// listKey is what list orders an entry by: its creation time and id, and
// where it is in the snapshot's entries.
type listKey struct {
	sec  int64
	nsec int32
	at   int32
	id   string
}

// compareNewer orders entries newest first by creation, then by id (ids
// sort by time); entries alike in both (which a catalog does not hold) keep
// their order.
func compareNewer(a, b listKey) int {
	switch {
	case a.sec != b.sec:
		return cmp.Compare(b.sec, a.sec)
	case a.nsec != b.nsec:
		return cmp.Compare(b.nsec, a.nsec)
	case a.id != b.id:
		return strings.Compare(b.id, a.id)
	}
	return cmp.Compare(a.at, b.at)
}

type entryTitles []*Entry

func (e entryTitles) String(i int) string { return e[i].Title }
func (e entryTitles) Len() int            { return len(e) }

// fuzzyFilter keeps the entries whose titles match pattern, best match first
// (fuzzy sorts stably, so equal matches keep their order).
func fuzzyFilter(pattern string, entries []*Entry) []*Entry {
	matches := fuzzy.FindFrom(pattern, entryTitles(entries))
	out := make([]*Entry, len(matches))
	for i, m := range matches {
		out[i] = entries[m.Index]
	}
	return out
}

// shortener abbreviates many ids at once. Only ids that share their first
// MinPrefix characters can make each other's abbreviation longer, so only
// those are sorted, to find each one's closest neighbours: most ids' prefix
// is theirs alone, which sorting the prefixes, as numbers, tells at a
// fraction of the cost of sorting every id.
type shortener struct {
	// dups are the prefixes (see prefixKey) more than one id has, sorted.
	dups []uint64
	// shared are the ids whose prefix another id has too, and the ids
	// shorter than a prefix, sorted.
	shared []string
}

func newShortener(entries []Entry) *shortener {
	keys := make([]uint64, 0, len(entries))
	for i := range entries {
		if k, ok := prefixKey(entries[i].ID); ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	s := &shortener{}
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] && (len(s.dups) == 0 || s.dups[len(s.dups)-1] != keys[i]) {
			s.dups = append(s.dups, keys[i])
		}
	}
	for i := range entries {
		if id := entries[i].ID; !s.alone(id) {
			s.shared = append(s.shared, id)
		}
	}
	sort.Strings(s.shared)
	return s
}

// prefixKey is id's first MinPrefix bytes as a number that orders as they
// do; false for an id shorter than that.
func prefixKey(id string) (uint64, bool) {
	if len(id) < MinPrefix {
		return 0, false
	}
	var k uint64
	for i := 0; i < MinPrefix; i++ {
		k = k<<8 | uint64(id[i])
	}
	return k, true
}

// alone reports whether no other id starts as id does.
func (s *shortener) alone(id string) bool {
	k, ok := prefixKey(id)
	if !ok {
		return false
	}
	_, dup := slices.BinarySearch(s.dups, k)
	return !dup
}

// short is id's shortest unique prefix of at least MinPrefix characters.
func (s *shortener) short(id string) string {
	if s.alone(id) {
		return id[:MinPrefix]
	}
	n := MinPrefix
	i := sort.SearchStrings(s.shared, id)
	for _, j := range []int{i - 1, i + 1} {
		if j >= 0 && j < len(s.shared) {
			other := s.shared[j]
			l := 0
			for l < len(id) && l < len(other) && id[l] == other[l] {
				l++
			}
			n = max(n, l+1)
		}
	}
	return id[:min(n, len(id))]
}
