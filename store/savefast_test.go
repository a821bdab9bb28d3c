package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
)

// fineTimesHere skips a test that needs file times finer than a millisecond
// from a clock whose tick is known (vault.FineWindow): the two-second margin
// then applies, as it should.
func fineTimesHere(t *testing.T, dir string) {
	t.Helper()
	if vault.FineWindow() == 0 {
		t.Skip("the clock behind file times is not known on this system")
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.ModTime().UnixNano()%int64(time.Millisecond) == 0 {
		t.Skip("this filesystem keeps file times to the millisecond or coarser")
	}
}

// TestSavesInARowReadOnlyTheLastFolderAgain: each save writes a note into a
// folder, which changes the folder's time. The next command must read that
// folder again (someone else may have written into it in the same clock
// tick), but not every folder written in the last two seconds: on a
// filesystem with fine times, a folder read once the tick of its time was
// over is trusted again.
func TestSavesInARowReadOnlyTheLastFolderAgain(t *testing.T) {
	e := newEnv(t, time.Minute)
	projects := []string{"api", "web", "ops", "billing", "search", "infra"}
	for _, p := range projects {
		e.save(fmt.Sprintf("The first note of the %s project, about its deploys and alerts.", p), p)
	}
	fineTimesHere(t, e.abs("memories/api"))
	ageNotes(t, e)
	e.recall("deploys") // takes the aged times in
	words := []string{"kafka rebalances", "postgres vacuum", "redis eviction", "nginx buffers", "grpc deadlines", "terraform drift"}
	for i, p := range projects {
		time.Sleep(2 * vault.FineWindow()) // the tick of the last write is over
		e.save(fmt.Sprintf("Saved in a row: %s need watching on %s.", words[i], p), p)
	}
	got, err := e.st.FoldersToReadAgain()
	if err != nil {
		t.Fatal(err)
	}
	// The last save's folder and the cortex folder (whose map of contents
	// was replaced); not the five folders saved into before them.
	if got > 2 {
		t.Errorf("after %d saves in a row the next command reads %d folders again, want at most 2 (the last save's and the map's)", len(projects), got)
	}
	// What another process wrote into a folder is still seen: a note
	// created beside cortex's.
	e.write("memories/web/from-obsidian.md", "---\ntitle: Written in Obsidian\n---\n\nThe web project's CDN purges take ten minutes.\n")
	if ids := e.recall("cdn purges"); len(ids) != 1 {
		t.Errorf("recall of a note written beside the saves = %v, want it", ids)
	}
}

// TestCoarseTimesKeepTheMargin: a folder whose time has no digits below the
// second (a filesystem with coarse times) is read again while its time is
// within two seconds of the catalog's last look, however fine this
// machine's clock.
func TestCoarseTimesKeepTheMargin(t *testing.T) {
	e := newEnv(t, 0) // every command checks fully, and records what it saw
	e.save("The first note of the api project, about its deploys and alerts.", "api")
	e.recall("deploys")
	// The folder's time as a coarse filesystem would keep it: the current
	// second, after the catalog's last look.
	dir := e.abs("memories/api")
	fineTimesHere(t, dir)
	now := time.Now().Truncate(time.Second)
	if time.Since(now) < 100*time.Millisecond {
		time.Sleep(100 * time.Millisecond) // a second whose start is past the fine window
	}
	if err := os.Chtimes(dir, now, now); err != nil {
		t.Fatal(err)
	}
	e.recall("deploys") // reads it, at a look within two seconds of its time
	got, err := e.st.FoldersToReadAgain()
	if err != nil {
		t.Fatal(err)
	}
	if got == 0 {
		t.Errorf("a folder with a whole-second time just written was trusted; want it read again for two seconds")
	}
}

// newKeptEnv opens a store on a new vault with a freshness window of a
// minute, resident (as the MCP server's) or not, as the tests of kept
// catalogs use it.
func newKeptEnv(t *testing.T, resident bool) (*env, *vault.Vault) {
	t.Helper()
	dir := t.TempDir()
	e := &env{t: t, root: filepath.Join(dir, "vault"), home: filepath.Join(dir, "state")}
	v, err := vault.New(e.root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	e.st, err = store.Open(store.Options{Vault: v, State: config.State{Home: e.home}, LockTimeout: 10 * time.Second,
		Freshness: time.Minute, Resident: resident})
	if err != nil {
		t.Fatal(err)
	}
	e.svc = memories.NewService(e.st)
	return e, v
}

// TestSavesReuseTheCatalog: saves in a row in one process — the MCP
// server's, or the CLI's import of several — load the catalog once: each
// save's writer takes the catalog the last one kept when its files are
// unchanged, and a read after them takes it too.
func TestSavesReuseTheCatalog(t *testing.T) {
	for _, resident := range []bool{false, true} {
		t.Run(fmt.Sprintf("resident=%v", resident), func(t *testing.T) {
			e, _ := newKeptEnv(t, resident)
			e.save("The staging pool holds 20 connections per pod.", "api")
			before := e.st.CatalogLoads()
			var ids []string
			for i, text := range []string{
				"Retries back off exponentially up to 30 seconds.",
				"Kafka consumers rebalance when a pod restarts.",
				"The CDN purge takes ten minutes on the web project.",
			} {
				ids = append(ids, e.save(text, []string{"api", "web", "ops"}[i]).ID)
			}
			got := e.recall("retries kafka purge")
			if loads := e.st.CatalogLoads() - before; loads != 0 {
				t.Errorf("three saves and a recall loaded the catalog %d times, want 0 (the first save's kept)", loads)
			}
			for _, id := range ids {
				if !slices.Contains(got, id) {
					t.Errorf("recall after the saves = %v, want %s among them", got, id)
				}
			}
			// Another process's save changes the catalog's files: the next
			// save of this one loads it again and sees that save.
			other := newEnvOn(t, e, time.Minute)
			theirs := other.save("The pool is drained before each deploy.", "api").ID
			if _, err := e.svc.Save(context.Background(), memories.SaveRequest{Content: "The pool is drained before each deploy.", Project: "api"}); err == nil {
				t.Errorf("a save repeating another process's save was not refused (its catalog was out of date)")
			}
			if got := e.recall("drained deploy"); !slices.Contains(got, theirs) {
				t.Errorf("recall after another process's save = %v, want %s", got, theirs)
			}
		})
	}
}

// TestSaveLostFromTheJournalIsFoundAgain: a save's journal append is not
// flushed to disk (its note is, first), so a power loss may keep the note
// and lose the append. The next command finds the note in the vault all the
// same: the catalog then remembers the note's folder as it was before the
// note was written.
func TestSaveLostFromTheJournalIsFoundAgain(t *testing.T) {
	e := newEnv(t, time.Minute)
	e.save("The staging pool holds 20 connections per pod.", "api")
	ageNotes(t, e)
	e.recall("pool") // catches up: the journal holds no owed work
	journals, err := filepath.Glob(filepath.Join(e.home, "vaults", "*", "index", "gen-*", "catalog.journal"))
	if err != nil || len(journals) != 1 {
		t.Fatalf("journals %v (%v), want one", journals, err)
	}
	before, err := os.ReadFile(journals[0])
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	lost := e.save("Retries back off exponentially up to 30 seconds.", "api").ID
	// The power fails: the journal is as it was before the save.
	if err := os.WriteFile(journals[0], before, 0o600); err != nil {
		t.Fatal(err)
	}
	e.open(time.Minute) // a new process
	if got := e.recall("retries back off"); !slices.Contains(got, lost) {
		t.Errorf("recall after the save's journal append was lost = %v, want %s", got, lost)
	}
	e.checkInStep()
}

// TestSaveAppendsToTheJournalOnce: a save whose full check of the vault
// found folders to settle records them with its own note, in one journal
// append, not in a flushed append of their own first.
func TestSaveAppendsToTheJournalOnce(t *testing.T) {
	e := newEnv(t, 0) // every command checks every note
	e.save("The first note of the api project, about its deploys and alerts.", "api")
	e.recall("deploys") // catches up: nothing is owed
	journals, err := filepath.Glob(filepath.Join(e.home, "vaults", "*", "index", "gen-*", "catalog.journal"))
	if err != nil || len(journals) != 1 {
		t.Fatalf("journals %v (%v), want one", journals, err)
	}
	commits := func() int {
		data, err := os.ReadFile(journals[0])
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "@\t") {
				n++
			}
		}
		return n
	}
	// A folder written a moment ago, with a whole-second time: too recent
	// to trust, so the next full check reads it again and has it to settle.
	now := time.Now().Truncate(time.Second)
	if err := os.Chtimes(e.abs("memories/api"), now, now); err != nil {
		t.Fatal(err)
	}
	before := commits()
	e.save("Retries back off exponentially up to 30 seconds.", "web")
	if got := commits() - before; got != 1 {
		t.Errorf("a save appended %d batches to the catalog's journal, want 1", got)
	}
	if got := e.recall("retries back off"); len(got) != 1 {
		t.Errorf("recall after the save = %v, want the saved note", got)
	}
}
