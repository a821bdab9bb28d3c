package opencode

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// dbHeader is a database file's first 100 bytes: what discovery checks.
var dbHeader = "SQLite format 3\x00" + strings.Repeat("\x00", 84)

func TestDiscover(t *testing.T) {
	home := t.TempDir()
	write := func(rel, content string) { t.Helper(); transcripttest.WriteFile(t, home, rel, content) }
	const data = ".local/share/opencode/"
	write(data+"opencode.db", dbHeader)
	write(data+"opencode.db-wal", "x")
	write(data+"opencode.db-shm", "x")
	write(data+"log/2026-11-22.log", "x")
	write(data+"auth.json", "{}")
	write(data+"storage/session/4129988c/ses_a.json", `{"id":"ses_a"}`)
	write(data+"storage/session/4129988c/ses_b.json", "")
	write(data+"storage/session/4129988c/notes.txt", "x")
	write(data+"storage/session/global/sub/ses_c.json", `{}`)
	write(data+"storage/session/stray.json", `{}`)
	write(data+"storage/message/ses_a/msg_1.json", `{}`)
	transcripttest.Symlink(t, home, data+"storage/session/4129988c/ses_a.json", data+"storage/session/4129988c/ses_link.json")

	d := New().Discover(transcripttest.Env(home, nil))
	files, skipped := transcripttest.Listed(d, filepath.Join(home, data))
	wantFiles := []string{"opencode.db session ", "storage/session/4129988c/ses_a.json session ses_a"}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantSkipped := []string{
		"storage/session/4129988c/notes.txt: not a session file",
		"storage/session/4129988c/ses_b.json: empty",
		"storage/session/4129988c/ses_link.json: symbolic link, not followed",
		"storage/session/global/sub: a folder inside a project's sessions",
		"storage/session/stray.json: not a project folder of sessions",
	}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if r := d.Roots[0]; r.From != "default" || !r.Exists {
		t.Errorf("root %+v", r)
	}
}

func TestDiscoverXDG(t *testing.T) {
	home, xdg := t.TempDir(), t.TempDir()
	transcripttest.WriteFile(t, xdg, "opencode/opencode.db", dbHeader)
	d := New().Discover(transcripttest.Env(home, map[string]string{EnvDataHome: xdg}))
	if len(d.Roots) != 1 || d.Roots[0].From != EnvDataHome || len(d.Files) != 1 {
		t.Errorf("discovery with %s: %+v", EnvDataHome, d)
	}
	// A relative XDG_DATA_HOME is invalid (the XDG rule): the default is used.
	d = New().Discover(transcripttest.Env(home, map[string]string{EnvDataHome: "rel"}))
	if d.Roots[0].From != "default" {
		t.Errorf("a relative %s was used: %+v", EnvDataHome, d.Roots)
	}
	d = New().Discover(transcripttest.Env("", nil))
	if len(d.Skipped) != 1 || len(d.Roots) != 0 {
		t.Errorf("no home: %+v", d)
	}
}
