package hooks

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// What each client's model receives: the exact bytes.
func TestOutput(t *testing.T) {
	text := "# Memories <recalled> & \"quoted\"\n> line"
	claudeJSON := `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"# Memories <recalled> & \"quoted\"\n> line"}}` + "\n"
	tests := []struct {
		c    Client
		e    Event
		want string
	}{
		{ClaudeCode, SessionStart, claudeJSON},
		{Codex, SessionStart, claudeJSON},
		{GeminiCLI, SessionStart, claudeJSON},
		{ClaudeCode, UserPromptSubmit, `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"# Memories <recalled> & \"quoted\"\n> line"}}` + "\n"},
		{Codex, UserPromptSubmit, `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"# Memories <recalled> & \"quoted\"\n> line"}}` + "\n"},
		{GeminiCLI, UserPromptSubmit, `{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"# Memories <recalled> & \"quoted\"\n> line"}}` + "\n"},
		{Cursor, SessionStart, `{"additional_context":"# Memories <recalled> & \"quoted\"\n> line"}` + "\n"},
		{Cursor, UserPromptSubmit, ""},
		{ClaudeCode, Stop, ""},
		{GeminiCLI, PreCompact, ""},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(string(Output(tt.c, tt.e, text)), tt.want); diff != "" {
			t.Errorf("%s %s (-got +want):\n%s", tt.c, tt.e, diff)
		}
	}
	if got := Output(ClaudeCode, SessionStart, ""); got != nil {
		t.Errorf("empty text gives %q", got)
	}
}
