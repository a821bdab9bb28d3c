package store

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/vault"
)

// What a merge leaves behind. A vault moved between machines by git or a
// sync tool can hold, after a pull or a sync, notes in which git left its
// conflict markers, copies a sync tool made of a note changed on two
// machines before they synced, and memories replaced on two machines at
// once. None is lost or overwritten: a copy is not indexed (it would recall
// as a duplicate of its original, and the original must keep its id however
// the names sort) and never rewritten; a note holding markers is indexed as
// it is, or skipped like any unreadable note when the markers are in its
// properties. cortex doctor lists each with the fix.

// copyAdvice ends the Broken text of a conflict copy; check tells copies
// from unreadable notes by it.
const copyAdvice = "it is not indexed until then"

// conflictCopy tells whether the note at path, holding id, is a sync tool's
// conflict copy, and of which note. A name only a number sets apart ("note
// 2.md") is a copy only when its original holds the same id: people number
// their own notes too.
func (s *Store) conflictCopy(path, id string) (vault.ConflictCopy, bool) {
	c, ok := vault.ConflictCopyOf(path)
	if !ok || !c.Numbered {
		return c, ok
	}
	if id == "" {
		return c, false
	}
	data, _, err := s.v.ReadRaw(c.Original)
	if err != nil {
		return c, false
	}
	n, err := vault.ParseNote(data)
	return c, err == nil && n.ID() == id
}

// copyBroken is the Broken text of a conflict copy.
func (s *Store) copyBroken(path string, c vault.ConflictCopy) string {
	return fmt.Sprintf("%s: a conflict copy %s made of %s (another machine's version of it): move what only the copy holds into %s, then delete the copy; %s",
		s.v.VaultPath(path), c.Tool, s.v.VaultPath(c.Original), s.v.VaultPath(c.Original), copyAdvice)
}

// isCopyRecord reports whether a catalog record is a conflict copy kept out
// of the index.
func isCopyRecord(r *index.Record) bool {
	_, ok := vault.ConflictCopyOf(r.Path)
	return ok && strings.HasSuffix(r.Broken, copyAdvice)
}

// Leftover is something a merge or a sync left in the vault, with the fix.
type Leftover struct {
	// Path is the file's path in the vault.
	Path string `json:"path"`
	// Kind is "markers" (git's conflict markers in a note) or "copy" (a
	// sync tool's conflict copy).
	Kind string `json:"kind"`
	// Tool names the sync tool whose naming a copy has.
	Tool string `json:"tool,omitempty"`
	// Original is the note (or map of contents) a copy is a copy of.
	Original string `json:"original,omitempty"`
	// Lines are the lines of each conflict's "<<<<<<<" marker.
	Lines []int `json:"lines,omitempty"`
	// Properties is set when a conflict is in the note's properties: the
	// note cannot be read until it is resolved.
	Properties bool `json:"properties,omitempty"`
	// Fix says what to do.
	Fix string `json:"fix"`
}

// Fork is a memory replaced more than once: superseded on two machines
// before they synced, each replacement says it supersedes it.
type Fork struct {
	// ID is the memory replaced; Path its note ("" when it is gone).
	ID   string `json:"id"`
	Path string `json:"path,omitempty"`
	// By are the ids of the replacements, each with its note.
	By    []string `json:"by"`
	Paths []string `json:"paths"`
	// Kept is the replacement the memory's superseded_by names, when it
	// names one of them.
	Kept string `json:"kept,omitempty"`
	Fix  string `json:"fix"`
}

// leftovers reads every note the catalog knows (and the top of the cortex
// folder, for copies of the map of contents) for what a merge left: notes
// holding conflict markers, conflict copies and forked supersede chains.
func (s *Store) leftovers(cat *index.Catalog) ([]Leftover, []Fork, error) {
	out := []Leftover{}
	type replaced struct{ by, paths []string }
	supersedes := map[string]*replaced{}
	paths := map[string]string{}        // id → path
	supersededBy := map[string]string{} // id → the id its superseded_by names
	err := cat.Records(func(r *index.Record) error {
		vp := s.v.VaultPath(r.Path)
		if isCopyRecord(r) {
			c, _ := vault.ConflictCopyOf(r.Path)
			orig := s.v.VaultPath(c.Original)
			fix := fmt.Sprintf("move what only the copy holds into %s, then delete the copy", orig)
			if _, err := os.Lstat(s.v.Abs(c.Original)); err != nil {
				fix = fmt.Sprintf("%s is gone: rename the copy to it to keep it", orig)
			}
			out = append(out, Leftover{Path: vp, Kind: "copy", Tool: c.Tool, Original: orig, Fix: fix})
			return nil
		}
		data, _, err := s.v.ReadRaw(r.Path)
		if err != nil {
			return nil // gone or unreadable since: the next sync says so
		}
		if hunks := vault.ConflictMarkers(data); len(hunks) > 0 || r.Broken != "" && strings.Contains(r.Broken, "conflict markers") {
			l := Leftover{Path: vp, Kind: "markers", Properties: r.Broken != ""}
			for _, h := range hunks {
				l.Lines = append(l.Lines, h.Start)
			}
			if l.Properties {
				l.Fix = "keep one side's properties and delete the marker lines (<<<<<<<, =======, >>>>>>>); the note is not indexed until then"
			} else {
				l.Fix = "keep what each side wrote that matters and delete the marker lines (<<<<<<<, =======, >>>>>>>)"
			}
			out = append(out, l)
		}
		if r.Broken != "" {
			return nil
		}
		n, err := vault.ParseNote(data)
		if err != nil {
			return nil
		}
		paths[r.ID] = vp
		m := n.Memory(r.Path, time.Time{})
		supersededBy[r.ID] = m.SupersededBy
		if m.Supersedes != "" {
			if supersedes[m.Supersedes] == nil {
				supersedes[m.Supersedes] = &replaced{}
			}
			supersedes[m.Supersedes].by = append(supersedes[m.Supersedes].by, r.ID)
			supersedes[m.Supersedes].paths = append(supersedes[m.Supersedes].paths, vp)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if entries, err := os.ReadDir(s.v.Dir); err == nil {
		for _, e := range entries {
			if !e.IsDir() && vault.IsIndexCopy(e.Name()) {
				c, _ := vault.ConflictCopyOf(e.Name())
				out = append(out, Leftover{Path: s.v.VaultPath(e.Name()), Kind: "copy", Tool: c.Tool, Original: s.v.VaultPath(vault.IndexFile),
					Fix: "delete it: the map of contents is made from the notes, and cortex rewrites it"})
			}
		}
	}
	slices.SortFunc(out, func(a, b Leftover) int { return strings.Compare(a.Path, b.Path) })
	forks := []Fork{}
	for old, rp := range supersedes {
		if len(rp.by) < 2 {
			continue
		}
		f := Fork{ID: old, Path: paths[old]}
		order := make([]int, len(rp.by))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return strings.Compare(rp.by[a], rp.by[b]) })
		for _, i := range order {
			f.By, f.Paths = append(f.By, rp.by[i]), append(f.Paths, rp.paths[i])
		}
		if k := supersededBy[old]; slices.Contains(f.By, k) {
			f.Kept = k
		}
		f.Fix = fmt.Sprintf("memory %s was replaced %d times (on two machines before they synced): keep one replacement, and supersede the others by it (cortex supersede ID --with ...) or merge them into it", old, len(f.By))
		forks = append(forks, f)
	}
	slices.SortFunc(forks, func(a, b Fork) int { return strings.Compare(a.ID, b.ID) })
	return out, forks, nil
}
