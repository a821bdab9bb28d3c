package store_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/importer"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
)

// env is a vault, its state folder and a service over them.
type env struct {
	t        *testing.T
	root     string
	home     string
	st       *store.Store
	svc      *memories.Service
	warnings []string
	mu       sync.Mutex
}

func newEnv(t *testing.T, freshness time.Duration) *env {
	t.Helper()
	dir := t.TempDir()
	e := &env{t: t, root: filepath.Join(dir, "vault"), home: filepath.Join(dir, "state")}
	e.open(freshness)
	return e
}

// open (re)opens the store, as a new process would.
func (e *env) open(freshness time.Duration) {
	e.t.Helper()
	v, err := vault.New(e.root, "cortex")
	if err != nil {
		e.t.Fatal(err)
	}
	e.st, err = store.Open(store.Options{
		Vault: v, State: config.State{Home: e.home}, LockTimeout: 10 * time.Second, Freshness: freshness,
		Warn: func(s string) { e.mu.Lock(); e.warnings = append(e.warnings, s); e.mu.Unlock() },
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.svc = memories.NewService(e.st)
}

func (e *env) save(content, project string) *memories.SaveResult {
	e.t.Helper()
	res, err := e.svc.Save(context.Background(), memories.SaveRequest{Content: content, Project: project})
	if err != nil {
		e.t.Fatalf("save %q: %v", content, err)
	}
	return res
}

// recall returns the ids of what a query finds.
func (e *env) recall(q string) []string {
	e.t.Helper()
	res, err := e.svc.Recall(context.Background(), memories.RecallRequest{Query: q, Limit: 50})
	if err != nil {
		e.t.Fatalf("recall %q: %v", q, err)
	}
	var ids []string
	for _, r := range res.Results {
		ids = append(ids, r.Memory.ID)
	}
	return ids
}

func (e *env) list() []memories.Entry {
	e.t.Helper()
	res, err := e.svc.List(context.Background(), memories.ListRequest{Status: "all"})
	if err != nil {
		e.t.Fatal(err)
	}
	out := make([]memories.Entry, len(res.Items))
	for i, it := range res.Items {
		out[i] = *it.Entry
	}
	return out
}

func (e *env) abs(rel string) string { return filepath.Join(e.root, "cortex", filepath.FromSlash(rel)) }

func (e *env) write(rel, content string) {
	e.t.Helper()
	p := e.abs(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) read(rel string) string {
	e.t.Helper()
	data, err := os.ReadFile(e.abs(rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(data)
}

// editInPlace rewrites a file without touching its folder's time, as Obsidian
// saves a note.
func (e *env) editInPlace(rel, content string) {
	e.t.Helper()
	dir := filepath.Dir(e.abs(rel))
	fi, err := os.Stat(dir)
	if err != nil {
		e.t.Fatal(err)
	}
	f, err := os.OpenFile(e.abs(rel), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := f.WriteString(content); err != nil {
		e.t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(dir, fi.ModTime(), fi.ModTime()); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) checkInStep() {
	e.t.Helper()
	h, err := e.st.Check(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	if !h.InStep() {
		e.t.Fatalf("index out of step with the vault: %+v", h)
	}
}

func TestSaveThenRecall(t *testing.T) {
	e := newEnv(t, time.Second)
	a := e.save("Use RS256 for JWT signing in production services", "webapp")
	e.save("Postgres pool size is twenty on staging", "webapp")
	if got, want := e.recall("jwt signing"), []string{a.ID}; !cmp.Equal(got, want) {
		t.Errorf("recall = %v, want %v", got, want)
	}
	if got := e.read("_index.md"); !strings.Contains(got, "## webapp (2)") {
		t.Errorf("map of contents lacks the project section:\n%s", got)
	}
	e.checkInStep()
}

func TestExternalChangesAreSeenWithoutDaemon(t *testing.T) {
	e := newEnv(t, 0) // every command stats every note
	first := e.save("The zebra crossing near the office is dangerous", "p")
	if got := e.recall("zebra"); len(got) != 1 {
		t.Fatalf("recall zebra = %v", got)
	}
	// A note created in Obsidian, without frontmatter.
	e.write("memories/p/Hand made.md", "# Hand made\n\nThe giraffe enclosure needs a taller fence.\n")
	if got := e.recall("giraffe"); len(got) != 1 || got[0] != memories.DerivedID("memories/p/Hand made.md") {
		t.Errorf("a note made by hand is not found with its derived id: %v", got)
	}
	// Edited in place.
	rel := first.Path
	e.editInPlace(rel, strings.ReplaceAll(e.read(rel), "dangerous", "perilous and badly lit"))
	if got := e.recall("perilous"); !cmp.Equal(got, []string{first.ID}) {
		t.Errorf("in-place edit not seen: recall perilous = %v", got)
	}
	if got := e.recall("dangerous"); len(got) != 0 {
		t.Errorf("old text still found: %v", got)
	}
	// Renamed: same identity.
	renamed := "memories/p/renamed in obsidian.md"
	if err := os.Rename(e.abs(rel), e.abs(renamed)); err != nil {
		t.Fatal(err)
	}
	if got := e.recall("perilous"); !cmp.Equal(got, []string{first.ID}) {
		t.Errorf("renamed note lost its identity: %v", got)
	}
	// Deleted.
	if err := os.Remove(e.abs(renamed)); err != nil {
		t.Fatal(err)
	}
	if got := e.recall("perilous"); len(got) != 0 {
		t.Errorf("deleted note still recalled: %v", got)
	}
	e.checkInStep()
}

func TestFreshnessWindowBoundsInPlaceEdits(t *testing.T) {
	e := newEnv(t, time.Hour)
	m := e.save("The otter habitat water pump is noisy", "p")
	e.checkInStep() // a full check: the window starts now
	e.editInPlace(m.Path, strings.Replace(e.read(m.Path), "noisy", "silent", 1))
	// Inside the window an edit made in place is not looked for...
	if got := e.recall("silent"); len(got) != 0 {
		t.Errorf("edit found inside the freshness window (the scan is not light): %v", got)
	}
	// ...but creations are, since they change the folder.
	e.write("memories/p/new.md", "A brand new note about the walrus feeding times.\n")
	if got := e.recall("walrus"); len(got) != 1 {
		t.Errorf("new note not found inside the window: %v", got)
	}
	// A reindex (or any command after the window) checks every note.
	if _, err := e.st.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.recall("silent"); !cmp.Equal(got, []string{m.ID}) {
		t.Errorf("edit not found after a full check: %v", got)
	}
}

func TestCopiedNoteKeepsOneIdentity(t *testing.T) {
	e := newEnv(t, 0)
	orig := e.save("The penguin pool filter is cleaned on Mondays", "p")
	data := e.read(orig.Path)
	copyRel := "memories/p/copy of penguin.md"
	e.write(copyRel, strings.Replace(data, "Mondays", "Mondays and Thursdays", 1))
	got := e.recall("penguin")
	want := []string{orig.ID, memories.DerivedID(copyRel)}
	sort.Strings(got)
	sort.Strings(want)
	if !cmp.Equal(got, want) {
		t.Errorf("recall penguin = %v, want the original id and the copy's derived id %v", got, want)
	}
	h, err := e.st.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(h.SharedIDs) != 1 || h.SharedIDs[0].ID != orig.ID {
		t.Errorf("doctor does not report the shared id: %+v", h.SharedIDs)
	}
	// The original goes: the copy takes the id over.
	if err := os.Remove(e.abs(orig.Path)); err != nil {
		t.Fatal(err)
	}
	if got := e.recall("thursdays"); !cmp.Equal(got, []string{orig.ID}) {
		t.Errorf("the copy did not take the id over: %v", got)
	}
	e.checkInStep()
}

func TestBrokenNoteIsSkippedAndNeverRewritten(t *testing.T) {
	e := newEnv(t, 0)
	broken := "---\ntitle: [unclosed\n---\nThe koala eucalyptus supply is weekly.\n"
	e.write("memories/p/broken.md", broken)
	e.save("The koala keeper starts at seven", "p")
	if got := e.recall("koala"); len(got) != 1 {
		t.Errorf("recall koala = %v, want only the readable note", got)
	}
	if got := e.read("memories/p/broken.md"); got != broken {
		t.Errorf("broken note was rewritten:\n%s", got)
	}
	e.mu.Lock()
	warned := strings.Join(e.warnings, "\n")
	e.mu.Unlock()
	if !strings.Contains(warned, "broken.md:2") {
		t.Errorf("no warning naming the file and line; warnings:\n%s", warned)
	}
	h, err := e.st.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Broken) != 1 || !strings.Contains(h.Broken[0], "broken.md") {
		t.Errorf("doctor does not list the broken note: %v", h.Broken)
	}
}

func TestSupersedeHandMadeNoteAddsIDAndKeepsTheRest(t *testing.T) {
	e := newEnv(t, 0)
	const rel = "memories/p/hand.md"
	orig := "---\naliases: [tapir]\ncssclasses:\n  - wide\n# a comment\n---\nThe tapir eats at noon, fruit only.\n"
	e.write(rel, orig)
	id := memories.DerivedID(rel)
	res, err := e.svc.Supersede(context.Background(), memories.SupersedeRequest{ID: id, Reason: "moved to the new zoo"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != memories.StatusSuperseded {
		t.Errorf("status = %s", res.Status)
	}
	got := e.read(rel)
	for _, want := range []string{"id: " + id + "\n", "aliases: [tapir]\n", "cssclasses:\n  - wide\n", "# a comment\n", "status: superseded\n", "supersede_reason: moved to the new zoo\n", "---\nThe tapir eats at noon, fruit only.\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("rewritten note lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasPrefix(got, "---\nid: ") {
		t.Errorf("id is not the first property:\n%s", got)
	}
	if got := e.recall("tapir"); len(got) != 0 {
		t.Errorf("superseded note still recalled: %v", got)
	}
	// The old file stays, and keeps its identity after the rewrite.
	entries := e.list()
	if len(entries) != 1 || entries[0].ID != id || entries[0].Status != memories.StatusSuperseded {
		t.Errorf("list --status all = %+v", entries)
	}
}

func TestSupersedeWithReplacement(t *testing.T) {
	e := newEnv(t, 0)
	old := e.save("Staging database pool size is twenty", "webapp")
	res, err := e.svc.Supersede(context.Background(), memories.SupersedeRequest{ID: old.ID[:10], Replacement: "Staging database pool size is forty since the load test", Reason: "load test"})
	if err != nil {
		t.Fatal(err)
	}
	if res.New == nil || res.OldID != old.ID {
		t.Fatalf("result = %+v", res)
	}
	if got := e.recall("staging pool"); !cmp.Equal(got, []string{res.New.ID}) {
		t.Errorf("recall = %v, want only the replacement %s", got, res.New.ID)
	}
	// Each links to the other's note, aliased with its id.
	oldLink, newLink := e.st.Vault().LinkTarget(old.Path), e.st.Vault().LinkTarget(res.New.Path)
	if !strings.Contains(e.read(old.Path), `superseded_by: "[[`+newLink+`|`+res.New.ID+`]]"`) {
		t.Errorf("old note does not point at its replacement:\n%s", e.read(old.Path))
	}
	if !strings.Contains(e.read(res.New.Path), `supersedes: "[[`+oldLink+`|`+old.ID+`]]"`) {
		t.Errorf("replacement does not point back:\n%s", e.read(res.New.Path))
	}
	if got := e.read("_index.md"); !strings.Contains(got, "## webapp (1)\n\n- [["+newLink+"|") ||
		!strings.Contains(got, "## Superseded (1)\n\n- [["+oldLink+"|Staging database pool size is twenty]] → [["+newLink+"|") {
		t.Errorf("map of contents does not list the superseded memory under Superseded, linking to its replacement:\n%s", got)
	}
	_, err = e.svc.Supersede(context.Background(), memories.SupersedeRequest{ID: old.ID})
	if !errors.Is(err, memories.ErrRejected) {
		t.Errorf("superseding twice: err = %v, want ErrRejected", err)
	}
	events, err := os.ReadFile(e.st.EventLog())
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{`"op":"save"`, `"op":"supersede"`} {
		if !strings.Contains(string(events), op) {
			t.Errorf("event log lacks %s:\n%s", op, events)
		}
	}
}

func TestIndexIsRebuiltWhenMissingOrCorrupt(t *testing.T) {
	cases := []struct {
		name   string
		break_ func(t *testing.T, home string)
	}{
		{"deleted", func(t *testing.T, home string) {
			if err := os.RemoveAll(filepath.Join(home, "index")); err != nil {
				t.Fatal(err)
			}
		}},
		{"catalog garbage", func(t *testing.T, home string) {
			gens, _ := filepath.Glob(filepath.Join(home, "index", "gen-*"))
			for _, g := range gens {
				if err := os.WriteFile(filepath.Join(g, "catalog"), []byte("garbage"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"pointer to nowhere", func(t *testing.T, home string) {
			if err := os.WriteFile(filepath.Join(home, "index", "CURRENT"), []byte("gen-0-missing\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"bleve files gone", func(t *testing.T, home string) {
			gens, _ := filepath.Glob(filepath.Join(home, "index", "gen-*"))
			for _, g := range gens {
				if err := os.RemoveAll(filepath.Join(g, "bleve")); err != nil {
					t.Fatal(err)
				}
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, 0)
			m := e.save("The lemur island bridge is closed for repairs", "p")
			c.break_(t, e.st.VaultState())
			e.open(0)
			if got := e.recall("lemur"); !cmp.Equal(got, []string{m.ID}) {
				t.Errorf("after the index was %s: recall = %v", c.name, got)
			}
			e.checkInStep()
		})
	}
}

func TestRebuildSwapsGenerations(t *testing.T) {
	e := newEnv(t, 0)
	e.save("The flamingo lagoon is drained in winter", "p")
	before, _ := filepath.Glob(filepath.Join(e.st.VaultState(), "index", "gen-*"))
	rep, err := e.st.Rebuild(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Full || rep.Notes != 1 {
		t.Errorf("report = %+v", rep)
	}
	after, _ := filepath.Glob(filepath.Join(e.st.VaultState(), "index", "gen-*"))
	if len(after) != 1 || (len(before) == 1 && before[0] == after[0]) {
		t.Errorf("generations before %v, after %v: want one new generation", before, after)
	}
	if got := e.recall("flamingo"); len(got) != 1 {
		t.Errorf("recall after rebuild = %v", got)
	}
}

func TestLeftoverTempFilesAreCleaned(t *testing.T) {
	e := newEnv(t, 0)
	e.save("The hippo pool heater was replaced", "p")
	temp := "memories/p/.note.md" + ".cortex-tmp-deadbeef0000"
	e.write(temp, "half a note")
	e.save("The rhino paddock gate sticks in the rain", "p")
	if _, err := os.Stat(e.abs(temp)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("leftover temporary file not removed: %v", err)
	}
}

func TestManySingleSavesKeepSegmentsFew(t *testing.T) {
	e := newEnv(t, 0)
	for i := 0; i < 30; i++ {
		e.save(fmt.Sprintf("Enclosure %d cleaning schedule is every %d days", i, i+2), "zoo")
	}
	zaps, _ := filepath.Glob(filepath.Join(e.st.VaultState(), "index", "gen-*", "bleve", "store", "*.zap"))
	if len(zaps) > 12 {
		t.Errorf("%d segment files after 30 saves; merging should keep them few", len(zaps))
	}
	if got := e.recall("enclosure cleaning"); len(got) != 30 {
		t.Errorf("recall found %d of 30", len(got))
	}
}

func TestConcurrentWritersLoseNothing(t *testing.T) {
	e := newEnv(t, time.Second)
	const writers, each = 6, 15
	// Each save's own word, which the next command must find it by (saves
	// leave the full-text index behind the notes).
	token := func(w, i int) string { return fmt.Sprintf("kestrel%dx%dq", w, i) }
	var saved sync.Map
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each writer has its own store, as separate processes would.
			v, _ := vault.New(e.root, "cortex")
			st, err := store.Open(store.Options{Vault: v, State: config.State{Home: e.home}, LockTimeout: 30 * time.Second, Freshness: time.Second})
			if err != nil {
				errs <- err
				return
			}
			svc := memories.NewService(st)
			// Texts that share little, so that no save is refused as a
			// duplicate of another.
			gen := bench.NewGenerator(uint64(w+1), time.Now())
			for i := 0; i < each; i++ {
				res, err := svc.Save(context.Background(), memories.SaveRequest{
					Content: fmt.Sprintf("Writer %d wrote about the aviary (%s): %s", w, token(w, i), gen.Sentence(14)), Project: fmt.Sprintf("w%d", w%3),
				})
				if err != nil {
					errs <- err
				} else {
					saved.Store(token(w, i), res.ID)
				}
				if i%5 == 0 {
					if _, err := svc.Recall(context.Background(), memories.RecallRequest{Query: "aviary"}); err != nil {
						errs <- err
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	entries := e.list()
	ids := map[string]bool{}
	for _, en := range entries {
		ids[en.ID] = true
	}
	if len(entries) != writers*each || len(ids) != writers*each {
		t.Errorf("%d entries with %d distinct ids, want %d", len(entries), len(ids), writers*each)
	}
	notes, _ := filepath.Glob(e.abs("memories/*/*.md"))
	if len(notes) != writers*each {
		t.Errorf("%d notes in the vault, want %d", len(notes), writers*each)
	}
	saved.Range(func(k, v any) bool {
		if got := e.recall(k.(string)); len(got) == 0 || got[0] != v.(string) {
			t.Errorf("recall %s = %v, want %s first", k, got, v)
		}
		return true
	})
	e.checkInStep()
}

func TestReadOnlyVaultStillAnswers(t *testing.T) {
	e := newEnv(t, 0)
	e.save("The okapi arrives in spring", "p")
	if os.Geteuid() == 0 {
		t.Skip("root ignores folder permissions")
	}
	dir := e.abs("")
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	if _, err := e.st.Rebuild(context.Background()); err != nil {
		t.Fatalf("rebuild over a read-only vault: %v", err)
	}
	if got := e.recall("okapi"); len(got) != 1 {
		t.Errorf("recall = %v", got)
	}
}

// After a burst of writes, notes and folders are too recent to trust on their
// times; the first full check that finds them unchanged records that, once, so
// the commands after it need not look again.
func TestFullCheckSettlesRecentChanges(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the two-second racy window")
	}
	e := newEnv(t, 0)
	e.save("The aquarium pump is checked every morning", "zoo")
	journal := func() string {
		files, _ := filepath.Glob(filepath.Join(e.st.VaultState(), "index", "gen-*", "catalog.journal"))
		if len(files) != 1 {
			t.Fatalf("journals: %v", files)
		}
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	before := journal()
	time.Sleep(2100 * time.Millisecond)
	e.recall("aquarium")
	settled := journal()
	if len(settled) <= len(before) || !strings.HasSuffix(settled, "\n") || !strings.Contains(settled[len(before):], "@\t") {
		t.Fatalf("the full check recorded nothing; journal grew from %d to %d bytes", len(before), len(settled))
	}
	e.recall("aquarium")
	if again := journal(); again != settled {
		t.Errorf("a second check with nothing new wrote to the journal again:\n%s", again[len(settled):])
	}
}

func TestDoctorRepairsTheMapOfContents(t *testing.T) {
	e := newEnv(t, 0)
	e.save("The reptile house heating fails below minus ten", "zoo")
	want := e.read("_index.md")
	if err := os.WriteFile(e.abs("_index.md"), nil, 0o600); err != nil { // as a power loss may leave it
		t.Fatal(err)
	}
	h, err := e.st.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !h.MapRepaired || e.read("_index.md") != want {
		t.Errorf("map not repaired (repaired=%v):\n%s", h.MapRepaired, e.read("_index.md"))
	}
	if h, _ := e.st.Check(context.Background()); h.MapRepaired {
		t.Error("a map that matches was rewritten again")
	}
	// A damaged map is also rendered afresh by the next change.
	if err := os.WriteFile(e.abs("_index.md"), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.save("The reptile house gets a backup heater in winter", "zoo")
	if got := e.read("_index.md"); !strings.Contains(got, "## zoo (2)") {
		t.Errorf("map after a save over a damaged one:\n%s", got)
	}
}

// TestSaveChecksAmongManyMemories runs the save checks through the real index
// over a few thousand memories: the index proposes the candidates, so a
// near-duplicate must be among them however many memories share its words.
func TestSaveChecksAmongManyMemories(t *testing.T) {
	dir := t.TempDir()
	if _, err := bench.WriteVault(filepath.Join(dir, "vault"), 3000, 7, time.Now()); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, root: filepath.Join(dir, "vault"), home: filepath.Join(dir, "state")}
	e.open(time.Second)
	ctx := context.Background()

	jwt := e.save("Use RS256 for JWT signing in production because HS256 shares the signing secret with every service that verifies tokens.", "webapp")
	inGeneral := e.save("Every Go service reads its database connection pool size from the POOL_SIZE environment variable, default 10.", "general")

	var rej *memories.RejectedError
	for _, tt := range []struct {
		name, content, project, want string
	}{
		{"paraphrase", "In production JWT signing uses RS256, because HS256 shares the signing secret with every service that verifies the tokens.", "webapp", jwt.ID},
		{"a general memory, from a project", "Go services read the database connection pool size from the POOL_SIZE environment variable (default 10).", "billing", inGeneral.ID},
	} {
		_, err := e.svc.Save(ctx, memories.SaveRequest{Content: tt.content, Project: tt.project})
		if !errors.As(err, &rej) || rej.Existing == nil || rej.Existing.ID != tt.want {
			t.Errorf("%s: err = %v, want a duplicate of %s", tt.name, err, tt.want)
		}
	}

	// Another project's memory is not a duplicate.
	e.save("In production JWT signing uses RS256, because HS256 shares the signing secret with every service that verifies the tokens.", "mobile")

	// A related memory links to it.
	rel := e.save("JWT signing keys for production rotate every 90 days; the RS256 public key is published at /.well-known/jwks.json.", "webapp")
	if note := e.read(strings.TrimPrefix(rel.Path, "cortex/")); !strings.Contains(note, "[["+strings.TrimSuffix(filepath.Base(jwt.Path), ".md")+"]]") {
		t.Errorf("the related memory does not link to %s:\n%s", jwt.Path, note)
	}

	// An update through supersede may repeat its predecessor.
	if _, err := e.svc.Supersede(ctx, memories.SupersedeRequest{ID: jwt.ID,
		Replacement: "Use RS256 for JWT signing in production and staging, because HS256 shares the signing secret with every service that verifies tokens."}); err != nil {
		t.Errorf("supersede with a near-copy: %v", err)
	}
	e.checkInStep()
}

// TestSaveBatch saves a batch in one commit: the index does not hold the
// batch's notes until the end, so a duplicate within the batch is found by
// comparing the batch with itself.
func TestSaveBatch(t *testing.T) {
	e := newEnv(t, time.Second)
	gen := bench.NewGenerator(3, time.Now())
	var reqs []memories.SaveRequest
	for i := 0; i < 40; i++ {
		reqs = append(reqs, memories.SaveRequest{Project: "web", Content: gen.Sentence(16)})
	}
	first := "Use RS256 for JWT signing in production because HS256 shares the signing secret with every verifier."
	reqs = append(reqs,
		memories.SaveRequest{Project: "web", Content: first},
		memories.SaveRequest{Project: "web", Content: "In production JWT signing uses RS256, because HS256 shares the signing secret with every verifier."},
		memories.SaveRequest{Project: "web", Content: "JWT signing keys for production rotate every 90 days; the RS256 public key is at /.well-known/jwks.json."},
	)
	items, err := e.svc.SaveBatch(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range items[:41] {
		if it.Err != nil {
			t.Errorf("item %d: %v", i, it.Err)
		}
	}
	var rej *memories.RejectedError
	if !errors.As(items[41].Err, &rej) || rej.Existing == nil || rej.Existing.ID != items[40].Result.ID {
		t.Errorf("the paraphrase: %v, want a duplicate of %s", items[41].Err, items[40].Result.ID)
	}
	if items[42].Err != nil {
		t.Fatalf("the related note: %v", items[42].Err)
	}
	if note := e.read(strings.TrimPrefix(items[42].Result.Path, "cortex/")); !strings.Contains(note, strings.TrimSuffix(filepath.Base(items[40].Result.Path), ".md")) {
		t.Errorf("the related note does not link to %s:\n%s", items[40].Result.Path, note)
	}
	if got := len(e.list()); got != 42 {
		t.Errorf("%d memories listed, want 42", got)
	}
	if ids := e.recall("jwks.json"); len(ids) == 0 || ids[0] != items[42].Result.ID {
		t.Errorf("recall after the batch: %v", ids)
	}
	e.checkInStep()
}

// TestHostileQueries runs queries that a query parser would choke on through
// the real index, with and without results: none may fail.
func TestHostileQueries(t *testing.T) {
	e := newEnv(t, time.Second)
	e.save("Call pkg.Func from snake_case helpers in src/auth/login.ts; commit 9f86d081 fixed ERR_CODE-42 (HTTP 429).", "web")
	e.save("Connection pool exhausted: pq: sorry, too many clients already", "web")
	queries := []string{
		`"`, `""`, `"unbalanced`, `*`, `?`, `-`, `--`, `+`, `!`, `:`, `::`, `title:x`, `body:"pool"`,
		`AND`, `OR NOT`, `a AND (b OR`, `(`, `)`, `[1 TO 5]`, `{a}`, `\`, `\\`, `~`, `fuzzy~2`, `boost^2`,
		`/regex.*/`, `%`, `_`, `'; DROP TABLE memories; --`, `../../etc/passwd`, `C:\Windows\System32`,
		`pkg.Func`, `snake_case`, `ERR_CODE-42`, `9f86d081`, `HTTP 429`, `pq: sorry, too many clients already`,
		`the of and`, `🚀🔥`, "e\u0301", "\u202e", "مرحبا", "日本語", "null\x00byte", strings.Repeat("x", 500),
		strings.Repeat("(*:\"", 125), strings.Repeat("a ", 250), "db k8s auth config env repo",
	}
	for _, q := range queries {
		for _, project := range []string{"", "web"} {
			if _, err := e.svc.Recall(context.Background(), memories.RecallRequest{Query: q, Project: project}); err != nil {
				t.Errorf("recall %q (project %q): %v", q, project, err)
			}
		}
		if _, err := e.svc.Search(context.Background(), memories.RecallRequest{Query: q}); err != nil && strings.TrimSpace(q) != "" {
			t.Errorf("search %q: %v", q, err)
		}
	}
	// Literal text still matches.
	for q, want := range map[string]int{`pkg.Func`: 1, `src/auth/login.ts`: 1, `pq: sorry, too many clients`: 1, `"pool"`: 1} {
		if got := len(e.recall(q)); got != want {
			t.Errorf("recall %q found %d, want %d", q, got, want)
		}
	}
}

// TestImportFixtures imports every kind of source in fixtures/import through
// the real store: every candidate is saved or refused for a reason a person
// can act on (never a validation error), recall finds imported content, the
// map of contents lists it, and a second import adds nothing.
func TestImportFixtures(t *testing.T) {
	// The fixtures' Claude Code folder is committed as dot-claude: git and
	// editors hide dot folders. It is copied in as .claude.
	root := filepath.Join(t.TempDir(), "home")
	err := filepath.WalkDir("../fixtures/import", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../fixtures/import", p)
		if d.IsDir() && (rel == "obsidian-tasks" || rel == "vitepress") {
			// Real documentation corpora, imported by their own tests.
			return filepath.SkipDir
		}
		target := filepath.Join(root, strings.ReplaceAll(rel, "dot-claude", ".claude"))
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, time.Second)
	svc := memories.NewService(e.st, memories.WithImporter(&importer.Source{Options: importer.Options{Home: root}}))
	// A folder import reads notes and the formats it recognises; other data
	// files in it (plain JSON, text) are imported when named.
	importAll := func() *memories.ImportResult {
		t.Helper()
		total := &memories.ImportResult{}
		for _, p := range []string{root, filepath.Join(root, "json", "notes.json"), filepath.Join(root, "text", "note.txt")} {
			r, err := svc.Import(context.Background(), memories.ImportRequest{Path: p})
			if err != nil {
				t.Fatal(err)
			}
			total.Imported += r.Imported
			total.Duplicates += r.Duplicates
			total.Unsafe += r.Unsafe
			total.Candidates += r.Candidates
			total.Rejected = append(total.Rejected, r.Rejected...)
			total.Skips = append(total.Skips, r.Skips...)
			total.Skipped += r.Skipped
		}
		return total
	}
	res := importAll()
	t.Log(res.Message())
	for _, r := range res.Rejected {
		t.Logf("rejected %s: %s", r.Source, r.Reason)
	}
	// The fixtures are ordinary notes and chats: nothing in them is unsafe
	// (a chat's "Assistant:" turns once were, as forged transcript turns).
	if res.Imported < 40 || res.Unsafe != 0 {
		t.Errorf("%s: want at least 40 memories from the fixtures, none unsafe", res.Message())
	}
	for _, s := range res.Skips {
		if strings.Contains(s.Reason, "title:") || strings.Contains(s.Reason, "tags:") || strings.Contains(s.Reason, "content:") {
			t.Errorf("a candidate failed validation: %s: %s", s.Source, s.Reason)
		}
	}
	kinds := map[string]int{}
	for _, m := range e.list() {
		n, err := vault.ParseNote([]byte(e.read(m.Path)))
		if err != nil {
			t.Fatal(err)
		}
		kinds[n.Memory(m.Path, time.Time{}).Provenance.SourceTool]++
	}
	for _, k := range []string{"markdown", "claude_md", "agents_md", "claude_memory", "mcp_memory", "json", "text", "claude_export", "chatgpt_export"} {
		if kinds["import:"+k] == 0 {
			t.Errorf("no memory imported from a %s source (%v)", k, kinds)
		}
	}
	if ids := e.recall("flush the DNS cache on macOS"); len(ids) == 0 {
		t.Error("recall does not find the imported ChatGPT conversation")
	}
	if idx := e.read("_index.md"); !strings.Contains(idx, "## general") {
		t.Errorf("the map of contents has no general section:\n%.500s", idx)
	}
	again := importAll()
	if again.Imported != 0 || again.Duplicates != res.Imported+res.Duplicates {
		t.Errorf("second import: %s; first: %s", again.Message(), res.Message())
	}
	e.checkInStep()
}

// TestRebuildIndexesBodies checks a rebuild, which reads the notes' bodies
// again batch by batch rather than holding them, indexes every body under
// the note's settled id: two notes that share an id (a copied file) are
// both found by words only their bodies hold.
func TestRebuildIndexesBodies(t *testing.T) {
	e := newEnv(t, 0)
	note := func(body string) string {
		return "---\nid: 01jbench0000000000000000aa\ntitle: Shared title\ntype: fact\nproject: p\n---\n" + body + "\n"
	}
	e.write("memories/p/a.md", note("The okapi grazes by the river."))
	e.write("memories/p/b.md", note("The pangolin sleeps in a burrow."))
	if _, err := e.st.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	okapi, pangolin := e.recall("okapi"), e.recall("pangolin")
	if len(okapi) != 1 || len(pangolin) != 1 || okapi[0] == pangolin[0] {
		t.Errorf("recall okapi = %v, pangolin = %v: want one note each, under two ids", okapi, pangolin)
	}
}

// TestSplitMapSplicedAndRepaired: past vault.PagedAbove lines the map is a
// root and one page per section; a save splices the root and its project's
// page only (a page it does not touch is left as it is), and doctor finds
// and repairs a page that does not match the notes.
func TestSplitMapSplicedAndRepaired(t *testing.T) {
	e := newEnv(t, 0)
	for i := range vault.PagedAbove {
		e.write(fmt.Sprintf("memories/zoo/note-%03d.md", i), fmt.Sprintf("---\nid: 01hv%022d\nproject: zoo\n---\n# Note %d\n\nText %d.\n", i, i, i))
	}
	e.write("memories/aviary/owl.md", "---\nid: 01hvowl00000000000000000000\nproject: aviary\n---\n# Owl\n\nThe owl eats mice.\n")
	if n := len(e.list()); n != vault.PagedAbove+1 {
		t.Fatalf("list: %d memories", n)
	}
	if h, err := e.st.Check(context.Background()); err != nil || h.MapRepaired {
		t.Fatalf("check after the first render: repaired=%v, %v", h != nil && h.MapRepaired, err)
	}
	if root := e.read("_index.md"); !strings.Contains(root, "\n401 memories in 2 projects.\n") || !strings.Contains(root, "All 400: [[cortex/_index/zoo|zoo]]") {
		t.Fatalf("root:\n%s", root)
	}
	edited := e.read("_index/aviary.md") + "a hand edit\n"
	e.write("_index/aviary.md", edited)
	e.save("The penguin pool is refilled on Mondays", "zoo")
	if got := e.read("_index/aviary.md"); got != edited {
		t.Error("a save in zoo rendered the whole map (aviary's page was rewritten)")
	}
	if page := e.read("_index/zoo.md"); !strings.Contains(page, "## zoo (401)\n\n- [[cortex/memories/zoo/the-penguin-pool") {
		t.Errorf("zoo's page does not start with the save:\n%.400s", page)
	}
	if root := e.read("_index.md"); !strings.Contains(root, "\n402 memories in 2 projects.\n") {
		t.Errorf("root's totals after the save:\n%s", root)
	}
	h, err := e.st.Check(context.Background())
	if err != nil || !h.MapRepaired {
		t.Fatalf("doctor did not repair the edited page: repaired=%v, %v", h != nil && h.MapRepaired, err)
	}
	if got := e.read("_index/aviary.md"); got == edited {
		t.Error("aviary's page still holds the hand edit")
	}
	if h, _ := e.st.Check(context.Background()); h.MapRepaired {
		t.Error("a split map that matches was rewritten again")
	}
}
