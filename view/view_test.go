package view

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

func abs(rel string) string { return "/vault/cortex/" + rel }

// nulls lists where v, decoded JSON, holds a null.
func nulls(at string, v any) []string {
	switch v := v.(type) {
	case nil:
		return []string{at}
	case map[string]any:
		var out []string
		for k, x := range v {
			out = append(out, nulls(at+"/"+k, x)...)
		}
		return out
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, nulls(at+"/[]", x)...)
		}
		return out
	}
	return nil
}

// TestNoNulls: a view of empty or sparse results prints no null, which the MCP
// output schemas (one type per value) promise.
func TestNoNulls(t *testing.T) {
	bare := &memories.Memory{ID: "01e2x3kq4z7y8w9v0t1s2r3p4n", Title: "t", Path: "memories/a.md"}
	for name, v := range map[string]any{
		"recall, empty":   RecallOf(&memories.RecallResult{Query: "q"}, true, abs),
		"recall, sparse":  RecallOf(&memories.RecallResult{Results: []memories.Recalled{{Memory: bare, ShortID: "01e2x3kq"}}}, false, abs),
		"list, empty":     ListOf(&memories.ListResult{}, abs),
		"list, sparse":    ListOf(&memories.ListResult{Total: 1, Items: []memories.ListItem{{Entry: &memories.Entry{ID: bare.ID}}}}, abs),
		"import, empty":   ImportOf(&memories.ImportResult{}, abs),
		"save":            SaveOf(&memories.SaveResult{}, abs),
		"supersede, bare": SupersedeOf(&memories.SupersedeResult{}, abs),
	} {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var decoded any
		if err := json.Unmarshal(data, &decoded); err != nil {
			t.Fatal(err)
		}
		if n := nulls("", decoded); len(n) > 0 {
			t.Errorf("%s: null at %s: %s", name, strings.Join(n, ", "), data)
		}
	}
}

func TestRecallOf(t *testing.T) {
	day := time.Date(2020, 3, 1, 9, 0, 0, 0, time.UTC)
	found := &memories.Memory{ID: "01e2x3kq4z7y8w9v0t1s2r3p4n", Title: "JWT signing", Type: memories.TypeDecision, Project: "web",
		Tags: []string{"jwt"}, Source: memories.SourceUser, Status: memories.StatusActive, Importance: 5,
		Created: day, Updated: day, Path: "memories/web/jwt.md", Supersedes: "01e2x3m5a6b7c8d9e0f1g2h3j4", Body: "\nUse RS256.\n"}
	linked := &memories.Memory{ID: "01e2x3p7q8r9s0t1v2w3x4y5z6", Title: "Keys", Type: memories.TypeNote, Project: "web",
		Source: memories.SourceMCP, Status: memories.StatusActive, Importance: 3, Created: day, Updated: day, Path: "memories/web/keys.md", Body: "Rotate."}
	w := memories.Weights{Relevance: 0.5, Recency: 0.15, Activation: 0.15, Importance: 0.2}
	res := &memories.RecallResult{Query: "jwt", Project: "web", Results: []memories.Recalled{
		{Memory: found, ShortID: "01e2x3kq", Score: 0.7000004, Signals: memories.Signals{Relevance: 1, Recency: 1e-9, Importance: 1}, Weights: w},
		{Memory: linked, ShortID: "01e2x3p7", Score: 1.0 / 3, Signals: memories.Signals{Importance: 0.6}, Weights: w, Related: true, Via: found.ID},
	}}
	got := RecallOf(res, true, abs)
	want := Recall{Query: "jwt", Project: "web", Count: 2, Results: []Recalled{
		{Memory: Memory{ID: found.ID, ShortID: "01e2x3kq", Title: "JWT signing", Type: "decision", Project: "web", Tags: []string{"jwt"},
			Source: "user", Status: "active", Importance: 5, Created: day, Updated: day, Path: "/vault/cortex/memories/web/jwt.md",
			Supersedes: "01e2x3m5a6b7c8d9e0f1g2h3j4"},
			Content: "Use RS256.", Score: 0.7,
			Explain: &Explain{Relevance: Term{1, 0.5, 0.5}, Recency: Term{0, 0.15, 0}, Activation: Term{0, 0.15, 0}, Importance: Term{1, 0.2, 0.2}, Score: 0.7}},
		{Memory: Memory{ID: linked.ID, ShortID: "01e2x3p7", Title: "Keys", Type: "note", Project: "web", Tags: []string{},
			Source: "mcp", Status: "active", Importance: 3, Created: day, Updated: day, Path: "/vault/cortex/memories/web/keys.md"},
			Content: "Rotate.", Score: 0.333333, Related: true, Via: "01e2x3kq",
			Explain: &Explain{Relevance: Term{0, 0.5, 0}, Recency: Term{0, 0.15, 0}, Activation: Term{0, 0.15, 0}, Importance: Term{0.6, 0.2, 0.12}, Score: 0.333333}},
	}}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("explained (-got +want):\n%s", diff)
	}
	if got := RecallOf(res, false, abs); got.Results[0].Explain != nil || got.Results[1].Explain != nil {
		t.Errorf("an explanation nobody asked for: %+v", got.Results[0].Explain)
	}
	if got, want := got.Results[0].Explain.String(), "relevance 1.00×0.50 + recency 0.00×0.15 + activation 0.00×0.15 + importance 1.00×0.20 = 0.700"; got != want {
		t.Errorf("explain line:\n got %s\nwant %s", got, want)
	}
	empty := RecallOf(&memories.RecallResult{Query: "zebra"}, false, abs)
	if diff := cmp.Diff(empty, Recall{Query: "zebra", Results: []Recalled{}, Message: "No memories found for: zebra"}); diff != "" {
		t.Errorf("nothing found (-got +want):\n%s", diff)
	}
}

func TestImportOf(t *testing.T) {
	res := &memories.ImportResult{Path: "/home/me/notes", DryRun: false, Files: 2, Candidates: 3, Imported: 1, Duplicates: 1, Skipped: 1,
		Memories: []memories.ImportedMemory{{ID: "01e2x3kq4z7y8w9v0t1s2r3p4n", ShortID: "01e2x3kq", Title: "A", Project: "p", Path: "memories/p/a.md", Source: "/home/me/notes/a.md#A"}},
		Rejected: []memories.ImportRejection{{Source: "/home/me/notes/a.md#B", Title: "B", Reason: "already imported", Kind: "duplicate", Existing: "01e2x3m5a6b7c8d9e0f1g2h3j4"}},
		Skips:    []memories.ImportSkip{{Source: "/home/me/notes/x.png", Reason: "an attachment"}},
	}
	dry := &memories.ImportResult{Path: "/home/me/notes", DryRun: true, Candidates: 1, Imported: 1,
		Memories: []memories.ImportedMemory{{Title: "A", Project: "p", Source: "/home/me/notes/a.md#A"}}}
	for _, tt := range []struct {
		name string
		in   *memories.ImportResult
		want Import
	}{
		{"import", res, Import{Path: "/home/me/notes", Files: 2, Candidates: 3, Imported: 1, Duplicates: 1, Skipped: 1,
			Memories: []Imported{{ID: "01e2x3kq4z7y8w9v0t1s2r3p4n", ShortID: "01e2x3kq", Title: "A", Project: "p", Path: "/vault/cortex/memories/p/a.md", Source: "/home/me/notes/a.md#A"}},
			Rejected: []Rejection{{Source: "/home/me/notes/a.md#B", Title: "B", Reason: "already imported", Kind: "duplicate", Existing: "01e2x3m5a6b7c8d9e0f1g2h3j4"}},
			Skips:    []Skip{{Source: "/home/me/notes/x.png", Reason: "an attachment"}},
			Message:  "Imported 1 memories from 3 candidates (rejected 1 duplicates, 0 unsafe, 1 skipped)"}},
		// A dry run writes no note: no path to make absolute.
		{"dry run", dry, Import{Path: "/home/me/notes", DryRun: true, Candidates: 1, Imported: 1,
			Memories: []Imported{{Title: "A", Project: "p", Source: "/home/me/notes/a.md#A"}}, Rejected: []Rejection{}, Skips: []Skip{},
			Message: "Would import 1 memories from 1 candidates (rejected 0 duplicates, 0 unsafe, 0 skipped)"}},
	} {
		if diff := cmp.Diff(ImportOf(tt.in, abs), tt.want); diff != "" {
			t.Errorf("%s (-got +want):\n%s", tt.name, diff)
		}
	}
}

func TestSupersedeOf(t *testing.T) {
	res := &memories.SupersedeResult{OldID: "01e2x3kq4z7y8w9v0t1s2r3p4n", OldShortID: "01e2x3kq", OldTitle: "Old", Status: memories.StatusSuperseded,
		New: &memories.SaveResult{ID: "01e2x3m5a6b7c8d9e0f1g2h3j4", ShortID: "01e2x3m5", Title: "New", Project: "web", Path: "memories/web/new.md"}}
	want := Supersede{OldID: res.OldID, OldShortID: "01e2x3kq", OldTitle: "Old", Status: "superseded",
		New:     &Written{ID: "01e2x3m5a6b7c8d9e0f1g2h3j4", ShortID: "01e2x3m5", Title: "New", Project: "web", Path: "/vault/cortex/memories/web/new.md"},
		Message: "Memory superseded: 01e2x3kq 'Old' → 01e2x3m5 'New'"}
	if diff := cmp.Diff(SupersedeOf(res, abs), want); diff != "" {
		t.Errorf("(-got +want):\n%s", diff)
	}
}

func TestRound(t *testing.T) {
	for _, tt := range []struct{ in, want float64 }{
		{0.7699998423238417, 0.77}, {0.12345651, 0.123457}, {1e-7, 0}, {1, 1}, {0, 0},
	} {
		if got := Round(tt.in); got != tt.want {
			t.Errorf("Round(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
