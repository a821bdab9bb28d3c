package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcripts"
)

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// watchProc is a `cortex watch` process.
type watchProc struct {
	cmd *exec.Cmd
	log *lockedBuffer
}

// watchDebounce is short, so that the tests wait little for the jobs.
const watchDebounce = "50ms"

func startWatch(t *testing.T, bin string, env []string) *watchProc {
	t.Helper()
	w := &watchProc{cmd: exec.Command(bin, "watch", "--debounce", watchDebounce), log: &lockedBuffer{}}
	w.cmd.Env = env
	w.cmd.Stdout, w.cmd.Stderr = w.log, w.log
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if w.cmd.ProcessState == nil {
			_ = w.cmd.Process.Kill()
			_ = w.cmd.Wait()
		}
	})
	return w
}

// runs counts the runs of a job the watcher logged as done.
func (w *watchProc) runs(job string) int {
	return strings.Count(w.log.String(), "cortex watch: "+job+" (")
}

// stop stops the watcher as Ctrl-C does; it must exit cleanly.
func (w *watchProc) stop(t *testing.T) {
	t.Helper()
	if err := w.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := w.cmd.Wait(); err != nil {
		t.Fatalf("cortex watch: %v\n%s", err, w.log.String())
	}
	if log := w.log.String(); !strings.Contains(log, "cortex watch: stopped") || strings.Contains(log, " failed: ") {
		t.Fatalf("cortex watch did not stop cleanly, or a job failed:\n%s", log)
	}
}

// settle waits until the watcher has run every job and its log has been
// quiet for a while: the jobs' own writes (notes into the vault) have been
// taken in too.
func (w *watchProc) settle(t *testing.T) {
	t.Helper()
	const quiet = 500 * time.Millisecond
	last, since := "", time.Now()
	w.waitFor(t, "the watcher to run every job and settle", func() bool {
		log := w.log.String()
		if log != last {
			last, since = log, time.Now()
			return false
		}
		return w.runs("index") > 0 && w.runs("normalize") > 0 && w.runs("transcripts") > 0 && time.Since(since) >= quiet
	})
}

// waitFor polls cond until it holds, and fails the test when it does not
// within a minute (a busy machine is slow; a watcher that never does it is
// caught all the same).
func (w *watchProc) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s; the watcher's log:\n%s", what, w.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processEnv is the environment of a cortex process for e.
func processEnv(e *cliEnv) []string {
	env := os.Environ()
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_CONFIG_HOME"} {
		env = append(env, k+"=")
	}
	for k, v := range e.env {
		env = append(env, k+"="+v)
	}
	return env
}

// transcriptSync brings the transcript index up to date with a full check
// and says what it had to read.
func transcriptSync(t *testing.T, bin string, env []string, args ...string) transcripts.SyncReport {
	t.Helper()
	out, err := runCortex(t, bin, env, append([]string{"--json", "transcripts", "reindex"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	var rep transcripts.SyncReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("transcripts reindex --json: %v\n%s", err, out)
	}
	return rep
}

// TestWatchTakesInAppendedTranscripts appends a turn to an agent's
// transcript while cortex watch runs: the watcher takes it into the
// transcript index (a full check afterwards has nothing left to read) and,
// unless watch.transcripts is off, into notes — the decision the new turn
// states.
func TestWatchTakesInAppendedTranscripts(t *testing.T) {
	turn1, err := demoTranscripts.ReadFile("demo/transcripts/claude-code-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	turn2, err := demoTranscripts.ReadFile("demo/transcripts/claude-code-session.turn2.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		config string
		notes  bool
	}{
		{"index only", "lock_timeout: 60s\nwatch:\n  transcripts: false\n", false},
		{"index and notes", "lock_timeout: 60s\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin, _, _ := cortexBin(t)
			e := newCLIEnv(t)
			if err := os.WriteFile(e.config, []byte(tt.config), 0o600); err != nil {
				t.Fatal(err)
			}
			session := filepath.Join(e.dir, ".claude", "projects", "-home-dev-work-my-webapp", demoSessionID+".jsonl")
			if err := os.MkdirAll(filepath.Dir(session), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(session, turn1, 0o600); err != nil {
				t.Fatal(err)
			}
			env := processEnv(e)
			decisions := func(prefix string) []string {
				m, err := filepath.Glob(filepath.Join(e.vault, "cortex", "decisions", "my-webapp", prefix+"*.md"))
				if err != nil {
					t.Fatal(err)
				}
				return m
			}

			w := startWatch(t, bin, env)
			w.waitFor(t, "the transcripts job's first run", func() bool { return w.runs("transcripts") > 0 })
			f, err := os.OpenFile(session, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(turn2); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			w.waitFor(t, "the transcripts job to run after the append", func() bool {
				return w.runs("transcripts") > 1 && (!tt.notes || len(decisions("from-now-on-always-set-server-idle-timeout-")) == 1)
			})
			w.stop(t)

			if rep := transcriptSync(t, bin, env); rep.Read != 0 || rep.Files != 1 {
				t.Errorf("after the watcher, a full check read %d transcripts of %d (%d new, %d grown), want 0 of 1", rep.Read, rep.Files, rep.New, rep.Appended)
			}
			out, err := runCortex(t, bin, env, "transcripts", "search", "server_idle_timeout")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, "session abec5a35") {
				t.Errorf("transcript search does not find the appended turn:\n%s", out)
			}
			want := 0
			if tt.notes {
				want = 1
			}
			for _, d := range []string{"from-now-on-always-set-server-idle-timeout-", "use-pgbouncer-"} {
				if n := len(decisions(d)); n != want {
					t.Errorf("%d decision notes %s…, want %d", n, d, want)
				}
			}
		})
	}
}

// TestKilledWatcherLosesNothing kills cortex watch (SIGKILL) at random
// moments of its first pass over a vault, an inbox of events of every kind
// and agents' transcripts, then starts it again and lets it settle. Every
// time, the inbox and the vault must end as a watcher never killed leaves
// them (each event consumed once, every note whole and the same; the
// sessions' records name each of their events once), and both indexes as a
// fresh rebuild makes them: the watcher left nothing for the next command,
// the notes listed are those a new state folder lists, and transcript
// searches answer as after a rebuild. It runs 3 trials;
// CORTEX_CRASH_TRIALS=N runs N.
func TestKilledWatcherLosesNothing(t *testing.T) {
	trials := crashTrials(t, 3, "a minute or more")
	bin, _, _ := cortexBin(t)
	e := newCLIEnv(t)
	if err := os.WriteFile(e.config, []byte("lock_timeout: 60s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(e.vault); err != nil {
		t.Fatal(err)
	}
	// Notes for the index job to take in, besides those the other jobs write.
	if _, err := bench.WriteVault(e.vault, 300, 11, time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	crashInbox(t, e)
	template := filepath.Join(t.TempDir(), "template")
	copyTree(t, e.dir, template)
	restore := func() {
		t.Helper()
		for _, sub := range []string{"vault", "state", ".claude", ".codex", ".gemini"} {
			if err := os.RemoveAll(filepath.Join(e.dir, sub)); err != nil {
				t.Fatal(err)
			}
			copyTree(t, filepath.Join(template, sub), filepath.Join(e.dir, sub))
		}
	}
	env := processEnv(e)
	queries := []string{"redis connection refused", "pgbouncer pool", "hello.txt", "tests fail"}

	// The watcher never killed.
	start := time.Now()
	w := startWatch(t, bin, env)
	w.waitFor(t, "the watcher's first pass", func() bool {
		return w.runs("index") > 0 && w.runs("normalize") > 0 && w.runs("transcripts") > 0
	})
	took := time.Since(start)
	w.settle(t)
	w.stop(t)
	wantInbox, wantVault := inboxState(t, e.state), vaultFiles(t, e.vault)
	var stops []string // the ids of the session events
	for name, text := range wantInbox {
		if strings.HasPrefix(name, "processed/") && (strings.Contains(text, "\ntype: stop\n") || strings.Contains(text, "\ntype: pre_compact\n")) {
			stops = append(stops, strings.TrimSuffix(strings.SplitN(strings.TrimPrefix(name, "processed/"), "-", 2)[0], ".md"))
		}
	}
	if len(stops) < 8 || len(notesUnder(wantVault, "decisions/")) == 0 || len(notesUnder(wantVault, "meetings/")) < 12 {
		t.Fatalf("the watcher made too little to test: %d session events, %d decisions, %d meeting notes",
			len(stops), len(notesUnder(wantVault, "decisions/")), len(notesUnder(wantVault, "meetings/")))
	}
	isRecord := func(p string) bool { return strings.Contains(p, "/captured/") }

	rng := rand.New(rand.NewPCG(7, 8))
	kills := 0
	for i := range trials {
		restore()
		// One to three kills, each anywhere from start-up to a little past
		// the first pass, then a watcher that settles.
		for k := 0; k < 1+rng.IntN(3); k++ {
			w := startWatch(t, bin, env)
			time.Sleep(time.Duration(rng.Int64N(int64(took) * 6 / 5)))
			if w.cmd.Process.Signal(syscall.SIGKILL) == nil {
				kills++
			}
			_ = w.cmd.Wait()
		}
		w := startWatch(t, bin, env)
		w.settle(t)
		w.stop(t)

		if diff := cmp.Diff(wantInbox, inboxState(t, e.state)); diff != "" {
			t.Fatalf("trial %d: the inbox differs from a watcher never killed (-want +got):\n%s", i, diff)
		}
		checkVaultAfterKills(t, i, "a watcher never killed", wantVault, vaultFiles(t, e.vault), isRecord, stops)

		// The notes' index: nothing left to take in, and it lists what an
		// index built anew from the vault lists.
		out, err := runCortex(t, bin, env, "--json", "reindex")
		if err != nil {
			t.Fatal(err)
		}
		var rep store.SyncReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("reindex --json: %v\n%s", err, out)
		}
		if n := rep.Added + rep.Updated + rep.Removed; n != 0 {
			t.Errorf("trial %d: the watcher left %d notes' changes for the next command (%+v)", i, n, rep)
		}
		listed, err := runCortex(t, bin, env, "--json", "list", "--status", "all")
		if err != nil {
			t.Fatal(err)
		}
		fresh := slices.Clone(env)
		fresh = append(fresh, "CORTEX_HOME="+filepath.Join(t.TempDir(), "state"))
		rebuilt, err := runCortex(t, bin, fresh, "--json", "list", "--status", "all")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(rebuilt, listed); diff != "" {
			t.Errorf("trial %d: the notes listed differ from a fresh index's (-fresh +watched):\n%s", i, diff)
		}

		// The transcript index: nothing left to read, and searches answer
		// as after a rebuild.
		if rep := transcriptSync(t, bin, env); rep.Read != 0 || rep.Removed != 0 {
			t.Errorf("trial %d: the watcher left transcripts for the next command: %d read (%d new, %d grown, %d again whole), %d removed", i, rep.Read, rep.New, rep.Appended, rep.Reread, rep.Removed)
		}
		search := func() string {
			t.Helper()
			var b strings.Builder
			for _, q := range queries {
				out, err := runCortex(t, bin, env, "--json", "transcripts", "search", "--limit", "20", q)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "%s\n%s\n", q, out)
			}
			return b.String()
		}
		before := search()
		if rep := transcriptSync(t, bin, env, "--full"); rep.Exchanges == 0 {
			t.Fatalf("trial %d: the rebuilt transcript index is empty: %+v", i, rep)
		}
		// Exactly, scores too: BM25's statistics are those of the live
		// exchanges, whatever segments the watcher left (see
		// index.fieldLengths).
		if diff := cmp.Diff(search(), before); diff != "" {
			t.Errorf("trial %d: transcript searches differ from a rebuilt index's (-rebuilt +watched):\n%s", i, diff)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("%d trials, %d kills, a first pass takes %s", trials, kills, took.Round(time.Millisecond))
}

// TestTranscriptDirsLeaveOutTheHome: the watcher watches the agents'
// transcript folders, never the whole home folder (Aider's root).
func TestTranscriptDirsLeaveOutTheHome(t *testing.T) {
	home := t.TempDir()
	env := transcript.Env{Home: home, Getenv: func(string) string { return "" }}
	dirs, unwatched := transcriptDirs(env, home)
	if diff := cmp.Diff([]string{home}, unwatched); diff != "" {
		t.Errorf("unwatched (-want +got):\n%s", diff)
	}
	if slices.Contains(dirs, home) {
		t.Errorf("the home folder is watched: %v", dirs)
	}
	if want := filepath.Join(home, ".claude", "projects"); !slices.Contains(dirs, want) {
		t.Errorf("%s is not watched: %v", want, dirs)
	}
}
