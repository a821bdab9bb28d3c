package hooks

import (
	"errors"
	"strings"
	"testing"

	"github.com/cortexmem/cortex/memories"
)

func TestParseClient(t *testing.T) {
	for in, want := range map[string]Client{
		"claude-code": ClaudeCode, "Claude": ClaudeCode, "claudecode": ClaudeCode, "codex": Codex, " CODEX ": Codex,
		"gemini-cli": GeminiCLI, "gemini": GeminiCLI, "cursor": Cursor,
	} {
		got, err := ParseClient(in)
		if err != nil || got != want {
			t.Errorf("ParseClient(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := ParseClient("vim")
	var ae *memories.ArgError
	if !errors.As(err, &ae) || ae.Arg != "client" || !strings.Contains(ae.Rule, "claude-code, codex, gemini-cli or cursor") {
		t.Errorf("ParseClient(vim) = %v", err)
	}
}

func TestParseEvent(t *testing.T) {
	for in, want := range map[string]Event{
		// cortex's names, as cortex setup writes them
		"session-start": SessionStart, "user-prompt-submit": UserPromptSubmit, "pre-compact": PreCompact, "stop": Stop, "session-end": SessionEnd,
		// Claude Code's and Codex's
		"SessionStart": SessionStart, "UserPromptSubmit": UserPromptSubmit, "PreCompact": PreCompact, "Stop": Stop, "SessionEnd": SessionEnd,
		// Gemini CLI's
		"BeforeAgent": UserPromptSubmit, "PreCompress": PreCompact, "AfterAgent": Stop,
		// Cursor's
		"sessionStart": SessionStart, "beforeSubmitPrompt": UserPromptSubmit, "preCompact": PreCompact, "sessionEnd": SessionEnd,
		// spellings
		"session_start": SessionStart, "PRE-COMPACT": PreCompact,
	} {
		got, err := ParseEvent(in)
		if err != nil || got != want {
			t.Errorf("ParseEvent(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"PreToolUse", "BeforeModel", "", "start"} {
		_, err := ParseEvent(in)
		var ae *memories.ArgError
		if !errors.As(err, &ae) || ae.Arg != "event" {
			t.Errorf("ParseEvent(%q) = %v, want an event error", in, err)
		}
	}
}

func TestNative(t *testing.T) {
	tests := []struct {
		c    Client
		e    Event
		want string
	}{
		{ClaudeCode, SessionStart, "SessionStart"}, {ClaudeCode, UserPromptSubmit, "UserPromptSubmit"}, {ClaudeCode, PreCompact, "PreCompact"},
		{Codex, Stop, "Stop"}, {Codex, SessionEnd, "SessionEnd"},
		{GeminiCLI, SessionStart, "SessionStart"}, {GeminiCLI, UserPromptSubmit, "BeforeAgent"}, {GeminiCLI, PreCompact, "PreCompress"},
		{GeminiCLI, Stop, "AfterAgent"}, {GeminiCLI, SessionEnd, "SessionEnd"},
		{Cursor, SessionStart, "sessionStart"}, {Cursor, UserPromptSubmit, "beforeSubmitPrompt"}, {Cursor, PreCompact, "preCompact"},
	}
	for _, tt := range tests {
		if got := tt.c.Native(tt.e); got != tt.want {
			t.Errorf("%s.Native(%s) = %q, want %q", tt.c, tt.e, got, tt.want)
		}
		// A client's own name reads back as the same event.
		if back, err := ParseEvent(tt.want); err != nil || back != tt.e {
			t.Errorf("ParseEvent(%q) = %q, %v; want %q", tt.want, back, err, tt.e)
		}
	}
}
