package store

import (
	"context"
	"sort"
	"strings"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/vault"
)

// Health is what `cortex doctor` reports about the store.
type Health struct {
	// Vault is the folder of notes checked (the cortex folder, symbolic links
	// resolved); BuiltFrom the one the index says it was built from. An index
	// of other notes is never in step, however well it agrees with itself.
	Vault     string `json:"vault"`
	BuiltFrom string `json:"built_from"`
	// Notes is the number of readable notes in the catalog; Documents the
	// number of documents in the full-text index. They must agree.
	Notes     int    `json:"notes"`
	Documents uint64 `json:"documents"`
	// Pending counts vault changes the index has not taken in (0 when in step).
	Pending int `json:"pending"`
	// Mismatched counts notes the catalog does not hold as they are on disk,
	// and records of notes that are gone, found by reading every folder and
	// stat'ing every note: the check every command makes trusts folders whose
	// time is as the catalog recorded, doctor trusts nothing.
	Mismatched int `json:"mismatched"`
	// Rebuilt counts what a first look found mismatched (see Mismatched),
	// after which the index was rebuilt from the notes and checked again.
	Rebuilt int `json:"rebuilt"`
	// Broken lists notes that cannot be read, each with where and why.
	Broken []string `json:"broken"`
	// SharedIDs lists ids written in more than one note.
	SharedIDs []SharedID `json:"shared_ids"`
	// Leftovers lists what a merge or a sync left: notes holding git's
	// conflict markers, sync tools' conflict copies (not indexed).
	Leftovers []Leftover `json:"leftovers"`
	// Forks lists memories replaced more than once (superseded on two
	// machines before they synced).
	Forks []Fork `json:"forks"`
	// Temps lists leftover temporary files.
	Temps []string `json:"temps"`
	// MapRepaired says the map of contents did not match the notes and was
	// rewritten (it is not synced to disk on every change, see
	// atomicfile.WriteDerived, so a power loss can leave it behind).
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
// An index that does not hold the notes as they are on disk is rebuilt from
// them (the notes are the truth) and checked again.
func (s *Store) Check(ctx context.Context) (*Health, error) {
	rep, err := s.Sync(ctx)
	if err != nil {
		return nil, err
	}
	h, err := s.check(ctx, rep)
	if err != nil || h.Mismatched == 0 {
		return h, err
	}
	if rep, err = s.Rebuild(ctx); err != nil {
		return nil, err
	}
	after, err := s.check(ctx, rep)
	if err != nil {
		return nil, err
	}
	after.Rebuilt = h.Mismatched
	return after, nil
}

// check verifies the index against the vault, after the sync that rep tells
// of. It repairs the map of contents only when the index holds every note.
func (s *Store) check(ctx context.Context, rep *SyncReport) (h *Health, err error) {
	h = &Health{Sync: rep, Vault: s.idx.Source, Broken: []string{}, SharedIDs: []SharedID{}, Temps: []string{}}
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
	if h.BuiltFrom, err = index.GenerationSource(gen); err != nil {
		return nil, err
	}
	scan, err := s.scan(gen, cat, true, false)
	if err != nil {
		return nil, err
	}
	for _, t := range scan.Temps {
		h.Temps = append(h.Temps, s.v.VaultPath(t))
	}
	h.Pending = len(scan.Changed) + len(scan.Removed)
	if h.Mismatched, err = s.mismatched(cat); err != nil {
		return nil, err
	}
	if scan.Clean() && scan.Unsettled > 0 {
		writtenAt := cat.WrittenAt
		settle = func() { s.settle(ctx, gen, writtenAt, scan) }
	}
	shared := map[string][]string{}
	err = cat.Records(func(r *index.Record) error {
		switch {
		case r.Broken != "":
			// Conflict copies and conflicts in properties are listed with
			// the merge's leftovers.
			if !isCopyRecord(r) && !strings.Contains(r.Broken, "conflict markers") {
				h.Broken = append(h.Broken, r.Broken)
			}
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
	if h.Leftovers, h.Forks, err = s.leftovers(cat); err != nil {
		return nil, err
	}
	want, notes, err := s.renderMap(cat)
	h.Notes = notes
	if err != nil {
		return nil, err
	}
	if h.Mismatched == 0 && s.hasFolder() && !s.v.MapMatches(want) {
		if err := s.v.WriteMap(want, true); err != nil {
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

// mismatched compares every note on disk with the catalog.
func (s *Store) mismatched(cat *index.Catalog) (int, error) {
	all, err := s.v.Scan(vault.NoKnown{}, vault.ScanOptions{StatNotes: true})
	if err != nil {
		return 0, err
	}
	n := 0
	onDisk := make(map[string]bool, len(all.Changed))
	for _, f := range all.Changed {
		onDisk[f.Path] = true
		r, err := cat.Get(f.Path)
		if err != nil {
			return 0, err
		}
		if r == nil || r.Size != f.Size || r.MTime != f.MTime {
			n++
		}
	}
	err = cat.Records(func(r *index.Record) error {
		if !onDisk[r.Path] {
			n++
		}
		return nil
	})
	return n, err
}

// InStep reports whether the index agrees with the vault.
func (h *Health) InStep() bool {
	return h.BuiltFrom == h.Vault && h.Pending == 0 && h.Mismatched == 0 && uint64(h.Notes) == h.Documents
}
