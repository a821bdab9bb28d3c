package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/vault"
)

// crashInbox fills an inbox with events of every kind, as the hooks and a
// person leave them: every client's stop (its real transcript, and a session
// of the conformance happy path), Codex's stop without a transcript, Gemini
// CLI's compaction, meetings, manual captures, an unsafe one.
func crashInbox(t *testing.T, e *cliEnv) {
	t.Helper()
	home := e.dir
	if err := os.MkdirAll(filepath.Join(home, "work", "demo-project", ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range e2eClients {
		stop, p := payloadIn(t, c.stop, home, "", "")
		place(t, filepath.Join("../../fixtures", c.transcript), p["transcript_path"].(string))
		happy := filepath.Join("../../fixtures/conformance", c.client, "happy_path.jsonl")
		sid := sessionOf(t, happy)
		happyPath := filepath.Join(home, strings.NewReplacer("<sid>", sid, "<sid8>", sid[:8]).Replace(c.happyPath))
		place(t, happy, happyPath)
		happyStop, _ := payloadIn(t, c.stop, home, sid, happyPath)
		if c.compact != "" {
			compact, _ := payloadIn(t, c.compact, home, "", "")
			e.must(compact, "hook", c.client, "pre-compact")
		}
		e.must(stop, "hook", c.client, "stop")
		e.must(happyStop, "hook", c.client, "stop")
	}
	place(t, "../../fixtures/codex/0.169.0/a_qa.jsonl",
		filepath.Join(home, ".codex/sessions/2026/11/22/rollout-2026-11-22T04-07-04-01a2016f-a952-7792-819c-21ee528dd237.jsonl"))
	nullStop, _ := payloadIn(t, "codex/0.169.0/derived/null_transcript-codex-Stop.json", home, "", "")
	e.must(nullStop, "hook", "codex", "stop")
	for i := range 3 {
		e.must(fmt.Sprintf("# Platform weekly %d\n\n## Decisions\n\n- Week %d: staging moves to Postgres 17 before the freeze of cluster %d.\n\n"+
			"## Action items\n\n- [ ] Ana writes runbook %d, due 2026-12-0%d\n- [ ] Bo checks extension set %d (due: 28 Nov 2026)\n- [x] Chen shares timeline %d\n",
			i, i, i, i, i+1, i, i), "capture", "--type", "meeting", "--project", "platform", "-")
	}
	for i := range 6 {
		e.must("", "capture", "--project", "web", fmt.Sprintf("Release train %d leaves on weekday %d at %d:00, after the smoke tests of suite %d.", i, i%5, 9+i, i*7))
	}
	e.must("", "capture", "--project", "web", "The staging Stripe key is sk_"+"live_Nq7Rz2Lx9Vt4Bw8Ky3Jm6Pd1, rotate monthly.")
}

// inboxState lists the event files of each inbox folder (and the .error
// files of failed/), with their contents.
func inboxState(t *testing.T, state string) map[string]string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(state, "vaults", "*", "inbox"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("inbox folders %v (%v)", dirs, err)
	}
	out := map[string]string{}
	for _, sub := range []string{"pending", "processed", "failed"} {
		ents, err := os.ReadDir(filepath.Join(dirs[0], sub))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, de := range ents {
			data, err := os.ReadFile(filepath.Join(dirs[0], sub, de.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[sub+"/"+de.Name()] = string(data)
		}
	}
	return out
}

// TestKilledNormalizeLosesNothing kills `cortex normalize` at random moments
// of a pass over events of every kind, then lets a normalize finish. Every
// time, the inbox and the vault must end as a pass never killed leaves them:
// each event consumed once (in processed/ or failed/, never still pending or
// in both), every note whole and the same, byte for byte — but for the
// sessions' records, which say what each pass found (a transcript read, or
// already read) and must name each of their events exactly once. It runs 4
// trials; CORTEX_CRASH_TRIALS=N runs N.
func TestKilledNormalizeLosesNothing(t *testing.T) {
	trials := crashTrials(t, 4, "a minute or more")
	bin, _, _ := cortexBin(t)
	e := newCLIEnv(t)
	if err := os.WriteFile(e.config, []byte("lock_timeout: 60s\n"), 0o600); err != nil {
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
	env := os.Environ()
	for k, v := range e.env {
		env = append(env, k+"="+v)
	}
	normalize := func() *exec.Cmd {
		cmd := exec.Command(bin, "normalize")
		cmd.Env = env
		return cmd
	}

	// The pass never killed.
	start := time.Now()
	if out, err := normalize().CombinedOutput(); err != nil {
		t.Fatalf("normalize: %v\n%s", err, out)
	}
	took := time.Since(start)
	wantInbox, wantVault := inboxState(t, e.state), vaultFiles(t, e.vault)
	var stops []string // the ids of the session events
	for name, text := range wantInbox {
		if strings.HasPrefix(name, "processed/") && (strings.Contains(text, "\ntype: stop\n") || strings.Contains(text, "\ntype: pre_compact\n")) {
			stops = append(stops, strings.TrimSuffix(strings.SplitN(strings.TrimPrefix(name, "processed/"), "-", 2)[0], ".md"))
		}
	}
	if len(stops) < 8 || len(notesUnder(wantVault, "meetings/")) < 12 {
		t.Fatalf("the pass made too little to test: %d session events, vault %v", len(stops), slices.Sorted(func(yield func(string) bool) {
			for k := range wantVault {
				if !yield(k) {
					return
				}
			}
		}))
	}
	isRecord := func(p string) bool { return strings.Contains(p, "/captured/") }

	rng := rand.New(rand.NewPCG(5, 6))
	kills := 0
	for i := range trials {
		restore()
		// One to three kills, each anywhere from start-up to a little past a
		// whole pass, then a pass that finishes.
		for k := 0; k < 1+rng.IntN(3); k++ {
			cmd := normalize()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Duration(rng.Int64N(int64(took) * 6 / 5)))
			if cmd.Process.Signal(syscall.SIGKILL) == nil {
				kills++
			}
			_ = cmd.Wait()
		}
		if out, err := normalize().CombinedOutput(); err != nil {
			t.Fatalf("trial %d: the pass after the kills failed: %v\n%s", i, err, out)
		}
		if diff := cmp.Diff(wantInbox, inboxState(t, e.state)); diff != "" {
			t.Fatalf("trial %d: the inbox differs from a pass never killed (-want +got):\n%s", i, diff)
		}
		checkVaultAfterKills(t, i, "a pass never killed", wantVault, vaultFiles(t, e.vault), isRecord, stops)
		if t.Failed() {
			t.FailNow()
		}
	}
	if _, err := runCortex(t, bin, env, "doctor"); err != nil {
		t.Errorf("doctor after the kills: %v", err)
	}
	t.Logf("%d trials, %d kills, a pass takes %s", trials, kills, took.Round(time.Millisecond))
}

// checkVaultAfterKills compares the vault after a trial of kills (got) with
// the one a run never killed left (want): the same files, every note whole,
// each file the same but the sessions' records (isRecord), which must name each stop
// event exactly once between them.
func checkVaultAfterKills(t *testing.T, trial int, than string, want, got map[string]string, isRecord func(string) bool, stops []string) {
	t.Helper()
	var gotPaths, wantPaths []string
	for p := range got {
		if !atomicfile.IsTemp(filepath.Base(p)) {
			gotPaths = append(gotPaths, p)
		}
	}
	for p := range want {
		wantPaths = append(wantPaths, p)
	}
	slices.Sort(gotPaths)
	slices.Sort(wantPaths)
	if diff := cmp.Diff(wantPaths, gotPaths); diff != "" {
		t.Fatalf("trial %d: the vault's files differ from %s (-want +got):\n%s", trial, than, diff)
	}
	records := ""
	for _, p := range gotPaths {
		data := got[p]
		if strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, "_index.md") {
			if _, err := vault.ParseNote([]byte(data)); err != nil || !strings.HasSuffix(data, "\n") {
				t.Errorf("trial %d: torn note %s (%v)", trial, p, err)
			}
		}
		if isRecord(p) {
			records += data
			continue
		}
		if data != want[p] {
			t.Errorf("trial %d: %s differs from %s:\n%s", trial, p, than, cmp.Diff(want[p], data))
		}
	}
	for _, id := range stops {
		if n := strings.Count(records, "event `"+id+"`"); n != 1 {
			t.Errorf("trial %d: the records name event %s %d times", trial, id, n)
		}
	}
}
