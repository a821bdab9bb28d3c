package amp

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

func TestDiscover(t *testing.T) {
	home := t.TempDir()
	transcripttest.WriteFile(t, home, ".local/share/amp/threads/T-1.json", "{}\n")
	transcripttest.WriteFile(t, home, ".local/share/amp/threads/T-2.json", "{}\n")
	transcripttest.WriteFile(t, home, ".local/share/amp/threads/settings.json", "{}\n")
	transcripttest.WriteFile(t, home, ".local/share/amp/threads/old/T-3.json", "{}\n")
	transcripttest.WriteFile(t, home, "xdg/amp/threads/T-9.json", "{}\n")

	d := New().Discover(transcripttest.Env(home, nil))
	files, skipped := transcripttest.Listed(d, home)
	if diff := cmp.Diff([]string{".local/share/amp/threads/T-1.json session T-1", ".local/share/amp/threads/T-2.json session T-2"}, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{".local/share/amp/threads/old: a folder inside the threads folder", ".local/share/amp/threads/settings.json: not a thread file"}, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}

	d = New().Discover(transcripttest.Env(home, map[string]string{EnvDataHome: filepath.Join(home, "xdg")}))
	files, _ = transcripttest.Listed(d, home)
	if diff := cmp.Diff([]string{"xdg/amp/threads/T-9.json session T-9"}, files); diff != "" || d.Roots[0].From != EnvDataHome {
		t.Errorf("XDG_DATA_HOME: roots %+v, files (-want +got):\n%s", d.Roots, diff)
	}
}
