package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

func TestAppendLogAndActivity(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "hooks.log")
	receipts := filepath.Join(dir, "receipts")
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	entries := []LogEntry{
		{Time: now.Add(-48 * time.Hour), Client: "codex", Event: "stop", Outcome: OutcomeError, Error: "too old to count"},
		{Time: now.Add(-time.Hour), Client: "claude-code", Event: "session-start", Vault: "/v", Outcome: OutcomeInjected},
		{Time: now.Add(-time.Hour), Client: "claude-code", Event: "session-start", Vault: "/other", Outcome: OutcomeError, Error: "another vault's"},
		{Time: now.Add(-30 * time.Minute), Client: "gemini-cli", Event: "PreCompress", Vault: "/v", Outcome: OutcomeError, Error: "inbox: disk full"},
		{Time: now.Add(-time.Minute), Client: "cursor", Event: "nope", Outcome: OutcomeError, Error: "event: \"nope\" is not a hook event"},
	}
	for _, e := range entries {
		if err := AppendLog(log, e, nil); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(log)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("log %v, %v", fi, err)
	}
	// Nothing briefed yet.
	act, err := Reporter{Log: log, Receipts: receipts, Vault: "/v"}.Activity(now)
	if err != nil {
		t.Fatal(err)
	}
	want := &memories.HookActivity{Log: log, Runs: 3, Errors: 2, LastError: `cursor nope: event: "nope" is not a hook event`,
		LastErrorTime: now.Add(-time.Minute)}
	if diff := cmp.Diff(act, want); diff != "" {
		t.Errorf("activity (-got +want):\n%s", diff)
	}
	// The latest receipt is the latest briefing.
	for i, tokens := range []int{100, 200} {
		rec := &Receipt{ID: fmt.Sprintf("01jn%022d", i+1), Time: now.Add(time.Duration(i) * time.Second), Client: Codex, Event: SessionStart,
			Project: Project{Name: "web", From: "git repository /w"}}
		rec.Used.Tokens, rec.Used.Items, rec.Budget.Tokens = tokens, 2, 1500
		if _, err := WriteReceipt(receipts, rec); err != nil {
			t.Fatal(err)
		}
	}
	act, err = Reporter{Log: log, Receipts: receipts, Vault: "/v"}.Activity(now)
	if err != nil {
		t.Fatal(err)
	}
	wantBrief := &memories.BriefingReceipt{Time: now.Add(time.Second), Client: "codex", Project: "web", Items: 2, Tokens: 200, Budget: 1500,
		Path: filepath.Join(receipts, "01jn0000000000000000000002.json")}
	if diff := cmp.Diff(act.LastBriefing, wantBrief); diff != "" {
		t.Errorf("last briefing (-got +want):\n%s", diff)
	}
}

// A log that cannot be written (a read-only state folder, a full disk) sends
// the line to the fallback writer instead, with why.
func TestAppendLogFallback(t *testing.T) {
	dir := t.TempDir()
	// A folder where the log should be: every write fails.
	log := filepath.Join(dir, "hooks.log")
	if err := os.Mkdir(log, 0o700); err != nil {
		t.Fatal(err)
	}
	var fallback bytes.Buffer
	err := AppendLog(log, LogEntry{Client: "codex", Event: "stop", Outcome: OutcomeError, Error: "boom"}, &fallback)
	if err == nil {
		t.Fatal("a log that cannot be written reports no error")
	}
	got := fallback.String()
	if !strings.HasPrefix(got, `cortex hook: {"ts":`) || !strings.Contains(got, `"error":"boom"`) || !strings.Contains(got, "cannot be written") {
		t.Errorf("fallback %q", got)
	}
}

// The log is moved aside past its size, so it never grows without bound.
func TestAppendLogRotates(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "hooks.log")
	if err := os.WriteFile(log, bytes.Repeat([]byte("x"), maxLogSize-10), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := AppendLog(log, LogEntry{Client: "codex", Event: "stop", Outcome: OutcomeCaptured}, nil); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var e LogEntry
	if err := json.Unmarshal(bytes.TrimSpace(data), &e); err != nil || e.Outcome != OutcomeCaptured {
		t.Errorf("the new log holds %q", data)
	}
	if fi, err := os.Stat(log + ".1"); err != nil || fi.Size() != maxLogSize-10 {
		t.Errorf("the old log: %v, %v", fi, err)
	}
}

// TestReceiptsPruned: a receipt whose id ends in a pruning digit removes
// the oldest receipts beyond keepReceipts; the others leave the folder
// alone, so that a session-start does not list it every time.
func TestReceiptsPruned(t *testing.T) {
	dir := t.TempDir()
	id := func(i int, last byte) string { return fmt.Sprintf("01jn%021d%c", i, last) }
	for i := 1; i <= keepReceipts+5; i++ {
		if _, err := WriteReceipt(dir, &Receipt{ID: id(i, '1')}); err != nil {
			t.Fatal(err)
		}
	}
	names, err := receiptNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != keepReceipts+5 {
		t.Errorf("%d receipts after %d writes that do not prune, want all of them", len(names), keepReceipts+5)
	}
	if _, err := WriteReceipt(dir, &Receipt{ID: id(keepReceipts+6, 'g')}); err != nil {
		t.Fatal(err)
	}
	if names, err = receiptNames(dir); err != nil {
		t.Fatal(err)
	}
	if len(names) != keepReceipts || names[0] != id(7, '1')+".json" {
		t.Errorf("%d receipts kept after a pruning write, the oldest %s; want %d, the oldest %s", len(names), names[0], keepReceipts, id(7, '1')+".json")
	}
}

// TestReceiptsPrunedAboutOneWriteIn16: ids made as cortex makes them prune
// on about one write in 16.
func TestReceiptsPrunedAboutOneWriteIn16(t *testing.T) {
	ids := memories.NewULIDGen(nil)
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	prunes := 0
	const n = 16000
	for i := range n {
		if prunesReceipts(ids.NewID(now.Add(time.Duration(i) * time.Millisecond))) {
			prunes++
		}
	}
	if prunes < n/16*8/10 || prunes > n/16*12/10 {
		t.Errorf("%d of %d ids prune, want about %d", prunes, n, n/16)
	}
}
