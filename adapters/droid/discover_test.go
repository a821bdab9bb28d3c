package droid

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

func TestDiscover(t *testing.T) {
	home := t.TempDir()
	transcripttest.WriteFile(t, home, ".factory/sessions/-home-dev-app/s1.jsonl", "{}\n")
	transcripttest.WriteFile(t, home, ".factory/sessions/-home-dev-app/s1.settings.json", "{}\n")
	transcripttest.WriteFile(t, home, ".factory/sessions/-home-dev-app/notes.txt", "x\n")
	transcripttest.WriteFile(t, home, ".factory/sessions/-home-dev-app/deeper/s3.jsonl", "{}\n")
	transcripttest.WriteFile(t, home, ".factory/sessions/s2.jsonl", "{}\n")
	transcripttest.WriteFile(t, home, ".factory/sessions/empty/s4.jsonl", "")
	transcripttest.Symlink(t, home, ".factory/sessions/s2.jsonl", ".factory/sessions/-home-dev-app/link.jsonl")

	d := New().Discover(transcripttest.Env(home, nil))
	files, skipped := transcripttest.Listed(d, home)
	wantFiles := []string{
		".factory/sessions/-home-dev-app/s1.jsonl session s1",
		".factory/sessions/s2.jsonl session s2",
	}
	wantSkipped := []string{
		".factory/sessions/-home-dev-app/deeper: a folder inside a project's sessions",
		".factory/sessions/-home-dev-app/link.jsonl: symbolic link, not followed",
		".factory/sessions/-home-dev-app/notes.txt: not a session file",
		".factory/sessions/-home-dev-app/s1.settings.json: the session's settings (model, token totals), not a transcript",
		".factory/sessions/empty/s4.jsonl: empty",
	}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if len(d.Roots) != 1 || !d.Roots[0].Exists || d.Roots[0].From != "default" {
		t.Errorf("roots %+v", d.Roots)
	}

	none := New().Discover(transcripttest.Env(t.TempDir(), nil))
	if len(none.Files) != 0 || len(none.Skipped) != 1 || none.Skipped[0].Reason != "no such folder" {
		t.Errorf("no folder: %+v", none)
	}
}
