package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/access"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/inbox"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
)

// testVault is a vault with notes written as files (as a person's are), its
// state folder, and a runner over them.
type testVault struct {
	root, state string
	layout      config.VaultState
	svc         *memories.Service
	log         *access.Log
}

// writeNotes writes memories as notes of a new vault.
func newTestVault(t testing.TB, ms []*memories.Memory) *testVault {
	t.Helper()
	root := filepath.Join(t.TempDir(), "vault")
	for i, m := range ms {
		n, err := vault.NewNote(m)
		if err != nil {
			t.Fatal(err)
		}
		data, err := n.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, "cortex", "memories", m.Project)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("note-%05d.md", i)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	tv := &testVault{root: root, state: filepath.Join(filepath.Dir(root), "state")}
	v, err := vault.New(root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(store.Options{Vault: v, State: config.State{Home: tv.state}, LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tv.layout = st.Layout()
	tv.log = access.Open(access.Options{State: config.State{Home: tv.state}})
	tv.svc = memories.NewService(st, memories.WithAccessLog(tv.log))
	return tv
}

func (tv *testVault) runner(c Client, e Event, h config.Hooks) *Runner {
	return &Runner{
		Client: c, Event: e, Settings: h, Service: func() (*memories.Service, error) { return tv.svc, nil },
		Inbox: inbox.New(tv.layout.Inbox().Dir), Receipts: tv.layout.Receipts(), IDs: memories.NewULIDGen(nil),
	}
}

func note(id, project, title, body string, t memories.Type) *memories.Memory {
	at := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	return &memories.Memory{ID: id, Title: title, Body: body, Type: t, Project: project, Source: memories.SourceUser,
		Status: memories.StatusActive, Importance: 3, Created: at, Updated: at}
}

// additionalContext is the text a JSON hook answer hands the model.
func additionalContext(t testing.TB, out []byte) string {
	t.Helper()
	var v struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
		AdditionalContext string `json:"additional_context"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if v.AdditionalContext != "" {
		return v.AdditionalContext
	}
	return v.HookSpecificOutput.AdditionalContext
}

func TestRunSessionStart(t *testing.T) {
	tv := newTestVault(t, []*memories.Memory{
		note("01jn0000000000000000000001", "demo-project", "Use RS256 for JWTs", "HS256 shares the secret.", memories.TypeDecision),
		note("01jn0000000000000000000002", "general", "Commit messages say why", "Write the reason, not the diff.", memories.TypeConvention),
		note("01jn0000000000000000000003", "other", "Not this project", "Elsewhere.", memories.TypeFact),
	})
	payload := readFixture(t, "claude-code/2.1.197/a_qa/1795320368356476001-claude-SessionStart.json")
	res, err := tv.runner(ClaudeCode, SessionStart, config.DefaultHooks()).Run(context.Background(), payload)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != OutcomeInjected || res.Project != "demo-project" || res.Session != "a3c08cfe-24a6-4e75-a3f2-56fca97a78f2" {
		t.Fatalf("result %+v", res)
	}
	text := additionalContext(t, res.Output)
	for _, want := range []string{Header, "Use RS256 for JWTs", "> HS256 shares the secret.", "Commit messages say why"} {
		if !strings.Contains(text, want) {
			t.Errorf("briefing lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Not this project") {
		t.Errorf("another project's memory was injected:\n%s", text)
	}
	// The receipt says exactly what was injected.
	rec, path, err := LatestReceipt(tv.layout.Receipts())
	if err != nil || rec == nil {
		t.Fatalf("receipt: %v, %v", rec, err)
	}
	if rec.Text != text || rec.Used.Items != 2 || rec.Used.Chars != len([]rune(text)) || rec.Budget.Tokens != 1500 ||
		rec.Client != ClaudeCode || rec.Source != "startup" || rec.Project.Name != "demo-project" {
		t.Errorf("receipt %s: %+v", path, rec)
	}
	if !strings.Contains(res.Detail, path) {
		t.Errorf("detail %q does not name the receipt %s", res.Detail, path)
	}
	// Accesses recorded for what was injected, as session_start.
	stats, err := tv.log.Stats(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"01jn0000000000000000000001": 1, "01jn0000000000000000000002": 1}
	got := map[string]int{}
	for id, st := range stats {
		got[id] = st.Counts[memories.AccessSessionStart]
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("session_start accesses (-got +want):\n%s", diff)
	}
}

// An empty vault injects nothing: no output, no receipt.
func TestRunSessionStartNothing(t *testing.T) {
	tv := newTestVault(t, nil)
	res, err := tv.runner(GeminiCLI, SessionStart, config.DefaultHooks()).Run(context.Background(), []byte(`{"session_id":"s","cwd":"/tmp"}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != nil || res.Outcome != OutcomeNothing {
		t.Errorf("result %+v", res)
	}
	if rec, _, _ := LatestReceipt(tv.layout.Receipts()); rec != nil {
		t.Errorf("a receipt without an injection: %+v", rec)
	}
}

func TestRunPrompt(t *testing.T) {
	tv := newTestVault(t, []*memories.Memory{
		note("01jn0000000000000000000001", "demo-project", "JWT signing algorithm", "We sign JWT tokens with RS256 in production.", memories.TypeDecision),
		note("01jn0000000000000000000002", "demo-project", "Office plants", "Water the office plants on Mondays; the signing ceremony is in June.", memories.TypeFact),
	})
	payload := []byte(`{"session_id":"s","cwd":"/home/dev/work/demo-project","hook_event_name":"BeforeAgent","prompt":"Which algorithm do we use for signing JWT tokens?"}`)
	h := config.DefaultHooks()
	// Off by default.
	res, err := tv.runner(GeminiCLI, UserPromptSubmit, h).Run(context.Background(), payload)
	if err != nil || res.Output != nil || res.Outcome != OutcomeSkipped {
		t.Fatalf("prompt recall off: %+v, %v", res, err)
	}
	h.PromptRecall = true
	res, err = tv.runner(GeminiCLI, UserPromptSubmit, h).Run(context.Background(), payload)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(res.Output), `{"hookSpecificOutput":{"hookEventName":"BeforeAgent",`) {
		t.Fatalf("output %s", res.Output)
	}
	text := additionalContext(t, res.Output)
	if !strings.Contains(text, "JWT signing algorithm") || strings.Contains(text, "Office plants") {
		t.Errorf("injected:\n%s", text)
	}
	// Above any memory's coverage: nothing.
	h.PromptMinScore = 1
	res, err = tv.runner(ClaudeCode, UserPromptSubmit, h).Run(context.Background(), payload)
	if err != nil || res.Output != nil || res.Outcome != OutcomeNothing {
		t.Errorf("threshold 1: %+v, %v", res, err)
	}
	// Cursor cannot take context at a prompt.
	h.PromptMinScore = 0
	res, err = tv.runner(Cursor, UserPromptSubmit, h).Run(context.Background(), payload)
	if err != nil || res.Output != nil || res.Outcome != OutcomeSkipped {
		t.Errorf("cursor: %+v, %v", res, err)
	}
}

// pendingEvents reads the inbox's pending events, oldest first.
func pendingEvents(t testing.TB, dir string) []*inbox.Event {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, inbox.PendingDir, "*.md"))
	var out []*inbox.Event
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := inbox.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

func TestRunCapture(t *testing.T) {
	tests := []struct {
		name    string
		client  Client
		event   Event
		fixture string
		want    inbox.Event
	}{
		{"claude pre-compact", ClaudeCode, PreCompact, "claude-code/2.1.197/e_compact/1795320373206646280-claude-PreCompact.json",
			inbox.Event{Type: inbox.TypePreCompact, Client: "claude-code", Hook: "PreCompact", Session: "11111111-2222-4333-8444-555555555555",
				Transcript: "/home/dev/.claude/projects/-home-dev-work-demo-project/11111111-2222-4333-8444-555555555555.jsonl", Trigger: "manual"}},
		{"claude stop", ClaudeCode, Stop, "claude-code/2.1.197/a_qa/1795320368507235438-claude-Stop.json",
			inbox.Event{Type: inbox.TypeStop, Client: "claude-code", Hook: "Stop", Session: "a3c08cfe-24a6-4e75-a3f2-56fca97a78f2",
				Transcript: "/home/dev/.claude/projects/-home-dev-work-demo-project/a3c08cfe-24a6-4e75-a3f2-56fca97a78f2.jsonl"}},
		{"codex session end", Codex, SessionEnd, "codex/0.169.0/a_qa/1795320425009973292-codex-SessionEnd.json",
			inbox.Event{Type: inbox.TypeStop, Client: "codex", Hook: "SessionEnd", Session: "01a2016f-a952-7792-819c-21ee528dd237",
				Transcript: "/home/dev/.codex/sessions/2026/11/22/rollout-2026-11-22T04-07-04-01a2016f-a952-7792-819c-21ee528dd237.jsonl", Reason: "other"}},
		{"codex stop with a null transcript", Codex, Stop, "codex/0.169.0/derived/null_transcript-codex-Stop.json",
			inbox.Event{Type: inbox.TypeStop, Client: "codex", Hook: "Stop", Session: "01a2016f-a952-7792-819c-21ee528dd237"}},
		{"gemini pre-compress", GeminiCLI, PreCompact, "gemini-cli/0.61.0/a_qa/1795320470351663623-gemini-PreCompress.json",
			inbox.Event{Type: inbox.TypePreCompact, Client: "gemini-cli", Hook: "PreCompress", Session: "25628c7c-6385-4fcb-af7f-403f3242ed7f",
				Transcript: "/home/dev/.gemini/tmp/demo-project/chats/session-2026-11-22T04-07-25628c7c.jsonl", Trigger: "auto"}},
		{"gemini after agent", GeminiCLI, Stop, "gemini-cli/0.61.0/a_qa/1795320470613885031-gemini-AfterAgent.json",
			inbox.Event{Type: inbox.TypeStop, Client: "gemini-cli", Hook: "AfterAgent", Session: "25628c7c-6385-4fcb-af7f-403f3242ed7f",
				Transcript: "/home/dev/.gemini/tmp/demo-project/chats/session-2026-11-22T04-07-25628c7c.jsonl"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tv := newTestVault(t, nil)
			payload := readFixture(t, tt.fixture)
			res, err := tv.runner(tt.client, tt.event, config.DefaultHooks()).Run(context.Background(), payload)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != OutcomeCaptured || res.Output != nil {
				t.Fatalf("result %+v", res)
			}
			evs := pendingEvents(t, tv.layout.Inbox().Dir)
			if len(evs) != 1 {
				t.Fatalf("%d events", len(evs))
			}
			got := evs[0]
			want := tt.want
			want.ID, want.Time, want.Origin, want.Project, want.Cwd = got.ID, got.Time, inbox.OriginHook, "demo-project", "/home/dev/work/demo-project"
			want.TranscriptSize, want.Body = -1, strings.TrimSpace(string(payload))
			if diff := cmp.Diff(got, &want); diff != "" {
				t.Errorf("event (-got +want):\n%s", diff)
			}
			if res.Detail != "event "+got.ID {
				t.Errorf("detail %q", res.Detail)
			}
		})
	}
}

// Gemini CLI fires PreCompress before every model call: the firings of one
// turn give one event while it is pending.
func TestRunGeminiRepeatedPreCompress(t *testing.T) {
	tv := newTestVault(t, nil)
	files, err := filepath.Glob(filepath.Join(fixtureDir, "gemini-cli/0.61.0/b_write_edit/*-gemini-PreCompress.json"))
	if err != nil || len(files) != 3 {
		t.Fatalf("fixtures %v, %v", files, err)
	}
	var outcomes []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tv.runner(GeminiCLI, PreCompact, config.DefaultHooks()).Run(context.Background(), data)
		if err != nil {
			t.Fatal(err)
		}
		outcomes = append(outcomes, res.Outcome)
	}
	if !cmp.Equal(outcomes, []string{OutcomeCaptured, OutcomeSkipped, OutcomeSkipped}) {
		t.Errorf("outcomes %v", outcomes)
	}
	if evs := pendingEvents(t, tv.layout.Inbox().Dir); len(evs) != 1 {
		t.Errorf("%d pending events, want 1", len(evs))
	}
}

func TestRunBadInput(t *testing.T) {
	tv := newTestVault(t, nil)
	for _, in := range []string{"not json", "[1]", `{"session_id":"a\u0000b","transcript_path":"/t"}`} {
		_, err := tv.runner(ClaudeCode, Stop, config.DefaultHooks()).Run(context.Background(), []byte(in))
		if err == nil {
			t.Errorf("Run(%q) took it", in)
		}
	}
	if evs := pendingEvents(t, tv.layout.Inbox().Dir); len(evs) != 0 {
		t.Errorf("bad input wrote %d events", len(evs))
	}
}
