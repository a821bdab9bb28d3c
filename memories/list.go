package memories

import (
	"context"
	"fmt"
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
}

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
	res := &ListResult{Project: project, Sources: map[Source]int{}}
	err = s.backend.View(ctx, func(snap Snapshot) error {
		entries, err := snap.Entries()
		if err != nil {
			return err
		}
		var sel []*Entry
		for i := range entries {
			e := &entries[i]
			if (project == "" || e.Project == project) && (typ == "" || e.Type == typ) && keep(e.Status) {
				sel = append(sel, e)
			}
		}
		sort.Slice(sel, func(i, j int) bool { return newer(sel[i], sel[j]) })
		if f := strings.TrimSpace(req.Filter); f != "" {
			sel = fuzzyFilter(f, sel)
		}
		short := newShortener(entries)
		for _, e := range sel {
			res.Items = append(res.Items, ListItem{Entry: e, ShortID: short.short(e.ID)})
			res.Sources[e.Source]++
		}
		res.Total = len(sel)
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

// shortener abbreviates many ids at once from a sorted copy of all of them,
// cheaper than asking the snapshot id by id.
type shortener struct{ sorted []string }

func newShortener(entries []Entry) *shortener {
	ids := make([]string, len(entries))
	for i := range entries {
		ids[i] = entries[i].ID
	}
	sort.Strings(ids)
	return &shortener{sorted: ids}
}

// short is id's shortest unique prefix of at least MinPrefix characters.
func (s *shortener) short(id string) string {
	n := MinPrefix
	i := sort.SearchStrings(s.sorted, id)
	for _, j := range []int{i - 1, i + 1} {
		if j >= 0 && j < len(s.sorted) {
			other := s.sorted[j]
			l := 0
			for l < len(id) && l < len(other) && id[l] == other[l] {
				l++
			}
			n = max(n, l+1)
		}
	}
	return id[:min(n, len(id))]
}
