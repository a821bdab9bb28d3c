package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// TestSaveKeepsItsWordsForTheNextSave: a save keeps its new note's word set
// and keys in its project's recent file, as the next save's check would
// make them from the note (noteWords), so that the next save into the
// project reads no note for its word sets; without it, the next save read
// the note the last one wrote. Decisions are those of sets made from the
// note: a copy of the kept note is refused, and a note changed since keeps
// nothing.
func TestSaveKeepsItsWordsForTheNextSave(t *testing.T) {
	for _, resident := range []bool{false, true} {
		t.Run(fmt.Sprintf("resident=%v", resident), func(t *testing.T) { testSaveKeepsItsWords(t, resident) })
	}
}

func testSaveKeepsItsWords(t *testing.T, resident bool) {
	ctx := context.Background()
	e := newOwedEnv(t)
	for i := range 12 {
		path := filepath.Join(e.root, "cortex", "memories", "zoo", fmt.Sprintf("n%02d.md", i))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		note := fmt.Sprintf("---\nid: 01jkeepwords%014d\ntitle: Service %d\nproject: zoo\n---\nThe queue of service %d retries on port %d after %d ms.\n", i, i, i, 9000+i, 40*i)
		if err := os.WriteFile(path, []byte(note), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, svc := e.open()
	if resident {
		st, svc = openResident(t, e)
	}
	if _, err := st.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := svc.PrepareChecks(ctx); err != nil {
		t.Fatal(err)
	}
	text := "The ledger settles every night at two (`settle.sh`, cron 0 2) and mails the totals to finance."
	res, err := svc.Save(ctx, memories.SaveRequest{Content: text, Project: "zoo"})
	if err != nil {
		t.Fatal(err)
	}
	// Kept as noteWords makes them from the note as written.
	data, err := os.ReadFile(filepath.Join(e.root, "cortex", filepath.FromSlash(res.Path)))
	if err != nil {
		t.Fatal(err)
	}
	rc := readWords(st.recentPath("zoo"))
	got, ok := rc.m[res.Path]
	if !ok {
		t.Fatalf("the recent file of zoo lacks the saved note %s", res.Path)
	}
	if err := keptAsRead(got, res.Title, data); err != nil {
		t.Fatal(err)
	}
	reads := st.wordReads.Load()
	if _, err := svc.Save(ctx, memories.SaveRequest{Content: "Deploys of the ledger wait for the nightly settlement to finish first.", Project: "zoo"}); err != nil {
		t.Fatal(err)
	}
	if n := st.wordReads.Load() - reads; n != 0 {
		t.Errorf("the save after a save read %d notes for their word sets, want 0", n)
	}
	_, err = svc.Save(ctx, memories.SaveRequest{Content: text, Project: "zoo"})
	var rej *memories.RejectedError
	if !errors.As(err, &rej) || rej.Existing == nil || rej.Existing.ID != res.ID {
		t.Errorf("saving a copy of the kept note: err = %v, want a refusal as a duplicate of %s", err, res.ID)
	}
}

// TestKeepWordsOnlyOfTheNoteAsWritten: KeepWords keeps nothing for a
// memory whose title or body is not the note's (the sets given were made
// of other text than the check would read).
func TestKeepWordsOnlyOfTheNoteAsWritten(t *testing.T) {
	ctx := context.Background()
	e := newOwedEnv(t)
	st, svc := e.open()
	res, err := svc.Save(ctx, memories.SaveRequest{Content: "The cache of the billing service expires after ten minutes.", Project: "zoo"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(st.recentPath("zoo")); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	for _, c := range []struct{ title, body string }{
		{res.Title, "The cache of the billing service expires after an hour."},
		{"Another title", "The cache of the billing service expires after ten minutes."},
	} {
		err := st.Update(ctx, func(mt memories.Tx) error {
			m := &memories.Memory{ID: res.ID, Path: res.Path, Title: c.title, Project: "zoo", Body: c.body}
			mt.(*tx).KeepWords(ctx, []memories.KeptWords{{Memory: m, Words: dedup.Words(c.title + "\n" + c.body), Keys: dedup.KeysOf(c.title + "\n" + c.body)}})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if rc := readWords(st.recentPath("zoo")); len(rc.m) != 0 {
			t.Errorf("title %q, body %q: kept %d sets, want none", c.title, c.body, len(rc.m))
		}
	}
}

// keptAsRead says how got, a word set kept for the note with title and
// bytes data, differs from the one the duplicate check makes of the note
// (noteWords): nil when it is that one.
func keptAsRead(got wordEntry, title string, data []byte) error {
	body, ok := vault.NoteBody(data)
	if !ok {
		return errors.New("the note has no body")
	}
	text := title + "\n" + string(body)
	wantWords, wantKeys := dedup.Words(text), dedup.KeysOf(text)
	if got.hash != hash(data) || !slices.Equal(got.words, wantWords) ||
		!slices.Equal(got.keys.Numbers(), wantKeys.Numbers()) || !slices.Equal(got.keys.Codes(), wantKeys.Codes()) {
		return fmt.Errorf("kept %x %v %v %v, want %x %v %v %v", got.hash, got.words, got.keys.Numbers(), got.keys.Codes(),
			hash(data), wantWords, wantKeys.Numbers(), wantKeys.Codes())
	}
	return nil
}

// openResident opens e's vault as a long-running process (the MCP server)
// does, its warnings kept in e.warnings as e.open keeps them.
func openResident(t *testing.T, e *owedEnv) (*Store, *memories.Service) {
	t.Helper()
	v, err := vault.New(e.root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(Options{Vault: v, State: config.State{Home: e.home}, LockTimeout: 30 * time.Second, Freshness: time.Second, Resident: true,
		Warn: func(s string) { e.mu.Lock(); e.warnings = append(e.warnings, s); e.mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	return st, memories.NewService(st)
}
