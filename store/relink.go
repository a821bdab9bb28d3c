package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// Notes moved behind cortex's back. A note renamed or moved on another
// machine arrives with a pull as one note gone and one new that holds the
// same id (or, for a note without one, the same bytes). The sync that applies
// it points the links cortex owns at the new place (see vault.Relinker for
// which), so that no `cortex doctor --fix` is needed after a pull. Finding the
// links reads the notes of cortex's folder, but only when something moved;
// both machines make the same rewrite, byte for byte, so their commits of it
// merge cleanly.

// moves lists the notes of the change set that moved: a path gone whose
// catalog record holds the id (or, without one, the bytes) of exactly one
// new path.
func (c *changeSet) moves() ([]vault.Move, error) {
	type side struct{ gone, came []string }
	pairs := map[string]*side{}
	at := func(k string) *side {
		if pairs[k] == nil {
			pairs[k] = &side{}
		}
		return pairs[k]
	}
	// A note without an id is known by its bytes; an empty one by nothing
	// (Obsidian's new notes start empty, and one deleted while another is
	// made is no move).
	key := func(r *index.Record) string {
		switch {
		case r.FID != "":
			return "id:" + r.FID
		case r.Size == 0:
			return ""
		}
		return fmt.Sprintf("hash:%x", r.Hash)
	}
	for _, p := range slices.Sorted(maps.Keys(c.recs)) {
		r := c.recs[p]
		old, err := c.cat.Get(p)
		if err != nil {
			return nil, err
		}
		switch {
		case r == nil && old != nil && old.Broken == "" && key(old) != "":
			at(key(old)).gone = append(at(key(old)).gone, p)
		case r != nil && old == nil && r.Broken == "" && key(r) != "":
			at(key(r)).came = append(at(key(r)).came, p)
		}
	}
	var out []vault.Move
	for _, k := range slices.Sorted(maps.Keys(pairs)) {
		if s := pairs[k]; len(s.gone) == 1 && len(s.came) == 1 {
			out = append(out, vault.Move{From: s.gone[0], To: s.came[0]})
		}
	}
	return out, nil
}

// notePaths lists every note of the vault once the change set applies.
func (c *changeSet) notePaths() []string {
	var out []string
	for _, d := range c.cat.Dirs() {
		for _, f := range c.cat.Files(d.Path) {
			p := f.Name
			if d.Path != "" && d.Path != "." {
				p = d.Path + "/" + f.Name
			}
			if _, changed := c.recs[p]; !changed {
				out = append(out, p)
			}
		}
	}
	for p, r := range c.recs {
		if r != nil {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// relinkMoved points the links cortex owns at the notes the change set
// moved, rewriting each note concerned atomically and putting its new state
// in the change set. A note that does not parse, is a symbolic link, a
// conflict copy or changes under the rewrite is left as it is. It returns
// the events to log.
func (s *Store) relinkMoved(ch *changeSet) ([]memories.Event, error) {
	moves, err := ch.moves()
	if err != nil || len(moves) == 0 {
		return nil, err
	}
	notes := ch.notePaths()
	rl := s.v.NewRelinker(moves, notes)
	if rl.Empty() {
		return nil, nil
	}
	// A first look at every note's bytes, on every core, finds the few that
	// name a moved note; only those are read as notes.
	mentions := make([]bool, len(notes))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, p := range notes {
		g.Go(func() error {
			data, err := os.ReadFile(s.v.Abs(p))
			mentions[i] = err == nil && rl.Mentions(data)
			return nil
		})
	}
	_ = g.Wait() // a note that cannot be read names nothing
	var events []memories.Event
	links, changedNotes := 0, 0
	for i, p := range notes {
		if !mentions[i] {
			continue
		}
		data, st, err := s.v.ReadRaw(p)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, vault.ErrTooLarge) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if st.Symlink != "" || !rl.Mentions(data) {
			continue
		}
		rec, ok := ch.recs[p]
		if !ok {
			if rec, err = ch.cat.Get(p); err != nil {
				return nil, err
			}
		}
		if rec == nil || rec.Broken != "" {
			continue // a note cortex cannot read, or a conflict copy: never rewritten
		}
		n, err := vault.ParseNote(data)
		if err != nil {
			continue
		}
		k := rl.Relink(n, p)
		if k == 0 {
			continue
		}
		// Someone may have written the note since it was read: then their
		// version stands, and the next command looks again.
		if now, _, err := s.v.ReadRaw(p); err != nil || !bytes.Equal(now, data) {
			continue
		}
		if _, err := s.v.Rewrite(p, n); err != nil {
			var le *vault.LinkError
			if errors.As(err, &le) {
				continue
			}
			return nil, fmt.Errorf("point links at moved notes: %w", err)
		}
		r, m, err := s.readNote(vault.FileStat{Path: p})
		if err != nil {
			return nil, err
		}
		if m != nil {
			// The id does not change with the links: keep the one settled.
			r.ID, m.ID = rec.ID, rec.ID
		}
		ch.put(r, m)
		links += k
		changedNotes++
		events = append(events, memories.Event{Time: s.now().UTC().Truncate(1e9), Op: memories.OpUpdate, ID: rec.ID, Path: p,
			Title: rec.Title, Reason: "links to moved notes pointed at their new place"})
	}
	if links > 0 {
		var ms []string
		for _, m := range moves {
			ms = append(ms, m.From+" → "+m.To)
		}
		s.warn(fmt.Sprintf("pointed %d %s in %d %s at notes that moved (%s)", links, plural(links, "link", "links"),
			changedNotes, plural(changedNotes, "note", "notes"), strings.Join(ms, ", ")))
	}
	return events, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// logRelinked appends the events of relinked notes; the rewrite is done, so
// a log that cannot be written is a warning.
func (s *Store) logRelinked(_ context.Context, events []memories.Event) {
	if err := appendEvents(s.EventLog(), s.stamp(events)); err != nil {
		s.warn(fmt.Sprintf("relinked notes not logged: %v", err))
	}
}
