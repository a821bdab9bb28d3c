package continuedev

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

func TestDiscover(t *testing.T) {
	home := t.TempDir()
	transcripttest.WriteFile(t, home, ".continue/sessions/a.json", "{}\n")
	transcripttest.WriteFile(t, home, ".continue/sessions/sessions.json", "[]\n")
	transcripttest.WriteFile(t, home, ".continue/sessions/notes.txt", "x\n")
	transcripttest.WriteFile(t, home, "cont/sessions/b.json", "{}\n")

	d := New().Discover(transcripttest.Env(home, nil))
	files, skipped := transcripttest.Listed(d, home)
	if diff := cmp.Diff([]string{".continue/sessions/a.json session a"}, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	want := []string{".continue/sessions/notes.txt: not a session file", ".continue/sessions/sessions.json: the index of sessions (titles, creation times), not a transcript"}
	if diff := cmp.Diff(want, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	d = New().Discover(transcripttest.Env(home, map[string]string{EnvGlobalDir: filepath.Join(home, "cont")}))
	files, _ = transcripttest.Listed(d, home)
	if diff := cmp.Diff([]string{"cont/sessions/b.json session b"}, files); diff != "" || d.Roots[0].From != EnvGlobalDir {
		t.Errorf("%s: roots %+v, files (-want +got):\n%s", EnvGlobalDir, d.Roots, diff)
	}
}
