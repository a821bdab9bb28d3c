package codex

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

func TestDiscover(t *testing.T) {
	home := t.TempDir()
	write := func(rel, content string) { t.Helper(); transcripttest.WriteFile(t, home, rel, content) }
	line := `{"timestamp":"t","type":"session_meta","payload":{}}` + "\n"
	const (
		id1 = "019a4953-0c1d-7a62-9c5e-1f2a3b4c5d6e"
		id2 = "019b0000-1111-7222-8333-444455556666"
		id3 = "5973b6c0-94b8-487b-a530-2aeb6098ae0e"
	)
	write(".codex/sessions/2026/01/05/rollout-2026-01-05T12-00-00-"+id2+".jsonl", line)
	write(".codex/sessions/2025/11/03/rollout-2025-11-03T09-14-00-"+id1+".jsonl", line)
	write(".codex/sessions/2025/11/03/rollout-2025-11-03T10-00-00-"+id3+".jsonl.zst", "\x28\xb5\x2f\xfd")
	write(".codex/sessions/2025/10/01/rollout-2025-10-01T08-00-00-"+id3+".jsonl", line)
	write(".codex/sessions/2025/10/01/rollout-2025-10-01T08-00-00-"+id3+".jsonl.zst", "\x28\xb5\x2f\xfd")
	write(".codex/sessions/2025/10/02/rollout-2025-10-02T08-00-00-empty.jsonl", "")
	write(".codex/sessions/rollout-2025-05-07T17-24-21-"+id3+".json", `{"session":{},"items":[]}`)
	write(".codex/sessions/2025/11/03/notes.txt", "not a rollout")
	write(".codex/archived_sessions/rollout-2025-09-09T09-09-09-"+id3+".jsonl", line)
	write(".codex/history.jsonl", `{"session_id":"x","ts":1,"text":"hi"}`+"\n")
	write("elsewhere/rollout-2025-12-12T12-12-12-"+id1+".jsonl", line)
	transcripttest.Symlink(t, home, "elsewhere", ".codex/sessions/linked")

	d := New().Discover(transcripttest.Env(home, nil))
	files, skipped := transcripttest.Listed(d, home)
	wantFiles := []string{
		".codex/archived_sessions/rollout-2025-09-09T09-09-09-" + id3 + ".jsonl session " + id3,
		".codex/sessions/2025/10/01/rollout-2025-10-01T08-00-00-" + id3 + ".jsonl session " + id3,
		".codex/sessions/2025/11/03/rollout-2025-11-03T09-14-00-" + id1 + ".jsonl session " + id1,
		".codex/sessions/2026/01/05/rollout-2026-01-05T12-00-00-" + id2 + ".jsonl session " + id2,
	}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantSkipped := []string{
		".codex/sessions/2025/10/01/rollout-2025-10-01T08-00-00-" + id3 + ".jsonl.zst: a compressed copy of rollout-2025-10-01T08-00-00-" + id3 + ".jsonl, which is read instead",
		".codex/sessions/2025/10/02/rollout-2025-10-02T08-00-00-empty.jsonl: empty",
		".codex/sessions/2025/11/03/rollout-2025-11-03T10-00-00-" + id3 + ".jsonl.zst: compressed by Codex (zstd, after about a week of inactivity); only plain .jsonl rollouts are read",
		".codex/sessions/linked: symbolic link, not followed",
		".codex/sessions/rollout-2025-05-07T17-24-21-" + id3 + ".json: a session of the TypeScript Codex CLI (one JSON document), not a rollout",
	}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if len(d.Roots) != 2 || !d.Roots[0].Exists || !d.Roots[1].Exists || d.Roots[0].From != "default" ||
		d.Roots[0].Path != filepath.Join(home, ".codex", "sessions") || d.Roots[1].Path != filepath.Join(home, ".codex", "archived_sessions") {
		t.Errorf("roots %+v", d.Roots)
	}

	// The override replaces the default folder; a missing archive is said.
	write("custom/sessions/2026/02/01/rollout-2026-02-01T00-00-00-"+id2+".jsonl", line)
	d = New().Discover(transcripttest.Env(home, map[string]string{EnvHome: filepath.Join(home, "custom")}))
	files, skipped = transcripttest.Listed(d, home)
	if diff := cmp.Diff([]string{"custom/sessions/2026/02/01/rollout-2026-02-01T00-00-00-" + id2 + ".jsonl session " + id2}, files); diff != "" {
		t.Errorf("with %s (-want +got):\n%s", EnvHome, diff)
	}
	if diff := cmp.Diff([]string{"custom/archived_sessions: no such folder"}, skipped); diff != "" {
		t.Errorf("with %s, skipped (-want +got):\n%s", EnvHome, diff)
	}
	if len(d.Roots) != 2 || d.Roots[0].From != EnvHome || d.Roots[1].Exists {
		t.Errorf("roots %+v", d.Roots)
	}

	// No home and no override: nothing to read, and why.
	d = New().Discover(transcript.Env{})
	if len(d.Files) != 0 || len(d.Skipped) != 1 || !strings.Contains(d.Skipped[0].Reason, EnvHome) {
		t.Errorf("without a home: %+v", d)
	}

	// Twice the same answer.
	if a, b := New().Discover(transcripttest.Env(home, nil)), New().Discover(transcripttest.Env(home, nil)); !cmp.Equal(a, b) {
		t.Error("two discoveries differ")
	}
}

func TestSessionOf(t *testing.T) {
	for stem, want := range map[string]string{
		"rollout-2025-05-07T17-24-21-5973b6c0-94b8-487b-a530-2aeb6098ae0e": "5973b6c0-94b8-487b-a530-2aeb6098ae0e",
		"rollout-2025-05-07T17-24-21-not-an-id":                            "",
		"rollout-2025-05-07T17-24-21-5973b6c0x94b8-487b-a530-2aeb6098ae0e": "",
		"rollout": "",
	} {
		if got := sessionOf(stem); got != want {
			t.Errorf("sessionOf(%q) = %q, want %q", stem, got, want)
		}
	}
}

// TestDiscoverLinkedRoot: a sessions folder that is a link (moved to
// another disk) is read, as a linked Claude Code or Gemini CLI root is; the
// links below it are still not followed.
func TestDiscoverLinkedRoot(t *testing.T) {
	home := t.TempDir()
	const id = "019a4953-0c1d-7a62-9c5e-1f2a3b4c5d6e"
	transcripttest.WriteFile(t, home, "disk/2025/11/03/rollout-2025-11-03T09-14-00-"+id+".jsonl",
		`{"timestamp":"t","type":"session_meta","payload":{}}`+"\n")
	transcripttest.Symlink(t, home, "disk", ".codex/sessions")
	files, skipped := transcripttest.Listed(New().Discover(transcripttest.Env(home, nil)), home)
	if diff := cmp.Diff([]string{".codex/sessions/2025/11/03/rollout-2025-11-03T09-14-00-" + id + ".jsonl session " + id}, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{".codex/archived_sessions: no such folder"}, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}
