package hooks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cortexmem/cortex/config"
)

func TestResolveProject(t *testing.T) {
	root := t.TempDir()
	mk := func(parts ...string) string {
		p := filepath.Join(append([]string{root}, parts...)...)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	repo := mk("src", "My Web.App")
	mk("src", "My Web.App", ".git")
	deep := mk("src", "My Web.App", "cmd", "server")
	worktree := mk("wt", "feature-x")
	if err := os.WriteFile(filepath.Join(worktree, ".git"), []byte("gitdir: /elsewhere\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mapped := mk("clients", "acme", "monorepo")
	mk("clients", "acme", "monorepo", ".git")
	plain := mk("scratch", "notes")
	home := mk("home")
	folders := []config.ProjectFolder{{Dir: filepath.Join(root, "clients", "acme"), Project: "acme"}}
	tests := []struct {
		name, cwd string
		want      Project
	}{
		{"git root", repo, Project{"my-web.app", "git repository " + repo}},
		{"below the git root", deep, Project{"my-web.app", "git repository " + repo}},
		{"a worktree's .git file", worktree, Project{"feature-x", "git repository " + worktree}},
		{"the config's mapping wins", mapped, Project{"acme", "config " + mapped}},
		{"no repository", plain, Project{"notes", "folder " + plain}},
		{"the home folder is no project", home, Project{"general", "none"}},
		{"the root", "/", Project{"general", "none"}},
		{"no folder", "", Project{"general", "none"}},
		{"relative", "src/x", Project{"general", "none"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ResolveProject(tt.cwd, folders, home); got != tt.want {
				t.Errorf("ResolveProject(%q) = %+v, want %+v", tt.cwd, got, tt.want)
			}
		})
	}
}

func TestProjectName(t *testing.T) {
	for in, want := range map[string]string{
		"demo-project": "demo-project", "My App": "my-app", ".hidden": "hidden", "--x": "x", "a+b": "a-b", "Über": "über",
		"...": "", "会议": "会议",
	} {
		if got := projectName(in); got != want {
			t.Errorf("projectName(%q) = %q, want %q", in, got, want)
		}
	}
}
