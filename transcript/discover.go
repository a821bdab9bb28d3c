package transcript

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// NewDiscovery is an empty discovery of source's transcripts (its lists
// empty, not nil, so that they encode as []).
func NewDiscovery(source SourceKind) Discovery {
	return Discovery{Source: source, Roots: []Root{}, Files: []Found{}, Skipped: []Skip{}}
}

// Skip records something discovery did not read, and why.
func (d *Discovery) Skip(path, reason string) {
	d.Skipped = append(d.Skipped, Skip{Path: path, Reason: reason})
}

// AddRoot records a folder discovery looks in and, when it is a folder not
// looked in already (through another path or a link), calls walk on it;
// otherwise it records why the folder is skipped: missing, unreadable, not a
// folder, or the same folder as an earlier root.
func (d *Discovery) AddRoot(r Root, walk func(dir string)) {
	fi, err := os.Stat(r.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.Skip(r.Path, "no such folder")
	case err != nil:
		d.Skip(r.Path, err.Error())
	case !fi.IsDir():
		d.Skip(r.Path, "not a folder")
	default:
		real := realPath(r.Path)
		for _, prev := range d.Roots {
			if prev.Exists && realPath(prev.Path) == real {
				d.Skip(r.Path, "the same folder as "+prev.Path)
				d.Roots = append(d.Roots, r)
				return
			}
		}
		r.Exists = true
		d.Roots = append(d.Roots, r)
		walk(r.Path)
		return
	}
	d.Roots = append(d.Roots, r)
}

// Roles of a transcript file (Found.Role).
const (
	RoleSession  = "session"
	RoleSubagent = "subagent"
)

// notFollowed is why discovery passes over a symbolic link.
const notFollowed = "symbolic link, not followed"

// AddFile records the transcript at path, with the session its location
// implies and its role, when it is a regular file that is not empty;
// otherwise it records why it is skipped. A symbolic link is not followed
// (Lstat): discovery lists the files the tool wrote in its own folders, and
// a link may lead out of them or to a file listed already. Adapters' walks
// skip links before they get here; AddFile holds the rule for a file
// replaced by a link in between, and for callers that do not.
func (d *Discovery) AddFile(path, session, role string) {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		d.Skip(path, err.Error())
	case fi.Mode()&fs.ModeSymlink != 0:
		d.Skip(path, notFollowed)
	case !fi.Mode().IsRegular():
		d.Skip(path, "not a regular file")
	case fi.Size() == 0:
		d.Skip(path, "empty")
	default:
		d.Files = append(d.Files, Found{Path: path, Session: session, Role: role, Size: fi.Size()})
	}
}

// ReadDir returns the entries of dir, sorted by name, without its symbolic
// links, each of which it records as skipped (not followed); when dir cannot
// be read it records why and returns nothing. dir itself may be a link (a
// root the person pointed elsewhere): AddRoot has accepted it.
func (d *Discovery) ReadDir(dir string) []fs.DirEntry {
	entries, err := os.ReadDir(dir)
	if err != nil {
		d.Skip(dir, err.Error())
		return nil
	}
	out := entries[:0]
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 {
			d.Skip(filepath.Join(dir, e.Name()), notFollowed)
			continue
		}
		out = append(out, e)
	}
	return out
}

// WalkFiles calls fn with the path of every file below dir, at any depth,
// in lexical order, reading folders with ReadDir (so links are skipped, and
// a folder that cannot be read is skipped with the reason).
func (d *Discovery) WalkFiles(dir string, fn func(path string)) {
	for _, e := range d.ReadDir(dir) {
		path := filepath.Join(dir, e.Name())
		if e.IsDir() {
			d.WalkFiles(path, fn)
		} else {
			fn(path)
		}
	}
}

// realPath is path with its links resolved, path itself when that fails.
func realPath(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

// Sort orders what was found and what was skipped by path: discovery is
// deterministic whatever order the folders were read in.
func (d *Discovery) Sort() {
	slices.SortFunc(d.Files, func(x, y Found) int { return strings.Compare(x.Path, y.Path) })
	slices.SortFunc(d.Skipped, func(x, y Skip) int { return strings.Compare(x.Path, y.Path) })
}
