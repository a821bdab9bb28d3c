package vault

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cortexmem/cortex/internal/golden"
	"github.com/cortexmem/cortex/memories"
)

// fullMemory has every field NewNote writes.
func fullMemory() *memories.Memory {
	return &memories.Memory{
		ID:         "01hv4x8k2m3n4p5q6r7s8t9v0w",
		Title:      "Deploy: blue-green, always",
		Type:       memories.TypeDecision,
		Project:    "infra",
		Area:       "platform",
		Tags:       []string{"k8s", "deploy/blue-green"},
		Aliases:    []string{"Blue-green deploys", "BG"},
		Source:     memories.SourceMined,
		Status:     memories.StatusSuperseded,
		Importance: 4,
		// Not UTC: notes hold UTC times.
		Created:         time.Date(2024, 3, 5, 11, 20, 30, 0, time.FixedZone("CET", 3600)),
		Updated:         time.Date(2024, 3, 6, 9, 0, 0, 0, time.UTC),
		Due:             "2024-04-01",
		Related:         []string{"rollback-plan-01hv4x8k", "k8s notes"},
		Supersedes:      "01hv4x8k2m3n4p5q6r7s8t9v00",
		SupersededBy:    "01hv4x8k2m3n4p5q6r7s8t9v99",
		SupersededAt:    time.Date(2024, 3, 7, 0, 0, 0, 0, time.UTC),
		SupersedeReason: "Replaced: canary releases # see the new note",
		Provenance: memories.Provenance{
			EventIDs:      []string{"ev-1", "ev-2"},
			SourceSession: "session-42",
			SourceTool:    "claude-code",
			SourcePath:    "/home/ada/.claude/projects/x.jsonl",
			DerivedFrom:   "01hv4x8k2m3n4p5q6r7s8t9v00",
			SourceHash:    "8f2a1c9e0b7d4e6f5a3b2c1d",
		},
		Body: "\n\nWe deploy with blue-green.\n\n- so a bad release\n- switches back in seconds\n\n\n",
	}
}

func minimalMemory() *memories.Memory {
	return &memories.Memory{ID: "01hv4x8k2m3n4p5q6r7s8t9v0w", Title: "Just a title", Body: "Just a body."}
}

func TestNewNoteGolden(t *testing.T) {
	tests := []struct {
		name     string
		m        *memories.Memory
		wantKeys []string
	}{
		{name: "new-note-full", m: fullMemory(), wantKeys: canonicalKeys},
		{name: "new-note-minimal", m: minimalMemory(), wantKeys: []string{"id", "title"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := NewNote(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantKeys, n.Keys()); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			golden.Check(t, filepath.Join("testdata", "notes", tt.name+".golden"), mustBytes(t, n))
		})
	}
}

// TestNewNoteReadsBack: a note cortex writes reads back as the memory it was
// made from.
func TestNewNoteReadsBack(t *testing.T) {
	tests := []struct {
		name string
		m    *memories.Memory
	}{
		{name: "full", m: fullMemory()},
		{name: "minimal", m: &memories.Memory{
			ID: "01hv4x8k2m3n4p5q6r7s8t9v0w", Title: "Just a title", Type: memories.TypeNote, Project: "general",
			Source: memories.SourceUser, Status: memories.StatusActive, Importance: 3,
			Created: editTime, Updated: editTime, Body: "Just a body.",
		}},
		{name: "unicode", m: &memories.Memory{
			ID: "01hv4x8k2m3n4p5q6r7s8t9v0w", Title: "Café — 日本語のメモ 🚀", Type: memories.TypeFact, Project: "日本",
			Tags: []string{"naïve", "日本語"}, Source: memories.SourceUser, Status: memories.StatusOpen, Importance: 1,
			Created: editTime, Updated: editTime, Body: "Ünïcödé ✓",
		}},
		{name: "saved through MCP", m: &memories.Memory{
			ID: "01hv4x8k2m3n4p5q6r7s8t9v0w", Title: "Pool size", Type: memories.TypeFact, Project: "api",
			Source: memories.SourceMCP, Status: memories.StatusActive, Importance: 3,
			Created: editTime, Updated: editTime, Body: "The pool is 20.",
			Provenance: memories.Provenance{Client: "claude-code 2.1.3", DerivedFrom: "01hv4x8k2m3n4p5q6r7s8t9v00"},
		}},
		{name: "strings that look like other types", m: &memories.Memory{
			ID: "01hv4x8k2m3n4p5q6r7s8t9v0w", Title: "true", Type: memories.TypeNote, Project: "007",
			Area: "null", Tags: []string{"yes", "no"}, Source: memories.SourceUser, Status: memories.StatusActive,
			Importance: 5, Created: editTime, Updated: editTime, Related: []string{"1.5"}, Body: "---\nnot: properties\n---",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := NewNote(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			const rel = "memories/infra/note.md"
			got := mustParse(t, mustBytes(t, n)).Memory(rel, editTime.Add(-time.Hour))
			want := *tt.m
			want.Path = rel
			want.Body = "\n" + strings.TrimRight(tt.m.Body, "\n") + "\n"
			if diff := cmp.Diff(&want, got); diff != "" {
				t.Errorf("memory read back (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyUnknownKey(t *testing.T) {
	n := mustParse(t, []byte("---\ntitle: a\n---\n"))
	err := n.Apply(&memories.Memory{Title: "b"}, "title", "colour")
	if err == nil || !strings.Contains(err.Error(), `"colour"`) {
		t.Errorf("Apply with an unknown key: got %v, want an error naming it", err)
	}
}

// mtime is the file time the leniency tests pass to Memory; its nanoseconds
// are dropped.
var mtime = time.Date(2024, 7, 1, 8, 30, 15, 123456789, time.UTC)

var mtimeSec = mtime.Truncate(time.Second)

// memoryOf reads a note made of frontmatter lines and a body.
func memoryOf(t *testing.T, rel, body string, props ...string) *memories.Memory {
	t.Helper()
	text := body
	if props != nil {
		text = "---\n" + strings.Join(props, "\n") + "\n---\n" + body
	}
	return mustParse(t, []byte(text)).Memory(rel, mtime)
}

const rel = "memories/infra/a-note.md"

func TestMemoryDefaults(t *testing.T) {
	got := memoryOf(t, "notes/a-note.md", "Just text.\n")
	want := &memories.Memory{
		ID: memories.DerivedID("notes/a-note.md"), Title: "a-note", Type: memories.TypeNote,
		Project: memories.DefaultProject, Source: memories.SourceUser, Status: memories.StatusActive,
		Importance: memories.DefaultImportance, Created: mtimeSec, Updated: mtimeSec,
		Body: "Just text.\n", Path: "notes/a-note.md",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestMemoryTags(t *testing.T) {
	tests := []struct {
		prop string
		want []string
	}{
		{prop: "tags: [go, testing]", want: []string{"go", "testing"}},
		{prop: "tags:\n  - go\n  - testing", want: []string{"go", "testing"}},
		{prop: "tags: go, testing,tools", want: []string{"go", "testing", "tools"}},
		{prop: "tags: go testing", want: []string{"go", "testing"}},
		{prop: "tags: '#go #testing'", want: []string{"go", "testing"}},
		{prop: "tags: ['#go', '#area/sub']", want: []string{"go", "area/sub"}},
		{prop: "tags: [Go, GO, go]", want: []string{"go"}},
		{prop: "tags: [ok, bad!, '123', 'a, b']", want: []string{"ok", "a", "b"}},
		{prop: "tags: [[nested], ok, {a: b}, ~]", want: []string{"ok"}},
		{prop: "tags: naïve", want: []string{"naïve"}},
		{prop: "tags: {a: b}"},
		{prop: "tags:"},
		{prop: "tags: ''"},
		{prop: "tags: []"},
		{prop: "title: no tags"},
	}
	for _, tt := range tests {
		t.Run(tt.prop, func(t *testing.T) {
			got := memoryOf(t, rel, "", tt.prop).Tags
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestMemoryImportance(t *testing.T) {
	tests := []struct {
		prop string
		want int
	}{
		{prop: "importance: 1", want: 1},
		{prop: "importance: 5", want: 5},
		{prop: "importance: '4'", want: 4},
		{prop: "importance: ' 2 '", want: 2},
		{prop: "importance: 0", want: 3},
		{prop: "importance: 6", want: 3},
		{prop: "importance: -1", want: 3},
		{prop: "importance: 4.5", want: 3},
		{prop: "importance: high", want: 3},
		{prop: "importance: [4]", want: 3},
		{prop: "importance:", want: 3},
		{prop: "title: none", want: 3},
	}
	for _, tt := range tests {
		t.Run(tt.prop, func(t *testing.T) {
			if got := memoryOf(t, rel, "", tt.prop).Importance; got != tt.want {
				t.Errorf("Importance = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestMemoryDates(t *testing.T) {
	at := func(s string) time.Time {
		t.Helper()
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name         string
		props        []string
		wantCreated  time.Time
		wantUpdated  time.Time
		wantSuperAt  time.Time
		wantLocation bool // false: times must be in UTC
	}{
		{name: "rfc3339", props: []string{"created: 2024-03-05T10:20:30Z"}, wantCreated: at("2024-03-05T10:20:30Z"), wantUpdated: mtimeSec},
		{name: "offset", props: []string{"created: 2024-03-05T10:20:30+02:00"}, wantCreated: at("2024-03-05T08:20:30Z"), wantUpdated: mtimeSec},
		{name: "fraction", props: []string{"created: 2024-03-05T10:20:30.5Z"}, wantCreated: at("2024-03-05T10:20:30.5Z"), wantUpdated: mtimeSec},
		{name: "no zone", props: []string{"created: 2024-03-05T10:20:30"}, wantCreated: at("2024-03-05T10:20:30Z"), wantUpdated: mtimeSec},
		{name: "space", props: []string{"created: 2024-03-05 10:20:30"}, wantCreated: at("2024-03-05T10:20:30Z"), wantUpdated: mtimeSec},
		{name: "minutes", props: []string{"created: 2024-03-05T10:20"}, wantCreated: at("2024-03-05T10:20:00Z"), wantUpdated: mtimeSec},
		{name: "minutes with space", props: []string{"created: 2024-03-05 10:20"}, wantCreated: at("2024-03-05T10:20:00Z"), wantUpdated: mtimeSec},
		{name: "date", props: []string{"created: 2024-03-05"}, wantCreated: at("2024-03-05T00:00:00Z"), wantUpdated: mtimeSec},
		{name: "quoted date", props: []string{"created: '2024-03-05'"}, wantCreated: at("2024-03-05T00:00:00Z"), wantUpdated: mtimeSec},
		{name: "not a date", props: []string{"created: last tuesday"}, wantCreated: mtimeSec, wantUpdated: mtimeSec},
		{name: "a list", props: []string{"created: [2024-03-05]"}, wantCreated: mtimeSec, wantUpdated: mtimeSec},
		{name: "date property", props: []string{"date: 2024-01-02"}, wantCreated: at("2024-01-02T00:00:00Z"), wantUpdated: mtimeSec},
		{name: "created wins over date", props: []string{"date: 2024-01-02", "created: 2024-01-03"}, wantCreated: at("2024-01-03T00:00:00Z"), wantUpdated: mtimeSec},
		{name: "both", props: []string{"created: 2024-03-05T10:20:30Z", "updated: 2024-03-06T10:20:30Z"}, wantCreated: at("2024-03-05T10:20:30Z"), wantUpdated: at("2024-03-06T10:20:30Z")},
		{name: "updated unreadable", props: []string{"created: 2024-03-05T10:20:30Z", "updated: soon"}, wantCreated: at("2024-03-05T10:20:30Z"), wantUpdated: mtimeSec},
		{name: "created after the file time", props: []string{"created: 2030-01-01T00:00:00Z"}, wantCreated: at("2030-01-01T00:00:00Z"), wantUpdated: at("2030-01-01T00:00:00Z")},
		{name: "none", props: []string{"title: t"}, wantCreated: mtimeSec, wantUpdated: mtimeSec},
		{name: "superseded at", props: []string{"created: 2024-03-05", "superseded_at: 2024-03-07 08:00"}, wantCreated: at("2024-03-05T00:00:00Z"), wantUpdated: mtimeSec, wantSuperAt: at("2024-03-07T08:00:00Z")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := memoryOf(t, rel, "", tt.props...)
			got := []time.Time{m.Created, m.Updated, m.SupersededAt}
			want := []time.Time{tt.wantCreated, tt.wantUpdated, tt.wantSuperAt}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("created, updated, superseded_at (-want +got):\n%s", diff)
			}
			for _, tm := range got {
				if tm.Location() != time.UTC {
					t.Errorf("%v is not in UTC", tm)
				}
			}
		})
	}
}

func TestMemoryTitle(t *testing.T) {
	tests := []struct {
		name  string
		props []string
		body  string
		want  string
	}{
		{name: "property", props: []string{"title: The title"}, body: "# Heading\n", want: "The title"},
		{name: "spaces trimmed", props: []string{"title: '  padded  '"}, want: "padded"},
		{name: "first line of a block", props: []string{"title: |\n  first\n  second"}, want: "first"},
		{name: "number", props: []string{"title: 42"}, want: "42"},
		{name: "heading", props: []string{"tags: [a]"}, body: "Intro\n\n# The heading\n\n# Another\n", want: "The heading"},
		{name: "heading without frontmatter", body: "# Plain heading\r\nText\r\n", want: "Plain heading"},
		{name: "level two is not a title", props: []string{"tags: [a]"}, body: "## Sub\n# Main\n", want: "Main"},
		{name: "empty heading skipped", props: []string{"tags: [a]"}, body: "#   \n# Real\n", want: "Real"},
		{name: "hash without space", body: "#hashtag\n", want: "a-note"},
		{name: "null title", props: []string{"title: ~"}, body: "# From heading\n", want: "From heading"},
		{name: "empty title", props: []string{"title: ''"}, body: "# From heading\n", want: "From heading"},
		{name: "list title", props: []string{"title: [a, b]"}, want: "a-note"},
		{name: "file name", body: "no heading\n", want: "a-note"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := memoryOf(t, rel, tt.body, tt.props...).Title; got != tt.want {
				t.Errorf("Title = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMemoryScope(t *testing.T) {
	tests := []struct {
		name        string
		rel         string
		props       []string
		wantProject string
		wantArea    string
	}{
		{name: "property", rel: rel, props: []string{"project: Web"}, wantProject: "web"},
		{name: "spaces", rel: rel, props: []string{"project: My Project", "area: Platform Team"}, wantProject: "my-project", wantArea: "platform-team"},
		{name: "invalid property falls back to the path", rel: rel, props: []string{"project: a/b", "area: '#x'"}, wantProject: "infra"},
		{name: "from the path", rel: "memories/web/x.md", props: []string{"title: t"}, wantProject: "web"},
		{name: "from a deep path", rel: "memories/web/deep/x.md", props: []string{"title: t"}, wantProject: "web"},
		{name: "path folder normalised", rel: "memories/Web App/x.md", props: []string{"title: t"}, wantProject: "web-app"},
		{name: "invalid path folder", rel: "memories/.hidden/x.md", props: []string{"title: t"}, wantProject: "general"},
		{name: "directly under memories", rel: "memories/x.md", props: []string{"title: t"}, wantProject: "general"},
		{name: "outside memories", rel: "notes/web/x.md", props: []string{"title: t"}, wantProject: "general"},
		{name: "a list", rel: "notes/x.md", props: []string{"project: [a]"}, wantProject: "general"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := memoryOf(t, tt.rel, "", tt.props...)
			if m.Project != tt.wantProject || m.Area != tt.wantArea {
				t.Errorf("project, area = %q, %q; want %q, %q", m.Project, m.Area, tt.wantProject, tt.wantArea)
			}
		})
	}
}

func TestMemoryRelated(t *testing.T) {
	tests := []struct {
		prop string
		want []string
	}{
		{prop: `related: ["[[a|b]]", "[[c#heading]]", "[[ d ]]", "plain", "", "[[]]", "[[e#h|alias]]"]`, want: []string{"a", "c", "d", "plain", "e"}},
		{prop: `related: "[[single]]"`, want: []string{"single"}},
		{prop: "related:\n  - \"[[one]]\"\n  - \"[[two]]\"", want: []string{"one", "two"}},
		{prop: "related: {a: b}"},
		{prop: "related:"},
	}
	for _, tt := range tests {
		t.Run(tt.prop, func(t *testing.T) {
			got := memoryOf(t, rel, "", tt.prop).Related
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestMemoryProvenance(t *testing.T) {
	tests := []struct {
		name string
		prop string
		want memories.Provenance
	}{
		{
			name: "full",
			prop: "provenance:\n  event_ids: [e1, e2]\n  source_session: s1\n  source_tool: codex\n  source_path: /tmp/x.jsonl\n  derived_from: 01abc\n  extra: kept out",
			want: memories.Provenance{EventIDs: []string{"e1", "e2"}, SourceSession: "s1", SourceTool: "codex", SourcePath: "/tmp/x.jsonl", DerivedFrom: "01abc"},
		},
		{name: "one event id", prop: "provenance:\n  event_ids: e1", want: memories.Provenance{EventIDs: []string{"e1"}}},
		{name: "odd shapes", prop: "provenance:\n  event_ids: {a: b}\n  source_tool: [x]\n  source_session: ~", want: memories.Provenance{}},
		{name: "not a map", prop: "provenance: from a chat", want: memories.Provenance{}},
		{name: "a list", prop: "provenance: [a, b]", want: memories.Provenance{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := memoryOf(t, rel, "", tt.prop).Provenance
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestMemoryFields(t *testing.T) {
	got := memoryOf(t, rel, "Body.\n",
		"id: ' 01HV4X8K2M3N4P5Q6R7S8T9V0W '",
		"title: Ship it",
		"type: Decision",
		"source: MINED",
		"status: ' Open '",
		"due: 2024-05-01",
		"supersedes: ' 01HV4X8K2M3N4P5Q6R7S8T9V00 '",
		"superseded_by: 01hv4x8k2m3n4p5q6r7s8t9v99",
		"supersede_reason: '  better idea  '",
		"created: 2024-03-05T10:20:30Z",
		"updated: 2024-03-05T10:20:30Z",
	)
	created := time.Date(2024, 3, 5, 10, 20, 30, 0, time.UTC)
	want := &memories.Memory{
		ID: "01hv4x8k2m3n4p5q6r7s8t9v0w", Title: "Ship it", Type: memories.TypeDecision, Project: "infra",
		Source: memories.SourceMined, Status: memories.StatusOpen, Importance: 3, Created: created, Updated: created,
		Due: "2024-05-01", Supersedes: "01hv4x8k2m3n4p5q6r7s8t9v00", SupersededBy: "01hv4x8k2m3n4p5q6r7s8t9v99",
		SupersedeReason: "better idea", Body: "Body.\n", Path: rel,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestNoteID(t *testing.T) {
	tests := []struct {
		prop string
		want string
	}{
		{prop: "id: 01hv4x8k2m3n4p5q6r7s8t9v0w", want: "01hv4x8k2m3n4p5q6r7s8t9v0w"},
		{prop: "id: 01HV4X8K2M3N4P5Q6R7S8T9V0W", want: "01hv4x8k2m3n4p5q6r7s8t9v0w"},
		{prop: "id: '  spaced  '", want: "spaced"},
		{prop: "id: my-note_1", want: "my-note_1"},
		{prop: "id: 12345", want: "12345"},
		{prop: "id: " + strings.Repeat("a", 64), want: strings.Repeat("a", 64)},
		{prop: "id: " + strings.Repeat("a", 65)},
		{prop: "id: has space"},
		{prop: "id: a/b"},
		{prop: "id: café"},
		{prop: "id: [a]"},
		{prop: "id: ~"},
		{prop: "id: ''"},
		{prop: "title: no id"},
	}
	for _, tt := range tests {
		t.Run(tt.prop, func(t *testing.T) {
			n := mustParse(t, []byte("---\n"+tt.prop+"\n---\n"))
			if got := n.ID(); got != tt.want {
				t.Errorf("ID() = %q, want %q", got, tt.want)
			}
			wantMem := tt.want
			if wantMem == "" {
				wantMem = memories.DerivedID(rel)
			}
			if got := n.Memory(rel, mtime).ID; got != wantMem {
				t.Errorf("Memory().ID = %q, want %q", got, wantMem)
			}
		})
	}
}

// TestFields checks the properties cortex writes beyond the standard ones:
// before provenance, links double-quoted, lists and scalars, updated in
// place by Apply, and standard or repeated keys refused.
func TestFields(t *testing.T) {
	m := &memories.Memory{
		ID: "01jd0000000000000000000000", Title: "Use bleve", Type: memories.TypeDecision, Project: "cortex",
		Source: memories.SourceMined, Provenance: memories.Provenance{DerivedFrom: "dec-1"},
		Fields: []memories.Field{
			{Key: "session", Value: "[[2026-01-02-demo-01jd0000]]"},
			{Key: "produced", List: []string{"[[ep-a]]", "[[ep-b]]"}},
			{Key: "chosen", List: []string{"bleve"}},
			{Key: "tool", Value: "claude-code"},
		},
		Body: "Body.",
	}
	n, err := NewNote(m)
	if err != nil {
		t.Fatal(err)
	}
	data, err := n.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	want := `---
id: 01jd0000000000000000000000
title: Use bleve
type: decision
project: cortex
source: mined
session: "[[2026-01-02-demo-01jd0000]]"
produced:
  - "[[ep-a]]"
  - "[[ep-b]]"
chosen:
  - bleve
tool: claude-code
provenance:
  derived_from: dec-1
---

Body.
`
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Fatalf("note (-want +got):\n%s", diff)
	}
	// A person's key survives Apply of a field, which changes in place.
	n2, err := ParseNote([]byte(strings.Replace(want, "tool: claude-code\n", "tool: claude-code\nmine: kept\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	m.Fields[1].List = []string{"[[ep-a]]"}
	if err := n2.Apply(m, "produced"); err != nil {
		t.Fatal(err)
	}
	n2.SetBody("New body.\n\n")
	data, _ = n2.Bytes()
	if !strings.Contains(string(data), "produced:\n  - \"[[ep-a]]\"\nchosen:") || !strings.Contains(string(data), "mine: kept\n") ||
		!strings.HasSuffix(string(data), "---\n\nNew body.\n") {
		t.Fatalf("after Apply:\n%s", data)
	}
	for _, bad := range [][]memories.Field{{{Key: "title", Value: "x"}}, {{Key: ""}}, {{Key: "a", Value: "1"}, {Key: "a", Value: "2"}}} {
		if _, err := NewNote(&memories.Memory{ID: "x", Title: "t", Fields: bad}); err == nil {
			t.Errorf("fields %v: no error", bad)
		}
	}
}

// TestTimeOfMissingAllocatesNothing: a date a note does not have costs no
// failed parse (each made an error value).
func TestTimeOfMissingAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	if got := timeOf(""); !got.IsZero() {
		t.Fatalf("timeOf(\"\") = %v, want the zero time", got)
	}
	if a := testing.AllocsPerRun(100, func() { _ = timeOf("") }); a != 0 {
		t.Errorf("timeOf(\"\") made %.0f allocations, want none", a)
	}
	for _, s := range []string{"2026-05-28T13:48:31Z", "2026-05-28", "2026-05-28 13:48"} {
		if timeOf(s).IsZero() {
			t.Errorf("timeOf(%q) is zero", s)
		}
	}
}
