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
	"github.com/cortexmem/cortex/filelock"
	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
)

// openAt opens a store of the vault at root with the state folder home, as
// a process would, with its clock moved by skew: a clock a few seconds ahead
// makes every file older than the window in which times are not trusted, as
// waiting would.
func openAt(t *testing.T, root, home string, skew time.Duration) (*store.Store, *memories.Service) {
	t.Helper()
	v, err := vault.New(root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(store.Options{Vault: v, State: config.State{Home: home}, LockTimeout: 10 * time.Second,
		Now: func() time.Time { return time.Now().Add(skew) }})
	if err != nil {
		t.Fatal(err)
	}
	return st, memories.NewService(st)
}

func listIDs(t *testing.T, svc *memories.Service) []string {
	t.Helper()
	res, err := svc.List(context.Background(), memories.ListRequest{Status: "all"})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, it := range res.Items {
		ids = append(ids, it.Entry.ID)
	}
	return ids
}

// TestVaultsKeepTheirOwnIndex: one state folder, two vaults. Listing the
// second once (a typo in --vault, an MCP client with another CORTEX_VAULT)
// used to empty the first one's index for good, behind folder times that
// still matched, and doctor called the empty index healthy.
func TestVaultsKeepTheirOwnIndex(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "state")
	rootA, rootB := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, r := range []string{rootA, rootB} {
		if err := os.Mkdir(r, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	_, svcA := openAt(t, rootA, home, 5*time.Second)
	var want []string
	for _, c := range []string{"The walrus tank is cleaned on Mondays", "The penguin feed arrives frozen on Thursdays"} {
		res, err := svcA.Save(ctx, memories.SaveRequest{Content: c, Project: "zoo"})
		if err != nil {
			t.Fatal(err)
		}
		want = append([]string{res.ID}, want...)
	}
	// A full check that finds the folders as saved records their times.
	if got := listIDs(t, svcA); !cmp.Equal(got, want) {
		t.Fatalf("vault a lists %v, want %v", got, want)
	}

	_, svcB := openAt(t, rootB, home, 5*time.Second)
	if got := listIDs(t, svcB); len(got) != 0 {
		t.Errorf("vault b lists %v, want nothing", got)
	}
	other, err := svcB.Save(ctx, memories.SaveRequest{Content: "The walrus tank is cleaned on Mondays", Project: "zoo"})
	if err != nil {
		t.Fatalf("vault b refused a memory only vault a holds: %v", err)
	}

	stA, svcA := openAt(t, rootA, home, 5*time.Second)
	if got := listIDs(t, svcA); !cmp.Equal(got, want) {
		t.Errorf("after vault b was used, vault a lists %v, want %v", got, want)
	}
	if _, err := svcA.Save(ctx, memories.SaveRequest{Content: "The walrus tank is cleaned on Mondays", Project: "zoo"}); err == nil {
		t.Error("vault a's dedup no longer sees its memories")
	}
	h, err := stA.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !h.InStep() || h.Notes != 2 || h.BuiltFrom != h.Vault || h.MapRepaired {
		t.Errorf("doctor of vault a: %+v", h)
	}
	if m, err := os.ReadFile(filepath.Join(rootA, "cortex", vault.IndexFile)); err != nil || !strings.Contains(string(m), "2 memories") {
		t.Errorf("vault a's map of contents (%v):\n%s", err, m)
	}

	vaults, _ := filepath.Glob(filepath.Join(home, "vaults", "*"))
	if len(vaults) != 2 {
		t.Errorf("state folders of vaults: %v, want one per vault", vaults)
	}
	if _, err := os.Stat(filepath.Join(home, "index")); !os.IsNotExist(err) {
		t.Errorf("an index shared by every vault: %v", err)
	}
	// The audit log is shared; each line names its vault.
	events, err := os.ReadFile(stA.EventLog())
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(events)), "\n") {
		root := rootA
		if strings.Contains(line, other.ID) {
			root = rootB
		}
		if !strings.Contains(line, `"vault":"`+root+`"`) {
			t.Errorf("event does not name its vault %s: %s", root, line)
		}
	}
}

// TestStateKeyFollowsLinks: two spellings of one vault (a symbolic link) share
// one index; another vault does not.
func TestStateKeyFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "state")
	real := filepath.Join(dir, "My Vault")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	a, _ := openAt(t, real, home, 0)
	b, _ := openAt(t, link, home, 0)
	if a.VaultState() != b.VaultState() {
		t.Errorf("one vault, two state folders: %s and %s", a.VaultState(), b.VaultState())
	}
	if got := filepath.Base(a.VaultState()); !strings.HasPrefix(got, "My_Vault-") || len(got) != len("My_Vault-")+16 {
		t.Errorf("state folder %q, want My_Vault-<16 hex digits>", got)
	}
	other := filepath.Join(dir, "other", "My Vault")
	c, _ := openAt(t, other, home, 0)
	if c.VaultState() == a.VaultState() {
		t.Errorf("two vaults share the state folder %s", a.VaultState())
	}
}

// TestIndexOfAnotherVaultIsRebuilt: an index whose generation says it was
// built from other notes (a state folder copied about), or does not say, is
// rebuilt from this vault's notes, never trusted.
func TestIndexOfAnotherVaultIsRebuilt(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "state")
	rootA, rootB := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, r := range []string{rootA, rootB} {
		if err := os.Mkdir(r, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	stA, svcA := openAt(t, rootA, home, 0)
	if _, err := svcA.Save(ctx, memories.SaveRequest{Content: "The otter slide was waxed last week", Project: "zoo"}); err != nil {
		t.Fatal(err)
	}
	stB, svcB := openAt(t, rootB, home, 0)
	b, err := svcB.Save(ctx, memories.SaveRequest{Content: "The aviary netting has a tear near the door", Project: "zoo"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		break_ func(t *testing.T)
		reason string
	}{
		{"copied from another vault", func(t *testing.T) {
			if err := os.RemoveAll(filepath.Join(stB.VaultState(), "index")); err != nil {
				t.Fatal(err)
			}
			if err := os.CopyFS(filepath.Join(stB.VaultState(), "index"), os.DirFS(filepath.Join(stA.VaultState(), "index"))); err != nil {
				t.Fatal(err)
			}
		}, "built from " + filepath.Join(rootA, "cortex")},
		{"not saying", func(t *testing.T) {
			gen, err := index.New(filepath.Join(stB.VaultState(), "index"), "").Current()
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(gen, "source")); err != nil {
				t.Fatal(err)
			}
		}, "does not say which vault"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.break_(t)
			// The next process finds it so (this one may keep the catalog
			// it read before, which it checked then).
			stB, svcB := openAt(t, rootB, home, 0)
			if got := listIDs(t, svcB); !cmp.Equal(got, []string{b.ID}) {
				t.Errorf("vault b lists %v, want only its own %s", got, b.ID)
			}
			h, err := stB.Check(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !h.InStep() || h.BuiltFrom != filepath.Join(rootB, "cortex") {
				t.Errorf("doctor after the rebuild: %+v", h)
			}
		})
	}
	// What a rebuild nobody asked for says about why.
	tc := func() {
		if err := os.RemoveAll(filepath.Join(stB.VaultState(), "index")); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(filepath.Join(stB.VaultState(), "index"), os.DirFS(filepath.Join(stA.VaultState(), "index"))); err != nil {
			t.Fatal(err)
		}
	}
	tc()
	rep, err := stB.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Full || !strings.Contains(rep.Reason, "built from "+filepath.Join(rootA, "cortex")) {
		t.Errorf("sync report %+v, want a rebuild saying the index was built from vault a", rep)
	}
}

// TestDoctorTrustsNoFolderTime: a catalog that lost a note in a folder whose
// time still matches passes the check every command makes; doctor reads
// every folder, does not call it healthy, and rebuilds it from the notes.
func TestDoctorTrustsNoFolderTime(t *testing.T) {
	dir := t.TempDir()
	root, home := filepath.Join(dir, "v"), filepath.Join(dir, "state")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, svc := openAt(t, root, home, 5*time.Second)
	keep, err := svc.Save(ctx, memories.SaveRequest{Content: "The lion house roof leaks in heavy rain", Project: "zoo"})
	if err != nil {
		t.Fatal(err)
	}
	lost, err := svc.Save(ctx, memories.SaveRequest{Content: "The reptile room thermostat is set to 28 degrees", Project: "zoo"})
	if err != nil {
		t.Fatal(err)
	}
	listIDs(t, svc) // records the folders as settled
	x := index.New(filepath.Join(st.VaultState(), "index"), "")
	gen, err := x.Current()
	if err != nil {
		t.Fatal(err)
	}
	// Forget one note in both the catalog and the full-text index, leaving
	// the folder times as they are.
	cat, err := index.LoadCatalog(gen)
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Commit(gen, map[string]*index.Record{lost.Path: nil}, nil, time.Now().Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := cat.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := index.OpenGeneration(gen, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Apply([]index.Doc{{ID: lost.ID, Deleted: true}}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if got := listIDs(t, svc); !cmp.Equal(got, []string{keep.ID}) {
		t.Fatalf("the broken catalog is not what this test needs: list %v", got)
	}
	h, err := st.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h.Rebuilt != 1 || !h.InStep() || h.Notes != 2 || h.Mismatched != 0 {
		t.Errorf("doctor of a catalog missing a note: in step %v, %+v; want 1 note found missing, the index rebuilt with 2", h.InStep(), h)
	}
	if got := listIDs(t, svc); !cmp.Equal(got, []string{lost.ID, keep.ID}) {
		t.Errorf("list after doctor: %v, want both notes", got)
	}
}

// TestReadingNeverCreatesTheFolder: commands that only read leave a vault
// without a cortex folder as it is; the first write creates it.
func TestReadingNeverCreatesTheFolder(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "v")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, svc := openAt(t, root, filepath.Join(dir, "state"), 0)
	listIDs(t, svc)
	if _, err := svc.Recall(ctx, memories.RecallRequest{Query: "anything at all", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	if h, err := st.Check(ctx); err != nil || !h.InStep() || h.MapRepaired {
		t.Errorf("doctor of an empty vault: %+v, %v", h, err)
	}
	if _, err := os.Stat(filepath.Join(root, "cortex")); !os.IsNotExist(err) {
		t.Fatalf("reading created the cortex folder: %v", err)
	}
	if _, err := svc.Save(ctx, memories.SaveRequest{Content: "The koala enclosure gets new eucalyptus daily"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "cortex", vault.IndexFile)); err != nil {
		t.Errorf("the first save wrote no map of contents: %v", err)
	}
	// A cortex folder a person deletes is not brought back by a read.
	if err := os.RemoveAll(filepath.Join(root, "cortex")); err != nil {
		t.Fatal(err)
	}
	if got := listIDs(t, svc); len(got) != 0 {
		t.Errorf("list after the folder was deleted: %v", got)
	}
	if _, err := os.Stat(filepath.Join(root, "cortex")); !os.IsNotExist(err) {
		t.Errorf("a read brought the deleted cortex folder back: %v", err)
	}
}

// TestStaleGenerationsAreRemoved: generations a killed rebuild left behind are
// removed by the next command — a read or a write — unless a writer may be
// building one or a reader may be inside one.
func TestStaleGenerationsAreRemoved(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "v")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The clock is ahead, so that the note is settled after one full check
	// and no command needs the index lock but for the cleaning.
	st, svc := openAt(t, root, filepath.Join(dir, "state"), 5*time.Second)
	m, err := svc.Save(ctx, memories.SaveRequest{Content: "The tapir pen floods after storms", Project: "zoo"})
	if err != nil {
		t.Fatal(err)
	}
	x := index.New(filepath.Join(st.VaultState(), "index"), filepath.Join(root, "cortex"))
	live, err := x.Current()
	if err != nil {
		t.Fatal(err)
	}
	// abandon leaves what a rebuild killed half-way leaves: a generation
	// never published, and a temporary file of the pointer.
	abandon := func() {
		t.Helper()
		gen, b, err := x.NewGeneration(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(gen, "catalog.journal"), []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(x.Dir, ".CURRENT.cortex-tmp-0123abcd"), []byte("gen"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	gens := func() []string {
		t.Helper()
		names, err := filepath.Glob(filepath.Join(x.Dir, "*"))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range names {
			out = append(out, filepath.Base(n))
		}
		return out
	}
	want := []string{"CURRENT", filepath.Base(live)}
	recall := func() {
		t.Helper()
		res, err := svc.Recall(ctx, memories.RecallRequest{Query: "tapir", Limit: 5})
		if err != nil || len(res.Results) != 1 || res.Results[0].Memory.ID != m.ID {
			t.Fatalf("recall tapir: %+v, %v", res, err)
		}
	}
	lockFile := func(name string) string { return filepath.Join(st.VaultState(), name) }
	recall()

	for _, tc := range []struct {
		name string
		// hold takes the locks another process would hold, returning their
		// release; nil holds none.
		hold func() func()
		want []string
	}{
		{"a writer at work: may be building it", func() func() {
			l, err := filelock.Acquire(ctx, lockFile("write.lock"), time.Second)
			if err != nil {
				t.Fatal(err)
			}
			return func() { _ = l.Release() }
		}, nil},
		{"a reader inside", func() func() {
			l, err := filelock.AcquireShared(ctx, lockFile("index.lock"), time.Second)
			if err != nil {
				t.Fatal(err)
			}
			return func() { _ = l.Release() }
		}, nil},
		{"idle", nil, want},
	} {
		t.Run(tc.name, func(t *testing.T) {
			abandon()
			abandon()
			before := gens()
			if len(before) != 5 {
				t.Fatalf("index folder %v, want the live generation, two abandoned and a temporary file", before)
			}
			var release func()
			if tc.hold != nil {
				release = tc.hold()
			}
			recall()
			got := gens()
			if release != nil {
				release()
			}
			w := tc.want
			if w == nil {
				w = before // busy: left for a later command
			}
			if diff := cmp.Diff(got, w); diff != "" {
				t.Errorf("index folder after a recall (-got +want):\n%s", diff)
			}
			recall() // idle now: cleans up
			if diff := cmp.Diff(gens(), want); diff != "" {
				t.Errorf("index folder after the next recall (-got +want):\n%s", diff)
			}
		})
	}
	// A write cleans up as well.
	abandon()
	if _, err := svc.Save(ctx, memories.SaveRequest{Content: "The okapi barn door was rehung", Project: "zoo"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(gens(), want); diff != "" {
		t.Errorf("index folder after a save (-got +want):\n%s", diff)
	}
}

// TestLegacyIndexIsReplaced: the state folder of an older version kept one
// index for every vault in <state>/index/. The vault builds its own from its
// notes, and the old one goes once no older process holds its locks.
func TestLegacyIndexIsReplaced(t *testing.T) {
	dir := t.TempDir()
	root, home := filepath.Join(dir, "v"), filepath.Join(dir, "state")
	ctx := context.Background()
	st, svc := openAt(t, root, home, 0)
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	m, err := svc.Save(ctx, memories.SaveRequest{Content: "The meerkat lamp timer is set to six", Project: "zoo"})
	if err != nil {
		t.Fatal(err)
	}
	// Make the vault's index the old layout's: moved to <state>/index, with
	// nothing saying which vault it was built from, and an older process
	// still holding its write lock.
	if err := os.Rename(filepath.Join(st.VaultState(), "index"), filepath.Join(home, "index")); err != nil {
		t.Fatal(err)
	}
	gen, err := index.New(filepath.Join(home, "index"), "").Current()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(gen, "source")); err != nil {
		t.Fatal(err)
	}
	old, err := filelock.Acquire(ctx, filepath.Join(home, "write.lock"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	st, svc = openAt(t, root, home, 0)
	if got := listIDs(t, svc); !cmp.Equal(got, []string{m.ID}) {
		t.Errorf("list after the upgrade: %v, want %s", got, m.ID)
	}
	if _, err := os.Stat(filepath.Join(home, "index")); err != nil {
		t.Errorf("the old index was removed while an older process held its lock: %v", err)
	}
	if err := old.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Save(ctx, memories.SaveRequest{Content: "The capybara pool is refilled on Fridays", Project: "zoo"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "index")); !os.IsNotExist(err) {
		t.Errorf("the old index is still there once no one used it: %v", err)
	}
	if h, err := st.Check(ctx); err != nil || !h.InStep() || h.Notes != 2 {
		t.Errorf("doctor after the upgrade: %+v, %v", h, err)
	}
}
