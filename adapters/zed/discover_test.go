package zed

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
	tests := []struct {
		goos  string
		files map[string]string
		vars  map[string]string
		want  []string
		skips []string
	}{
		{"linux", map[string]string{
			".local/share/zed/threads/threads.db":               dbHeader,
			".local/share/zed/threads/threads.db-wal":           "x",
			".local/share/zed/threads/notes.txt":                "x",
			".local/share/zed/conversations/Cache - 1.zed.json": "{}",
			".local/share/zed/conversations/README":             "x",
			".config/zed/conversations/Old.zed.json":            "{}",
		}, nil, []string{
			".config/zed/conversations/Old.zed.json session ",
			".local/share/zed/conversations/Cache - 1.zed.json session ",
			".local/share/zed/threads/threads.db session ",
		}, []string{
			".local/share/zed/conversations/README: not a conversation file",
			".local/share/zed/threads/notes.txt: not Zed's threads database",
		}},
		{"darwin", map[string]string{
			"Library/Application Support/Zed/threads/threads.db": dbHeader,
			".config/zed/conversations/Cache.zed.json":           "{}",
		}, nil, []string{
			".config/zed/conversations/Cache.zed.json session ",
			"Library/Application Support/Zed/threads/threads.db session ",
		}, []string{
			"Library/Application Support/Zed/conversations: no such folder",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.goos, func(t *testing.T) {
			home := t.TempDir()
			for rel, content := range tt.files {
				transcripttest.WriteFile(t, home, rel, content)
			}
			d := discover(transcripttest.Env(home, tt.vars), tt.goos)
			files, skipped := transcripttest.Listed(d, home)
			if diff := cmp.Diff(tt.want, files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.skips, skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiscoverXDG(t *testing.T) {
	home, data := t.TempDir(), t.TempDir()
	transcripttest.WriteFile(t, data, "zed/threads/threads.db", dbHeader)
	d := discover(transcripttest.Env(home, map[string]string{EnvDataHome: data}), "linux")
	if len(d.Files) != 1 || d.Roots[0].From != EnvDataHome || d.Files[0].Path != filepath.Join(data, "zed", "threads", "threads.db") {
		t.Errorf("%+v", d)
	}
}
