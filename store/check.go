package store

import (
	"bytes"
	"context"
	"os"
	"sort"

	"github.com/cortexmem/cortex/index"
)

// Health is what `cortex doctor` reports about the store.
type Health struct {
	// Notes is the number of readable notes in the catalog; Documents the
	// number of documents in the full-text index. They must agree.
	Notes     int    `json:"notes"`
	Documents uint64 `json:"documents"`
	// Pending counts vault changes the index has not taken in (0 when in step).
	Pending int `json:"pending"`
	// Broken lists notes that cannot be read, each with where and why.
	Broken []string `json:"broken"`
	// SharedIDs lists ids written in more than one note.
	SharedIDs []SharedID `json:"shared_ids"`
	// Temps lists leftover temporary files.
	Temps []string `json:"temps"`
	// MapRepaired says the map of contents did not match the notes and was
	// rewritten (it is not synced to disk on every change, see
	// vault.WriteDerived, so a power loss can leave it behind).
	MapRepaired bool `json:"map_repaired"`
	// Sync is what the check's own sync did first.
	Sync *SyncReport `json:"sync"`
}

// SharedID is an id that several notes carry (a copied file): the first keeps
// it, the others are indexed under ids derived from their paths.
type SharedID struct {
	ID    string   `json:"id"`
	Paths []string `json:"paths"`
}

// Check brings the index up to date and then verifies it against the vault.
func (s *Store) Check(ctx context.Context) (h *Health, err error) {
	rep, err := s.Sync(ctx)
	if err != nil {
		return nil, err
	}
	h = &Health{Sync: rep, Broken: []string{}, SharedIDs: []SharedID{}, Temps: []string{}}
	rl, err := s.lockIndex(ctx, true)
	if err != nil {
		return nil, err
	}
	var settle func()
	defer func() {
		release(rl, &err)
		if err == nil && settle != nil {
			settle()
		}
	}()
	gen, cat, err := s.load()
	if err != nil {
		return nil, err
	}
	defer closeCatalog(cat, &err)
	scan, err := s.scan(gen, cat, true)
	if err != nil {
		return nil, err
	}
	for _, t := range scan.Temps {
		h.Temps = append(h.Temps, s.v.VaultPath(t))
	}
	h.Pending = len(scan.Changed) + len(scan.Removed)
	if scan.Clean() && scan.Unsettled > 0 {
		writtenAt := cat.WrittenAt
		settle = func() { s.settle(ctx, gen, writtenAt, scan) }
	}
	shared := map[string][]string{}
	err = cat.Records(func(r *index.Record) error {
		switch {
		case r.Broken != "":
			h.Broken = append(h.Broken, r.Broken)
		case r.FID != "":
			shared[r.FID] = append(shared[r.FID], s.v.VaultPath(r.Path))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for id, paths := range shared {
		if len(paths) > 1 {
			sort.Strings(paths)
			h.SharedIDs = append(h.SharedIDs, SharedID{ID: id, Paths: paths})
		}
	}
	sort.Slice(h.SharedIDs, func(i, j int) bool { return h.SharedIDs[i].ID < h.SharedIDs[j].ID })
	entries, err := cat.Entries()
	if err != nil {
		return nil, err
	}
	h.Notes = len(entries)
	want := s.v.RenderIndex(entries)
	if got, err := os.ReadFile(s.v.IndexPath()); err != nil || !bytes.Equal(got, want) {
		if err := s.v.WriteIndex(want); err != nil {
			return nil, err
		}
		h.MapRepaired = true
	}
	b, err := index.OpenGeneration(gen, true)
	if err != nil {
		return nil, err
	}
	h.Documents, err = b.DocCount()
	if cerr := b.Close(); err == nil {
		err = cerr
	}
	return h, err
}

// InStep reports whether the index agrees with the vault.
func (h *Health) InStep() bool { return h.Pending == 0 && uint64(h.Notes) == h.Documents }
