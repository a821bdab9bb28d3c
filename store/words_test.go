package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
)

// openChecking is openStore, one-shot, of a store that checks the whole
// vault on every command (Freshness 0), so that it sees an edit made in
// place at once.
func openChecking(t *testing.T, root, state string) (*store.Store, *memories.Service) {
	t.Helper()
	v, err := vault.New(root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(store.Options{Vault: v, State: config.State{Home: state}, LockTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { now = now.Add(time.Second); return now }
	return st, memories.NewService(st, memories.WithIDGen(&countingIDs{n: 100}), memories.WithClock(clock))
}

// duplicateRankedLow saves, into project webapp of a fresh store, a note and
// 30 notes whose titles hold five words found nowhere else, then returns
// the note's id and a request that says the note again under a title of
// those five words. An index search for the request's rarest words ranks
// the 30 titles first (a title counts twice), so the note is not among the
// 20 best.
func duplicateRankedLow(t *testing.T, svc *memories.Service) (string, memories.SaveRequest) {
	t.Helper()
	ctx := context.Background()
	gen := bench.NewGenerator(3, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	body := gen.Sentence(14) + " " + gen.Sentence(12) + " " + gen.Sentence(16) + " " + gen.Sentence(10)
	res, err := svc.Save(ctx, memories.SaveRequest{Title: "Release checklist", Content: body, Project: "webapp"})
	if err != nil {
		t.Fatal(err)
	}
	const rare = "quokka marmot tapir okapi narwhal"
	for i := 0; i < 30; i++ {
		m := gen.Memory()
		_, err := svc.Save(ctx, memories.SaveRequest{Title: fmt.Sprintf("The %s list %d", rare, i), Content: m.Body, Project: "webapp"})
		var rej *memories.RejectedError
		if errors.As(err, &rej) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return res.ID, memories.SaveRequest{Title: rare, Content: body, Project: "webapp"}
}

// TestSaveRefusesADuplicateTheIndexRanksLow: a save is compared with every
// memory of its project and general, not with the 20 an index search for
// its rarest words ranks first: a text said again under another title is
// refused however many notes share the title's words.
func TestSaveRefusesADuplicateTheIndexRanksLow(t *testing.T) {
	for _, resident := range []bool{false, true} {
		t.Run(fmt.Sprint("resident=", resident), func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "vault")
			if _, err := bench.WriteVault(root, 300, 7, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)); err != nil {
				t.Fatal(err)
			}
			_, svc := openStore(t, root, filepath.Join(dir, "state"), resident)
			id, req := duplicateRankedLow(t, svc)
			_, err := svc.Save(context.Background(), req)
			var rej *memories.RejectedError
			if !errors.As(err, &rej) || rej.Existing == nil {
				t.Fatalf("saving the note again under another title: %v, want it refused as a duplicate of %s", err, id)
			}
			if rej.Existing.ID != id {
				t.Errorf("refused as a duplicate of %s (%s), want %s", rej.Existing.ID, rej.Existing.Title, id)
			}
		})
	}
}

// TestWordSetsFollowTheNotes: the word sets kept in the state folder are
// used only while a note's bytes are those they were made from. A note
// edited after a save compared with it is compared as it reads now; a word
// file that is damaged, or written by a cortex that fingerprints otherwise,
// is not trusted, and is written again.
func TestWordSetsFollowTheNotes(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "vault")
	state := filepath.Join(dir, "state")
	st, svc := openStore(t, root, state, false)
	ctx := context.Background()
	first, err := svc.Save(ctx, memories.SaveRequest{Title: "Kafka lag", Content: "The kafka consumer lag of the billing cluster alerts at ten thousand messages.", Project: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	text := "Terraform state drift in the staging account is checked by the nightly plan job, which posts to the infra channel."
	if _, err := svc.Save(ctx, memories.SaveRequest{Content: "Helm chart values for the search service live in the deploy repository under charts.", Project: "ops"}); err != nil {
		t.Fatal(err)
	}
	words := st.WordsFile("ops")
	if _, err := os.Stat(words); err != nil {
		t.Fatalf("no word file after two saves: %v", err)
	}
	// The first note now says what the next save says: a duplicate, which
	// its kept word set (made from its old text) would not show.
	note := filepath.Join(root, "cortex", filepath.FromSlash(first.Path))
	data := readFile(t, note)
	head, _, _ := strings.Cut(data, "\n---\n")
	// Written as an editor saves, by a rename, which changes the folder's
	// time: the store's check of the vault sees the edit.
	if err := os.WriteFile(note+".tmp", []byte(head+"\n---\n\n"+text+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(note+".tmp", note); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	for _, p := range []string{note, filepath.Dir(note)} {
		if err := os.Chtimes(p, later, later); err != nil {
			t.Fatal(err)
		}
	}
	st2, svc2 := openChecking(t, root, state)
	_, err = svc2.Save(ctx, memories.SaveRequest{Content: text, Project: "ops"})
	var rej *memories.RejectedError
	if !errors.As(err, &rej) || rej.Existing == nil || rej.Existing.ID != first.ID {
		t.Fatalf("saving the edited note's new text: %v, want it refused as a duplicate of %s ", err, first.ID)
	}
	// The edited note alone: the one the last save wrote, which no save
	// had compared with yet, kept its set when it was saved.
	if got := st2.WordReads(); got != 1 {
		t.Errorf("%d notes read for their word sets after one edit, want 1 (the edited note)", got)
	}

	// A damaged word index is made again from the kept word sets, reading
	// no note; damaged word sets as well, and every note is read again.
	for _, damage := range []struct {
		name, next  string
		index, sets []byte
	}{
		{"torn", "Grafana dashboards for the ops cluster are provisioned from json files.", []byte("cortex dedup index 1\n\x01\x02"), []byte("cortex dedup words 1\n\x01\x02")},
		{"foreign", "Pager rotation swaps every Monday at nine, handover notes go in the wiki.", append([]byte("cortex dedup index 1\n"), make([]byte, 80)...), append([]byte("cortex dedup words 1\n"), make([]byte, 40)...)},
		{"empty", "Backups of the ledger database are restored monthly into a scratch instance.", nil, nil},
	} {
		for _, both := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/sets=%v", damage.name, both), func(t *testing.T) {
				if err := os.WriteFile(st2.WordIndexFile("ops"), damage.index, 0o600); err != nil {
					t.Fatal(err)
				}
				if both {
					for _, f := range []string{words, strings.TrimSuffix(words, ".words") + ".recent"} {
						if err := os.WriteFile(f, damage.sets, 0o600); err != nil {
							t.Fatal(err)
						}
					}
				}
				st, svc := openChecking(t, root, state)
				_, err := svc.Save(ctx, memories.SaveRequest{Content: text + " Said again.", Project: "ops"})
				if !errors.As(err, &rej) || rej.Existing == nil || rej.Existing.ID != first.ID {
					t.Fatalf("saving with a %s word index: %v, want it refused as a duplicate of %s", damage.name, err, first.ID)
				}
				// Besides the note the last save wrote, which no save read yet.
				if got := st.WordReads(); both && got < 3 || !both && got > 1 {
					t.Errorf("%d notes read for their word sets with a %s word index (word sets damaged too: %v), want every note of ops read again only then", got, damage.name, both)
				}
				st, svc = openChecking(t, root, state)
				if _, err := svc.Save(ctx, memories.SaveRequest{Content: damage.next + fmt.Sprint(both), Project: "ops"}); err != nil {
					t.Fatal(err)
				}
				if got := st.WordReads(); got != 0 {
					t.Errorf("%d notes read for their word sets after the %s file was written again, want 0", got, damage.name)
				}
			})
		}
	}
}

// TestFirstSaveMakesEveryProjectsWordSets: the first save reads every note
// for its word set, whatever its project, so that the saves after it, in
// any project, read none (but for notes written since).
func TestFirstSaveMakesEveryProjectsWordSets(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "vault")
	if _, err := bench.WriteVault(root, 300, 5, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state")
	ctx := context.Background()
	st, svc := openStore(t, root, state, false)
	if _, err := svc.Save(ctx, memories.SaveRequest{Content: "The webapp's session cookie is renewed on every request past half its life.", Project: "webapp"}); err != nil {
		t.Fatal(err)
	}
	if got := st.WordReads(); got < 250 {
		t.Errorf("the first save read %d notes for their word sets, want all of the vault's 300 but superseded ones", got)
	}
	for _, p := range []string{"billing", "infra", "a-new-project"} {
		st, svc := openStore(t, root, state, false)
		if _, err := svc.Save(ctx, memories.SaveRequest{Content: "Nightly exports of " + p + " land in the shared bucket before six.", Project: p}); err != nil {
			t.Fatal(err)
		}
		if got := st.WordReads(); got != 0 {
			t.Errorf("a save into %s after the first read %d notes for their word sets, want 0", p, got)
		}
	}
}
