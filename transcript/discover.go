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
