// Package hooks is what runs when an agent's lifecycle hook calls
// `cortex hook <client> <event>`: it reads the client's JSON payload, and
//
//   - at session start, briefs the agent from the vault (the project's
//     open items and memories, its latest decisions, its areas' and general
//     memories) within a hard budget, in the one form that reaches that
//     client's model, and keeps a receipt of what it injected and why;
//   - at a prompt (when turned on), injects the memories that answer it;
//   - before a compaction and when a session or turn ends, writes an event
//     into the capture inbox for normalize, and returns at once.
//
// A hook never needs a running server and must never break the agent: the
// command around Run gives it a deadline, turns any failure (a panic
// included) into an empty answer and exit status 0, and writes what happened
// to the hook log (Log).
package hooks

import (
	"fmt"
	"strings"

	"github.com/cortexmem/cortex/memories"
)

// Client is an agent whose hooks call cortex.
type Client string

// The clients cortex knows, by the names `cortex setup` writes.
const (
	ClaudeCode Client = "claude-code"
	Codex      Client = "codex"
	GeminiCLI  Client = "gemini-cli"
	Cursor     Client = "cursor"
)

// Clients lists every client, in documentation order.
var Clients = []Client{ClaudeCode, Codex, GeminiCLI, Cursor}

// ParseClient reads a client name ("claude" and "gemini" are accepted too).
func ParseClient(s string) (Client, error) {
	switch c := Client(strings.ToLower(strings.TrimSpace(s))); c {
	case ClaudeCode, Codex, GeminiCLI, Cursor:
		return c, nil
	case "claude", "claudecode":
		return ClaudeCode, nil
	case "gemini", "geminicli":
		return GeminiCLI, nil
	}
	return "", &memories.ArgError{Arg: "client", Rule: fmt.Sprintf("%q is not a client cortex has hooks for; use claude-code, codex, gemini-cli or cursor", s)}
}

// Event is a lifecycle event, by the names `cortex setup` writes.
type Event string

// The events a hook handles.
const (
	SessionStart     Event = "session-start"
	UserPromptSubmit Event = "user-prompt-submit"
	PreCompact       Event = "pre-compact"
	Stop             Event = "stop"
	SessionEnd       Event = "session-end"
)

// Events lists every event, in the order a session meets them.
var Events = []Event{SessionStart, UserPromptSubmit, PreCompact, Stop, SessionEnd}

// ParseEvent reads an event name: cortex's own (session-start) or a client's
// (SessionStart, sessionStart; Gemini CLI's BeforeAgent, PreCompress,
// AfterAgent; Cursor's beforeSubmitPrompt), in any case, with or without
// dashes and underscores.
func ParseEvent(s string) (Event, error) {
	key := strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(strings.TrimSpace(s)))
	switch key {
	case "sessionstart":
		return SessionStart, nil
	case "userpromptsubmit", "beforeagent", "beforesubmitprompt":
		return UserPromptSubmit, nil
	case "precompact", "precompress":
		return PreCompact, nil
	case "stop", "afteragent":
		return Stop, nil
	case "sessionend":
		return SessionEnd, nil
	}
	return "", &memories.ArgError{Arg: "event", Rule: fmt.Sprintf(
		"%q is not a hook event cortex handles; use session-start, user-prompt-submit, pre-compact, stop or session-end (or the client's own name: SessionStart, BeforeAgent, PreCompress, AfterAgent, SessionEnd, …)", s)}
}

// Native is the client's own name of an event: what its configuration
// registers the hook under, and what a JSON answer names.
func (c Client) Native(e Event) string {
	switch c {
	case GeminiCLI:
		switch e {
		case UserPromptSubmit:
			return "BeforeAgent"
		case PreCompact:
			return "PreCompress"
		case Stop:
			return "AfterAgent"
		}
	case Cursor:
		switch e {
		case SessionStart:
			return "sessionStart"
		case UserPromptSubmit:
			return "beforeSubmitPrompt"
		case PreCompact:
			return "preCompact"
		case Stop:
			return "stop"
		case SessionEnd:
			return "sessionEnd"
		}
	}
	switch e {
	case SessionStart:
		return "SessionStart"
	case UserPromptSubmit:
		return "UserPromptSubmit"
	case PreCompact:
		return "PreCompact"
	case Stop:
		return "Stop"
	case SessionEnd:
		return "SessionEnd"
	}
	return string(e)
}
