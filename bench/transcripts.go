package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/cortexmem/cortex/transcript"
)

// Conversation is an agent session to write as its tool writes one: the
// record shapes of the real transcripts in the repository's fixtures
// (Claude Code 2.1.197, Codex 0.169.0, Gemini CLI 0.61.0), with the
// person's turns and the agent's steps given here.
type Conversation struct {
	Tool transcript.SourceKind `json:"tool"`
	// Session is the session's id (a UUID).
	Session string    `json:"session"`
	Cwd     string    `json:"cwd"`
	Branch  string    `json:"branch,omitempty"`
	Start   time.Time `json:"start"`
	Turns   []Turn    `json:"turns"`
}

// Turn is what the person typed and what the agent did about it.
type Turn struct {
	User  string `json:"user"`
	Steps []Step `json:"steps"`
}

// Step is one thing the agent did: a message (Text), or a tool call — a
// shell command and its output (Shell, Output, Failed), a file read (Read),
// or an edit replacing Old with New in a file (Edit).
type Step struct {
	Text   string `json:"text,omitempty"`
	Shell  string `json:"shell,omitempty"`
	Output string `json:"output,omitempty"`
	Failed bool   `json:"failed,omitempty"`
	Read   string `json:"read,omitempty"`
	Edit   string `json:"edit,omitempty"`
	Old    string `json:"old,omitempty"`
	New    string `json:"new,omitempty"`
}

// SessionPath is where the tool keeps the session under home, where
// discovery finds it.
func SessionPath(home string, c *Conversation) string {
	switch c.Tool {
	case transcript.Codex:
		return filepath.Join(home, ".codex", "sessions", c.Start.UTC().Format("2006/01/02"),
			"rollout-"+c.Start.UTC().Format("2006-01-02T15-04-05")+"-"+c.Session+".jsonl")
	case transcript.GeminiCLI:
		return filepath.Join(home, ".gemini", "tmp", filepath.Base(c.Cwd), "chats",
			"session-"+c.Start.UTC().Format("2006-01-02T15-04")+"-"+c.Session[:8]+".jsonl")
	}
	enc := []byte(c.Cwd)
	for i, b := range enc {
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9') {
			enc[i] = '-'
		}
	}
	return filepath.Join(home, ".claude", "projects", string(enc), c.Session+".jsonl")
}

// WriteSession writes the whole session.
func WriteSession(w io.Writer, c *Conversation) error {
	s := NewSessionWriter(c)
	if err := s.Head(w); err != nil {
		return err
	}
	for i := range c.Turns {
		if err := s.Turn(w, &c.Turns[i]); err != nil {
			return err
		}
	}
	return nil
}

// SessionWriter writes a session a turn at a time, as a tool appends to its
// transcript while the session goes on.
type SessionWriter struct {
	c    *Conversation
	now  time.Time
	n    int    // records written: ids and times derive from it
	last string // the last record's uuid (Claude Code's parent chain)
}

// NewSessionWriter starts writing c.
func NewSessionWriter(c *Conversation) *SessionWriter {
	return &SessionWriter{c: c, now: c.Start}
}

// id is a UUID-shaped id derived from the session and a counter: the same
// conversation always writes the same bytes.
func (s *SessionWriter) id(kind string) string {
	s.n++
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%s/%d", s.c.Session, kind, s.n)))
	h := hex.EncodeToString(sum[:16])
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
}

func (s *SessionWriter) tick(d time.Duration) string {
	s.now = s.now.Add(d)
	return s.now.UTC().Format("2006-01-02T15:04:05.000Z")
}

func line(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Head writes the records a session starts with.
func (s *SessionWriter) Head(w io.Writer) error {
	c := s.c
	switch c.Tool {
	case transcript.Codex:
		ts := s.tick(0)
		if err := line(w, map[string]any{"timestamp": ts, "type": "session_meta", "payload": map[string]any{
			"id": c.Session, "session_id": c.Session, "timestamp": ts, "cwd": c.Cwd, "originator": "codex_cli_rs",
			"cli_version": "0.169.0", "source": "cli", "model_provider": "openai",
			"git": map[string]any{"branch": c.Branch, "commit_hash": strings.Repeat("ab", 20)}}}); err != nil {
			return err
		}
		return line(w, map[string]any{"timestamp": ts, "type": "turn_context", "payload": map[string]any{
			"cwd": c.Cwd, "approval_policy": "on-request", "model": "gpt-5.5", "summary": "auto"}})
	case transcript.GeminiCLI:
		ts := s.tick(0)
		sum := sha256.Sum256([]byte(c.Cwd))
		return line(w, map[string]any{"sessionId": c.Session, "projectHash": hex.EncodeToString(sum[:]),
			"startTime": ts, "lastUpdated": ts, "kind": "main", "directories": []string{c.Cwd}})
	}
	return nil
}

// Turn writes one exchange: the person's turn, then every step.
func (s *SessionWriter) Turn(w io.Writer, t *Turn) error {
	switch s.c.Tool {
	case transcript.Codex:
		return s.codexTurn(w, t)
	case transcript.GeminiCLI:
		return s.geminiTurn(w, t)
	}
	return s.claudeTurn(w, t)
}

func (s *SessionWriter) claudeRecord(typ string, v map[string]any) map[string]any {
	uuid := s.id("uuid")
	v["type"], v["uuid"], v["isSidechain"], v["userType"], v["entrypoint"] = typ, uuid, false, "external", "cli"
	if s.last == "" {
		v["parentUuid"] = nil
	} else {
		v["parentUuid"] = s.last
	}
	v["timestamp"] = s.tick(700 * time.Millisecond)
	v["cwd"], v["sessionId"], v["version"], v["gitBranch"] = s.c.Cwd, s.c.Session, "2.1.197", s.c.Branch
	s.last = uuid
	return v
}

func (s *SessionWriter) claudeTurn(w io.Writer, t *Turn) error {
	if err := line(w, s.claudeRecord("user", map[string]any{"permissionMode": "default",
		"message": map[string]any{"role": "user", "content": t.User}})); err != nil {
		return err
	}
	msg := "msg_" + strings.ReplaceAll(s.id("msg"), "-", "")[:24]
	usage := map[string]any{"input_tokens": 1200, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 5400, "output_tokens": 180,
		"service_tier": "standard"}
	assistant := func(block map[string]any, stop string) error {
		return line(w, s.claudeRecord("assistant", map[string]any{"requestId": "req_" + msg[4:],
			"message": map[string]any{"id": msg, "type": "message", "role": "assistant", "model": "claude-opus-4-8",
				"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage}}))
	}
	result := func(callID, content string, isErr bool, structured any) error {
		return line(w, s.claudeRecord("user", map[string]any{"toolUseResult": structured,
			"message": map[string]any{"role": "user", "content": []any{map[string]any{
				"tool_use_id": callID, "type": "tool_result", "content": content, "is_error": isErr}}}}))
	}
	for i, st := range t.Steps {
		stop := "tool_use"
		if i == len(t.Steps)-1 {
			stop = "end_turn"
		}
		call := "toolu_" + strings.ReplaceAll(s.id("call"), "-", "")[:24]
		var err error
		switch {
		case st.Shell != "":
			if err = assistant(map[string]any{"type": "tool_use", "id": call, "name": "Bash",
				"input": map[string]any{"command": st.Shell, "description": "Run " + firstWord(st.Shell)}}, stop); err == nil {
				content := st.Output
				if st.Failed {
					content = "Error: Exit code 1\n" + st.Output
				}
				err = result(call, content, st.Failed, map[string]any{"stdout": st.Output, "stderr": "", "interrupted": false, "isImage": false})
			}
		case st.Read != "":
			if err = assistant(map[string]any{"type": "tool_use", "id": call, "name": "Read", "input": map[string]any{"file_path": st.Read}}, stop); err == nil {
				err = result(call, "     1\t"+st.Output, false, map[string]any{"type": "text",
					"file": map[string]any{"filePath": st.Read, "content": st.Output, "numLines": 1, "startLine": 1, "totalLines": 1}})
			}
		case st.Edit != "":
			if err = assistant(map[string]any{"type": "tool_use", "id": call, "name": "Edit", "input": map[string]any{
				"file_path": st.Edit, "old_string": st.Old, "new_string": st.New, "replace_all": false}}, stop); err == nil {
				err = result(call, "The file "+st.Edit+" has been updated successfully.", false, map[string]any{
					"filePath": st.Edit, "oldString": st.Old, "newString": st.New, "originalFile": st.Old + "\n",
					"structuredPatch": []any{map[string]any{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1,
						"lines": []string{"-" + st.Old, "+" + st.New}}},
					"userModified": false, "replaceAll": false})
			}
		default:
			err = assistant(map[string]any{"type": "text", "text": st.Text}, stop)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return s
}

func (s *SessionWriter) codexTurn(w io.Writer, t *Turn) error {
	turn := s.id("turn")
	rec := func(typ string, payload map[string]any) error {
		return line(w, map[string]any{"timestamp": s.tick(600 * time.Millisecond), "type": typ, "payload": payload})
	}
	if err := rec("event_msg", map[string]any{"type": "task_started", "turn_id": turn, "model_context_window": 258400}); err != nil {
		return err
	}
	if err := rec("response_item", map[string]any{"type": "message", "role": "user",
		"content": []any{map[string]any{"type": "input_text", "text": t.User}}}); err != nil {
		return err
	}
	if err := rec("event_msg", map[string]any{"type": "user_message", "message": t.User, "images": []any{}}); err != nil {
		return err
	}
	var last string
	for _, st := range t.Steps {
		call := "call_" + strings.ReplaceAll(s.id("call"), "-", "")[:24]
		var err error
		switch {
		case st.Shell != "" || st.Read != "":
			cmd := st.Shell
			if st.Read != "" {
				cmd = "sed -n '1,200p' " + st.Read
			}
			args, _ := json.Marshal(map[string]any{"command": []string{"bash", "-lc", cmd}, "workdir": s.c.Cwd, "timeout_ms": 120000})
			if err = rec("response_item", map[string]any{"type": "function_call", "name": "shell", "arguments": string(args), "call_id": call}); err == nil {
				code := 0
				if st.Failed {
					code = 1
				}
				out, _ := json.Marshal(map[string]any{"output": st.Output, "metadata": map[string]any{"exit_code": code, "duration_seconds": 0.4}})
				err = rec("response_item", map[string]any{"type": "function_call_output", "call_id": call, "output": string(out)})
			}
		case st.Edit != "":
			patch := "*** Begin Patch\n*** Update File: " + st.Edit + "\n@@\n-" + st.Old + "\n+" + st.New + "\n*** End Patch\n"
			if err = rec("response_item", map[string]any{"type": "custom_tool_call", "status": "completed", "call_id": call,
				"name": "apply_patch", "input": patch}); err == nil {
				err = rec("response_item", map[string]any{"type": "custom_tool_call_output", "call_id": call,
					"output": "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM " + st.Edit + "\n"})
			}
		default:
			last = st.Text
			if err = rec("response_item", map[string]any{"type": "message", "role": "assistant",
				"content": []any{map[string]any{"type": "output_text", "text": st.Text}}}); err == nil {
				err = rec("event_msg", map[string]any{"type": "agent_message", "message": st.Text})
			}
		}
		if err != nil {
			return err
		}
	}
	if err := rec("event_msg", map[string]any{"type": "token_count", "info": map[string]any{
		"total_token_usage": map[string]any{"input_tokens": 4200, "cached_input_tokens": 3000, "output_tokens": 300, "total_tokens": 4500},
		"last_token_usage":  map[string]any{"input_tokens": 1400, "cached_input_tokens": 1000, "output_tokens": 100, "total_tokens": 1500}}}); err != nil {
		return err
	}
	return rec("event_msg", map[string]any{"type": "task_complete", "turn_id": turn, "last_agent_message": last})
}

func (s *SessionWriter) geminiTurn(w io.Writer, t *Turn) error {
	set := func() error {
		return line(w, map[string]any{"$set": map[string]any{"lastUpdated": s.now.UTC().Format("2006-01-02T15:04:05.000Z")}})
	}
	if err := line(w, map[string]any{"id": s.id("msg"), "timestamp": s.tick(800 * time.Millisecond), "type": "user",
		"content": []any{map[string]any{"text": t.User}}}); err != nil {
		return err
	}
	if err := set(); err != nil {
		return err
	}
	tokens := map[string]any{"input": 1800, "output": 120, "cached": 900, "thoughts": 40, "tool": 0, "total": 1960}
	for _, st := range t.Steps {
		id := s.id("msg")
		ts := s.tick(900 * time.Millisecond)
		msg := map[string]any{"id": id, "timestamp": ts, "type": "gemini", "content": st.Text, "thoughts": []any{},
			"tokens": tokens, "model": "gemini-3.1-pro-preview"}
		if st.Text != "" {
			if err := line(w, msg); err != nil {
				return err
			}
			if err := set(); err != nil {
				return err
			}
			continue
		}
		call := map[string]any{"status": "success", "timestamp": s.tick(300 * time.Millisecond)}
		var output string
		switch {
		case st.Shell != "":
			call["name"], call["args"] = "run_shell_command", map[string]any{"command": st.Shell, "description": "Run " + firstWord(st.Shell)}
			output = "Command: " + st.Shell + "\nDirectory: (root)\nOutput: " + st.Output + "\nExit Code: 0"
			if st.Failed {
				call["status"] = "error"
				output = "Command: " + st.Shell + "\nDirectory: (root)\nOutput: " + st.Output + "\nExit Code: 1"
			}
		case st.Read != "":
			call["name"], call["args"] = "read_file", map[string]any{"file_path": st.Read}
			output = st.Output
		default:
			call["name"], call["args"] = "replace", map[string]any{"file_path": st.Edit, "old_string": st.Old, "new_string": st.New}
			output = "Successfully modified file: " + st.Edit + " (1 replacements)."
		}
		callID := call["name"].(string) + "__fc_" + strings.ReplaceAll(s.id("call"), "-", "")[:24]
		call["id"] = callID
		resp := map[string]any{"output": output}
		if call["status"] == "error" {
			resp = map[string]any{"error": output}
		}
		call["result"] = []any{map[string]any{"functionResponse": map[string]any{"id": callID, "name": call["name"], "response": resp}}}
		call["resultDisplay"] = output
		msg["content"] = ""
		msg["toolCalls"] = []any{call}
		if err := line(w, msg); err != nil {
			return err
		}
		if err := line(w, map[string]any{"id": s.id("msg"), "timestamp": s.tick(100 * time.Millisecond), "type": "user",
			"content": []any{map[string]any{"functionResponse": map[string]any{"id": callID, "name": call["name"], "response": resp}}}}); err != nil {
			return err
		}
		if err := set(); err != nil {
			return err
		}
	}
	return nil
}
