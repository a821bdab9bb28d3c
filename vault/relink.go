package vault

import (
	"bytes"
	"path"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cortexmem/cortex/memories"
)

// Links to a note moved behind Obsidian's back — by a git pull, a sync tool,
// a file manager, `git mv` — lead nowhere once the note has its new name
// (Obsidian rewrites them itself only for a rename made in Obsidian). The
// index notices such a move (a note gone and a note new with the same id)
// and points the links again, but only those cortex owns:
//
//   - links in the relation properties cortex writes (related, the supersede
//     chain, the links of mined notes to each other), in any note: they are
//     cortex's bookkeeping, shown in Obsidian's properties panel;
//   - links in the body of a mined note still as cortex wrote it (its
//     source_hash says so; the hash is brought up to date with the links).
//
// A link in text a person wrote — any other note's body, a mined note they
// edited — is never rewritten: `cortex doctor` lists it as leading nowhere.

// relationKeys are the properties cortex writes links to other notes in.
var relationKeys = map[string]bool{
	"related": true, "supersedes": true, "superseded_by": true,
	"session": true, "produced": true, "produced_by": true, "decisions": true, "episodes": true,
}

// IsRelationKey reports whether key is a property cortex writes links to
// other notes in (and so may point again at a note that moved).
func IsRelationKey(key string) bool { return relationKeys[key] }

// Move is a note that moved: its path before and after, relative to cortex's
// folder.
type Move struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Relinker points the links that name moved notes at their new places.
type Relinker struct {
	// byPath maps an old path target (from the vault root, lower-case,
	// without ".md") to the new one.
	byPath map[string]string
	// byName maps an old file name (lower-case, without ".md") to the new
	// link target: the new name, or the path when the name is not unique.
	byName map[string]string
	// words are what a note that links to a moved note must hold: the old
	// names, lower-case.
	words [][]byte
}

// NewRelinker returns the Relinker of moves. notes are the paths (relative to
// cortex's folder) of every note there after the moves: an old name or path
// that still names one of them is left alone (its links lead somewhere), and
// a link by name gets the new name only when no other note has it, else the
// path.
func (v *Vault) NewRelinker(moves []Move, notes []string) *Relinker {
	folder := v.linkFolder()
	paths := make(map[string]bool, len(notes))
	names := make(map[string]int, len(notes))
	for _, p := range notes {
		paths[strings.ToLower(pathTarget(folder, p))] = true
		names[strings.ToLower(stem(p))]++
	}
	r := &Relinker{byPath: map[string]string{}, byName: map[string]string{}}
	ambiguous := map[string]bool{}
	seen := map[string]bool{}
	for _, m := range moves {
		from, to := strings.ToLower(pathTarget(folder, m.From)), pathTarget(folder, m.To)
		if from == strings.ToLower(to) {
			continue
		}
		if !paths[from] {
			r.byPath[from] = to
		}
		oldName, newName := strings.ToLower(stem(m.From)), stem(m.To)
		if !seen[oldName] {
			seen[oldName] = true
			r.words = append(r.words, []byte(oldName))
		}
		if oldName == strings.ToLower(newName) || names[oldName] > 0 {
			continue // the name still leads to a note: this one, or another
		}
		target := newName
		if names[strings.ToLower(newName)] != 1 {
			target = to
		}
		if prev, ok := r.byName[oldName]; ok && prev != target || ambiguous[oldName] {
			// Two moved notes had that name: a link by it meant either.
			delete(r.byName, oldName)
			ambiguous[oldName] = true
			continue
		}
		r.byName[oldName] = target
	}
	sort.Slice(r.words, func(i, j int) bool { return bytes.Compare(r.words[i], r.words[j]) < 0 })
	return r
}

// stem is a note's file name without ".md".
func stem(p string) string {
	base := path.Base(p)
	if ext := path.Ext(base); strings.EqualFold(ext, ".md") {
		base = base[:len(base)-len(ext)]
	}
	return base
}

// Empty reports whether no link can need pointing again.
func (r *Relinker) Empty() bool { return len(r.byPath) == 0 && len(r.byName) == 0 }

// Mentions reports, cheaply, whether a note's bytes may hold a link to a
// moved note: they name one of the old names.
func (r *Relinker) Mentions(data []byte) bool {
	if !bytes.Contains(data, []byte("[[")) {
		return false
	}
	lower := bytes.ToLower(data)
	for _, w := range r.words {
		if bytes.Contains(lower, w) {
			return true
		}
	}
	return false
}

// retarget is the new target of a link target naming a moved note.
func (r *Relinker) retarget(target string) (string, bool) {
	t := strings.TrimSpace(target)
	lower := strings.ToLower(t)
	md := strings.HasSuffix(lower, ".md")
	lt := strings.TrimSuffix(lower, ".md")
	var to string
	switch {
	case t == "", strings.HasPrefix(t, "./"), strings.HasPrefix(t, "../"):
		return "", false
	case strings.Contains(t, "/"):
		lt = strings.TrimPrefix(lt, "/")
		var ok bool
		if to, ok = r.byPath[lt]; !ok {
			// Obsidian takes the end of a path too.
			var hits []string
			for from, v := range r.byPath {
				if strings.HasSuffix(from, "/"+lt) {
					hits = append(hits, v)
				}
			}
			if len(hits) != 1 {
				return "", false
			}
			to = hits[0]
		}
	default:
		var ok bool
		if to, ok = r.byName[lt]; !ok {
			return "", false
		}
	}
	if md {
		to += ".md"
	}
	return to, true
}

// relinkText points the wiki links of one line (outside inline code, when
// code is set) at the moved notes' new places; n counts the links changed.
func (r *Relinker) relinkText(line string, code bool) (string, int) {
	if !strings.Contains(line, "[[") {
		return line, 0
	}
	var spans [][2]int
	if code {
		spans = codeSpans(line)
	}
	var b strings.Builder
	last, n := 0, 0
	for _, m := range wikiLinkRe().FindAllStringSubmatchIndex(line, -1) {
		inCode := false
		for _, sp := range spans {
			if m[0] < sp[1] && sp[0] < m[1] {
				inCode = true
				break
			}
		}
		if inCode {
			continue
		}
		inner := line[m[2]:m[3]]
		end := strings.IndexAny(inner, "|#")
		if end < 0 {
			end = len(inner)
		}
		raw := strings.TrimSuffix(inner[:end], `\`) // a "\|" in a table
		to, ok := r.retarget(raw)
		if !ok {
			continue
		}
		b.WriteString(line[last:m[2]])
		b.WriteString(to)
		last = m[2] + len(raw)
		n++
	}
	if n == 0 {
		return line, 0
	}
	b.WriteString(line[last:])
	return b.String(), n
}

// Relink points the links of the note n (at rel, relative to cortex's
// folder) that name moved notes at their new places: those in relation
// properties, and, in a mined note still as cortex wrote it, those in the
// body too (its source_hash then follows, so the note stays cortex's). It
// returns how many links changed; the caller writes the note.
func (r *Relinker) Relink(n *Note, rel string) int {
	if r.Empty() {
		return 0
	}
	m := n.Memory(rel, time.Time{})
	mined := m.Source == memories.SourceMined && m.Provenance.SourceHash != "" && !memories.EditedByPerson(m)
	changed := 0
	for _, key := range n.Keys() {
		if !relationKeys[key] {
			continue
		}
		v := n.value(key)
		k := 0
		fix := func(s *yaml.Node) {
			if s.Kind != yaml.ScalarNode {
				return
			}
			out, c := r.relinkText(s.Value, false)
			s.Value, k = out, k+c
		}
		switch v.Kind {
		case yaml.ScalarNode:
			fix(v)
		case yaml.SequenceNode:
			for _, it := range v.Content {
				fix(it)
			}
		}
		if k > 0 {
			n.set(key, v)
			changed += k
		}
	}
	if !mined {
		return changed
	}
	body, k := r.relinkBody(n.Body)
	if k == 0 {
		return changed
	}
	n.Body = body
	if p := n.value("provenance"); p != nil && p.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(p.Content); i += 2 {
			if p.Content[i].Value == "source_hash" && p.Content[i+1].Kind == yaml.ScalarNode {
				p.Content[i+1].Value = memories.MinedHash(n.Memory(rel, time.Time{}))
				n.set("provenance", p)
			}
		}
	}
	return changed + k
}

// relinkBody points the links of a body, outside code, at the moved notes'
// new places.
func (r *Relinker) relinkBody(body []byte) ([]byte, int) {
	lines := strings.SplitAfter(string(body), "\n")
	var code codeFence
	n := 0
	for i, full := range lines {
		line := strings.TrimRight(full, "\r\n")
		if code.skip(line) {
			continue
		}
		out, k := r.relinkText(line, true)
		if k > 0 {
			lines[i] = out + full[len(line):]
			n += k
		}
	}
	if n == 0 {
		return body, 0
	}
	return []byte(strings.Join(lines, "")), n
}
