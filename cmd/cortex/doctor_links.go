package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// Doctor's checks of the vault's links: wiki links in cortex's notes that
// lead nowhere (and the ones cortex wrote itself, which it can point again at
// the note they meant, found by id), and notes that are symbolic links.

// The links doctor --fix repairs are those in the properties cortex writes
// links in (vault.IsRelationKey). Their targets carry the id of the note they
// meant — the alias of a supersede link, the end of a note name cortex gave —
// so a link left dangling by a rename outside Obsidian can be pointed at the
// note again. (The next command does this by itself for a move it sees; see
// vault.Relinker.)

// linkRepair is a dangling link cortex can point at the note it meant.
type linkRepair struct {
	vault.NoteLink
	To string `json:"to"` // the link that replaces it
	id string
	// toTarget is the new target, without brackets and alias.
	toTarget, toPath string
}

// vaultLinksReport is doctor's report on links and symbolic links.
type vaultLinksReport struct {
	Links *vault.LinkCheck `json:"links"`
	// Repaired are the links --fix pointed at their notes again;
	// Repairable the ones it would.
	Repaired   []linkRepair `json:"repaired"`
	Repairable []linkRepair `json:"repairable"`
	// Unrepaired are repairs that failed (a note that is a symbolic link, one
	// that cannot be read), with why.
	Unrepaired []string `json:"unrepaired,omitempty"`
	// Moved are dangling links in a person's text (a note's body, a
	// property cortex does not write) whose note is found by the id its old
	// name holds: where it is now. cortex never rewrites them.
	Moved    []linkRepair       `json:"moved"`
	Symlinks []vault.LinkedNote `json:"symlinks"`
}

// checkVaultLinks reports the links of cortex's notes that lc (CheckLinks)
// found leading nowhere and, with fix, repairs the ones cortex wrote.
func checkVaultLinks(ctx context.Context, a *app, lc *vault.LinkCheck, fix bool) (*vaultLinksReport, error) {
	v := a.store.Vault()
	syms, err := v.Symlinks()
	if err != nil {
		return nil, fmt.Errorf("list symbolic links: %w", err)
	}
	rep := &vaultLinksReport{Links: lc, Repaired: []linkRepair{}, Repairable: []linkRepair{}, Moved: []linkRepair{}, Symlinks: syms}
	var cands, prose []vault.NoteLink
	for _, l := range lc.Dangling {
		if vault.IsRelationKey(l.Key) {
			cands = append(cands, l)
		} else {
			prose = append(prose, l)
		}
	}
	defer rep.shownFromVault(v)
	if len(prose) > 0 {
		err = a.store.View(ctx, func(snap memories.Snapshot) error {
			rs, err := planRepairs(v, snap, prose)
			rep.Moved = append(rep.Moved, rs...)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if len(cands) == 0 {
		return rep, nil
	}
	if !fix {
		err = a.store.View(ctx, func(snap memories.Snapshot) error {
			rs, err := planRepairs(v, snap, cands)
			rep.Repairable = append(rep.Repairable, rs...)
			return err
		})
		if err != nil {
			return nil, err
		}
		return rep, nil
	}
	err = a.store.Update(ctx, func(tx memories.Tx) error {
		rs, err := planRepairs(v, tx, cands)
		if err != nil {
			return err
		}
		done, failed, err := repairLinks(ctx, v, tx, rs)
		rep.Repaired, rep.Unrepaired = append(rep.Repaired, done...), failed
		return err
	})
	if err != nil {
		return nil, err
	}
	// What was repaired no longer dangles.
	fixed := map[vault.NoteLink]bool{}
	for _, r := range rep.Repaired {
		fixed[r.NoteLink] = true
	}
	lc.Dangling = slices.DeleteFunc(lc.Dangling, func(l vault.NoteLink) bool { return fixed[l] })
	return rep, nil
}

// shownFromVault makes the report's paths relative to the vault root, as
// the rest of doctor's report gives them.
func (rep *vaultLinksReport) shownFromVault(v *vault.Vault) {
	for _, ls := range [][]vault.NoteLink{rep.Links.Dangling, rep.Links.Ambiguous} {
		for i := range ls {
			ls[i].Note = v.VaultPath(ls[i].Note)
		}
	}
	for _, rs := range [][]linkRepair{rep.Repaired, rep.Repairable, rep.Moved} {
		for i := range rs {
			rs[i].Note = v.VaultPath(rs[i].Note)
		}
	}
	for i := range rep.Symlinks {
		rep.Symlinks[i].Path = v.VaultPath(rep.Symlinks[i].Path)
	}
}

// planRepairs finds, for each dangling link, the note its target's id names
// now; links whose id names no note, or several, are left out.
func planRepairs(v *vault.Vault, snap memories.Snapshot, links []vault.NoteLink) ([]linkRepair, error) {
	var out []linkRepair
	for _, l := range links {
		ref, supersede := linkRef(l)
		if ref == "" {
			continue
		}
		e, ok, err := linkedEntry(snap, l, ref)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		r := linkRepair{NoteLink: l, id: e.ID, toPath: e.Path}
		_, alias, _ := vault.ParseLink(l.Link)
		switch {
		case supersede:
			r.toTarget, alias = v.LinkTarget(e.Path), e.ID
		case strings.Contains(l.Target, "/"):
			r.toTarget = v.LinkTarget(e.Path)
		default:
			r.toTarget = strings.TrimSuffix(path.Base(e.Path), ".md")
		}
		r.To = "[[" + r.toTarget + "]]"
		if alias != "" {
			r.To = "[[" + r.toTarget + "|" + alias + "]]"
		}
		out = append(out, r)
	}
	return out, nil
}

// maxCandidates bounds the notes whose ids share a link's id prefix that
// are looked at; notes saved within the same second share 8 characters.
const maxCandidates = 64

// linkedEntry finds the one memory whose id starts with ref. Notes made in
// the same second share the id prefix a note name holds; then the one meant
// is the only one whose title gives the rest of the name (cortex named the
// note after its title), else the only one no longer named as cortex names
// notes ("<slug>-<id prefix>"): the note renamed, which left the link
// dangling.
func linkedEntry(snap memories.Snapshot, l vault.NoteLink, ref string) (memories.Entry, bool, error) {
	ids, err := snap.IDsWithPrefix(ref, maxCandidates)
	if err != nil || len(ids) == 0 {
		return memories.Entry{}, false, err
	}
	var all []memories.Entry
	for _, id := range ids {
		e, err := snap.Get(id)
		if errors.Is(err, memories.ErrNotFound) {
			continue
		}
		if err != nil {
			return memories.Entry{}, false, err
		}
		all = append(all, e)
	}
	slug := strings.ToLower(strings.TrimSuffix(path.Base(l.Target), "-"+ref))
	for _, keep := range []func(e memories.Entry) bool{
		func(memories.Entry) bool { return true },
		func(e memories.Entry) bool { return vault.Slug(e.Title) == slug },
		func(e memories.Entry) bool { return !cortexNamed(e) },
	} {
		var found []memories.Entry
		for _, e := range all {
			if keep(e) {
				found = append(found, e)
			}
		}
		if len(found) == 1 {
			return found[0], true, nil
		}
	}
	return memories.Entry{}, false, nil
}

// cortexNamed reports whether e's note is named as cortex names notes: a
// name ending with "-" and at least 8 first characters of its id.
func cortexNamed(e memories.Entry) bool {
	name := strings.TrimSuffix(path.Base(e.Path), ".md")
	i := strings.LastIndexByte(name, '-')
	return i >= 0 && len(name)-i-1 >= memories.MinPrefix && strings.HasPrefix(e.ID, strings.ToLower(name[i+1:]))
}

// linkRef is the id (or id prefix) a dangling link of cortex's names: the
// alias of a supersede link, else the last part of a note name cortex gave
// ("<slug>-<id prefix>"). supersede says which.
func linkRef(l vault.NoteLink) (ref string, supersede bool) {
	if l.Key == "supersedes" || l.Key == "superseded_by" {
		_, alias, ok := vault.ParseLink(l.Link)
		if id := memories.NormalizeID(alias); ok && memories.ValidIDChars(id) {
			return id, true
		}
		return "", true
	}
	name := path.Base(l.Target)
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return "", false
	}
	ref = memories.NormalizeID(name[i+1:])
	if len(ref) < memories.MinPrefix || !memories.ValidIDChars(ref) {
		return "", false
	}
	return ref, false
}

// repairLinks rewrites the properties holding the links of rs, one note at
// a time, through the store (so the index follows). A note that cannot be
// rewritten — a symbolic link, a note cortex cannot read — is left as it is
// and said so.
func repairLinks(ctx context.Context, v *vault.Vault, tx memories.Tx, rs []linkRepair) (done []linkRepair, failed []string, err error) {
	byNote := map[string][]linkRepair{}
	var notes []string
	for _, r := range rs {
		if byNote[r.Note] == nil {
			notes = append(notes, r.Note)
		}
		byNote[r.Note] = append(byNote[r.Note], r)
	}
	for _, p := range notes {
		ok, why, err := repairNote(ctx, v, tx, p, byNote[p])
		if err != nil {
			return done, failed, err
		}
		if !ok {
			failed = append(failed, fmt.Sprintf("%s: %s", v.VaultPath(p), why))
			continue
		}
		done = append(done, byNote[p]...)
	}
	return done, failed, nil
}

// repairNote points the links rs of the note at p at their notes. ok is
// false, with why, when the note is left as it is.
func repairNote(ctx context.Context, v *vault.Vault, tx memories.Tx, p string, rs []linkRepair) (ok bool, why string, err error) {
	m, err := tx.Load(ctx, p)
	var pe *vault.ParseError
	switch {
	case errors.As(err, &pe), errors.Is(err, fs.ErrNotExist), errors.Is(err, vault.ErrTooLarge):
		return false, err.Error(), nil
	case err != nil:
		return false, "", err
	case m.Symlink != "":
		return false, "a symbolic link to " + m.Symlink + ": cortex never rewrites it", nil
	}
	n, _, err := v.Read(p)
	if err != nil {
		return false, "", err
	}
	var keys []string
	for _, r := range rs {
		if !slices.Contains(keys, r.Key) {
			keys = append(keys, r.Key)
		}
		switch r.Key {
		case "related":
			for i, t := range m.Related {
				if t == r.Target {
					m.Related[i] = r.toTarget
				}
			}
		case "supersedes":
			m.Supersedes, m.SupersedesNote = r.id, r.toPath
		case "superseded_by":
			m.SupersededBy, m.SupersededByNote = r.id, r.toPath
		default:
			setField(m, n, r)
		}
	}
	if err := tx.Patch(ctx, m, keys...); err != nil {
		if errors.Is(err, vault.ErrLink) {
			return false, err.Error(), nil
		}
		return false, "", err
	}
	tx.Record(memories.Event{Time: time.Now().UTC().Truncate(time.Second), Op: memories.OpUpdate, ID: m.ID, Path: m.Path,
		Title: m.Title, Reason: "links repaired: " + strings.Join(keys, ", ")})
	return true, "", nil
}

// setField puts into m.Fields the property r.Key of note n with r's link
// replaced, as a list or a single value as the note has it.
func setField(m *memories.Memory, n *vault.Note, r linkRepair) {
	i := slices.IndexFunc(m.Fields, func(f memories.Field) bool { return f.Key == r.Key })
	if i < 0 {
		f := memories.Field{Key: r.Key}
		if n.IsList(r.Key) {
			f.List = n.Strings(r.Key)
		} else {
			f.Value = n.String(r.Key)
		}
		m.Fields = append(m.Fields, f)
		i = len(m.Fields) - 1
	}
	f := &m.Fields[i]
	if f.Value == r.Link {
		f.Value = r.To
	}
	for j, it := range f.List {
		if it == r.Link {
			f.List[j] = r.To
		}
	}
}

// maxListed bounds the links doctor names in text; --json lists them all.
const maxListed = 50

// printVaultLinks writes the link and symbolic link sections of doctor's
// report.
func printVaultLinks(w io.Writer, v *vault.Vault, rep *vaultLinksReport) {
	lc := rep.Links
	at := func(l vault.NoteLink) string {
		s := fmt.Sprintf("%s:%d  ", l.Note, l.Line)
		if l.Key != "" {
			s += l.Key + ": "
		}
		return s + l.Link
	}
	repairable, moved := map[vault.NoteLink]string{}, map[vault.NoteLink]string{}
	for _, r := range rep.Repairable {
		repairable[r.NoteLink] = r.To
	}
	for _, r := range rep.Moved {
		moved[r.NoteLink] = r.To
	}
	if len(lc.Dangling) == 0 {
		fmt.Fprintf(w, "✓ links       %d links in %d notes lead to a note or file of the vault\n", lc.Links, lc.Notes)
	} else {
		fmt.Fprintf(w, "! links       %d of %d links in %d notes %s nowhere in the vault:\n", len(lc.Dangling), lc.Links, lc.Notes,
			plural(len(lc.Dangling), "leads", "lead"))
		for i, l := range lc.Dangling {
			if i == maxListed {
				fmt.Fprintf(w, "                … and %d more (cortex doctor --json lists them all)\n", len(lc.Dangling)-maxListed)
				break
			}
			line := "                " + at(l)
			if to, ok := repairable[l]; ok {
				line += " (cortex doctor --fix points it at " + to + ")"
			} else if to, ok := moved[l]; ok {
				line += " (the note it meant is now " + to + "; a link in your text: cortex leaves it to you)"
			}
			fmt.Fprintln(w, line)
		}
	}
	for _, r := range rep.Repaired {
		fmt.Fprintf(w, "✓ repaired    %s → %s\n", at(r.NoteLink), r.To)
	}
	for _, u := range rep.Unrepaired {
		fmt.Fprintf(w, "! unrepaired  %s\n", u)
	}
	if len(lc.Ambiguous) > 0 {
		fmt.Fprintf(w, "! links       %d %s a file name several files of the vault have (Obsidian opens one of them):\n", len(lc.Ambiguous),
			plural(len(lc.Ambiguous), "link names", "links name"))
		for i, l := range lc.Ambiguous {
			if i == maxListed {
				fmt.Fprintf(w, "                … and %d more (cortex doctor --json lists them all)\n", len(lc.Ambiguous)-maxListed)
				break
			}
			fmt.Fprintf(w, "                %s\n", at(l))
		}
	}
	if len(rep.Symlinks) == 0 {
		fmt.Fprintln(w, "✓ symlinks    no note is a symbolic link")
		return
	}
	fmt.Fprintf(w, "! symlinks    %d %s in %s/ (cortex reads a note only inside the vault, and never rewrites a link):\n",
		len(rep.Symlinks), plural(len(rep.Symlinks), "symbolic link", "symbolic links"), v.VaultPath(""))
	for _, s := range rep.Symlinks {
		target := s.Target
		if target == "" {
			target = "nothing"
		}
		fmt.Fprintf(w, "                %s → %s: %s\n", s.Path, target, s.Reason)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
