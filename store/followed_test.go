package store_test

import (
	"context"
	"os"
	"path/filepath"
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

// TestHeartbeatSkipsTheNoteCheckElsewhere: a watcher of another process
// says through its store's heartbeat that the index is current, and a
// command of this process (a hook) then skips stat'ing every note as the
// watcher's own process does — an edit in place waits for the watcher,
// a note created elsewhere is seen at once. A heartbeat older than its
// life (a watcher killed) or removed (the watcher in doubt) is not
// trusted; nor is one while the watcher is in doubt, however often its
// process beats.
func TestHeartbeatSkipsTheNoteCheckElsewhere(t *testing.T) {
	e := newEnv(t, 0) // freshness 0: without a watcher every read checks every note
	first := e.save("The staging pool holds 20 connections per pod because of max_connections.", "api")
	watcher := newEnvOn(t, e, 0)
	beat := func() string {
		t.Helper()
		ps, err := filepath.Glob(filepath.Join(e.home, "vaults", "*", "followed"))
		if err != nil || len(ps) > 1 {
			t.Fatalf("heartbeats %v: %v", ps, err)
		}
		if len(ps) == 0 {
			return ""
		}
		return ps[0]
	}
	// Notes and folders written less than two seconds before the index's
	// last look are checked by content whatever the heartbeat says (the
	// store's racy window): let the vault settle as a used one is.
	if got := e.recall("staging pool"); len(got) != 1 {
		t.Fatalf("recall: %v", got)
	}
	time.Sleep(2100 * time.Millisecond)
	if got := e.recall("staging pool"); len(got) != 1 {
		t.Fatalf("recall: %v", got)
	}
	beating := func() (stop func()) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			watcher.st.Heartbeat(ctx)
		}()
		return func() { cancel(); <-done }
	}
	stop := beating()
	defer func() { stop() }()
	edited := "---\nid: " + first.ID + "\ntitle: Staging pool\nproject: api\n---\n\nThe staging pool holds 40 connections per pod behind pgbouncer now.\n"
	edit := func() { e.editInPlace(strings.TrimPrefix(first.Path, "cortex/"), edited) }
	steps := []struct {
		name, query string
		do          func()
		kafka       bool // recall finds the note created elsewhere
		found       bool // the edit is in the index: recall of its new word finds the note
		beat        bool // a heartbeat is there after do
	}{
		{name: "an edit in place, followed elsewhere: left to the watcher", found: false, beat: true,
			do: func() { watcher.st.Followed(true); edit() }},
		{name: "still followed after beats past the heartbeat's life", found: false, beat: true,
			do: func() { time.Sleep(5 * time.Second / 4) }},
		{name: "a note created elsewhere, followed: seen at once", found: false, beat: true, kafka: true,
			do: func() {
				e.save("Kafka consumers rebalance when a pod restarts; keep sessions under 45 seconds.", "ops")
			}},
		{name: "a heartbeat older than its life (a watcher killed): the edit is seen", found: true, beat: true,
			do: func() {
				stop()
				old := time.Now().Add(-5 * time.Second / 4)
				if err := os.Chtimes(beat(), old, old); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "the watcher in doubt: no heartbeat", found: true,
			do: func() { stop = beating(); watcher.st.Followed(false) }},
		{name: "in doubt, beats do not bring the heartbeat back", found: true,
			do: func() { time.Sleep(3 * time.Second / 4) }},
	}
	for _, s := range steps {
		if s.do != nil {
			s.do()
		}
		if got := beat() != ""; got != s.beat {
			t.Errorf("%s: heartbeat there %v, want %v", s.name, got, s.beat)
		}
		if got := len(recallTitles(t, e.svc, "pgbouncer")) == 1; got != s.found {
			t.Errorf("%s: the edit found %v, want %v", s.name, got, s.found)
		}
		if s.kafka {
			if got := recallTitles(t, e.svc, "kafka rebalance"); len(got) != 1 {
				t.Errorf("%s: recall of the note created elsewhere: %v", s.name, got)
			}
		}
	}
}
