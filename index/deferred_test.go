package index

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cortexmem/cortex/memories"
)

// TestCatalogDeferred: the index work commits leave undone is journaled with
// them, read back by the next process, added up over commits, dropped by a
// commit that says it caught up, never taken from a torn batch, and keeps
// the catalog from being compacted (the base does not hold it).
func TestCatalogDeferred(t *testing.T) {
	dir := writeBase(t, fixture(), fixtureDirs)
	c := load(t, dir)
	batches := journalChanges()
	steps := []struct {
		name     string
		changes  map[string]*Record
		later    Deferred
		caughtUp bool
		want     Deferred
	}{
		{"a save leaves its note owed", batches[0], Deferred{Paths: []string{"new/n.md"}}, false,
			Deferred{Paths: []string{"new/n.md"}}},
		{"a second adds to it", nil, Deferred{Paths: []string{"proj/b.md"}, IDs: []string{idB}}, false,
			Deferred{Paths: []string{"new/n.md", "proj/b.md"}, IDs: []string{idB}}},
		{"a plain commit leaves it", batches[1], Deferred{}, false,
			Deferred{Paths: []string{"new/n.md", "proj/b.md"}, IDs: []string{idB}}},
		{"a catch-up drops it, then owes its own", nil, Deferred{Paths: []string{"top.md"}}, true,
			Deferred{Paths: []string{"top.md"}}},
		{"a catch-up with nothing new", nil, Deferred{}, true, Deferred{}},
	}
	for i, s := range steps {
		if err := c.CommitBatch(dir, s.changes, s.later, s.caughtUp, nil, observed.Add(time.Duration(i+1)*time.Minute)); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		empty := cmpopts.EquateEmpty()
		if diff := cmp.Diff(s.want, c.Deferred(), empty); diff != "" {
			t.Errorf("%s: in memory (-want +got):\n%s", s.name, diff)
		}
		if diff := cmp.Diff(s.want, load(t, dir).Deferred(), empty); diff != "" {
			t.Errorf("%s: loaded again (-want +got):\n%s", s.name, diff)
		}
		if got, want := c.NeedsCompaction(), false; !s.want.Empty() && got != want {
			t.Errorf("%s: NeedsCompaction with work owed", s.name)
		}
		if !s.want.Empty() {
			if err := c.Clone().Write(t.TempDir(), nil, observed); err == nil {
				t.Errorf("%s: Write with work owed succeeded, dropping it", s.name)
			}
		}
	}
}

// TestDeferredTornBatch: a batch cut before its commit line owes nothing, and
// a catch-up cut short leaves the work owed.
func TestDeferredTornBatch(t *testing.T) {
	dir := writeBase(t, fixture(), fixtureDirs)
	c := load(t, dir)
	owed := Deferred{Paths: []string{"top.md"}, IDs: []string{idC}}
	if err := c.CommitBatch(dir, nil, owed, false, nil, observed.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	jpath := filepath.Join(dir, journalFile)
	first, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CommitBatch(dir, nil, Deferred{Paths: []string{"proj/b.md"}}, true, nil, observed.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	for n := len(first); n < len(full); n++ {
		if err := os.WriteFile(jpath, full[:n], 0o600); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(owed, load(t, dir).Deferred()); diff != "" {
			t.Fatalf("journal cut at %d of %d (-want +got):\n%s", n, len(full), diff)
		}
	}
}

// TestSearchDocsAgreesWithSearch: the owed notes a search reads from the
// vault are matched as the index matches them — the same filters, the same
// analysis of the text — so a search finds them before they are indexed;
// where the index narrows the text to its rarest terms by how many
// documents hold them, the notes in memory match any term (a superset).
func TestSearchDocsAgreesWithSearch(t *testing.T) {
	b := newTestBleve(t)
	ds := docs(corpus())
	for _, tc := range []struct {
		name     string
		req      memories.SearchRequest
		superset bool
	}{
		{"every term", memories.SearchRequest{Text: "refresh token"}, false},
		{"every term, none has both", memories.SearchRequest{Text: "refresh goose"}, false},
		{"any term", memories.SearchRequest{Text: "refresh goose", AnyTerm: true}, false},
		{"stemmed", memories.SearchRequest{Text: "rotating tokens", AnyTerm: true}, false},
		{"tags", memories.SearchRequest{Text: "observability"}, false},
		{"stop words only", memories.SearchRequest{Text: "the and of"}, false},
		{"superseded excluded", memories.SearchRequest{Text: "cookies"}, false},
		{"superseded included", memories.SearchRequest{Text: "cookies", IncludeSuperseded: true}, false},
		{"project", memories.SearchRequest{Text: "tokens", Project: "alpha"}, false},
		{"projects", memories.SearchRequest{Text: "rotating kafka", AnyTerm: true, Projects: []string{"alpha", "gamma"}}, false},
		{"type and project", memories.SearchRequest{Text: "kafka", Type: memories.TypeGotcha, Project: "beta"}, false},
		{"identifiers", memories.SearchRequest{Text: "pkg.Func src/auth/login.ts ERR_CODE-42"}, false},
		{"unicode", memories.SearchRequest{Text: "ÜNÏCÖDÉ 日本語", AnyTerm: true}, false},
		{"source hashes", memories.SearchRequest{SourceHashes: []string{"h-goose", "h-none"}}, false},
		{"area", memories.SearchRequest{Area: "streaming"}, false},
		{"every tag", memories.SearchRequest{Tags: []string{"auth", "security"}}, false},
		{"not every tag", memories.SearchRequest{Tags: []string{"auth", "db"}}, false},
		{"status", memories.SearchRequest{Status: memories.StatusOpen}, false},
		{"updated since", memories.SearchRequest{Text: "rotate", UpdatedSince: day0.AddDate(0, 0, 8)}, false},
		{"created in", memories.SearchRequest{CreatedIn: []memories.TimeSpan{{From: day0, To: day0.Add(time.Minute)}}}, false},
		{"synonyms", memories.SearchRequest{Text: "db", Synonyms: map[string][]string{"db": {"database"}}}, false},
		{"no filter", memories.SearchRequest{}, false},
		{"rarest", memories.SearchRequest{Text: "rotating goose observability", AnyTerm: true, Rarest: 2}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Size = 50
			want := sorted(search(t, b, tc.req))
			var got []string
			for _, m := range b.SearchDocs(ds, tc.req) {
				got = append(got, m.ID)
			}
			got = sorted(got)
			if tc.superset {
				for _, id := range want {
					if !slices.Contains(got, id) {
						t.Errorf("SearchDocs = %v, missing %s that Search finds", got, id)
					}
				}
				return
			}
			if diff := cmp.Diff(got, want); diff != "" {
				t.Errorf("SearchDocs(%+v) (-got +want Search's):\n%s", tc.req, diff)
			}
		})
	}
}

// TestCommitBatchUnsynced: a lazy writer's batch is appended without a flush
// to disk, and reads back as CommitBatch's would; the batches that must be
// on disk before anything else happens (a catch-up, a confirm) still flush.
func TestCommitBatchUnsynced(t *testing.T) {
	syncs := 0
	orig := syncJournal
	syncJournal = func(f *os.File) error { syncs++; return orig(f) }
	t.Cleanup(func() { syncJournal = orig })

	dir := writeBase(t, fixture(), fixtureDirs)
	c := load(t, dir)
	batch := journalChanges()[0]
	owed := Deferred{Paths: []string{"top.md"}}
	if err := c.CommitBatchUnsynced(dir, batch, owed, nil, observed.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if syncs != 0 {
		t.Errorf("an unsynced batch flushed the journal %d times, want 0", syncs)
	}
	got := load(t, dir)
	if diff := cmp.Diff(owed, got.Deferred()); diff != "" {
		t.Errorf("owed work read back (-want +got):\n%s", diff)
	}
	for p, want := range batch {
		r, err := got.Get(p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, r); diff != "" {
			t.Errorf("record %s read back (-want +got):\n%s", p, diff)
		}
	}
	if err := c.CommitBatch(dir, nil, Deferred{}, true, nil, observed.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := c.Confirm(dir, nil, observed.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if syncs != 2 {
		t.Errorf("a catch-up and a confirm flushed the journal %d times, want 2", syncs)
	}
}
