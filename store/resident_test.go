package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
)

// resident opens a second, resident store on e's vault, as the MCP server
// would beside the CLI.
func (e *env) resident(t *testing.T) *memories.Service {
	t.Helper()
	_, svc := e.residentStore(t)
	return svc
}

// residentStore is resident with its store.
func (e *env) residentStore(t *testing.T) (*store.Store, *memories.Service) {
	t.Helper()
	v, err := vault.New(e.root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(store.Options{Vault: v, State: config.State{Home: e.home}, LockTimeout: 10 * time.Second, Resident: true})
	if err != nil {
		t.Fatal(err)
	}
	return st, memories.NewService(st)
}

func recallTitles(t *testing.T, svc *memories.Service, q string) []string {
	t.Helper()
	res, err := svc.Recall(context.Background(), memories.RecallRequest{Query: q, Limit: 50})
	if err != nil {
		t.Fatalf("recall %q: %v", q, err)
	}
	var out []string
	for _, r := range res.Results {
		out = append(out, r.Memory.Title+": "+r.Memory.Content())
	}
	return out
}

// TestResidentSeesOthers: a resident store keeps its index open between reads
// yet sees at once what another process saves, edits in place or supersedes,
// and never keeps that process waiting longer than the linger.
func TestResidentSeesOthers(t *testing.T) {
	e := newEnv(t, 0) // freshness 0: every read checks every note
	res := e.resident(t)
	first := e.save("The staging pool holds 20 connections per pod because of max_connections.", "api")
	if got := recallTitles(t, res, "staging pool"); len(got) != 1 {
		t.Fatalf("resident recall: %v", got)
	}
	// Another process saves while the resident store lingers: the save
	// waits at most the linger, and the next read sees it.
	start := time.Now()
	e.save("Kafka consumers rebalance when a pod restarts; keep sessions under 45 seconds.", "api")
	if d := time.Since(start); d > store.Linger+2*time.Second {
		t.Errorf("a save beside the lingering reader took %v", d)
	}
	if got := recallTitles(t, res, "kafka rebalance"); len(got) != 1 {
		t.Errorf("the resident store does not see the new note: %v", got)
	}
	// An edit made in place (as Obsidian does) is seen, cached note or not.
	e.editInPlace(strings.TrimPrefix(first.Path, "cortex/"), "---\nid: "+first.ID+"\ntitle: Staging pool\nproject: api\n---\n\nThe staging pool holds 40 connections per pod now.\n")
	if got := recallTitles(t, res, "staging pool"); len(got) != 1 || !strings.Contains(got[0], "40 connections") {
		t.Errorf("after an edit in place: %v", got)
	}
	// A write through the resident store itself does not wait for its own
	// lingering reader.
	start = time.Now()
	if _, err := res.Save(context.Background(), memories.SaveRequest{Content: "Deploys happen on Tuesdays after the standup, never on Fridays.", Project: "api"}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a save through the resident store took %v", d)
	}
	if got := recallTitles(t, res, "deploys tuesdays"); len(got) != 1 {
		t.Errorf("after its own save: %v", got)
	}
	e.checkInStep()
}

// TestResidentAnswersAsAFreshStore: the same queries give the same answers from
// a resident store, warm, as from a store opened for each.
func TestResidentAnswersAsAFreshStore(t *testing.T) {
	e := newEnv(t, time.Second)
	for _, c := range []string{
		"Use RS256 for JWT signing in production because HS256 shares the secret.",
		"The staging pool holds 20 connections per pod because of max_connections.",
		"Kafka consumers rebalance when a pod restarts; keep sessions under 45 seconds.",
		"Redis client timeout is 5s by default; bulk jobs need 30s.",
	} {
		e.save(c, "api")
	}
	res := e.resident(t)
	for round := 0; round < 3; round++ {
		for _, q := range []string{"jwt", "pool connections", "kafka", "redis timeout", "nothing here"} {
			got, want := recallTitles(t, res, q), recallTitles(t, e.svc, q)
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("round %d, %q: resident %v, fresh %v", round, q, got, want)
			}
		}
	}
}

// TestDropResidentDuringARead: a resident store's DropResident returns while
// a read holds the store (as the server's trimmer drops pages during a
// call), and the read goes on searching.
func TestDropResidentDuringARead(t *testing.T) {
	e := newEnv(t, 0)
	for i := range 50 {
		e.write(fmt.Sprintf("memories/p/n%02d.md", i), fmt.Sprintf("---\nid: 01jt%022d\ntitle: note %d\n---\nThe staging database keeps copy %d of the ledger.\n", i, i, i))
	}
	if _, err := e.st.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	st, svc := e.residentStore(t)
	if got := recallTitles(t, svc, "staging ledger"); len(got) == 0 {
		t.Fatal("no recall before the read")
	}
	ctx := context.Background()
	err := st.View(ctx, func(snap memories.Snapshot) error {
		req := memories.SearchRequest{Text: "staging ledger", Size: 10}
		before, err := snap.Search(ctx, req)
		if err != nil {
			return err
		}
		done := make(chan struct{})
		go func() {
			st.DropResident()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			return errors.New("DropResident waited for the read")
		}
		after, err := snap.Search(ctx, req)
		if err != nil {
			return err
		}
		if len(before) == 0 || len(after) != len(before) {
			return fmt.Errorf("%d hits before DropResident, %d after", len(before), len(after))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
