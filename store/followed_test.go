package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
)

// TestFollowedSkipsTheNoteCheck: while a watcher in the process says it
// follows the vault, a resident store's reads do not stat every note (an
// edit in place waits for the watcher's re-index) but still look at the
// folders (a note created elsewhere is seen at once), and its own saves are
// seen at once; once the watcher is in doubt, reads check every note again.
func TestFollowedSkipsTheNoteCheck(t *testing.T) {
	e := newEnv(t, 0) // freshness 0: without a watcher every read checks every note
	first := e.save("The staging pool holds 20 connections per pod because of max_connections.", "api")
	v, err := vault.New(e.root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(store.Options{Vault: v, State: config.State{Home: e.home}, LockTimeout: 10 * time.Second, Resident: true})
	if err != nil {
		t.Fatal(err)
	}
	svc := memories.NewService(st)
	if got := recallTitles(t, svc, "staging pool"); len(got) != 1 {
		t.Fatalf("recall: %v", got)
	}
	st.Followed(true)
	edited := "---\nid: " + first.ID + "\ntitle: Staging pool\nproject: api\n---\n\nThe staging pool holds 40 connections per pod now.\n"
	e.editInPlace(strings.TrimPrefix(first.Path, "cortex/"), edited)
	steps := []struct {
		name, query string
		do          func()
		want        string // in the only result
	}{
		{name: "an edit in place, followed: left to the watcher", query: "staging pool", want: "20 connections"},
		{name: "a note created elsewhere, followed: seen at once", query: "kafka rebalance", want: "Kafka consumers",
			do: func() {
				e.save("Kafka consumers rebalance when a pod restarts; keep sessions under 45 seconds.", "api")
			}},
		{name: "its own save, followed: seen at once", query: "deploys tuesdays", want: "Deploys happen",
			do: func() {
				if _, err := svc.Save(context.Background(), memories.SaveRequest{Content: "Deploys happen on Tuesdays after the standup, never on Fridays.", Project: "api"}); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "the watcher in doubt: the edit is seen", query: "staging pool", want: "40 connections",
			do: func() { st.Followed(false) }},
	}
	for _, s := range steps {
		if s.do != nil {
			s.do()
		}
		got := recallTitles(t, svc, s.query)
		if len(got) != 1 || !strings.Contains(got[0], s.want) {
			t.Errorf("%s: recall %q = %v, want one result with %q", s.name, s.query, got, s.want)
		}
	}
	// The store itself never wrote the edited note.
	if diff := cmp.Diff(edited, e.read(strings.TrimPrefix(first.Path, "cortex/"))); diff != "" {
		t.Errorf("the edited note changed (-edited +now):\n%s", diff)
	}
	e.checkInStep()
}
