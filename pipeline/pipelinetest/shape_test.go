package pipelinetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/transcript"
)

// nodes is a small stream as Prepare makes it: a rewound decision and its
// edit, a standing decision with two edits (one a subagent's, on Windows).
func nodes() []pipeline.Node {
	return []pipeline.Node{
		{Kind: pipeline.KindConversation, ID: "conv-1", Superseded: pipeline.SupersededRewind, Conversation: &pipeline.Conversation{
			EventID: "u1", Turns: []pipeline.Turn{{Role: "user", Text: "Use MySQL."}, {Role: "assistant", Text: "OK."}},
		}},
		{Kind: pipeline.KindConversation, ID: "conv-2", Compacted: true, Conversation: &pipeline.Conversation{
			EventID: "u2", Turns: []pipeline.Turn{{Role: "user", Text: "Use Postgres."}},
		}},
		{Kind: pipeline.KindDecision, ID: "dec-1", Superseded: pipeline.SupersededRewind, Decision: &pipeline.Decision{
			Epitome: "Use MySQL.", Chosen: []string{"MySQL"}, Categories: []pipeline.Category{pipeline.CategoryDecision},
		}},
		{Kind: pipeline.KindDecision, ID: "dec-2", Compacted: true, Decision: &pipeline.Decision{
			Epitome: "Use Postgres.", Chosen: []string{"Postgres"}, Categories: []pipeline.Category{pipeline.CategoryDecision},
		}},
		{Kind: pipeline.KindEpisode, ID: "ep-1", Superseded: pipeline.SupersededRewind, Episode: &pipeline.Episode{
			Path: "/home/dev/work/demo/db.go", Op: transcript.OpUpdate, Added: 1, Removed: 1, Seq: 7,
		}},
		{Kind: pipeline.KindEpisode, ID: "ep-2", Episode: &pipeline.Episode{
			Path: "/home/dev/work/demo/db.go", Op: transcript.OpUpdate, Added: 1, Removed: 1, Seq: 12,
		}},
		{Kind: pipeline.KindEpisode, ID: "ep-3", Episode: &pipeline.Episode{
			Path: `C:\work\demo\db_test.go`, Op: transcript.OpCreate, Added: 4, AgentID: "a1", Sidechain: true,
		}},
		{Kind: pipeline.KindBinding, ID: "bind-1", Binding: &pipeline.Binding{
			Decision: "dec-2", Episode: "ep-2", Correlation: &pipeline.Correlation{A: 2, B: 1, C: 0, D: 0, Support: 0.666667},
		}},
		{Kind: pipeline.KindBinding, ID: "bind-2", Binding: &pipeline.Binding{
			Decision: "dec-2", Episode: "ep-3", Correlation: &pipeline.Correlation{A: 2, B: 1},
		}},
		{Kind: pipeline.KindBinding, ID: "bind-3", Binding: &pipeline.Binding{Decision: "dec-9", Episode: "ep-9"}},
	}
}

func TestShapeOf(t *testing.T) {
	want := Shape{
		Kinds: []pipeline.NodeKind{conv, conv, dec, dec, ep, ep, ep, bind, bind, bind},
		Conversations: []ConversationShape{
			{User: 1, Assistant: 1, Superseded: pipeline.SupersededRewind},
			{User: 1, Compacted: true},
		},
		Decisions: []DecisionShape{
			{Categories: []pipeline.Category{pipeline.CategoryDecision}, Chosen: []string{"MySQL"}, Epitome: "Use MySQL.", Superseded: pipeline.SupersededRewind},
			{Categories: []pipeline.Category{pipeline.CategoryDecision}, Chosen: []string{"Postgres"}, Epitome: "Use Postgres.", Compacted: true},
		},
		Episodes: []EpisodeShape{
			{File: "db.go", Op: transcript.OpUpdate, Added: 1, Removed: 1, Superseded: pipeline.SupersededRewind},
			{File: "db.go", Op: transcript.OpUpdate, Added: 1, Removed: 1},
			{File: "db_test.go", Op: transcript.OpCreate, Added: 4, Subagent: true},
		},
		Bindings: []BindingShape{
			{Decision: 1, Episode: 1, Correlation: &Table{A: 2, B: 1}},
			{Decision: 1, Episode: 2, Correlation: &Table{A: 2, B: 1}},
			{Decision: -1, Episode: -1},
		},
	}
	if d := Diff(want, ShapeOf(nodes())); d != "" {
		t.Errorf("ShapeOf (-want +got):\n%s", d)
	}
	if d := Diff(Shape{}, ShapeOf(nil)); d != "" {
		t.Errorf("ShapeOf(nil) (-want +got):\n%s", d)
	}
}

// TestShapeIgnoresToolDetails checks that what only a tool records — ids,
// sessions, times, paths, provenance, texts of turns, markers — does not
// change a shape.
func TestShapeIgnoresToolDetails(t *testing.T) {
	a, b := nodes(), nodes()
	for i := range b {
		n := &b[i]
		n.ID = strings.ToUpper(n.ID) + "-other"
		n.SessionID = "another-session"
		n.Source = transcript.GeminiCLI
		switch {
		case n.Conversation != nil:
			n.Conversation.Turns[0].Text += " (typed elsewhere)"
			n.Conversation.Turns[0].Timestamp = "2030-01-01T00:00:00Z"
			n.Conversation.Provenance = transcript.Provenance{File: "x.jsonl", Line: 99}
		case n.Episode != nil:
			n.Episode.Path = "/elsewhere/" + baseName(n.Episode.Path)
			n.Episode.Seq += 100
			n.Episode.Tool = "apply_patch"
			n.Episode.From = transcript.FromContent
		case n.Binding != nil:
			n.Binding.Decision = strings.ToUpper(n.Binding.Decision) + "-other"
			n.Binding.Episode = strings.ToUpper(n.Binding.Episode) + "-other"
			n.Binding.Prov.GapSeconds = 42
		}
	}
	if d := Diff(ShapeOf(a), ShapeOf(b)); d != "" {
		t.Errorf("a tool's details changed the shape (-a +b):\n%s", d)
	}
	// And what a scenario means does change it.
	b[4].Superseded = ""
	if Diff(ShapeOf(a), ShapeOf(b)) == "" {
		t.Error("a superseded episode that stands again left the shape unchanged")
	}
}

// recorder is a testing.TB that keeps what Check reports.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestCheck(t *testing.T) {
	sc := Scenario{Name: "sample", Want: ShapeOf(nodes())}
	r := &recorder{TB: t}
	Check(r, sc, nodes())
	if len(r.errors) != 0 {
		t.Errorf("Check failed a matching stream: %q", r.errors)
	}

	broken := nodes()
	broken[3].Decision.Chosen = []string{"SQLite"}
	Check(r, sc, broken)
	if len(r.errors) != 1 {
		t.Fatalf("Check reported %d errors for a mismatch, want 1", len(r.errors))
	}
	for _, s := range []string{"scenario sample", `chosen ["Postgres"]`, `chosen ["SQLite"]`, "-want +got", `"SQLite"`} {
		if !strings.Contains(r.errors[0], s) {
			t.Errorf("the report lacks %q:\n%s", s, r.errors[0])
		}
	}
}

// TestCatalog checks the catalog itself: the nine scenarios of SPEC §7 and
// task_requests (instructions for the task at hand, which are no
// decisions), with distinct names, each shape consistent (its kinds in
// Prep's order and counting its lists, bindings pointing at standing
// decisions and episodes).
func TestCatalog(t *testing.T) {
	cat := Catalog()
	if len(cat) != 10 {
		t.Errorf("%d scenarios, want the nine of SPEC §7 and task_requests", len(cat))
	}
	seen := map[string]bool{}
	for _, sc := range cat {
		if seen[sc.Name] {
			t.Errorf("%s: two scenarios have the name", sc.Name)
		}
		seen[sc.Name] = true
		if got, ok := Lookup(sc.Name); !ok || got.Name != sc.Name {
			t.Errorf("Lookup(%q) = %q, %v", sc.Name, got.Name, ok)
		}
		if sc.Shows == "" {
			t.Errorf("%s: says nothing of what it shows", sc.Name)
		}
		w := sc.Want
		var kinds []pipeline.NodeKind
		for _, k := range []struct {
			kind pipeline.NodeKind
			n    int
		}{{conv, len(w.Conversations)}, {dec, len(w.Decisions)}, {ep, len(w.Episodes)}, {bind, len(w.Bindings)}} {
			for range k.n {
				kinds = append(kinds, k.kind)
			}
		}
		if d := cmp.Diff(kinds, w.Kinds); d != "" {
			t.Errorf("%s: Kinds do not list the shape's nodes in Prep's order (-want +got):\n%s", sc.Name, d)
		}
		if len(w.Conversations) != len(w.Decisions) {
			t.Errorf("%s: %d conversations but %d decisions: each gated turn makes one of each", sc.Name, len(w.Conversations), len(w.Decisions))
		}
		for _, b := range w.Bindings {
			switch {
			case b.Decision < 0 || b.Decision >= len(w.Decisions) || b.Episode < 0 || b.Episode >= len(w.Episodes):
				t.Errorf("%s: binding %+v points outside the shape", sc.Name, b)
			case w.Decisions[b.Decision].Superseded != "" || w.Episodes[b.Episode].Superseded != "":
				t.Errorf("%s: binding %+v joins a superseded node", sc.Name, b)
			}
		}
	}
	if _, ok := Lookup("no such scenario"); ok {
		t.Error("Lookup found a scenario that is not in the catalog")
	}
}
