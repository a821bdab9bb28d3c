package vault

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cortexmem/cortex/atomicfile"
)

// A vault versioned with git. The notes are the truth and merge as text:
// cortex writes one property a line and never rewrites a note it did not
// change, so two machines' work merges line by line, and new notes have
// names (and ids) of their own on each machine. What cortex derives from the
// notes is not versioned: the map of contents is rewritten by whichever
// machine changes the notes, so as a versioned file it would conflict on
// every pull; each machine makes its own. The state folder (indexes, the
// event log, locks) is never inside the vault. GitInit writes the two files
// that say so, in cortex's own folder (the only one cortex writes in); git
// reads them wherever the repository's root is.

// GitIgnore and GitAttributes are the lines GitInit makes sure the cortex
// folder's .gitignore and .gitattributes hold.
var (
	GitIgnore = []string{
		"# Written by cortex vault git-init: what cortex derives from the notes,",
		"# made again on each machine, never merged.",
		"/" + IndexFile,
		"/" + IndexDir + "/",
		"# a sync tool's copies of it",
		"/_index*conflict*",
		"/_index [0-9]*.md",
		"# temporary files of a write cut short",
		".*.cortex-tmp-*",
	}
	GitAttributes = []string{
		"# Written by cortex vault git-init. The map of contents is rebuilt by",
		"# cortex, never merged: in a repository that tracked it before it was",
		"# ignored (git rm --cached it), a merge takes both sides' lines without a",
		"# conflict, and the next cortex command that sees the notes change",
		"# rewrites it.",
		"/" + IndexFile + " merge=union",
		"/" + IndexDir + "/** merge=union",
	}
)

// GitFile is one file GitInit looked after.
type GitFile struct {
	// Path is the file's path in the vault.
	Path string `json:"path"`
	// Added counts the lines it added; 0 when the file held them all.
	Added int `json:"added"`
}

// GitInit makes sure the cortex folder's .gitignore and .gitattributes hold
// cortex's lines, adding the missing ones after what a person wrote there.
// Run again, it changes nothing.
func (v *Vault) GitInit() ([]GitFile, error) {
	if err := atomicfile.MkdirAll(v.Dir); err != nil {
		return nil, fmt.Errorf("cortex folder %s: %w", v.Dir, err)
	}
	var out []GitFile
	for _, f := range []struct {
		name  string
		lines []string
	}{{".gitignore", GitIgnore}, {".gitattributes", GitAttributes}} {
		n, err := ensureLines(filepath.Join(v.Dir, f.name), f.lines)
		if err != nil {
			return nil, err
		}
		out = append(out, GitFile{Path: v.VaultPath(f.name), Added: n})
	}
	return out, nil
}

// ensureLines appends to the file at p the lines it lacks (comments count
// only with the rule they precede), and returns how many it added.
func ensureLines(p string, lines []string) (int, error) {
	data, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("%s: %w", p, err)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		have[strings.TrimSpace(strings.TrimSuffix(l, "\r"))] = true
	}
	var add, comments []string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "#"):
			comments = append(comments, l)
		case !have[l]:
			add = append(append(add, comments...), l)
			comments = nil
		default:
			comments = nil
		}
	}
	if len(add) == 0 {
		return 0, nil
	}
	buf := bytes.Clone(data)
	if len(buf) > 0 && !bytes.HasSuffix(buf, []byte("\n")) {
		buf = append(buf, '\n')
	}
	if len(buf) > 0 {
		buf = append(buf, '\n')
	}
	buf = append(buf, strings.Join(add, "\n")+"\n"...)
	if err := atomicfile.Write(p, buf); err != nil {
		return 0, fmt.Errorf("%s: %w", p, err)
	}
	n := 0
	for _, l := range add {
		if !strings.HasPrefix(l, "#") {
			n++
		}
	}
	return n, nil
}
