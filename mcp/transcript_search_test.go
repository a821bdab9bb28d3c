package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/internal/golden"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcripts"
)

// newTranscriptEnv is a server with transcript_search over a home holding a
// Claude Code session and a Codex one, each asking the same question.
func newTranscriptEnv(t *testing.T) *env {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	for src, dst := range map[string]string{
		"claude-code/hand-made/rewind_fork.jsonl": ".claude/projects/-home-dev-work-demo-project/5c1e0a4e-7d2b-4f61-9a83-2f0d6b7c1e01.jsonl",
		"codex/0.169.0/a_qa.jsonl":                ".codex/sessions/2026/11/22/rollout-2026-11-22T04-00-00-019a6b21-3c4d-7e5f-8a9b-0c1d2e3f4a5b.jsonl",
		"claude-code/2.1.197/a_qa.jsonl":          ".claude/projects/-home-dev-work-demo-project/a3c08cfe-0000-4000-8000-000000000001.jsonl",
	} {
		data, err := os.ReadFile(filepath.Join("..", "fixtures", src))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(home, dst)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ts := transcripts.New(transcripts.Options{
		Dir:       filepath.Join(root, "state", "transcripts", "index"),
		Selection: scribe.Selection{All: true, Env: transcript.Env{Home: home, Getenv: func(string) string { return "" }}},
		Now:       func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) },
	})
	srv := newServer(t, root, Options{Version: "test", Transcripts: ts})
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return &env{t: t, root: root, session: cs}
}

// TestTranscriptSearch lists the tool, read-only, and calls it on its
// success and error paths.
func TestTranscriptSearch(t *testing.T) {
	e := newTranscriptEnv(t)
	g := golden.NewArchive(t, filepath.Join("testdata", "transcript_search.txtar"))
	tools, err := e.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var found *mcp.Tool
	for _, tool := range tools.Tools {
		if tool.Name == "transcript_search" {
			found = tool
		}
	}
	if found == nil {
		t.Fatal("transcript_search is not listed")
	}
	if a := found.Annotations; a == nil || !a.ReadOnlyHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
		t.Errorf("annotations %+v: want read-only and closed-world", found.Annotations)
	}
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"search", map[string]any{"query": "capital of France"}},
		{"one tool", map[string]any{"query": "capital of France", "tool": "codex"}},
		{"every exchange of a session, rewinds marked", map[string]any{"query": "SQLite cache Redis", "session": "5c1e0a4e", "all_exchanges": true, "limit": 3}},
		{"since", map[string]any{"query": "capital of France", "since": "2026-11-22"}},
		{"nothing", map[string]any{"query": "kubernetes ingress"}},
		{"no query", map[string]any{}},
		{"limit too high", map[string]any{"query": "cache", "limit": 21}},
		{"unknown tool", map[string]any{"query": "cache", "tool": "emacs"}},
		{"bad since", map[string]any{"query": "cache", "since": "last tuesday"}},
	} {
		g.Check(c.name, e.call("transcript_search", c.args))
	}
}

// TestNoTranscriptSearchWithoutIndex: a server given no transcript index
// does not offer the tool.
func TestNoTranscriptSearchWithoutIndex(t *testing.T) {
	e := newEnv(t)
	tools, err := e.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "transcript_search" {
			t.Error("transcript_search offered without a transcript index")
		}
	}
}

// TestTranscriptSearchSchemasPortable holds transcript_search's schemas to
// the portability rules the other tools' are held to (TestSchemasPortable
// runs on a server without a transcript index, which lacks the tool).
func TestTranscriptSearchSchemasPortable(t *testing.T) {
	e := newTranscriptEnv(t)
	res, err := e.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tool := range res.Tools {
		if tool.Name != "transcript_search" {
			continue
		}
		for _, side := range []struct {
			name   string
			schema any
		}{{"inputSchema", tool.InputSchema}, {"outputSchema", tool.OutputSchema}} {
			if side.schema == nil {
				t.Errorf("no %s", side.name)
				continue
			}
			var v any
			if err := json.Unmarshal([]byte(jsonOf(side.schema)), &v); err != nil {
				t.Fatal(err)
			}
			if found := portability(v); len(found) > 0 {
				t.Errorf("%s:\n  %s", side.name, strings.Join(found, "\n  "))
			}
			checked++
		}
	}
	if checked != 2 {
		t.Fatalf("checked %d schemas of transcript_search, want 2", checked)
	}
}
