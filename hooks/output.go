package hooks

import (
	"bytes"
	"encoding/json"
)

// Output is what a hook prints for text to reach the client's model, in the
// one form each client takes it from (verified with the clients' own runs,
// fixtures/hooks):
//
//   - Claude Code: JSON {"hookSpecificOutput":{"hookEventName":"SessionStart",
//     "additionalContext":…}} — it becomes a hook_additional_context
//     attachment the model reads (plain text on standard output works too,
//     but lands in the transcript as raw hook output);
//   - Codex: the same JSON; it reaches the model as a developer message;
//   - Gemini CLI: the same JSON, with Gemini's event names (BeforeAgent for a
//     prompt): plain text on standard output is only shown to the person;
//   - Cursor: JSON {"additional_context":…} at sessionStart; its
//     beforeSubmitPrompt hook cannot add context, so a prompt gets nothing.
//
// Empty text gives no output at all.
func Output(c Client, e Event, text string) []byte {
	if text == "" {
		return nil
	}
	var v any
	switch {
	case c == Cursor && e == SessionStart:
		v = struct {
			AdditionalContext string `json:"additional_context"`
		}{text}
	case c == Cursor:
		return nil
	case e == SessionStart || e == UserPromptSubmit:
		type specific struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		}
		v = struct {
			HookSpecificOutput specific `json:"hookSpecificOutput"`
		}{specific{c.Native(e), text}}
	default:
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil // strings always encode
	}
	return b.Bytes()
}
