package adapters

import (
	"errors"
	"os"
	"testing"

	"github.com/cortexmem/cortex/transcript"
)

func TestRegistry(t *testing.T) {
	seen := map[transcript.SourceKind]bool{}
	for _, a := range All() {
		if !a.Source().Known() || seen[a.Source()] {
			t.Errorf("adapter of %q: unknown or registered twice", a.Source())
		}
		seen[a.Source()] = true
		if got, ok := For(a.Source()); !ok || got.Source() != a.Source() {
			t.Errorf("For(%q) = %v, %v", a.Source(), got, ok)
		}
	}
	if _, ok := For(transcript.Aider); ok && !seen[transcript.Aider] {
		t.Error("For found an adapter All does not list")
	}
}

func TestDetect(t *testing.T) {
	claude, err := os.ReadFile("../fixtures/claude-code/2.1.197/b_write_edit.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	codexFile, err := os.ReadFile("../fixtures/codex/0.169.0/b_write_edit.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	geminiFile, err := os.ReadFile("../fixtures/gemini-cli/0.61.0/b_write_edit.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	copilotFile, err := os.ReadFile("../fixtures/copilot-cli/hand-made/edits.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	vscodeLog, err := os.ReadFile("../fixtures/vscode-copilot-chat/hand-made/agent_edits.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	windsurfFile, err := os.ReadFile("../fixtures/windsurf/transcripts/windsurf-session-simple.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	windsurfHooks, err := os.ReadFile("../fixtures/windsurf/hand-made/hooks/payloads.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		head []byte
		want transcript.SourceKind
		err  error
	}{
		{"claude code", claude, transcript.ClaudeCode, nil},
		{"codex rollout", codexFile, transcript.Codex, nil},
		{"codex head", []byte(`{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}` + "\n"), transcript.Codex, nil},
		{"gemini chat", geminiFile, transcript.GeminiCLI, nil},
		{"copilot cli events", copilotFile, transcript.CopilotCLI, nil},
		{"vs code chat log", vscodeLog, transcript.VSCodeCopilotChat, nil},
		{"windsurf trajectory", windsurfFile, transcript.Windsurf, nil},
		{"windsurf hook payloads", windsurfHooks, transcript.Windsurf, nil},
		{"aider's session header", []byte("# aider chat started at 2024-08-01 10:00:00\n"), transcript.Aider, nil},
		{"text", []byte("# Notes\n\nnothing here\n"), "", ErrNoAdapter},
		{"empty", nil, "", ErrNoAdapter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Detect(tt.head)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err %v, want %v", err, tt.err)
			}
			if err == nil && a.Source() != tt.want {
				t.Fatalf("detected %s, want %s", a.Source(), tt.want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	g, _ := For(transcript.GeminiCLI)
	if Resolve(g, "chats/session-1.jsonl") != g {
		t.Error("a .jsonl chat is not read by the Gemini CLI adapter itself")
	}
	legacy := Resolve(g, "chats/session-1.json")
	if legacy == g || legacy.Source() != transcript.GeminiCLI {
		t.Errorf("a legacy .json is read by %T", legacy)
	}
	if _, ok := legacy.(transcript.Framer); !ok {
		t.Error("the legacy adapter frames no records")
	}
	c, _ := For(transcript.ClaudeCode)
	if Resolve(c, "x.json") != c {
		t.Error("Resolve changed the adapter of a tool with one kind of file")
	}
}

// TestDetectFile recognises Gemini CLI's pretty-printed legacy document,
// which has no record a line, and leaves a stray .json alone.
func TestDetectFile(t *testing.T) {
	data, err := os.ReadFile("../fixtures/gemini-cli/legacy/small.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Detect(data); err == nil {
		t.Log("Detect already reads the legacy document; DetectFile is checked anyway")
	}
	a, err := DetectFile("session-1.json", data)
	if err != nil || a.Source() != transcript.GeminiCLI {
		t.Fatalf("DetectFile = %v, %v", a, err)
	}
	if _, ok := a.(transcript.Framer); !ok {
		t.Errorf("%T frames no records", a)
	}
	if _, err := DetectFile("package.json", []byte("{\n  \"name\": \"app\",\n  \"version\": \"1.0.0\"\n}\n")); !errors.Is(err, ErrNoAdapter) {
		t.Errorf("a package.json: %v", err)
	}
	doc, err := os.ReadFile("../fixtures/vscode-copilot-chat/0.31.5/three_requests.json")
	if err != nil {
		t.Fatal(err)
	}
	if a, err := DetectFile("331fed7f-cfd6-409c-8502-06a56322b636.json", doc); err != nil || a.Source() != transcript.VSCodeCopilotChat {
		t.Errorf("a VS Code chat session document: %v, %v", a, err)
	} else if _, ok := a.(transcript.Framer); !ok {
		t.Errorf("%T frames no records", a)
	}
	claude, _ := os.ReadFile("../fixtures/claude-code/2.1.197/b_write_edit.jsonl")
	if a, err := DetectFile("x.jsonl", claude); err != nil || a.Source() != transcript.ClaudeCode {
		t.Errorf("claude: %v, %v", a, err)
	}
}

// TestDetectFileMoreTools recognises the files of the tools whose
// transcripts are one JSON document or a markdown log (framed, not JSON
// lines), and tells Cline's forks apart by their extension folder.
func TestDetectFileMoreTools(t *testing.T) {
	tests := []struct {
		path, fixture string
		want          transcript.SourceKind
	}{
		{"/h/.local/share/amp/threads/T-1.json", "../fixtures/amp/real/T-019ca1f6-7f21-77b5-a308-65416ebbdf48.json", transcript.Amp},
		{"/h/.continue/sessions/s.json", "../fixtures/continue/real/continue-cli-session-simple.json", transcript.Continue},
		{"/h/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1/api_conversation_history.json",
			"../fixtures/cline/hand-made/saoudrizwan.claude-dev/tasks/1795597200000/api_conversation_history.json", transcript.Cline},
		{"/h/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/1/api_conversation_history.json",
			"../fixtures/cline/hand-made/saoudrizwan.claude-dev/tasks/1795597200000/api_conversation_history.json", transcript.RooCode},
		{"/h/work/app/.aider.chat.history.md", "../fixtures/aider/real/chat-history.md", transcript.Aider},
		{"/h/.factory/sessions/-w/s.jsonl", "../fixtures/factory-droid/real/droid-session.jsonl", transcript.FactoryDroid},
	}
	for _, tt := range tests {
		t.Run(string(tt.want), func(t *testing.T) {
			data, err := os.ReadFile(tt.fixture)
			if err != nil {
				t.Fatal(err)
			}
			a, err := DetectFile(tt.path, data)
			if err != nil || a.Source() != tt.want {
				t.Fatalf("DetectFile = %v, %v; want %s", a, err, tt.want)
			}
		})
	}
}

// TestDetectFileClaimed recognises the files whose adapters read them
// through Load, by their path and first bytes: an OpenCode export, OpenCode's
// database, Zed's threads database and a text conversation, Cursor's
// database; a database of another name is no tool's.
func TestDetectFileClaimed(t *testing.T) {
	export, err := os.ReadFile("../fixtures/opencode/1.18.33/export/a_qa.json")
	if err != nil {
		t.Fatal(err)
	}
	conv, err := os.ReadFile("../fixtures/zed/hand-made/conversations/SQLite for the cache - 1.zed.json")
	if err != nil {
		t.Fatal(err)
	}
	sqlite := []byte("SQLite format 3\x00\x10\x00")
	tests := []struct {
		path string
		head []byte
		want transcript.SourceKind
	}{
		{"a_qa.json", export, transcript.OpenCode},
		{"/d/opencode/opencode.db", sqlite, transcript.OpenCode},
		{"/d/zed/threads/threads.db", sqlite, transcript.Zed},
		{"/c/conversations/Cache - 1.zed.json", conv, transcript.Zed},
		{"/h/.config/Cursor/User/globalStorage/state.vscdb", sqlite, transcript.Cursor},
		{"/h/app/data.db", sqlite, ""},
	}
	for _, tt := range tests {
		a, err := DetectFile(tt.path, tt.head)
		switch {
		case tt.want == "" && !errors.Is(err, ErrNoAdapter):
			t.Errorf("%s: %v, %v; want no adapter", tt.path, a, err)
		case tt.want != "" && (err != nil || a.Source() != tt.want):
			t.Errorf("%s: %v, %v; want %s", tt.path, a, err, tt.want)
		}
	}
}
