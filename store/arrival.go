package store

import (
	"bytes"
	"os"
	"path/filepath"
	"time"
)

// Notes that arrive from another machine. A sync tool (Syncthing, Obsidian
// Sync, iCloud) applies what changed file by file, over time, and creates,
// deletes and renames show in their folders' times at once; what it rewrote
// is seen by the next command past the freshness window, like an edit in
// Obsidian. A git pull, a merge or a checkout changes thousands of notes at
// once, and its writes look the same to a folder — a note replaced keeps
// its name — so a command starting right after one, within the freshness
// window of a command before, would answer from the index as it was. Git
// writes its index file after the working tree, though: when that file is
// newer than the last full check, the scan checks every note.

// gitIndexChanged reports whether the index file of the git repository
// holding the vault changed at or after t (the start of the last full
// check). The repository is found once per store: the nearest ".git" above
// the cortex folder, a folder or a "gitdir:" file (a worktree, a
// submodule).
func (s *Store) gitIndexChanged(t time.Time) bool {
	s.gitOnce.Do(func() { s.gitIndex = findGitIndex(s.v.Dir) })
	if s.gitIndex == "" {
		return false
	}
	fi, err := os.Stat(s.gitIndex)
	return err == nil && !fi.ModTime().Before(t)
}

// findGitIndex is the index file of the git repository dir is in, or ""
// when it is in none.
func findGitIndex(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return filepath.Join(p, "index")
			}
			return gitdirIndex(dir, p)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// gitdirIndex reads a ".git" file ("gitdir: <path>", relative to the folder
// it is in) and returns the index file of the folder it names.
func gitdirIndex(dir, file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	gd, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("gitdir:"))
	if !ok {
		return ""
	}
	p := string(bytes.TrimSpace(gd))
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Join(p, "index")
}
