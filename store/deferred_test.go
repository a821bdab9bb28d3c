package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/filelock"
	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// owedEnv is a vault and state folder; each open is a new process.
type owedEnv struct {
	t         *testing.T
	root      string
	home      string
	mu        sync.Mutex
	warnings  []string
	failIndex func() error
}

func newOwedEnv(t *testing.T) *owedEnv {
	t.Helper()
	dir := t.TempDir()
	return &owedEnv{t: t, root: filepath.Join(dir, "vault"), home: filepath.Join(dir, "state")}
}

// warned is the warnings so far, a line each.
func (e *owedEnv) warned() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.warnings, "\n")
}

// open opens a store and a service over it, as a new process would.
func (e *owedEnv) open() (*Store, *memories.Service) {
	e.t.Helper()
	v, err := vault.New(e.root, "cortex")
	if err != nil {
		e.t.Fatal(err)
	}
	st, err := Open(Options{
		Vault: v, State: config.State{Home: e.home}, LockTimeout: 30 * time.Second, Freshness: time.Second,
		Warn: func(s string) { e.mu.Lock(); e.warnings = append(e.warnings, s); e.mu.Unlock() },
	})
	if err != nil {
		e.t.Fatal(err)
	}
	st.failIndex = e.failIndex
	return st, memories.NewService(st)
}

// owed is the index work the live catalog owes, as a new process loads it.
func (e *owedEnv) owed() index.Deferred {
	e.t.Helper()
	st, _ := e.open()
	_, cat, err := st.load()
	if err != nil {
		e.t.Fatal(err)
	}
	defer cat.Close()
	return cat.Deferred()
}

func save(t *testing.T, svc *memories.Service, content string) *memories.SaveResult {
	t.Helper()
	res, err := svc.Save(context.Background(), memories.SaveRequest{Content: content, Project: "zoo"})
	if err != nil {
		t.Fatalf("save %q: %v", content, err)
	}
	return res
}

// recallIDs returns the ids a query finds, related memories left out.
func recallIDs(t *testing.T, svc *memories.Service, q string) []string {
	t.Helper()
	res, err := svc.Recall(context.Background(), memories.RecallRequest{Query: q, Limit: 50})
	if err != nil {
		t.Fatalf("recall %q: %v", q, err)
	}
	var ids []string
	for _, r := range res.Results {
		if !r.Related {
			ids = append(ids, r.Memory.ID)
		}
	}
	return ids
}

func paths(rs ...*memories.SaveResult) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Path)
	}
	slices.Sort(out)
	return out
}

// TestSaveDefersIndexWorkToTheNextReader: a save writes the note and the
// catalog, leaves the full-text index behind and says so in the journal; the
// next process's recall finds the note and leaves nothing owed.
func TestSaveDefersIndexWorkToTheNextReader(t *testing.T) {
	e := newOwedEnv(t)
	_, svc := e.open()
	save(t, svc, "A first memory so that the index exists, about the reptile house") // builds the index
	_, svc = e.open()
	first := save(t, svc, "The capybara pool is drained every Friday evening")
	if got := e.owed(); !cmp.Equal(got.Paths, paths(first)) {
		t.Fatalf("owed after a save = %+v, want the note's path", got)
	}
	_, svc = e.open()
	second := save(t, svc, "The flamingo lagoon gets brine shrimp at noon")
	if got := e.owed(); !cmp.Equal(got.Paths, paths(first, second)) {
		t.Fatalf("owed after two saves = %+v, want both paths", got)
	}
	_, svc = e.open()
	if got := recallIDs(t, svc, "flamingo lagoon"); !cmp.Equal(got, []string{second.ID}) {
		t.Errorf("the next process recalls %v, want [%s]", got, second.ID)
	}
	if got := e.owed(); !got.Empty() {
		t.Errorf("owed after a recall = %+v, want nothing", got)
	}
	_, svc = e.open()
	if got := recallIDs(t, svc, "capybara pool drained"); !cmp.Equal(got, []string{first.ID}) {
		t.Errorf("recall after the catch-up = %v, want [%s]", got, first.ID)
	}
}

// TestDedupSeesOwedNotes: a save compared with the memories the index does
// not hold yet still finds the duplicate, and links the related.
func TestDedupSeesOwedNotes(t *testing.T) {
	e := newOwedEnv(t)
	_, svc := e.open()
	save(t, svc, "An unrelated first memory about the reptile house heating")
	_, svc = e.open()
	recallIDs(t, svc, "reptile") // the index is caught up; the next save is owed
	text := "The okapi paddock gate sticks after rain; lift it before sliding"
	orig := save(t, svc, text)
	if got := e.owed(); !cmp.Equal(got.Paths, paths(orig)) {
		t.Fatalf("owed = %+v, want the original's path", got)
	}
	_, svc = e.open()
	_, err := svc.Save(context.Background(), memories.SaveRequest{Content: text, Project: "zoo"})
	var rej *memories.RejectedError
	if !errors.As(err, &rej) || rej.Existing == nil || rej.Existing.ID != orig.ID {
		t.Fatalf("saving the same text again: %v, want it refused as a duplicate of %s", err, orig.ID)
	}
	rel := save(t, svc, "The okapi paddock gate was rehung by the carpenter in spring")
	m, err := loadMemory(e, rel.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(m.Related, func(r string) bool { return strings.Contains(r, strings.TrimSuffix(filepath.Base(orig.Path), ".md")) }) {
		t.Errorf("related = %v, want a link to the owed %s", m.Related, orig.Path)
	}
}

func loadMemory(e *owedEnv, path string) (*memories.Memory, error) {
	st, _ := e.open()
	return st.v.Load(path)
}

// TestSavesPastTheBoundCatchUp: a run of saves with no reader between them
// owes at most maxDeferred items; the save past it indexes them all.
func TestSavesPastTheBoundCatchUp(t *testing.T) {
	e := newOwedEnv(t)
	_, svc := e.open()
	save(t, svc, "A first memory so that the index exists, about the reptile house") // builds the index
	var saved []*memories.SaveResult
	for i := range maxDeferred + 3 {
		_, svc := e.open()
		saved = append(saved, save(t, svc, fmt.Sprintf("Enclosure %d of the tapir house is swept at %d o'clock", i, i%12)))
		if n := e.owed().Len(); n > maxDeferred {
			t.Fatalf("after save %d: %d items owed, more than %d", i+1, n, maxDeferred)
		}
	}
	if n := e.owed().Len(); n == 0 || n > 3 {
		t.Errorf("owed after %d saves = %d items, want the few since the catch-up", len(saved), n)
	}
	st, svc := e.open()
	for i, r := range saved {
		if got := recallIDs(t, svc, fmt.Sprintf("enclosure %d", i)); !slices.Contains(got, r.ID) {
			t.Errorf("recall enclosure %d = %v, want %s among them", i, got, r.ID)
		}
	}
	h, err := st.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !h.InStep() || h.Documents != uint64(len(saved)+1) {
		t.Errorf("not in step with %d documents: %+v", len(saved)+1, h)
	}
}

// TestFailedCatchUpKeepsTheWork: when the full-text index cannot be written,
// saves still succeed, recall still finds every note, and the work stays
// owed until the index can be written again.
func TestFailedCatchUpKeepsTheWork(t *testing.T) {
	e := newOwedEnv(t)
	_, svc := e.open()
	save(t, svc, "A first memory so that the index exists, about the aviary")
	_, svc = e.open()
	recallIDs(t, svc, "aviary")
	e.failIndex = func() error { return errors.New("disk full") }
	var saved []*memories.SaveResult
	for i := range maxDeferred + 4 {
		_, svc := e.open()
		saved = append(saved, save(t, svc, fmt.Sprintf("Feeding round %d of the aviary uses millet mix number %d", i, i)))
	}
	if got, want := e.owed().Paths, paths(saved...); !cmp.Equal(got, want) {
		t.Fatalf("owed after failed catch-ups:\n%v\nwant every save's path:\n%v", got, want)
	}
	_, svc = e.open()
	for i, r := range saved {
		if got := recallIDs(t, svc, fmt.Sprintf("millet mix %d", i)); !slices.Contains(got, r.ID) {
			t.Errorf("recall while the index cannot be written: millet mix %d = %v, want %s among them", i, got, r.ID)
		}
	}
	if got, want := e.owed().Paths, paths(saved...); !cmp.Equal(got, want) {
		t.Fatalf("owed after a failed recall's catch-up = %v, want %v", got, want)
	}
	e.mu.Lock()
	warned := slices.ContainsFunc(e.warnings, func(w string) bool { return strings.Contains(w, "disk full") })
	e.mu.Unlock()
	if !warned {
		t.Error("no warning names the index's failure")
	}
	e.failIndex = nil
	st, svc := e.open()
	for i, r := range saved {
		if got := recallIDs(t, svc, fmt.Sprintf("millet mix %d", i)); len(got) == 0 || got[0] != r.ID {
			t.Errorf("recall after the catch-up: millet mix %d = %v, want %s first", i, got, r.ID)
		}
	}
	if got := e.owed(); !got.Empty() {
		t.Errorf("owed after the catch-up = %+v", got)
	}
	h, err := st.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !h.InStep() || h.Documents != uint64(len(saved)+1) {
		t.Errorf("after the catch-up: %+v, want in step with %d documents", h, len(saved)+1)
	}
}

// TestResidentWriterSeesIndexAndOwedNotes: in a long-running process (the
// MCP server), a save searches the index the resident store holds open and
// the owed notes: it refuses duplicates of both, and the process's own
// recall finds every note.
func TestResidentWriterSeesIndexAndOwedNotes(t *testing.T) {
	e := newOwedEnv(t)
	_, svc := e.open()
	save(t, svc, "A first memory so that the index exists, about the reptile house")
	v, err := vault.New(e.root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(Options{Vault: v, State: config.State{Home: e.home}, LockTimeout: 30 * time.Second, Freshness: time.Second, Resident: true})
	if err != nil {
		t.Fatal(err)
	}
	svc = memories.NewService(st)
	indexed := save(t, svc, "The penguin beach is hosed down at dawn and at dusk")
	recallIDs(t, svc, "penguin beach") // the index catches up and stays open
	owed := save(t, svc, "The meerkat burrow sand is sifted every other Sunday")
	for _, c := range []struct {
		text string
		dup  *memories.SaveResult
	}{
		{"The penguin beach is hosed down at dawn and at dusk", indexed},
		{"The meerkat burrow sand is sifted every other Sunday", owed},
	} {
		_, err := svc.Save(context.Background(), memories.SaveRequest{Content: c.text, Project: "zoo"})
		var rej *memories.RejectedError
		if !errors.As(err, &rej) || rej.Existing == nil || rej.Existing.ID != c.dup.ID {
			t.Errorf("saving %q again: %v, want it refused as a duplicate of %s", c.text, err, c.dup.ID)
		}
	}
	for q, id := range map[string]string{"penguin beach": indexed.ID, "meerkat burrow": owed.ID} {
		if got := recallIDs(t, svc, q); !cmp.Equal(got, []string{id}) {
			t.Errorf("recall %q = %v, want [%s]", q, got, id)
		}
	}
	h, err := st.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !h.InStep() {
		t.Errorf("not in step: %+v", h)
	}
}

// TestRecallAnswersWhenItCannotCatchUp: a reader that cannot take the write
// lock to do the owed index work (a writer holding it past lock_timeout, a
// state folder it may not write) still answers, the owed notes included.
func TestRecallAnswersWhenItCannotCatchUp(t *testing.T) {
	e := newOwedEnv(t)
	_, svc := e.open()
	save(t, svc, "A first memory so that the index exists, about the reptile house")
	_, svc = e.open()
	owed := save(t, svc, "The giraffe feeding platform is raised in summer")
	st, _ := e.open()
	held, err := filelock.Acquire(context.Background(), st.vstate.WriteLock(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	st.timeout = 100 * time.Millisecond
	if got := recallIDs(t, memories.NewService(st), "giraffe platform"); !cmp.Equal(got, []string{owed.ID}) {
		t.Errorf("recall while the write lock is held = %v, want [%s]", got, owed.ID)
	}
	if n := e.owed().Len(); n == 0 {
		t.Error("the owed work was done without the write lock")
	}
}

// TestCatchUpInBackground: with a background catch-up running (the MCP
// server's), the index work a save leaves owed is done shortly after, with
// no reader asking; once stopped, it does nothing more.
func TestCatchUpInBackground(t *testing.T) {
	e := newOwedEnv(t)
	_, svc := e.open()
	save(t, svc, "A first memory so that the index exists, about the reptile house")
	st, svc := e.open()
	ctx, stop := context.WithCancel(context.Background())
	done := st.CatchUpInBackground(ctx, func(w string) { t.Errorf("warning: %s", w) })
	save(t, svc, "The lemur island ropes are checked for fraying weekly")
	deadline := time.Now().Add(10 * time.Second)
	for !e.owed().Empty() {
		if time.Now().After(deadline) {
			t.Fatal("the owed work was not done in the background within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	<-done
	save(t, svc, "The tortoise lawn is mowed high, never below ten centimetres")
	time.Sleep(5 * catchUpDelay)
	if e.owed().Empty() {
		t.Error("a save after the background catch-up stopped had its work done anyway")
	}
}

// TestCatchUpsLeaveBigSegments: the catch-ups after a rebuild (the MCP
// server's in the background, a reader's, a save's past maxDeferred) merge
// the small segments they add, never the big ones a rebuild or a sync of
// many notes made. The first catch-up to find more than a handful of
// segments merged them all, rewriting the index with the write lock held:
// the save that came next waited about a second at 10,000 notes.
func TestCatchUpsLeaveBigSegments(t *testing.T) {
	e := newOwedEnv(t)
	if _, err := bench.WriteVault(e.root, 1200, 3, time.Now()); err != nil {
		t.Fatal(err)
	}
	// Half the notes are indexed by the rebuild, the other half by a sync
	// once they arrive: a big segment each.
	aside := t.TempDir()
	notes, err := filepath.Glob(filepath.Join(e.root, "cortex", "memories", "*", "*.md"))
	if err != nil || len(notes) != 1200 {
		t.Fatalf("setup: %d notes written (%v), want 1200", len(notes), err)
	}
	var later []string
	for _, p := range notes[:len(notes)/2] {
		rel, err := filepath.Rel(e.root, p)
		if err != nil {
			t.Fatal(err)
		}
		later = append(later, rel)
	}
	move := func(from, to string) {
		t.Helper()
		for _, rel := range later {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(to, rel)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(filepath.Join(from, rel), filepath.Join(to, rel)); err != nil {
				t.Fatal(err)
			}
		}
	}
	move(e.root, aside)
	st, svc := e.open()
	ctx := context.Background()
	if _, err := st.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	move(aside, e.root)
	if _, err := st.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	zaps := func() []string {
		t.Helper()
		gen, err := st.idx.Current()
		if err != nil {
			t.Fatal(err)
		}
		files, err := filepath.Glob(filepath.Join(gen, "bleve", "store", "*.zap"))
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range files {
			files[i] = filepath.Base(f)
		}
		return files
	}
	big := zaps()
	if len(big) != 2 {
		t.Fatalf("setup: the rebuild and the sync left segments %v, want two", big)
	}
	animals := []string{"aardvark", "bonobo", "caracal", "dugong", "echidna", "fossa", "gharial", "hoatzin", "ibex", "jerboa", "kinkajou", "loris"}
	var saved []string
	for i, a := range animals {
		r := save(t, svc, fmt.Sprintf("The %s enclosure is inspected on day %d of each month by the night keeper", a, i+1))
		saved = append(saved, r.ID)
		if err := st.catchUp(ctx); err != nil { // a segment each
			t.Fatal(err)
		}
	}
	after := zaps()
	for _, f := range big {
		if !slices.Contains(after, f) {
			t.Errorf("the big segment %s was rewritten by a catch-up (segments now %v)", f, after)
		}
	}
	if len(after) > len(big)+8 {
		t.Errorf("segments %v after %d catch-ups: their own are not merged", after, len(animals))
	}
	for i, a := range animals {
		if got := recallIDs(t, svc, a+" enclosure inspected"); !slices.Contains(got, saved[i]) {
			t.Errorf("recall %q = %v, want %s among them", a, got, saved[i])
		}
	}
}
