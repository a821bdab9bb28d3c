package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestContextAndReflect: context_assemble answers the briefing as text and
// its sections as structured content, within the budget, and records
// nothing it did not show; reflect answers the roll-up; both refuse bad
// arguments by name.
func TestContextAndReflect(t *testing.T) {
	e := newEnv(t)
	for _, c := range []string{"Never deploy on Fridays; the on-call rota is thin.", "The deploy pipeline runs database migrations before the rollout."} {
		if r := e.try("memory_save", map[string]any{"content": c, "project": "web", "type": "convention"}); r.isError {
			t.Fatal(r.text)
		}
	}
	r := e.try("context_assemble", map[string]any{"query": "deploy migrations", "project": "web", "budget": 400})
	if r.isError {
		t.Fatal(r.text)
	}
	var out struct {
		Budget, Tokens int
		Markdown       string
		Sections       []struct {
			Name  string
			Items []struct{ ID, Path string }
		}
	}
	if err := json.Unmarshal(r.structured, &out); err != nil {
		t.Fatal(err)
	}
	if out.Tokens > 400 || out.Budget != 400 || out.Markdown != r.text {
		t.Errorf("tokens %d, budget %d; text and markdown equal: %v", out.Tokens, out.Budget, out.Markdown == r.text)
	}
	if len(out.Sections) != 4 || out.Sections[0].Name != "playbook" || len(out.Sections[0].Items) != 2 {
		t.Errorf("sections: %+v", out.Sections)
	}
	if !strings.Contains(r.text, "- **Ban:** [") || !strings.Contains(r.text, "Never deploy on Fridays") {
		t.Errorf("the ban is not first:\n%s", r.text)
	}
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"context_assemble", map[string]any{"query": "x"}, "project: give the project the briefing is for"},
		{"context_assemble", map[string]any{"query": "x", "project": "web", "budget": 5}, "budget"},
		{"reflect", map[string]any{}, "session: give a session id, or a project"},
		{"reflect", map[string]any{"session": "abc"}, "session: \"abc\" is not a session id"},
		{"reflect", map[string]any{"project": "web", "style": "long"}, "style: \"long\" is not brief or full"},
	} {
		if r := e.try(tt.tool, tt.args); !r.isError || !strings.Contains(r.text, tt.want) {
			t.Errorf("%s %v: %q, want an error with %q", tt.tool, tt.args, r.text, tt.want)
		}
	}
	r = e.try("reflect", map[string]any{"project": "web", "since": "2d"})
	if r.isError || !strings.HasPrefix(r.text, "# Reflection: project web since ") || !strings.Contains(r.text, "## Open threads") {
		t.Errorf("reflect: %s", r.text)
	}
}
