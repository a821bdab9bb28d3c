package cursor

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// dbHeader is a database file's first 100 bytes: what discovery checks.
var dbHeader = "SQLite format 3\x00" + strings.Repeat("\x00", 84)

func TestDiscover(t *testing.T) {
	tests := []struct {
		goos, user string
	}{
		{"linux", ".config/Cursor/User/"},
		{"darwin", "Library/Application Support/Cursor/User/"},
		{"windows", "AppData/Roaming/Cursor/User/"},
	}
	for _, tt := range tests {
		t.Run(tt.goos, func(t *testing.T) {
			home := t.TempDir()
			for _, rel := range []string{"globalStorage/state.vscdb", "globalStorage/state.vscdb.backup", "globalStorage/state.vscdb-wal",
				"workspaceStorage/0a1b/state.vscdb", "workspaceStorage/0a1b/workspace.json", "workspaceStorage/2c3d/workspace.json"} {
				transcripttest.WriteFile(t, home, tt.user+rel, dbHeader)
			}
			transcripttest.WriteFile(t, home, tt.user+"workspaceStorage/empty/state.vscdb", "")
			transcripttest.WriteFile(t, home, tt.user+"workspaceStorage/text/state.vscdb", "not a database")
			d := discover(transcripttest.Env(home, nil), tt.goos)
			files, skipped := transcripttest.Listed(d, home)
			want := []string{tt.user + "globalStorage/state.vscdb session ", tt.user + "workspaceStorage/0a1b/state.vscdb session "}
			if diff := cmp.Diff(want, files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			wantSkipped := []string{tt.user + "workspaceStorage/empty/state.vscdb: empty",
				tt.user + "workspaceStorage/text/state.vscdb: cannot be read: the database is damaged or not a database: no SQLite header"}
			if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiscoverAgentChats(t *testing.T) {
	home := t.TempDir()
	transcripttest.WriteFile(t, home, ".cursor/chats/0f1e/2d3c/store.db", "x")
	_, skipped := transcripttest.Listed(discover(transcripttest.Env(home, nil), "linux"), home)
	want := []string{".config/Cursor/User: no such folder",
		".cursor/chats: cursor-agent's store.db files hold content-addressed blobs (protobuf tree nodes): not read"}
	if diff := cmp.Diff(want, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

func TestDiscoverOverride(t *testing.T) {
	home, cfg := t.TempDir(), t.TempDir()
	transcripttest.WriteFile(t, cfg, "Cursor/User/globalStorage/state.vscdb", dbHeader)
	d := discover(transcripttest.Env(home, map[string]string{EnvConfigHome: cfg}), "linux")
	if len(d.Files) != 1 || d.Roots[0].From != EnvConfigHome {
		t.Errorf("%+v", d)
	}
}
