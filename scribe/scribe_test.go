package scribe_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/adapters"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/internal/golden"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/transcripttest"
	"github.com/cortexmem/cortex/vault"
)

// renderedDir holds the notes a run over every fixture writes: what lands
// in Obsidian, for a reviewer to read.
const renderedDir = "../fixtures/rendered"

// fixtureFiles are the transcript fixtures of every tool with an adapter,
// each as a complete file: those the real tools wrote, and the hand-made
// ones too when handMade (several of those share a session id, which a run
// reads as one session).
func fixtureFiles(t testing.TB, handMade bool) []scribe.File {
	t.Helper()
	var out []scribe.File
	for _, a := range adapters.All() {
		dir := filepath.Join("..", "fixtures", string(a.Source()))
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() && name == "hand-made" && !handMade {
				return filepath.SkipDir
			}
			if d.IsDir() || strings.HasSuffix(name, ".ndjson") || strings.HasSuffix(name, ".meta.json") ||
				!(strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".json")) {
				return nil
			}
			ad := adapters.Resolve(a, p)
			if c, ok := ad.(interface{ Claims(string, []byte) bool }); ok {
				// A tool whose transcripts are not files of records
				// (OpenCode's): the files it tells are its own (an
				// export, a session), not the pieces read with them.
				head, err := os.ReadFile(p)
				if err != nil || !c.Claims(p, head) {
					return err
				}
			}
			out = append(out, scribe.File{Path: filepath.ToSlash(p), Adapter: ad, Final: true})
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if len(out) == 0 {
		t.Fatal("no fixtures")
	}
	return out
}

type env struct {
	vault *vault.Vault
	svc   *memories.Service
	state config.State
}

func newEnv(t testing.TB) *env {
	t.Helper()
	root := t.TempDir()
	v, err := vault.New(filepath.Join(root, "vault"), "cortex")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(store.Options{Vault: v, State: config.State{Home: filepath.Join(root, "state")}, LockTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return &env{vault: v, svc: memories.NewService(st), state: config.State{Home: filepath.Join(root, "state")}}
}

func (e *env) run(t *testing.T, files []scribe.File) *scribe.RunResult {
	t.Helper()
	r := &scribe.Runner{Pipeline: pipeline.New(pipeline.WithoutRedaction()), Service: e.svc, State: e.state}
	res, err := r.Run(context.Background(), files)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// snapshot reads every file of the cortex folder the pipeline writes.
func (e *env) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range []string{scribe.SessionsDir, scribe.DecisionsDir, scribe.EpisodesDir} {
		filepath.WalkDir(e.vault.Abs(dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(e.vault.Abs(""), p)
			out[filepath.ToSlash(rel)] = string(data)
			return nil
		})
	}
	data, err := os.ReadFile(e.vault.IndexPath())
	if err != nil {
		t.Fatal(err)
	}
	out[vault.IndexFile] = string(data)
	return out
}

// TestRenderedExample runs every fixture into a new vault and compares the
// notes with the committed example (go test ./scribe -run RenderedExample
// -update rewrites it); a second run, and a run without offsets, change
// nothing.
func TestRenderedExample(t *testing.T) {
	e := newEnv(t)
	files := fixtureFiles(t, false)
	res := e.run(t, files)
	if res.Mine == nil || res.Mine.Count(memories.MineCreated) == 0 {
		t.Fatalf("no notes created: %+v", res.Mine)
	}
	got := e.snapshot(t)
	golden.CheckDir(t, renderedDir, got)

	// Again, with the offsets: nothing is read.
	again := e.run(t, files)
	if len(again.Read) != 0 || again.Mine.Count(memories.MineCreated)+again.Mine.Count(memories.MineUpdated) != 0 {
		t.Fatalf("second run read %v, mine %+v", again.Read, again.Mine)
	}
	// Without them: everything is read, nothing is written.
	os.Remove(e.state.TranscriptOffsets(""))
	third := e.run(t, files)
	if len(third.Read) != len(files) {
		t.Fatalf("third run read %d files, want %d", len(third.Read), len(files))
	}
	for _, it := range third.Mine.Items {
		if it.Outcome != memories.MineUnchanged && it.Outcome != memories.MineDuplicate {
			t.Errorf("third run: %s %q %s", it.Type, it.Title, it.Outcome)
		}
	}
	if diff := cmp.Diff(got, e.snapshot(t)); diff != "" {
		t.Fatalf("a run over the same transcripts changed the vault (-before +after):\n%s", diff)
	}
}

// TestRenderDeterministic: the same nodes give the same notes.
func TestRenderDeterministic(t *testing.T) {
	var streams [][]transcript.Event
	for _, f := range fixtureFiles(t, true) {
		evs := transcripttest.ParseFile(t, f.Adapter, "", f.Path)
		streams = append(streams, evs)
	}
	events, _ := pipeline.Merge(streams...)
	p := pipeline.New(pipeline.WithoutRedaction())
	a := scribe.Render(p.Prepare(events), scribe.Sessions(events))
	b := scribe.Render(p.Prepare(events), scribe.Sessions(events))
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("two renders differ:\n%s", diff)
	}
	for _, note := range a {
		m := note.Memory
		n, err := vault.NewNote(m)
		if err != nil {
			t.Fatalf("%s: %v", m.Path, err)
		}
		data, _ := n.Bytes()
		back, err := vault.ParseNote(data)
		if err != nil {
			t.Fatalf("%s does not parse back: %v", m.Path, err)
		}
		if got := back.Memory(m.Path, time.Time{}); got.ID != m.ID || got.Type != m.Type || got.Project != m.Project {
			t.Errorf("%s reads back as %s %s %s", m.Path, got.ID, got.Type, got.Project)
		}
	}
}
