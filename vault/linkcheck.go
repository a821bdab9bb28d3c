package vault

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// NoteLink is one wiki link ([[target]], [[target|alias]], ![[embed]]) in a
// note of cortex's folder.
type NoteLink struct {
	// Note is the note's path relative to cortex's folder.
	Note string `json:"note"`
	// Line is the 1-based line the link is on.
	Line int `json:"line"`
	// Key is the frontmatter property the link is in; "" in the body.
	Key string `json:"key,omitempty"`
	// Link is the link as written, brackets included.
	Link string `json:"link"`
	// Target is what the link names: a file name or a path, without its
	// heading or alias.
	Target string `json:"target"`
}

// LinkCheck is what CheckLinks found.
type LinkCheck struct {
	Notes int `json:"notes"` // notes read
	Links int `json:"links"` // links checked
	// Dangling are links whose target is no file in the vault.
	Dangling []NoteLink `json:"dangling"`
	// Ambiguous are links by a bare name that several files in the vault
	// have: Obsidian sends them to one of them.
	Ambiguous []NoteLink `json:"ambiguous"`
}

// CheckLinks reads every note of cortex's folder and checks that each wiki
// link in it — in the properties and the body, outside code — names a file
// of the vault, resolving links as Obsidian does: a bare name matches a file
// of that name anywhere in the vault (".md" may be left out), a path matches
// from the vault root (or, relative, from the note's folder). Names are
// compared without regard to case. Hidden folders (.obsidian, .git, .trash)
// hold no link targets. It reads every note, so it is for doctor, not for
// every command.
func (v *Vault) CheckLinks() (*LinkCheck, error) {
	files, err := v.vaultFiles()
	if err != nil {
		return nil, err
	}
	notes, err := v.noteFiles()
	if err != nil {
		return nil, err
	}
	folder := v.linkFolder()
	res := &LinkCheck{Dangling: []NoteLink{}, Ambiguous: []NoteLink{}}
	for _, rel := range notes {
		data, _, err := v.ReadRaw(rel)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrTooLarge) {
			continue // gone, or a link out of the vault: no note
		}
		if err != nil {
			return nil, err
		}
		res.Notes++
		from := path.Dir(path.Join(folder, rel))
		for _, l := range NoteLinks(rel, data) {
			res.Links++
			switch files.resolve(from, l.Target) {
			case 0:
				res.Dangling = append(res.Dangling, l)
			case 1:
			default:
				res.Ambiguous = append(res.Ambiguous, l)
			}
		}
	}
	return res, nil
}

// vaultFileSet is every file of the vault, for resolving links.
type vaultFileSet struct {
	paths map[string]bool // lower-case paths from the root, with and without ".md"
	names map[string]int  // lower-case file names, with and without ".md": how many files have them
	// tails are the ends of paths that hold a folder: what follows each "/"
	// of a path but its last, so that a link by the end of a path is one
	// look-up, not a pass over the vault's files per link.
	tails map[string]bool
}

// resolve counts the files a link target from a note in folder from names:
// 0 for a dangling link, more than 1 for an ambiguous one.
func (s *vaultFileSet) resolve(from, target string) int {
	t := strings.ToLower(strings.TrimSuffix(target, "/"))
	switch {
	case strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../"):
		if s.paths[path.Join(strings.ToLower(from), t)] {
			return 1
		}
		return 0
	case strings.Contains(t, "/"):
		if s.paths[strings.TrimPrefix(path.Clean(t), "/")] {
			return 1
		}
		// Obsidian also takes the end of a path.
		if s.tails[t] {
			return 1
		}
		return 0
	}
	return s.names[t]
}

// addPath adds a file's path (lower-case, from the root) and its tails.
func (s *vaultFileSet) addPath(p string) {
	s.paths[p] = true
	last := strings.LastIndexByte(p, '/')
	for i := strings.IndexByte(p, '/'); i >= 0 && i < last; {
		s.tails[p[i+1:]] = true
		j := strings.IndexByte(p[i+1:], '/')
		if j < 0 {
			break
		}
		i += 1 + j
	}
}

// vaultFiles lists every file of the vault outside hidden folders.
func (v *Vault) vaultFiles() (*vaultFileSet, error) {
	s := &vaultFileSet{paths: map[string]bool{}, names: map[string]int{}, tails: map[string]bool{}}
	err := filepath.WalkDir(v.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == v.Root && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipAll
			}
			return nil // an unreadable folder holds no targets we can see
		}
		name := d.Name()
		if d.IsDir() {
			if p != v.Root && strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(name, ".") {
			return nil
		}
		rel, err := filepath.Rel(v.Root, p)
		if err != nil {
			return nil
		}
		rel = strings.ToLower(filepath.ToSlash(rel))
		name = strings.ToLower(name)
		s.addPath(rel)
		s.names[name]++
		if ext := path.Ext(name); ext == ".md" {
			s.addPath(strings.TrimSuffix(rel, ext))
			s.names[strings.TrimSuffix(name, ext)]++
		}
		return nil
	})
	return s, err
}

// noteFiles lists the notes of cortex's folder, as the scan finds them,
// sorted.
func (v *Vault) noteFiles() ([]string, error) {
	res, err := v.Scan(NoKnown{}, ScanOptions{StatNotes: true})
	if err != nil {
		return nil, err
	}
	notes := make([]string, len(res.Changed))
	for i, f := range res.Changed {
		notes[i] = f.Path
	}
	sort.Strings(notes)
	return notes, nil
}

// wikiLinkRe finds wiki links and embeds on a line.
var wikiLinkRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`!?\[\[([^\[\]\n]*)\]\]`) })

// frontmatterKeyRe is a top-level property's first line.
var frontmatterKeyRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([^\s#\-'"][^:]*):`) })

// NoteLinks lists the wiki links of a note (the path names it) in file
// order: those in its properties with the property's name, those in its
// body outside fenced code blocks and inline code. A link to a heading of
// the same note ([[#heading]]) names no other file and is left out.
func NoteLinks(note string, data []byte) []NoteLink {
	var out []NoteLink
	sc := bufio.NewScanner(bytes.NewReader(bytes.TrimPrefix(data, utf8BOM)))
	// A buffer the note's size, not a fixed 64 KB: doctor reads every note,
	// and most are a few KB.
	sc.Buffer(make([]byte, min(len(data)+1, 64<<10)), MaxNoteBytes+1)
	const (
		start = iota
		front
		body
	)
	state, key := start, ""
	var code codeFence
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch state {
		case start:
			state = body
			if isDelimiter([]byte(line)) {
				state = front
				continue
			}
		case front:
			if isDelimiter([]byte(line)) {
				state, key = body, ""
				continue
			}
			if m := frontmatterKeyRe().FindStringSubmatch(line); m != nil {
				key = strings.TrimSpace(m[1])
			}
			out = appendLinks(out, note, n, key, line, false)
			continue
		}
		// The body: code is no link.
		if code.skip(line) {
			continue
		}
		out = appendLinks(out, note, n, "", line, true)
	}
	return out
}

// codeFence follows a body's fenced code blocks line by line.
type codeFence struct{ open string }

// skip reports whether line is a fence or inside a fenced block (CommonMark:
// up to three spaces of indent; a block closes at a fence of its character at
// least as long, with nothing after it).
func (c *codeFence) skip(line string) bool {
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) <= 3 {
		if f := fenceOf(trimmed); f != "" {
			switch {
			case c.open == "":
				c.open = f
			case strings.HasPrefix(f, c.open) && strings.TrimSpace(strings.TrimLeft(trimmed, f[:1])) == "":
				c.open = ""
			}
			return true
		}
	}
	return c.open != ""
}

// fenceOf is the run of backticks or tildes (three or more) that opens or
// closes a fenced code block on line, "" when line is no fence.
func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// codeSpans are the inline code spans of line — text between runs of
// backticks of one length — as [start, end) byte offsets.
func codeSpans(line string) [][2]int {
	if !strings.Contains(line, "`") {
		return nil
	}
	var spans [][2]int
	for i := 0; i < len(line); {
		if line[i] != '`' {
			i++
			continue
		}
		n := i
		for n < len(line) && line[n] == '`' {
			n++
		}
		end := strings.Index(line[n:], line[i:n])
		if end < 0 {
			break
		}
		spans = append(spans, [2]int{i, n + end + (n - i)})
		i = n + end + (n - i)
	}
	return spans
}

// appendLinks adds the links of line, leaving out those in or across inline
// code when code is set.
func appendLinks(out []NoteLink, note string, n int, key, line string, code bool) []NoteLink {
	if !strings.Contains(line, "[[") {
		return out
	}
	var spans [][2]int
	if code {
		spans = codeSpans(line)
	}
	for _, m := range wikiLinkRe().FindAllStringSubmatchIndex(line, -1) {
		if slices.ContainsFunc(spans, func(sp [2]int) bool { return m[0] < sp[1] && sp[0] < m[1] }) {
			continue
		}
		target, _, _ := strings.Cut(line[m[2]:m[3]], "|")
		target, _, _ = strings.Cut(target, "#")
		target = strings.TrimSpace(strings.ReplaceAll(target, `\`, ""))
		if target == "" {
			continue
		}
		out = append(out, NoteLink{Note: note, Line: n, Key: key, Link: line[m[0]:m[1]], Target: target})
	}
	return out
}

// LinkedNote is an entry of cortex's folder that is a symbolic link.
type LinkedNote struct {
	// Path is relative to cortex's folder.
	Path string `json:"path"`
	// Target is where the link leads ("" when it leads nowhere).
	Target string `json:"target"`
	// Read says cortex reads it as a note: it leads to a file inside the
	// vault. cortex never rewrites it either way.
	Read bool `json:"read"`
	// Reason says why it is not read, or that it is never rewritten.
	Reason string `json:"reason"`
}

// Symlinks lists the symbolic links in cortex's folder (outside hidden
// folders) and what cortex makes of each: a note leading inside the vault is
// read and never rewritten; one leading outside the vault or nowhere, and a
// link to a folder, are not read.
func (v *Vault) Symlinks() ([]LinkedNote, error) {
	out := []LinkedNote{}
	err := filepath.WalkDir(v.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == v.Dir && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipAll
			}
			return nil
		}
		name := d.Name()
		if p != v.Dir && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		rel, err := filepath.Rel(v.Dir, p)
		if err != nil {
			return nil
		}
		ln := LinkedNote{Path: filepath.ToSlash(rel)}
		target, err := filepath.EvalSymlinks(p)
		if err == nil {
			if abs, aerr := filepath.Abs(target); aerr == nil {
				target = abs
			}
			ln.Target = target
		}
		var fi os.FileInfo
		if err == nil {
			fi, err = os.Stat(target)
		}
		switch {
		case err != nil:
			if t, rerr := os.Readlink(p); rerr == nil {
				ln.Target = t
			}
			ln.Reason = "leads nowhere: not read"
		case !v.inside(target):
			ln.Reason = "leads outside the vault: not read"
		case fi.IsDir():
			ln.Reason = "a folder: not followed"
		case !isNoteName(name):
			ln.Reason = "not a note"
		default:
			ln.Read, ln.Reason = true, "read as a note, never rewritten"
		}
		out = append(out, ln)
		return nil
	})
	return out, err
}
