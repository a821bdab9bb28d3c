package transcripts

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/sqlitedb/sqlitedbtest"
)

// jsonlFixtures are the fixture transcripts read a line at a time (the ones
// whose tool appends to them), with where placeAll puts them.
func jsonlFixtures(t *testing.T, home string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, rel := range fixtureFiles(t) {
		if strings.HasSuffix(rel, ".jsonl") {
			out[rel] = fixturePlace(home, rel)
		}
	}
	return out
}

// cutAt is the byte count of the first share of data's lines (at least one
// line); mid cuts inside the next line instead.
func cutAt(data []byte, share float64, mid bool) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	n := max(1, int(float64(len(lines))*share))
	cut := 0
	for _, l := range lines[:min(n, len(lines))] {
		cut += len(l)
	}
	if mid && n < len(lines) {
		cut += len(lines[n]) / 2
	}
	return min(cut, len(data))
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// comparable keys documents by their file below home and their place in
// it, the only things that differ between indexes of the same files in two
// folders being the folder and the file keys derived from it.
func comparable(docs map[string]index.TranscriptDoc, home string) map[string]index.TranscriptDoc {
	out := make(map[string]index.TranscriptDoc, len(docs))
	for _, d := range docs {
		d.File = strings.TrimPrefix(d.File, home)
		d.ID = d.File + strings.TrimPrefix(d.ID, d.FileKey)
		d.FileKey = ""
		out[d.ID] = d
	}
	return out
}

// TestGrowingFiles writes the start of every fixture transcript, indexes it,
// then appends the rest — cut at a line boundary, or inside a line still
// being written — and indexes again: the index must hold exactly what
// indexing the whole files at once gives (nothing twice, nothing missing),
// the files being read from where the first read stopped.
func TestGrowingFiles(t *testing.T) {
	full := t.TempDir()
	files := jsonlFixtures(t, full)
	for rel := range files {
		placeFixture(t, full, rel)
	}
	want := comparable(allDocs(t, func() *Service { s := newService(t, full, time.Now); syncNow(t, s); return s }()), full)

	for _, tc := range []struct {
		name  string
		share float64
		mid   bool
	}{
		{"a quarter", 0.25, false}, {"half", 0.5, false}, {"half, mid-line", 0.5, true}, {"all but the last line", 0.99, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			rest := map[string][]byte{}
			for rel := range files {
				data, err := os.ReadFile(filepath.Join(fixtureRoot, rel))
				if err != nil {
					t.Fatal(err)
				}
				cut := cutAt(data, tc.share, tc.mid)
				writeFile(t, fixturePlace(home, rel), data[:cut])
				rest[rel] = data[cut:]
			}
			s := newService(t, home, time.Now)
			first := syncNow(t, s)
			if first.New != len(files) {
				t.Fatalf("first sync read %d new files, want %d", first.New, len(files))
			}
			grown := 0
			for rel, r := range rest {
				if len(r) > 0 {
					appendFile(t, fixturePlace(home, rel), r)
					grown++
				}
			}
			rep := syncNow(t, s)
			if rep.Read != grown || rep.New != 0 {
				t.Errorf("second sync read %d files (%d new), want the %d that grew", rep.Read, rep.New, grown)
			}
			// A rewind or a rewritten message in the new lines can reach back
			// before the offset; only then is a file read again whole.
			if rep.Reread > grown/4 {
				t.Errorf("%d of %d grown files were read again whole, not from where the last read stopped", rep.Reread, grown)
			}
			got := comparable(allDocs(t, s), home)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("growing files indexed differently from whole files (-whole +grown):\n%s", diff)
			}
			if again := syncNow(t, s); again.Read != 0 || again.Indexed != 0 {
				t.Errorf("a third sync read %d files, indexed %d documents; nothing changed", again.Read, again.Indexed)
			}
		})
	}
}

// TestSessionGrowsWhileSearched follows a Claude Code session as it was
// recorded, file by file (each a byte prefix of the next): every search
// finds the newest turn, and nothing is found twice.
func TestSessionGrowsWhileSearched(t *testing.T) {
	home := t.TempDir()
	stages := []string{"d1_turn1", "d2_resume", "d3_continue", "e_compact", "e2_after_compact"}
	path := filepath.Join(home, ".claude", "projects", "-home-dev-work-demo-project", "11111111-2222-4333-8444-555555555555.jsonl")
	s := newService(t, home, time.Now)
	var prev []byte
	for i, st := range stages {
		data, err := os.ReadFile(filepath.Join(fixtureRoot, "claude-code", "2.1.197", st+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, prev) {
			t.Fatalf("%s does not continue the previous stage", st)
		}
		if i == 0 {
			writeFile(t, path, data)
		} else {
			appendFile(t, path, data[len(prev):])
		}
		prev = data
		res, err := s.Search(context.Background(), Request{Query: "number remember", AllExchanges: true, Limit: MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && (res.Sync.Appended != 1 || res.Sync.Reread != 0) {
			t.Errorf("%s: sync %+v, want the file read from where it stopped", st, res.Sync)
		}
		ids := map[string]bool{}
		for _, h := range res.Hits {
			if ids[h.ID] {
				t.Errorf("%s: %s found twice", st, h.ID)
			}
			ids[h.ID] = true
		}
		docs := allDocs(t, s)
		var users []string
		for _, d := range docs {
			users = append(users, d.User)
		}
		sort.Strings(users)
		want := map[string]int{"d1_turn1": 1, "d2_resume": 2, "d3_continue": 3, "e_compact": 4, "e2_after_compact": 5}[st]
		if len(docs) != want {
			t.Errorf("%s: %d documents %q, want %d", st, len(docs), users, want)
		}
	}
	res, err := s.Search(context.Background(), Request{Query: "after compaction question"})
	if err != nil || res.Count != 1 || !strings.HasPrefix(res.Hits[0].User, "After compaction question") {
		t.Errorf("the last turn is not found: %+v %v", res, err)
	}
}

// TestRewrittenFile replaces a transcript by another (a tool rewriting its
// file, a file copied over another), shortens one and grows one whose start
// changed: each is read again whole, and what it no longer holds is gone.
func TestRewrittenFile(t *testing.T) {
	read := func(rel string) []byte {
		data, err := os.ReadFile(filepath.Join(fixtureRoot, rel))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	for _, tc := range []struct {
		name        string
		before      []byte
		after       []byte
		gone, found string // a query the old content answered, one the new does
	}{
		{"replaced by a longer file", read("claude-code/2.1.197/a_qa.jsonl"), read("claude-code/hand-made/rewind_fork.jsonl"), "capital of France", "Redis instead of SQLite"},
		{"replaced by a shorter file", read("claude-code/hand-made/rewind_fork.jsonl"), read("claude-code/2.1.197/a_qa.jsonl"), "Redis instead of SQLite", "capital of France"},
		{"truncated", read("claude-code/2.1.197/d2_resume.jsonl"), read("claude-code/2.1.197/d1_turn1.jsonl"), "What number did I ask you to remember", "Remember the number"},
		{"start rewritten, grown", read("claude-code/2.1.197/d1_turn1.jsonl"),
			append(bytes.ReplaceAll(read("claude-code/2.1.197/d1_turn1.jsonl"), []byte("Remember the number 42"), []byte("Remember the number 77")), []byte("\n")...),
			"number 42", "number 77"},
		{"legacy JSON rewritten in place", read("gemini-cli/legacy/small.json"), read("gemini-cli/legacy/large.json"), "", "Run a command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, ".claude", "projects", "-p", "s.jsonl")
			if strings.Contains(tc.name, "legacy") {
				path = filepath.Join(home, ".gemini", "tmp", "p", "chats", "session-x.json")
			}
			writeFile(t, path, tc.before)
			s := newService(t, home, settled)
			syncNow(t, s)
			old := time.Now().Add(-time.Minute)
			writeFile(t, path, tc.after)
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
			rep := syncNow(t, s)
			if rep.Reread != 1 {
				t.Errorf("sync %+v: want the file read again whole", rep)
			}
			if tc.gone != "" {
				res, err := s.Search(context.Background(), Request{Query: tc.gone, NoSync: true})
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range res.Hits {
					if strings.Contains(strings.ToLower(h.User), strings.ToLower(tc.gone)) {
						t.Errorf("%q still finds %q", tc.gone, h.User)
					}
				}
			}
			res, err := s.Search(context.Background(), Request{Query: tc.found, NoSync: true})
			if err != nil || res.Count == 0 {
				t.Errorf("%q finds nothing: %v", tc.found, err)
			}
			fresh := newService(t, home, settled)
			syncNow(t, fresh)
			if diff := cmp.Diff(comparable(allDocs(t, fresh), home), comparable(allDocs(t, s), home)); diff != "" {
				t.Errorf("differs from an index of the file as it is now (-fresh +synced):\n%s", diff)
			}
		})
	}
}

// TestDeletedFile removes a transcript: its documents go, and so does its
// reading state.
func TestDeletedFile(t *testing.T) {
	home := filterHome(t)
	s := newService(t, home, settled)
	syncNow(t, s)
	gone := fixturePlace(home, "codex/0.169.0/a_qa.jsonl")
	before := len(allDocs(t, s))
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	rep := syncNow(t, s)
	if rep.Removed != 1 || rep.Deleted != 1 {
		t.Errorf("sync %+v: want one file removed and its one document deleted", rep)
	}
	docs := allDocs(t, s)
	if len(docs) != before-1 {
		t.Errorf("%d documents, want %d", len(docs), before-1)
	}
	for _, d := range docs {
		if d.File == gone {
			t.Errorf("%s is still indexed", d.ID)
		}
	}
	res, err := s.Search(context.Background(), Request{Query: "capital of France", Tool: "codex"})
	if err != nil || res.Count != 0 {
		t.Errorf("codex results after its file was deleted: %+v %v", res, err)
	}
	gen, err := current(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	states, _ := os.ReadDir(filepath.Join(gen, filesDir))
	for _, st := range states {
		if strings.HasPrefix(st.Name(), fileKey(gone)) {
			t.Errorf("the reading state %s of the deleted file is left", st.Name())
		}
	}
}

// TestRebuildAndRepair rebuilds on request, and rebuilds an index whose
// files were damaged or removed, answering as before.
func TestRebuildAndRepair(t *testing.T) {
	home := filterHome(t)
	s := newService(t, home, settled)
	syncNow(t, s)
	want := comparable(allDocs(t, s), home)
	check := func(what string) {
		t.Helper()
		res, err := s.Search(context.Background(), Request{Query: "capital of France"})
		if err != nil || res.Count != 3 {
			t.Fatalf("%s: search: %+v %v", what, res, err)
		}
		if diff := cmp.Diff(want, comparable(allDocs(t, s), home)); diff != "" {
			t.Errorf("%s: (-before +after)\n%s", what, diff)
		}
	}
	rep, err := s.Rebuild(context.Background())
	if err != nil || rep.Rebuilt == "" || rep.Exchanges != len(want) {
		t.Fatalf("rebuild: %+v %v", rep, err)
	}
	check("rebuilt")
	gens, _ := filepath.Glob(filepath.Join(s.Dir(), genPrefix+"*"))
	if len(gens) != 1 {
		t.Errorf("%d generations left after a rebuild, want 1", len(gens))
	}
	gen, _ := current(s.Dir())
	if err := os.WriteFile(filepath.Join(gen, manifestFile), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	check("manifest damaged")
	gen, _ = current(s.Dir())
	if err := os.RemoveAll(filepath.Join(gen, bleveDir)); err != nil {
		t.Fatal(err)
	}
	check("index removed")
	if err := os.WriteFile(filepath.Join(s.Dir(), currentFile), []byte("../../etc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	check("pointer damaged")
	h, err := s.Check(context.Background())
	if err != nil || !h.InStep() || h.Documents != uint64(len(want)) || h.Rebuilt != "" {
		t.Errorf("health %+v %v", h, err)
	}
	// A manifest that says less than the index holds (a crash between the
	// two) is caught, and the index rebuilt.
	gen, _ = current(s.Dir())
	m, err := loadManifest(gen)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.Files {
		e.Docs = 0
		break
	}
	if err := m.save(gen); err != nil {
		t.Fatal(err)
	}
	h, err = s.Check(context.Background())
	if err != nil || !h.InStep() || h.Rebuilt == "" || h.Documents != uint64(len(want)) {
		t.Errorf("health of a manifest behind the index: %+v %v", h, err)
	}
}

// TestFreshness: within Freshness of a full check, a sync checks only the
// transcripts written lately — an append to one is indexed at once — and
// sees a new transcript only once the window has passed.
func TestFreshness(t *testing.T) {
	home := t.TempDir()
	active := placeFixture(t, home, "claude-code/2.1.197/d2_resume.jsonl")
	s := newService(t, home, time.Now)
	s.o.Freshness = time.Hour
	if rep := syncNow(t, s); rep.Quick || rep.New != 1 {
		t.Fatalf("first sync %+v: want a full one", rep)
	}
	more, err := os.ReadFile(filepath.Join(fixtureRoot, "claude-code/2.1.197/d3_continue.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(active)
	appendFile(t, active, more[len(old):])
	placeFixture(t, home, "codex/0.169.0/a_qa.jsonl")
	rep := syncNow(t, s)
	if !rep.Quick || rep.Appended != 1 || rep.New != 0 {
		t.Errorf("sync within the window %+v: want the active session read, the new file not yet", rep)
	}
	if n := len(allDocs(t, s)); n != 3 {
		t.Errorf("%d documents, want the 3 turns of the grown session", n)
	}
	// The window passes.
	gen, _ := current(s.Dir())
	past := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(filepath.Join(gen, checkedFile), past, past); err != nil {
		t.Fatal(err)
	}
	if rep := syncNow(t, s); rep.Quick || rep.New != 1 {
		t.Errorf("sync after the window %+v: want a full check finding the new file", rep)
	}
	// A lately written transcript that is gone asks for a full check.
	if err := os.Remove(active); err != nil {
		t.Fatal(err)
	}
	if rep := syncNow(t, s); rep.Quick || rep.Removed != 1 {
		t.Errorf("sync after an active file went %+v: want a full check removing it", rep)
	}
}

// TestHomeOverrides: with each tool's home override set, the index holds the
// sessions under the overrides and none under the default folders; a tool's
// folder that appears after the first search is discovered by the next one.
func TestHomeOverrides(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	env := map[string]string{
		"CLAUDE_CONFIG_DIR": filepath.Join(dir, "claude-config"),
		"CODEX_HOME":        filepath.Join(dir, "codex-home"),
		"GEMINI_CLI_HOME":   filepath.Join(dir, "gemini-home"),
	}
	// Where a fixture goes under the overrides instead of the defaults.
	rebase := map[string]string{
		filepath.Join(home, ".claude"): env["CLAUDE_CONFIG_DIR"],
		filepath.Join(home, ".codex"):  env["CODEX_HOME"],
		filepath.Join(home, ".gemini"): filepath.Join(env["GEMINI_CLI_HOME"], ".gemini"),
	}
	fixtures := []string{"claude-code/2.1.197/a_qa.jsonl", "codex/0.140.0-alpha.19/custom_patch_apply.jsonl", "gemini-cli/0.40/tool_call.jsonl"}
	for _, rel := range fixtures {
		placeFixture(t, home, rel) // under the defaults: never indexed
	}
	s := New(Options{
		Dir:         filepath.Join(dir, "index"),
		Selection:   scribe.Selection{All: true, Env: transcript.Env{Home: home, Getenv: func(k string) string { return env[k] }}},
		LockTimeout: 10 * time.Second,
		Now:         settled,
	})
	syncNow(t, s)
	if docs := allDocs(t, s); len(docs) != 0 {
		t.Fatalf("%d documents from the default folders, which the overrides replace", len(docs))
	}
	want := map[string]bool{}
	for _, rel := range fixtures {
		def := fixturePlace(home, rel)
		for from, to := range rebase {
			if strings.HasPrefix(def, from+string(filepath.Separator)) {
				dst := to + strings.TrimPrefix(def, from)
				data, err := os.ReadFile(def)
				if err != nil {
					t.Fatal(err)
				}
				writeFile(t, dst, data)
				want[dst] = true
			}
		}
	}
	if len(want) != len(fixtures) {
		t.Fatalf("placed %d of %d fixtures under the overrides", len(want), len(fixtures))
	}
	syncNow(t, s)
	got := map[string]bool{}
	for _, d := range allDocs(t, s) {
		got[d.File] = true
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files indexed (-want +got):\n%s", diff)
	}
}

// TestDatabaseTranscript indexes a transcript a Loader reads (OpenCode's
// database): its exchanges are found and point at the database; a search
// with nothing changed reads nothing again; the database gone, its
// documents go too.
func TestDatabaseTranscript(t *testing.T) {
	home := t.TempDir()
	db := filepath.Join(home, ".local", "share", "opencode", "opencode.db")
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		t.Fatal(err)
	}
	sqlitedbtest.BuildFile(t, db, filepath.Join(fixtureRoot, "opencode", "hand-made", "fork.db.txt"), true)
	s := newService(t, home, settled)
	if rep := syncNow(t, s); rep.New != 1 || len(rep.Unreadable) != 0 {
		t.Fatalf("first sync: %+v, want the database read", rep)
	}
	res, err := s.Search(context.Background(), Request{Query: "eviction policy", Tool: "opencode"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].File != db || !strings.Contains(res.Hits[0].User, "Add an eviction policy.") || res.Hits[0].Line == 0 {
		t.Fatalf("search: %+v, want the exchange in %s", res.Hits, db)
	}
	if rep := syncNow(t, s); rep.Read != 0 {
		t.Errorf("second sync read %d transcripts; nothing changed", rep.Read)
	}
	for _, p := range []string{db, db + "-wal", db + "-shm"} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if rep := syncNow(t, s); rep.Removed != 1 {
		t.Errorf("after the database was deleted: %+v, want it removed", rep)
	}
	if docs := allDocs(t, s); len(docs) != 0 {
		t.Errorf("%d documents left of a deleted database", len(docs))
	}
}

// TestBuildInBatches: a build whose batches are indexed side by side holds
// what a build in one batch holds, and searches find the same.
func TestBuildInBatches(t *testing.T) {
	home := t.TempDir()
	placeAll(t, home)
	one := newService(t, home, settled)
	one.buildDocs, one.buildBytes = 1<<30, 1<<30
	many := newService(t, home, settled)
	many.buildDocs = 3
	var reps []*SyncReport
	for _, s := range []*Service{one, many} {
		rep, err := s.Rebuild(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, rep)
	}
	if reps[0].Indexed < 20 || reps[1].Indexed != reps[0].Indexed || reps[1].Exchanges != reps[0].Exchanges || reps[1].Files != reps[0].Files {
		t.Errorf("one batch: %d indexed, %d exchanges of %d files; batches of 3: %d, %d of %d",
			reps[0].Indexed, reps[0].Exchanges, reps[0].Files, reps[1].Indexed, reps[1].Exchanges, reps[1].Files)
	}
	if diff := cmp.Diff(allDocs(t, one), allDocs(t, many)); diff != "" {
		t.Errorf("(-one batch +batches of 3)\n%s", diff)
	}
	// The same exchanges are found (Bleve's BM25 takes its average
	// document length from the segments' dictionaries, so scores, and the
	// order of near ties, may differ a little with the segments).
	for _, q := range []string{"capital of France", "rust version", "error"} {
		a, err := one.Search(context.Background(), Request{Query: q, Limit: 20, AllExchanges: true, NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		b, err := many.Search(context.Background(), Request{Query: q, Limit: 20, AllExchanges: true, NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		var ai, bi []string
		for _, h := range a.Hits {
			ai = append(ai, h.ID)
		}
		for _, h := range b.Hits {
			bi = append(bi, h.ID)
		}
		if len(ai) == 20 {
			t.Fatalf("%q finds too much to compare", q)
		}
		slices.Sort(ai)
		slices.Sort(bi)
		if diff := cmp.Diff(ai, bi); diff != "" {
			t.Errorf("%q: (-one batch +batches of 3)\n%s", q, diff)
		}
	}
	// The manifest of the build in batches lists every transcript.
	gen, err := current(many.Dir())
	if err != nil {
		t.Fatal(err)
	}
	m, err := loadManifest(gen)
	if err != nil {
		t.Fatal(err)
	}
	if files, docs := m.counts(); files != reps[0].Files || docs != reps[0].Exchanges {
		t.Errorf("manifest of the build in batches: %d files, %d documents; want %d, %d", files, docs, reps[0].Files, reps[0].Exchanges)
	}
}

// TestOlderIndexRebuilt: an index an older cortex built — its manifest of
// another version, or of another schema — is rebuilt by the next search,
// the quick one within Freshness of a full check too, and answers as a new
// one does.
func TestOlderIndexRebuilt(t *testing.T) {
	home := filterHome(t)
	s := newService(t, home, time.Now)
	s.o.Freshness = time.Hour
	syncNow(t, s)
	want := comparable(allDocs(t, s), home)
	for _, tc := range []struct {
		name   string
		header func(m *manifest) string
	}{
		// Version 1 had no counts nor head in its header; its lines were
		// as now.
		{"version 1", func(m *manifest) string {
			return fmt.Sprintf("%s\t1\t%s\t%d\n", manifestMagic, m.Schema, m.Synced)
		}},
		{"another schema", func(m *manifest) string {
			r, d := m.counts()
			return fmt.Sprintf("%s\t%d\ttranscripts-1\t%d\t%d\t%d\t%d\n", manifestMagic, stateVersion, m.Synced, r, d, 0)
		}},
		// Schema 2 analysed prose with Bleve's own tokenizer and filters;
		// schema 3 with the same analysis done faster, under another name.
		{"schema 2", func(m *manifest) string {
			r, d := m.counts()
			return fmt.Sprintf("%s\t%d\ttranscripts-2\t%d\t%d\t%d\t%d\n", manifestMagic, stateVersion, m.Synced, r, d, 0)
		}},
		// Schema 3 had Bleve's empty "_all" field in every document.
		{"schema 3", func(m *manifest) string {
			r, d := m.counts()
			return fmt.Sprintf("%s\t%d\ttranscripts-3\t%d\t%d\t%d\t%d\n", manifestMagic, stateVersion, m.Synced, r, d, 0)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gen, err := current(s.Dir())
			if err != nil {
				t.Fatal(err)
			}
			m, err := loadManifest(gen)
			if err != nil {
				t.Fatal(err)
			}
			var lines []byte
			for _, p := range m.paths() {
				one := &manifest{Schema: m.Schema, Synced: m.Synced, Files: map[string]*fileEntry{p: m.Files[p]}}
				_, line, _ := bytes.Cut(one.encode(), []byte("\n"))
				lines = append(lines, line...)
			}
			writeFile(t, filepath.Join(gen, manifestFile), append([]byte(tc.header(m)), lines...))
			s.markChecked(time.Now())
			res, err := s.Search(context.Background(), Request{Query: "capital of France"})
			if err != nil || res.Count != 3 {
				t.Fatalf("search: %+v %v", res, err)
			}
			if res.Sync == nil || res.Sync.Rebuilt == "" {
				t.Errorf("the search did not rebuild the index: %+v", res.Sync)
			}
			if diff := cmp.Diff(want, comparable(allDocs(t, s), home)); diff != "" {
				t.Errorf("(-before +after)\n%s", diff)
			}
			if gen2, _ := current(s.Dir()); gen2 == gen {
				t.Errorf("the old generation is still live")
			}
		})
	}
}
