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

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
)

// countingIDs mints ids that sort by creation, the same in every run.
type countingIDs struct{ n int }

func (g *countingIDs) NewID(time.Time) string {
	g.n++
	return fmt.Sprintf("01test%010d", g.n)
}

// openStore opens a store over root and state, resident or not, with a
// service whose ids and clock are the same in every run.
func openStore(t *testing.T, root, state string, resident bool) (*store.Store, *memories.Service) {
	t.Helper()
	v, err := vault.New(root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(store.Options{Vault: v, State: config.State{Home: state}, LockTimeout: 10 * time.Second,
		Freshness: time.Minute, Resident: resident})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { now = now.Add(time.Second); return now }
	return st, memories.NewService(st, memories.WithIDGen(&countingIDs{}), memories.WithClock(clock))
}

// outcome is what a save decided: the memory it duplicates, or the notes it
// links to.
func outcome(res *memories.SaveResult, err error, read func(string) string) (string, error) {
	var rej *memories.RejectedError
	switch {
	case errors.As(err, &rej) && rej.Existing != nil:
		return "duplicate of " + rej.Existing.ID, nil
	case err != nil:
		return "", err
	}
	note := read(res.Path)
	_, links, _ := strings.Cut(note, "related:")
	links, _, _ = strings.Cut(links, "\n---")
	return "saved, related:" + links, nil
}

// TestResidentSavesDecideAsOneShotSaves: the MCP server's store keeps the
// word sets of the notes its saves compared with in memory, a one-shot
// store in a file; the decisions are the same: the same duplicates refused,
// the same notes linked.
func TestResidentSavesDecideAsOneShotSaves(t *testing.T) {
	dir := t.TempDir()
	var roots [2]string
	for i := range roots {
		roots[i] = filepath.Join(dir, fmt.Sprint("vault", i))
		if _, err := bench.WriteVault(roots[i], 400, 11, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
	}
	one, oneSvc := openStore(t, roots[0], filepath.Join(dir, "state0"), false)
	resident, resSvc := openStore(t, roots[1], filepath.Join(dir, "state1"), true)

	// New memories, and memories said again: each twice over, so that the
	// second time compares with the notes the first one did.
	gen := bench.NewGenerator(5, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	var reqs []memories.SaveRequest
	for i := 0; i < 12; i++ {
		m := gen.Memory()
		req := memories.SaveRequest{Content: m.Body, Title: m.Title, Project: m.Project}
		again := req
		again.Content = "Said again: " + m.Body
		reqs = append(reqs, req, again)
	}
	ctx := context.Background()
	for i, req := range reqs {
		var got [2]string
		for k, svc := range []*memories.Service{oneSvc, resSvc} {
			res, err := svc.Save(ctx, req)
			root := roots[k]
			o, err := outcome(res, err, func(p string) string { return readFile(t, filepath.Join(root, "cortex", filepath.FromSlash(p))) })
			if err != nil {
				t.Fatalf("save %d: %v", i, err)
			}
			got[k] = o
		}
		if diff := cmp.Diff(got[0], got[1]); diff != "" {
			t.Errorf("save %d (%.40q): a resident store decided otherwise (-one-shot +resident):\n%s", i, req.Content, diff)
		}
	}
	// Each note is read for its word set once, when a save first compares
	// with it; after that both stores have it kept (the one-shot store in
	// its file).
	for k, st := range []*store.Store{one, resident} {
		if got, most := st.WordReads(), int64(400+len(reqs)); got > most {
			t.Errorf("store %d read %d notes for their word sets, want at most %d (each once)", k, got, most)
		}
	}
}

// TestResidentFingerprintOfAnEditedNote: a note edited in place after a save
// compared with it is compared as it reads now, even while the catalog has
// not seen the edit yet (within the freshness window, an edit made in place
// leaves its folder's time alone).
func TestResidentFingerprintOfAnEditedNote(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "vault")
	st, svc := openStore(t, root, filepath.Join(dir, "state"), true)
	ctx := context.Background()
	first := "The billing service retries webhook deliveries five times with exponential backoff starting at two seconds."
	a, err := svc.Save(ctx, memories.SaveRequest{Content: first, Project: "billing"})
	if err != nil {
		t.Fatal(err)
	}
	// Compared with a, which the store then keeps the fingerprint of.
	if _, err := svc.Save(ctx, memories.SaveRequest{Content: "Billing webhook deliveries that still fail after the retries go to the dead letter queue.", Project: "billing"}); err != nil {
		t.Fatal(err)
	}
	hits := st.FingerprintHits()
	// A person rewrites a in Obsidian: it says something else now.
	e := &env{t: t, root: root}
	rel := strings.TrimPrefix(a.Path, "cortex/")
	note := e.read(rel)
	head, _, _ := strings.Cut(note, first)
	e.editInPlace(rel, head+"Superseded: the payments team owns this topic now, ask them.\n")
	// The first text again is no duplicate of what a says now.
	if _, err := svc.Save(ctx, memories.SaveRequest{Content: first, Project: "billing"}); err != nil {
		t.Errorf("saving the first text again after its note was rewritten: %v, want it saved", err)
	}
	if got := st.FingerprintHits(); got != hits {
		t.Errorf("the edited note's old fingerprint was used (%d hits, %d before the edit)", got, hits)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestResidentSavesReadOwedNotesOnce: saves in a row leave their notes'
// indexing owed until a catch-up, and each save's search for similar
// memories matches the owed notes too. A resident store matches them as it
// parsed them when it wrote them, while their files are unchanged, instead
// of reading every one of them again for every save.
func TestResidentSavesReadOwedNotesOnce(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "vault")
	st, svc := openStore(t, root, filepath.Join(dir, "state"), true)
	ctx := context.Background()
	topics := []string{"kafka consumer lag", "postgres autovacuum", "redis eviction policy", "nginx proxy buffers",
		"grpc deadline propagation", "terraform state drift", "helm chart values", "s3 lifecycle rules"}
	for i, topic := range topics {
		_, err := svc.Save(ctx, memories.SaveRequest{Content: fmt.Sprintf("The %s of the ops cluster needs watching every week, item %d.", topic, i), Project: "ops"})
		if err != nil {
			t.Fatal(err)
		}
	}
	before := st.NoteReads()
	if _, err := svc.Save(ctx, memories.SaveRequest{Content: "The ops cluster's kafka consumer lag alert fires at ten thousand messages.", Project: "ops"}); err != nil {
		t.Fatal(err)
	}
	// Not even its own note: it is indexed from the bytes written.
	if got := st.NoteReads() - before; got != 0 {
		t.Errorf("a save after %d owed saves read %d notes, want none", len(topics), got)
	}
}
