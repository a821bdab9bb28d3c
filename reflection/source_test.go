package reflection_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cortexmem/cortex/reflection"
	"github.com/cortexmem/cortex/transcript"
)

// TestSessionFoundByItsRecords: a session whose transcript is not named
// after it (a tool that names its files otherwise, a renamed copy) is found
// by the session id its records carry; a file named after it is read
// without the others.
func TestSessionFoundByItsRecords(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "fixtures", "claude-code", "2.1.197", "b_write_edit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const session = "abec5a35-9921-4cdf-b4f7-cfe555641860"
	for _, name := range []string{"renamed.jsonl", session + ".jsonl"} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, ".claude", "projects", "-home-dev-work-demo-project")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
				t.Fatal(err)
			}
			src := reflection.Transcripts{Env: transcript.Env{Home: home, Getenv: func(string) string { return "" }}}
			evs, err := src.Session(context.Background(), session[:8])
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) == 0 {
				t.Fatalf("no events of session %s in %s", session[:8], name)
			}
			for _, e := range evs {
				if e.SessionID != session {
					t.Errorf("event of session %q", e.SessionID)
				}
			}
		})
	}
}
