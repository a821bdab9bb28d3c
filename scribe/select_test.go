package scribe_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

// Fixtures of each tool, one session each.
const (
	claudeFixture = "../fixtures/claude-code/2.1.197/b_write_edit.jsonl"
	codexFixture  = "../fixtures/codex/0.169.0/b_write_edit.jsonl"
	geminiFixture = "../fixtures/gemini-cli/0.61.0/b_write_edit.jsonl"
	legacyFixture = "../fixtures/gemini-cli/legacy/small.json"
)

// place copies the fixture src to dir/rel and returns its path.
func place(t *testing.T, src, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// selected is a file as a test compares it: its path and its tool.
type selected struct {
	Path   string
	Source transcript.SourceKind
	Final  bool
}

func summary(files []scribe.File) []selected {
	var out []selected
	for _, f := range files {
		out = append(out, selected{f.Path, f.Adapter.Source(), f.Final})
	}
	return out
}

func envOf(home string, vars map[string]string) transcript.Env {
	return transcript.Env{Home: home, Getenv: func(k string) string { return vars[k] }}
}

// TestSelectAll: with All, every transcript discovery finds in the
// environment is selected with its tool's adapter, and what discovery
// passed over comes back as skipped; the tools' override variables move
// where discovery looks.
func TestSelectAll(t *testing.T) {
	home, other := t.TempDir(), t.TempDir()
	claude := place(t, claudeFixture, home, ".claude/projects/-w-app/0a1b2c3d-0000-4000-8000-000000000001.jsonl")
	codex := place(t, codexFixture, home, ".codex/sessions/2026/11/20/rollout-2026-11-20T10-00-00-0a1b2c3d-0000-4000-8000-000000000002.jsonl")
	moved := place(t, claudeFixture, other, "projects/-w-other/0a1b2c3d-0000-4000-8000-000000000003.jsonl")

	tests := []struct {
		name        string
		vars        map[string]string
		want        []selected
		wantSkipped string // a path among the skipped
	}{
		{"defaults", nil, []selected{{claude, transcript.ClaudeCode, false}, {codex, transcript.Codex, false}},
			filepath.Join(home, ".config", "claude", "projects")},
		{"CLAUDE_CONFIG_DIR", map[string]string{"CLAUDE_CONFIG_DIR": other}, []selected{{moved, transcript.ClaudeCode, false}, {codex, transcript.Codex, false}},
			filepath.Join(home, ".codex", "archived_sessions")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, skipped, err := scribe.Select(scribe.Selection{All: true, Env: envOf(home, tt.vars)})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summary(files)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			found := false
			for _, s := range skipped {
				found = found || s.Path == tt.wantSkipped && s.Reason != ""
			}
			if !found {
				t.Errorf("skipped %v, want %s among them", skipped, tt.wantSkipped)
			}
		})
	}
}

// TestSelectNamed: named files are made absolute and complete, each read
// by the adapter As names or the one that recognises its content; a file
// cortex cannot read, or a tool it does not know, is ErrInvalid naming the
// flag or the file.
func TestSelectNamed(t *testing.T) {
	dir := t.TempDir()
	claude := place(t, claudeFixture, dir, "claude.jsonl")
	codex := place(t, codexFixture, dir, "codex.jsonl")
	legacy := place(t, legacyFixture, dir, "chats/session-1.json")
	place(t, "../fixtures/claude-code/README.md", dir, "notes.txt")
	if err := os.Mkdir(filepath.Join(dir, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)

	tests := []struct {
		name    string
		paths   []string
		as      string
		want    []selected
		wantErr string // in the error, which is then ErrInvalid
	}{
		{"detected", []string{"codex.jsonl", "claude.jsonl", "chats/session-1.json"}, "",
			[]selected{{codex, transcript.Codex, true}, {claude, transcript.ClaudeCode, true}, {legacy, transcript.GeminiCLI, true}}, ""},
		{"as", []string{"claude.jsonl"}, "codex", []selected{{claude, transcript.Codex, true}}, ""},
		{"as any name of the tool", []string{"codex.jsonl"}, "claude_code", []selected{{codex, transcript.ClaudeCode, true}}, ""},
		{"unknown tool", []string{"claude.jsonl"}, "vim", nil, `--as: unknown tool "vim"`},
		{"not a transcript", []string{"claude.jsonl", "notes.txt"}, "", nil, "file: notes.txt: cannot tell which tool wrote it"},
		{"missing", []string{"missing.jsonl"}, "", nil, "file: missing.jsonl: no such file"},
		{"folder", []string{"folder"}, "", nil, "file: folder: a folder, not a transcript file"},
		{"missing before unknown tool", []string{"missing.jsonl"}, "vim", nil, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, _, err := scribe.Select(scribe.Selection{Paths: tt.paths, As: tt.as})
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, memories.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want ErrInvalid with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summary(files)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSelectSince: only the files modified at or after Since are kept, from
// discovery or named; the others are skipped, saying why.
func TestSelectSince(t *testing.T) {
	home := t.TempDir()
	since := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	oldFile := place(t, claudeFixture, home, ".claude/projects/-w/0a1b2c3d-0000-4000-8000-000000000001.jsonl")
	newFile := place(t, claudeFixture, home, ".claude/projects/-w/0a1b2c3d-0000-4000-8000-000000000002.jsonl")
	atFile := place(t, claudeFixture, home, ".claude/projects/-w/0a1b2c3d-0000-4000-8000-000000000003.jsonl")
	for p, mt := range map[string]time.Time{oldFile: since.Add(-time.Second), newFile: since.Add(time.Hour), atFile: since} {
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		sel  scribe.Selection
	}{
		{"all", scribe.Selection{All: true, Env: envOf(home, nil)}},
		{"named", scribe.Selection{Paths: []string{oldFile, newFile, atFile}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.sel.Since = since
			files, skipped, err := scribe.Select(tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range files {
				got = append(got, f.Path)
			}
			if diff := cmp.Diff([]string{newFile, atFile}, got); diff != "" {
				t.Errorf("kept (-want +got):\n%s", diff)
			}
			want := transcript.Skip{Path: oldFile, Reason: "not modified since 2026-03-01T00:00:00Z"}
			found := false
			for _, s := range skipped {
				found = found || s == want
			}
			if !found {
				t.Errorf("skipped %v, want %v among them", skipped, want)
			}
		})
	}
}

// TestSelectionCheck: a selection that contradicts itself is refused,
// naming the flag.
func TestSelectionCheck(t *testing.T) {
	tests := []struct {
		name string
		sel  scribe.Selection
		want string
	}{
		{"all and paths", scribe.Selection{All: true, Paths: []string{"x.jsonl"}}, "--all: reads every transcript found; name files or give --all, not both"},
		{"all and as", scribe.Selection{All: true, As: "codex"}, "--as: names the tool of the files named; with --all each file's tool is known"},
		{"all", scribe.Selection{All: true}, ""},
		{"paths and as", scribe.Selection{Paths: []string{"x.jsonl"}, As: "codex"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.sel.Check()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tt.want || !errors.Is(err, memories.ErrInvalid) {
				t.Fatalf("err %v, want ErrInvalid %q", err, tt.want)
			}
			if _, _, err := scribe.Select(tt.sel); err == nil || err.Error() != tt.want {
				t.Fatalf("Select: err %v, want %q", err, tt.want)
			}
		})
	}
}

// TestDiscover: the report names every tool with an adapter and those
// without.
func TestDiscover(t *testing.T) {
	rep := scribe.Discover(envOf(t.TempDir(), nil))
	var got []string
	for _, d := range rep.Sources {
		got = append(got, string(d.Source))
	}
	if diff := cmp.Diff(scribe.Tools(), got); diff != "" {
		t.Errorf("sources (-tools +discovered):\n%s", diff)
	}
	for _, k := range rep.NoAdapter {
		for _, s := range got {
			if string(k) == s {
				t.Errorf("%s has an adapter and is listed without one", k)
			}
		}
	}
	// Every tool of the design has an adapter now.
	if len(rep.NoAdapter) != 0 {
		t.Errorf("tools listed without an adapter: %v", rep.NoAdapter)
	}
}
