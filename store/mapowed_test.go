package store_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
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

// mapVault is a vault and its state folder for the map tests.
type mapVault struct {
	t           *testing.T
	root, state string
}

func newMapVault(t *testing.T) *mapVault {
	t.Helper()
	dir := t.TempDir()
	return &mapVault{t: t, root: filepath.Join(dir, "vault"), state: filepath.Join(dir, "state")}
}

// open opens a store over the vault, as a process would: resident as the
// MCP server's, or not as a command's. Its service mints the ids from
// first on and dates them from the same clock in every test, so that two
// vaults given the same saves hold the same notes.
func (v *mapVault) open(resident bool, first int) (*store.Store, *memories.Service) {
	v.t.Helper()
	vlt, err := vault.New(v.root, "cortex")
	if err != nil {
		v.t.Fatal(err)
	}
	st, err := store.Open(store.Options{Vault: vlt, State: config.State{Home: v.state}, LockTimeout: 10 * time.Second,
		Freshness: time.Minute, Resident: resident})
	if err != nil {
		v.t.Fatal(err)
	}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC).Add(time.Duration(first) * time.Minute)
	clock := func() time.Time { now = now.Add(time.Second); return now }
	return st, memories.NewService(st, memories.WithIDGen(&countingIDs{n: first}), memories.WithClock(clock))
}

// mapText is the i'th memory the map tests save: words drawn at random
// (the same in every run) so that no two are duplicates.
func mapText(i int) memories.SaveRequest {
	words := strings.Fields(`alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima
		mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu
		amber basalt cobalt dune ember fjord granite harbor iris jasper kelp lagoon meadow nectar
		onyx prairie quartz reef saffron tundra umber velvet willow xenon yarrow zephyr`)
	r := rand.New(rand.NewPCG(uint64(i), 7))
	pick := make([]string, 10)
	for k := range pick {
		pick[k] = words[r.IntN(len(words))]
	}
	return memories.SaveRequest{
		Title:   fmt.Sprintf("Map memory %d %s", i, pick[0]),
		Content: fmt.Sprintf("Memory %d says %s.", i, strings.Join(pick, " ")),
		Project: []string{"webapp", "infra", "general"}[i%3],
	}
}

func (v *mapVault) save(svc *memories.Service, i int) {
	v.t.Helper()
	if _, err := svc.Save(context.Background(), mapText(i)); err != nil {
		v.t.Fatalf("save %d: %v", i, err)
	}
}

// indexMap is the vault's map of contents ("" when there is none).
func (v *mapVault) indexMap() string {
	v.t.Helper()
	data, err := os.ReadFile(filepath.Join(v.root, "cortex", vault.IndexFile))
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		v.t.Fatal(err)
	}
	return string(data)
}

// oneShotMap is the map of contents a vault has after saves first..first+n-1
// made one after another by commands (stores that keep nothing and write
// the map with each save).
func oneShotMap(t *testing.T, n int) string {
	t.Helper()
	ref := newMapVault(t)
	_, svc := ref.open(false, 0)
	for i := range n {
		ref.save(svc, i)
	}
	return ref.indexMap()
}

// The MCP server's store leaves a save's line in the map of contents to the
// catch-up that follows its saves (as it leaves their index work), and its
// saves end with the map that the same saves made by commands leave: byte
// for byte, whether the catch-up runs after a few saves or after more than
// the index work a save may leave owed.
func TestServerSavesEndWithOneShotMap(t *testing.T) {
	for _, n := range []int{2, 5, 20} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			want := oneShotMap(t, n)
			v := newMapVault(t)
			st, svc := v.open(true, 0)
			for i := range n {
				before := v.indexMap()
				v.save(svc, i)
				// The first save makes the vault's index (a rebuild,
				// which writes the map); the next 16 leave their index
				// work owed.
				if i > 0 && i <= 16 && v.indexMap() != before {
					t.Fatalf("save %d of a resident store wrote the map of contents; want it left to the catch-up", i)
				}
			}
			// The catch-up (CatchUpInBackground's, 50 ms after the saves).
			if _, err := st.Sync(context.Background()); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, v.indexMap()); diff != "" {
				t.Errorf("map after the server's saves (-one-shot +server):\n%s", diff)
			}
		})
	}
}

// The background catch-up of a running server writes the map its saves
// left owed.
func TestBackgroundCatchUpWritesTheMap(t *testing.T) {
	want := oneShotMap(t, 6)
	v := newMapVault(t)
	st, svc := v.open(true, 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := st.CatchUpInBackground(ctx, func(w string) { t.Error(w) })
	defer func() { cancel(); <-done }()
	for i := range 6 {
		v.save(svc, i)
	}
	deadline := time.Now().Add(10 * time.Second)
	for v.indexMap() != want {
		if time.Now().After(deadline) {
			t.Fatalf("the catch-up left the map as:\n%s\nwant:\n%s", v.indexMap(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A server killed after saves whose lines the map is owed leaves the map
// right after the next command, whatever it is: the map then is the one
// the same saves made by commands leave.
func TestKilledServerLeavesTheMapToTheNextCommand(t *testing.T) {
	for _, next := range []string{"recall", "save", "list"} {
		t.Run(next, func(t *testing.T) {
			saves := 5
			if next == "save" {
				saves = 6 // the next command's save is the sixth
			}
			want := oneShotMap(t, saves)
			v := newMapVault(t)
			_, svc := v.open(true, 0)
			for i := range 5 {
				v.save(svc, i)
			}
			// Killed here: nothing of the server runs again.
			if got := v.indexMap(); got == want {
				t.Fatal("the map is whole before the next command: nothing was owed")
			}
			_, cmd := v.open(false, 5)
			var err error
			switch next {
			case "recall":
				_, err = cmd.Recall(context.Background(), memories.RecallRequest{Query: "alpha", Limit: 5})
			case "save":
				_, err = cmd.Save(context.Background(), mapText(5))
			case "list":
				_, err = cmd.List(context.Background(), memories.ListRequest{Status: "all"})
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, v.indexMap()); diff != "" {
				t.Errorf("map after the next command (-want +got):\n%s", diff)
			}
		})
	}
}

// The lines a server's saves left owed are spliced into the map, not the
// whole map rendered again, even when they are many in one section: the
// catch-up adds them oldest first, each at the top of its section.
func TestOwedLinesAreSpliced(t *testing.T) {
	v := newMapVault(t)
	st, svc := v.open(true, 0)
	first := mapText(0)
	if _, err := svc.Save(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	rendered := st.MapRenders()
	for i := 1; i <= 12; i++ {
		req := mapText(i)
		req.Project = "webapp" // one section
		if _, err := svc.Save(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := st.MapRenders() - rendered; n != 0 {
		t.Errorf("the catch-up rendered the map whole %d times; want the owed lines spliced", n)
	}
	if !strings.Contains(v.indexMap(), "## webapp (13)") {
		t.Errorf("map lacks the 13 saves:\n%s", v.indexMap())
	}
}
