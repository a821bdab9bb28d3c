package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// MaxPayload is the most a hook reads of its standard input. The lifecycle
// events cortex handles send a few hundred bytes; a prompt or a last message
// can be long, but never this long.
const MaxPayload = 1 << 20

// Payload is what cortex uses of a hook's JSON input. Every client sends
// session_id, transcript_path, cwd and hook_event_name (Claude Code, Codex and
// Gemini CLI alike; Codex may send a null transcript_path, Cursor sends
// conversation_id and workspace_roots). Other fields, and fields of an
// unexpected type, are ignored: a client that adds or changes one must not
// break the hook.
type Payload struct {
	SessionID string
	// Transcript is transcript_path; empty when null or absent.
	Transcript    string
	Cwd           string
	HookEventName string
	// Source is why a session starts (startup, resume, clear, compact).
	Source string
	// Trigger is what set off a compaction (manual, auto).
	Trigger string
	// Reason is why a session ended.
	Reason string
	// Prompt is what the person typed (user-prompt-submit, BeforeAgent).
	Prompt string
	// Raw is the payload as it came, without surrounding space.
	Raw []byte
}

// ParsePayload reads a hook's input. Empty input is an empty payload (a hook
// run by hand); anything else must be one JSON object.
func ParsePayload(data []byte) (*Payload, error) {
	data = bytes.TrimSpace(data)
	p := &Payload{Raw: data}
	if len(data) == 0 {
		return p, nil
	}
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("hook input is not valid UTF-8")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("hook input is not a JSON object: %w", err)
	}
	if obj == nil {
		return nil, fmt.Errorf("hook input is not a JSON object: null")
	}
	str := func(keys ...string) string {
		for _, k := range keys {
			var s string
			if raw, ok := obj[k]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
				return s
			}
		}
		return ""
	}
	p.SessionID = str("session_id", "conversation_id", "sessionId")
	p.Transcript = str("transcript_path")
	p.Cwd = str("cwd")
	if p.Cwd == "" {
		var roots []string
		if raw, ok := obj["workspace_roots"]; ok && json.Unmarshal(raw, &roots) == nil && len(roots) > 0 {
			p.Cwd = roots[0]
		}
	}
	p.HookEventName = str("hook_event_name")
	p.Source = str("source")
	p.Trigger = str("trigger")
	p.Reason = str("reason")
	p.Prompt = str("prompt")
	return p, nil
}
