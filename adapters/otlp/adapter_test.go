package otlp

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

const fixtureDir = "../../fixtures/otlp"

func fixtures(t testing.TB) []transcripttest.Fixture {
	return transcripttest.Load(t, fixtureDir, ".jsonl")
}

// TestInvariants runs the shared suite on every kept session and on
// damaged copies of each.
func TestInvariants(t *testing.T) {
	transcripttest.Run(t, New(), fixtures(t))
}

// TestGolden compares the events of every fixture with the expected stream
// beside it (go test -run Golden -update rewrites them).
func TestGolden(t *testing.T) {
	transcripttest.Golden(t, New(), fixtures(t))
}

// summary is what a test checks of an event.
type summary struct {
	Kind          transcript.Kind
	Session, Text string
	OK            bool
}

func summarize(evs []transcript.Event) []summary {
	var out []summary
	for _, e := range evs {
		s := summary{Kind: e.Kind, Session: e.SessionID}
		switch {
		case e.UserTurn != nil:
			s.Text = e.UserTurn.Text
		case e.AssistantTurn != nil:
			s.Text = e.AssistantTurn.Model
		case e.ToolCall != nil:
			s.Text = e.ToolCall.Name + " " + string(e.ToolCall.Input)
		case e.ToolResult != nil:
			s.Text, s.OK = e.ToolResult.Text, e.ToolResult.OK
		case e.SessionStart != nil:
			s.Text, s.OK = e.SessionStart.ToolVersion+" "+e.SessionStart.Model, e.SessionStart.Synthesized
		case e.Unknown != nil:
			s.Text = e.Unknown.RawType + " " + e.Unknown.Reason
		}
		out = append(out, s)
	}
	return out
}

// TestMapping reads each agent's events: prompts as user turns, tool runs
// as a call and its result (failed ones with their error), model requests
// as assistant turns with their token counts, the agent's own start when
// it sends one (synthesized otherwise), the rest unknown but kept.
func TestMapping(t *testing.T) {
	const cc, cx, gm = "7d2a9c1e-5b3f-4e8a-9c0d-1e2f3a4b5c6d", "019a4c2e-8f10-7c3d-9e2a-5b6c7d8e9f01", "c3f1e2d4-0a9b-4c8d-8e7f-6a5b4c3d2e1f"
	// VS Code Copilot Chat names the chat only in its session start; its
	// other records carry the window's session (the resource's).
	const chat, window = "b7e3c9a1-2d4f-4a6b-8c0e-9f1a3b5d7e2c", "3f6b2d1e-8c4a-4e9f-b2d7-5a1c9e0f4b8a1795867100000"
	tests := []struct {
		file string
		want []summary
	}{
		{"hand-made/sessions/claude-code.jsonl", []summary{
			{transcript.KindSessionStart, cc, "2.0.14 ", true},
			{transcript.KindUserTurn, cc, "Let's use zod for the config schema instead of hand-made checks.", false},
			{transcript.KindAssistantTurn, cc, "claude-sonnet-4-5-20250929", false},
			{transcript.KindUnknown, cc, "claude_code.tool_decision unmapped", false},
			{transcript.KindToolCall, cc, `Edit {"file_path":"/home/dev/app/src/config.ts"}`, false},
			{transcript.KindToolResult, cc, "", true},
			{transcript.KindToolCall, cc, `Bash {"bash_command":"npm","full_command":"npm test"}`, false},
			{transcript.KindToolResult, cc, "Exit code 1: 2 tests failed", false},
			{transcript.KindUnknown, cc, "claude_code.api_error unmapped", false},
		}},
		{"hand-made/sessions/codex.jsonl", []summary{
			{transcript.KindSessionStart, cx, "0.46.0 gpt-5-codex", false},
			{transcript.KindUserTurn, cx, "From now on use ripgrep rather than grep in scripts.", false},
			{transcript.KindUnknown, cx, "codex.api_request unmapped", false},
			{transcript.KindUnknown, cx, "codex.tool_decision unmapped", false},
			{transcript.KindToolCall, cx, `shell {"command":["rg","-n","grep","scripts"],"workdir":"/home/dev/tools"}`, false},
			{transcript.KindToolResult, cx, "scripts/find.sh:3:grep -rn TODO src", true},
			{transcript.KindAssistantTurn, cx, "gpt-5-codex", false},
			{transcript.KindUnknown, cx, "codex.sse_event unmapped", false},
		}},
		{"hand-made/sessions/gemini-cli.jsonl", []summary{
			{transcript.KindSessionStart, gm, "0.8.2 gemini-2.5-pro", false},
			{transcript.KindUserTurn, gm, "Never add a dependency for date formatting.", false},
			{transcript.KindAssistantTurn, gm, "gemini-2.5-pro", false},
			{transcript.KindToolCall, gm, `replace {"file_path":"/home/dev/site/src/date.ts","old_string":"moment(d).format('L')","new_string":"new Intl.DateTimeFormat().format(d)"}`, false},
			{transcript.KindToolResult, gm, "", true},
			{transcript.KindUnknown, gm, "gemini_cli.file_operation unmapped", false},
		}},
		{"hand-made/sessions/copilot-chat.jsonl", []summary{
			{transcript.KindSessionStart, chat, "0.33.2 gpt-4.1", false},
			{transcript.KindSessionStart, window, "0.33.2 gpt-4.1", true},
			{transcript.KindUserTurn, window, "We use pnpm in this repo, never npm. Add zod to the web package.", false},
			{transcript.KindAssistantTurn, window, "gpt-4.1-2025-04-14", false},
			{transcript.KindToolCall, window, "run_in_terminal ", false},
			{transcript.KindToolResult, window, "", true},
			{transcript.KindToolCall, window, "replace_string_in_file ", false},
			{transcript.KindToolResult, window, "FileNotFoundError", false},
			{transcript.KindUnknown, window, "copilot_chat.agent.turn unmapped", false},
			{transcript.KindAssistantTurn, window, "gpt-4.1-2025-04-14", false},
			{transcript.KindUnknown, window, "gen_ai.client.inference.operation.details unmapped", false},
			{transcript.KindUnknown, window, "copilot_chat.edit.feedback unmapped", false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			evs := transcripttest.ParseFile(t, New(), fixtureDir, tt.file)
			if diff := cmp.Diff(tt.want, summarize(evs)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
	// Token counts, by each agent's names.
	usage := func(file string) []transcript.Usage {
		var out []transcript.Usage
		for _, e := range transcripttest.OfKind(transcripttest.ParseFile(t, New(), fixtureDir, file), transcript.KindAssistantTurn) {
			if e.AssistantTurn.Usage != nil {
				out = append(out, *e.AssistantTurn.Usage)
			}
		}
		return out
	}
	wantUsage := map[string][]transcript.Usage{
		"hand-made/sessions/claude-code.jsonl":  {{InputTokens: 1200, OutputTokens: 340, CacheReadTokens: 5000}},
		"hand-made/sessions/codex.jsonl":        {{InputTokens: 2100, OutputTokens: 120, CacheReadTokens: 1800, ReasoningTokens: 64}},
		"hand-made/sessions/gemini-cli.jsonl":   {{InputTokens: 3100, OutputTokens: 210, ReasoningTokens: 88}},
		"hand-made/sessions/copilot-chat.jsonl": {{InputTokens: 9812, OutputTokens: 118}, {InputTokens: 10240, OutputTokens: 64}},
	}
	for file, want := range wantUsage {
		if diff := cmp.Diff(want, usage(file)); diff != "" {
			t.Errorf("%s usage (-want +got):\n%s", file, diff)
		}
	}
}

// TestNotARecord: a line that is not a kept record is unknown, and not
// fingerprinted as this tool's.
func TestNotARecord(t *testing.T) {
	ctx := transcript.NewContext(transcript.OTLP, "x.jsonl")
	for _, line := range []string{`{"type":"user"}`, `{"otlp":"span"}`, `[1]`, `{"otlp":`} {
		rec := transcript.Record{File: "x.jsonl", Data: []byte(line)}
		if v := New().Fingerprint(rec); v.Schema != "" {
			t.Errorf("%s fingerprinted as %s", line, v.Schema)
		}
		evs := New().Parse(rec, ctx)
		if len(evs) != 1 || evs[0].Kind != transcript.KindUnknown {
			t.Errorf("%s: %+v", line, evs)
		}
	}
	rec := transcript.Record{Data: []byte(`{"otlp":"log","service_version":"1.2"}`)}
	if v := New().Fingerprint(rec); v.Schema != Schema || v.ToolVersion != "1.2" {
		t.Errorf("record fingerprinted %+v", v)
	}
}

// TestSessionFromFile: a record that names no session belongs to the
// session its file names.
func TestSessionFromFile(t *testing.T) {
	ctx := transcript.NewContext(transcript.OTLP, "otlp/agent/no-session.jsonl")
	evs := New().Parse(transcript.Record{File: "otlp/agent/no-session.jsonl", Data: []byte(`{"otlp":"log","event":"agent.user_prompt","attributes":{"prompt":"hi"}}`)}, ctx)
	if len(evs) != 2 || evs[0].SessionID != "no-session" || evs[1].UserTurn.Text != "hi" {
		t.Fatalf("%+v", evs)
	}
}

// TestDiscover lists <state>/otlp/<service>/<session>.jsonl under
// CORTEX_HOME, else ~/.cortex, and says what it passed over.
func TestDiscover(t *testing.T) {
	home, state := t.TempDir(), t.TempDir()
	for _, root := range []string{filepath.Join(home, ".cortex", "otlp"), filepath.Join(state, "otlp")} {
		transcripttest.WriteFile(t, root, "claude-code/s1.jsonl", "{}\n")
		transcripttest.WriteFile(t, root, "codex_cli_rs/s2.jsonl", "{}\n")
		transcripttest.WriteFile(t, root, "codex_cli_rs/notes.txt", "x")
		transcripttest.WriteFile(t, root, "codex_cli_rs/deeper/s3.jsonl", "{}\n")
		transcripttest.WriteFile(t, root, "stray.jsonl", "{}\n")
	}
	for _, tt := range []struct {
		name string
		env  map[string]string
		base string
		from string
	}{
		{"default", nil, filepath.Join(home, ".cortex", "otlp"), "default"},
		{"CORTEX_HOME", map[string]string{EnvHome: state}, filepath.Join(state, "otlp"), EnvHome},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := New().Discover(transcripttest.Env(home, tt.env))
			files, skipped := transcripttest.Listed(d, tt.base)
			if diff := cmp.Diff([]string{"claude-code/s1.jsonl session s1", "codex_cli_rs/s2.jsonl session s2"}, files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"codex_cli_rs/deeper: a folder inside a service's folder", "codex_cli_rs/notes.txt: not a session's records", "stray.jsonl: not a service's folder"}, skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			if len(d.Roots) != 1 || d.Roots[0].From != tt.from {
				t.Errorf("roots %+v, files %+v", d.Roots, d.Files)
			}
		})
	}
	if d := New().Discover(transcript.Env{}); len(d.Skipped) != 1 || d.Skipped[0].Reason != "no home folder" {
		t.Errorf("no home: %+v", d)
	}
}

// FuzzParse: any bytes, read as a kept session, keep every invariant.
func FuzzParse(f *testing.F) {
	transcripttest.Seeds(f, fixtures(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		transcripttest.Fuzz(t, New(), data)
	})
}
