package wiring_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcripts"
	"github.com/cortexmem/cortex/wiring"
)

// settings resolves the settings of a new vault and state folder as the CLI
// would, with an empty environment.
func settings(t *testing.T) *config.Settings {
	t.Helper()
	dir := t.TempDir()
	vaultDir := filepath.Join(dir, "vault")
	if err := os.Mkdir(vaultDir, 0o700); err != nil {
		t.Fatal(err)
	}
	s, err := config.Resolve(config.Flags{Vault: vaultDir, Home: filepath.Join(dir, "state")}, func(string) string { return "" }, dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const (
	first  = "Deploys to the staging cluster go through the blue-green switch in the load balancer"
	second = "The nightly backup job writes to the cold storage bucket in the eu-west region"
)

// TestOpen: cortex opened here is the product: its notes in the vault's
// cortex folder, its audit log and access log where config.State says, the
// settings' checks refusing a duplicate, and recall recording accesses.
func TestOpen(t *testing.T) {
	s := settings(t)
	var warned []string
	c, err := wiring.Open(s, wiring.Options{Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.Vault.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("opening created cortex's folder in the vault: %v", err)
	}
	ctx := context.Background()
	res, err := c.Service.Save(ctx, memories.SaveRequest{Content: first, Project: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.Vault.Abs(res.Path)); err != nil {
		t.Errorf("the saved note is not in the vault: %v", err)
	}
	if c.Vault.Root != s.Vault || c.Vault.Dir != filepath.Join(s.Vault, s.VaultFolder) {
		t.Errorf("vault %s (folder %s), want the settings' %s/%s", c.Vault.Root, c.Vault.Dir, s.Vault, s.VaultFolder)
	}
	if _, err := c.Service.Save(ctx, memories.SaveRequest{Content: first, Project: "ops"}); !errors.Is(err, memories.ErrRejected) {
		t.Errorf("saving the same text again: %v, want a refusal (the settings' duplicate check)", err)
	}
	got, err := c.Service.Recall(ctx, memories.RecallRequest{Query: "blue-green switch"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Results) != 1 || got.Results[0].Memory.ID != res.ID {
		t.Fatalf("recall found %d memories, want %s", len(got.Results), res.ID)
	}
	st := s.State()
	for _, p := range []string{st.EventsFile(), st.AccessLog()} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if c.Access == nil {
		t.Error("no access log")
	}
	if len(warned) != 0 {
		t.Errorf("warnings: %q", warned)
	}
}

// TestNewService: a service made for a purpose (the benchmark's saves with
// checks off, the evaluation's baseline) is the product's, changed only by
// what it is given.
func TestNewService(t *testing.T) {
	s := settings(t)
	c, err := wiring.Open(s, wiring.Options{NoAccessLog: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Service.Save(ctx, memories.SaveRequest{Content: second}); err != nil {
		t.Fatal(err)
	}
	unchecked := c.NewService(memories.WithChecks(memories.Checks{}))
	if _, err := unchecked.Save(ctx, memories.SaveRequest{Content: second}); err != nil {
		t.Errorf("a service with the checks off refused a duplicate: %v", err)
	}
	if _, err := c.NewService().Save(ctx, memories.SaveRequest{Content: second}); !errors.Is(err, memories.ErrRejected) {
		t.Errorf("a service with nothing changed saved a duplicate: %v", err)
	}
	if _, err := c.Service.Recall(ctx, memories.RecallRequest{Query: "cold storage"}); err != nil {
		t.Fatal(err)
	}
	if c.Access != nil {
		t.Error("NoAccessLog, but an access log")
	}
	if _, err := os.Stat(s.State().AccessLog()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("NoAccessLog, but recall wrote the access log: %v", err)
	}
}

// TestOpenRefuses: settings cortex cannot open on are errors, not a store.
func TestOpenRefuses(t *testing.T) {
	s := settings(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	bad := *s
	bad.Home = file
	if _, err := wiring.Open(&bad, wiring.Options{}); !errors.Is(err, memories.ErrInvalid) {
		t.Errorf("a state folder that is a file: %v, want an invalid argument", err)
	}
	bad = *s
	bad.VaultFolder = "../outside"
	if _, err := wiring.Open(&bad, wiring.Options{}); !errors.Is(err, memories.ErrInvalid) {
		t.Errorf("a cortex folder outside the vault: %v, want an invalid argument", err)
	}
}

// TestTranscripts: the transcript index opened here lives where
// config.State says, needs no vault, and redacts with the config file's
// extra patterns as well as the credential rules.
func TestTranscripts(t *testing.T) {
	dir := t.TempDir()
	home, state := filepath.Join(dir, "home"), filepath.Join(dir, "state")
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("scribe:\n  redact:\n    - {name: ticket, pattern: 'TICKET-[0-9]+'}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := config.Resolve(config.Flags{Vault: filepath.Join(dir, "no-vault"), Home: state, Config: cfg}, func(string) string { return "" }, home)
	if err != nil {
		t.Fatal(err)
	}
	session := filepath.Join(home, ".claude", "projects", "-work-api", "0b7e3c1a-4f2d-4e8a-9c6b-1d2e3f4a5b6c.jsonl")
	if err := os.MkdirAll(filepath.Dir(session), 0o700); err != nil {
		t.Fatal(err)
	}
	const rec = `{"parentUuid":%s,"isSidechain":false,"type":%q,"message":{"role":%q,"content":%q},"uuid":%q,"timestamp":"2026-11-20T10:00:0%dZ","cwd":"/work/api","sessionId":"0b7e3c1a-4f2d-4e8a-9c6b-1d2e3f4a5b6c","version":"2.1.197"}` + "\n"
	lines := fmt.Sprintf(rec, "null", "user", "user", "Why does the flamingo importer fail on TICKET-4711?", "u1", 1) +
		fmt.Sprintf(rec, `"u1"`, "assistant", "assistant", "The flamingo importer reads a stale schema.", "a1", 2)
	if err := os.WriteFile(session, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(session, old, old); err != nil {
		t.Fatal(err)
	}
	ts := wiring.Transcripts(s, wiring.TranscriptOptions{Env: transcript.Env{Home: home, Getenv: func(string) string { return "" }}})
	if ts.Dir() != s.State().TranscriptIndexDir() {
		t.Errorf("index in %s, want %s", ts.Dir(), s.State().TranscriptIndexDir())
	}
	res, err := ts.Search(context.Background(), transcripts.Request{Query: "flamingo importer"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 {
		t.Fatalf("%d hits, want the one exchange: %+v", len(res.Hits), res)
	}
	if h := res.Hits[0]; strings.Contains(h.User, "TICKET-4711") || !strings.Contains(h.User, "[REDACTED:ticket]") {
		t.Errorf("the config's pattern is not applied: %q", h.User)
	}
	if _, err := os.Stat(s.State().TranscriptIndexDir()); err != nil {
		t.Errorf("no index where config.State says: %v", err)
	}
	if _, err := os.Stat(s.Vault); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the transcript index touched the vault: %v", err)
	}
}

// FollowVault says to other processes, through the store's heartbeat, that
// the index is current while its watcher says so: the heartbeat is there
// and keeps being touched while the watcher follows, and is gone once it
// stops.
func TestFollowVaultBeats(t *testing.T) {
	s := settings(t)
	c, err := wiring.Open(s, wiring.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Service.Save(context.Background(), memories.SaveRequest{Content: first, Project: "ops"}); err != nil {
		t.Fatal(err)
	}
	beat := filepath.Join(c.Store.Layout().Dir, "followed")
	ctx, cancel := context.WithCancel(context.Background())
	done := c.FollowVault(ctx, func(msg string) { t.Log(msg) })
	deadline := time.Now().Add(10 * time.Second)
	for !c.Store.IsFollowed() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !c.Store.IsFollowed() {
		t.Fatal("the watcher never followed the vault")
	}
	fi, err := os.Stat(beat)
	if err != nil {
		t.Fatalf("no heartbeat while followed: %v", err)
	}
	time.Sleep(600 * time.Millisecond)
	later, err := os.Stat(beat)
	if err != nil || !later.ModTime().After(fi.ModTime()) {
		t.Errorf("the heartbeat was not touched again in 600 ms: %v, %v then %v", err, fi.ModTime(), later.ModTime())
	}
	cancel()
	<-done
	if _, err := os.Stat(beat); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the heartbeat is still there after the watcher stopped: %v", err)
	}
}

// searches is a transcript search that records its requests and answers
// each with no hits from an index of docs documents.
type searches struct {
	docs uint64
	reqs []transcripts.Request
}

func (s *searches) Search(_ context.Context, r transcripts.Request) (*transcripts.Result, error) {
	s.reqs = append(s.reqs, r)
	return &transcripts.Result{Query: r.Query, Hits: []transcripts.Hit{}, Documents: s.docs}, nil
}

// TestExcerptsWidenOnlyAnIndexThatHoldsSome checks that a briefing's
// excerpts search every project when its own has none, unless the index
// holds no document at all, where that search could find nothing.
func TestExcerptsWidenOnlyAnIndexThatHoldsSome(t *testing.T) {
	for _, tc := range []struct {
		name    string
		docs    uint64
		project string
		want    []transcripts.Request
	}{
		{"empty index", 0, "api", []transcripts.Request{{Query: "q", Project: "api", Limit: 3}}},
		{"index with documents", 5, "api",
			[]transcripts.Request{{Query: "q", Project: "api", Limit: 3}, {Query: "q", Limit: 3, NoSync: true}}},
		{"no project", 5, "", []transcripts.Request{{Query: "q", Limit: 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &searches{docs: tc.docs}
			got, err := wiring.TranscriptExcerpts{Search: s}.Excerpts(context.Background(), "q", tc.project, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 0 {
				t.Errorf("excerpts %+v, want none", got)
			}
			if diff := cmp.Diff(tc.want, s.reqs); diff != "" {
				t.Errorf("searches (-want +got):\n%s", diff)
			}
		})
	}
}
