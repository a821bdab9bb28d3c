package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
)

// maxGitWalk bounds how many folders up the search for a repository goes.
const maxGitWalk = 64

// Project is the project a session works in, and how cortex knows.
type Project struct {
	Name string `json:"name"`
	// From says where the name came from: "config <folder>", "git
	// repository <root>", "folder <cwd>" or "none".
	From string `json:"from"`
}

// ResolveProject finds the project of a session started in cwd: the
// config's mapping of folders when one holds cwd, else the name of the git
// repository's folder (found by looking for .git upwards, without running
// git), else the name of cwd itself — but for the home folder and the root,
// which are no project: general then.
func ResolveProject(cwd string, folders []config.ProjectFolder, userHome string) Project {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return Project{Name: memories.DefaultProject, From: "none"}
	}
	cwd = filepath.Clean(cwd)
	if name, ok := config.ProjectOf(folders, cwd); ok {
		return Project{Name: name, From: "config " + cwd}
	}
	dir := cwd
	for i := 0; i < maxGitWalk; i++ {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			if name := projectName(filepath.Base(dir)); name != "" {
				return Project{Name: name, From: "git repository " + dir}
			}
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if cwd == filepath.Dir(cwd) || userHome != "" && cwd == filepath.Clean(userHome) {
		return Project{Name: memories.DefaultProject, From: "none"}
	}
	if name := projectName(filepath.Base(cwd)); name != "" {
		return Project{Name: name, From: "folder " + cwd}
	}
	return Project{Name: memories.DefaultProject, From: "none"}
}

// projectName makes a folder name a valid project name (SPEC: lower case,
// letters, digits, ".", "_", "-"): other characters become "-". Empty when
// nothing is left.
func projectName(base string) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-':
			return unicode.ToLower(r)
		}
		return '-'
	}, base)
	s = strings.TrimLeft(s, ".-")
	if r := []rune(s); len(r) > memories.MaxScopeChars {
		s = string(r[:memories.MaxScopeChars])
	}
	if p, err := memories.NormalizeScope("project", s); err == nil {
		return p
	}
	return ""
}
