package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cortexmem/cortex/filelock"
	"github.com/cortexmem/cortex/hooks"
)

// drillPayloads are, per client and event, what the client sends (Cursor's
// hand-written in its shape: no recording of Cursor exists).
func drillPayloads(t *testing.T) map[string]map[string]string {
	t.Helper()
	fx := func(dir, event string) string { return readHookFixture(t, firstFixture(t, dir, event)) }
	claude, codex, gemini := "claude-code/2.1.197/a_qa", "codex/0.169.0/a_qa", "gemini-cli/0.61.0/a_qa"
	cursor := func(event string) string {
		return `{"conversation_id":"c-1","hook_event_name":"` + event + `","workspace_roots":["/home/dev/work/demo-project"]}`
	}
	return map[string]map[string]string{
		"claude-code": {"session-start": fx(claude, "SessionStart"), "user-prompt-submit": fx(claude, "UserPromptSubmit"),
			"stop": fx(claude, "Stop"), "session-end": fx(claude, "SessionEnd"),
			"pre-compact": fx("claude-code/2.1.197/e_compact", "PreCompact")},
		"codex":      {"session-start": fx(codex, "SessionStart"), "stop": fx(codex, "Stop")},
		"gemini-cli": {"session-start": fx(gemini, "SessionStart"), "stop": fx(gemini, "AfterAgent"), "pre-compact": fx(gemini, "PreCompress")},
		"cursor":     {"session-start": cursor("sessionStart"), "stop": cursor("stop")},
	}
}

// loggedError is the error a hook run logged, and how long the run took by
// its own clock: from the hook log's last line, or, when the log cannot be
// written, the line the hook wrote to standard error instead.
func loggedError(t *testing.T, state, stderr string) (string, time.Duration) {
	t.Helper()
	line := ""
	log := filepath.Join(state, "hooks.log")
	if fi, err := os.Lstat(log); err != nil || !fi.Mode().IsRegular() {
		log = "" // not a log (a link to /dev/full, which reads for ever)
	}
	if data, err := os.ReadFile(log); log != "" && err == nil {
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		line = lines[len(lines)-1]
	}
	if rest, ok := strings.CutPrefix(strings.TrimSpace(stderr), "cortex hook: "); ok {
		line, _, _ = strings.Cut(rest, "(the hook log")
	}
	var e hooks.LogEntry
	if err := json.Unmarshal([]byte(line), &e); err != nil {
		t.Fatalf("no hook log line (log line %q, stderr %q)", line, stderr)
	}
	took := time.Duration(e.Ms * float64(time.Millisecond))
	if e.Outcome != hooks.OutcomeError {
		return "", took
	}
	return e.Error, took
}

// slowMachine bounds a whole hook process's time in the tests: the hook gives
// up on its work at 800 ms by its own clock (checked exactly), and starting
// and ending the process takes milliseconds — but a test machine busy with
// other work can stall a process for longer, and a flaky test is no check.
const slowMachine = 3 * time.Second

// Failure drills: whatever breaks — the vault, the index, a lock, the disk,
// the state folder — every hook of every client exits 0 within a second,
// prints nothing, and the error is logged. Captures need neither the index
// nor a lock, and succeed when only those are broken.
func TestHookFailureDrills(t *testing.T) {
	if testing.Short() {
		t.Skip("starts many processes")
	}
	type drill struct {
		name string
		// setup breaks the environment; it returns the error the
		// session-start and prompt hooks log, and the one the capture hooks
		// log ("" when captures succeed).
		setup func(t *testing.T, env []string, root, state string) (string, string)
	}
	vstate := func(t *testing.T, state string) string {
		t.Helper()
		dirs, _ := filepath.Glob(filepath.Join(state, "vaults", "*"))
		if len(dirs) != 1 {
			t.Fatalf("vault state folders: %v", dirs)
		}
		return dirs[0]
	}
	drills := []drill{
		{"vault missing", func(t *testing.T, env []string, root, state string) (string, string) {
			if err := os.RemoveAll(root); err != nil {
				t.Fatal(err)
			}
			return "does not exist", "does not exist"
		}},
		{"index corrupt", func(t *testing.T, env []string, root, state string) (string, string) {
			bolts, _ := filepath.Glob(filepath.Join(vstate(t, state), "index", "gen-*", "bleve", "store", "root.bolt"))
			if len(bolts) == 0 {
				t.Fatal("no index to corrupt")
			}
			for _, b := range bolts {
				if err := os.Remove(b); err != nil {
					t.Fatal(err)
				}
			}
			return "must be rebuilt", ""
		}},
		{"lock held", func(t *testing.T, env []string, root, state string) (string, string) {
			l, err := filelock.Acquire(context.Background(), filepath.Join(vstate(t, state), "index.lock"), time.Second)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Release() })
			return "held", ""
		}},
		{"disk full", func(t *testing.T, env []string, root, state string) (string, string) {
			// What cannot be created can no more be written than on a
			// full disk: the inbox and the receipts are files, not
			// folders.
			vs := vstate(t, state)
			for _, p := range []string{filepath.Join(vs, "inbox", "pending"), filepath.Join(vs, "receipts")} {
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			return "receipt", "not a directory"
		}},
		{"disk full, the log too", func(t *testing.T, env []string, root, state string) (string, string) {
			if _, err := os.Stat("/dev/full"); err != nil {
				t.Skip("no /dev/full")
			}
			vs := vstate(t, state)
			if err := os.WriteFile(filepath.Join(vs, "receipts"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(vs, "inbox"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(vs, "inbox", "pending"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			// Every write to /dev/full fails with "no space left on device".
			if err := os.Symlink("/dev/full", filepath.Join(state, "hooks.log")); err != nil {
				t.Fatal(err)
			}
			return "receipt", "not a directory"
		}},
		{"read-only state folder", func(t *testing.T, env []string, root, state string) (string, string) {
			makeReadOnly(t, state)
			return "read-only", "read-only"
		}},
	}
	payloads := drillPayloads(t)
	for _, d := range drills {
		t.Run(d.name, func(t *testing.T) {
			bin, env, root := cortexBin(t)
			state := filepath.Join(filepath.Dir(root), "state")
			config := filepath.Join(filepath.Dir(root), "config.yaml")
			if err := os.WriteFile(config, []byte("hooks:\n  prompt_recall: true\n  prompt_min_score: 0.3\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, m := range []string{"Use RS256 to sign JWTs in production: HS256 shares the signing secret.",
				"The capital of France is Paris, where the client's office is."} {
				if _, err := runCortex(t, bin, env, "save", "--project", "demo-project", m); err != nil {
					t.Fatal(err)
				}
			}
			briefErr, captureErr := d.setup(t, env, root, state)
			for client, events := range payloads {
				for event, payload := range events {
					cmd := exec.Command(bin, "hook", client, event)
					cmd.Env = env
					cmd.Stdin = strings.NewReader(payload)
					var stdout, stderr bytes.Buffer
					cmd.Stdout, cmd.Stderr = &stdout, &stderr
					start := time.Now()
					err := cmd.Run()
					took := time.Since(start)
					if err != nil || took > slowMachine {
						t.Errorf("%s %s: %v after %s", client, event, err, took)
					}
					if stdout.Len() != 0 {
						t.Errorf("%s %s: stdout %q", client, event, stdout.String())
					}
					want := captureErr
					if event == "session-start" || event == "user-prompt-submit" {
						want = briefErr
					}
					got, work := loggedError(t, state, stderr.String())
					if work >= time.Second {
						t.Errorf("%s %s: the hook worked for %s", client, event, work)
					}
					switch {
					case want == "" && got != "":
						t.Errorf("%s %s: failed (%s), want it captured", client, event, got)
					case want != "" && !strings.Contains(got, want):
						t.Errorf("%s %s: logged error %q, want one containing %q", client, event, got, want)
					}
				}
			}
		})
	}
}

// `cortex capture` works when the index is broken: it never opens it.
func TestCaptureWithCorruptIndex(t *testing.T) {
	e := newCLIEnv(t)
	e.seed()
	bolts, _ := filepath.Glob(filepath.Join(e.state, "vaults", "*", "index", "gen-*", "bleve", "store", "root.bolt"))
	for _, b := range bolts {
		if err := os.Remove(b); err != nil {
			t.Fatal(err)
		}
	}
	if len(bolts) == 0 {
		t.Fatal("no index")
	}
	id := strings.TrimSpace(e.must("a note from the meeting\n", "capture", "--type", "meeting", "--project", "demo-project", "-"))
	evs := e.pending()
	if len(evs) != 1 || evs[0].ID != id || evs[0].Body != "a note from the meeting\n" {
		t.Fatalf("id %s, events %+v", id, evs)
	}
	// The index is still broken: capture did not touch it.
	if after, _ := filepath.Glob(filepath.Join(e.state, "vaults", "*", "index", "gen-*", "bleve", "store", "root.bolt")); len(after) != 0 {
		t.Errorf("capture rebuilt the index: %v", after)
	}
}

// A client that never closes the hook's input does not hold the agent: the
// hook gives up within its deadline.
func TestHookGivesUpOnHungInput(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	bin, env, _ := cortexBin(t)
	cmd := exec.Command(bin, "hook", "claude-code", "stop")
	cmd.Env = env
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > slowMachine || stdout.Len() != 0 {
		t.Errorf("took %s, stdout %q", took, stdout.String())
	}
	state := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "CORTEX_HOME="); ok {
			state = v
		}
	}
	if got, work := loggedError(t, state, ""); !strings.Contains(got, "gave up after") || work >= time.Second {
		t.Errorf("logged %q after %s", got, work)
	}
}
