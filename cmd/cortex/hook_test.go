package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/hooks"
	"github.com/cortexmem/cortex/inbox"
)

// hookFixtures holds the payloads the real clients sent (fixtures/hooks).
const hookFixtures = "../../fixtures/hooks"

// cliEnv runs the whole program in-process against a throwaway vault and
// state folder.
type cliEnv struct {
	t                    *testing.T
	dir, vault, state    string
	config               string
	env                  map[string]string
	lastStdout, lastErrs string
}

func newCLIEnv(t *testing.T) *cliEnv {
	t.Helper()
	dir := t.TempDir()
	e := &cliEnv{t: t, dir: dir, vault: filepath.Join(dir, "vault"), state: filepath.Join(dir, "state"), config: filepath.Join(dir, "config.yaml")}
	if err := os.Mkdir(e.vault, 0o700); err != nil {
		t.Fatal(err)
	}
	e.env = map[string]string{"HOME": dir, "CORTEX_VAULT": e.vault, "CORTEX_HOME": e.state, "CORTEX_CONFIG": e.config}
	return e
}

// run runs cortex with args and stdin, and returns its output and exit code.
func (e *cliEnv) run(stdin string, args ...string) (string, string, int) {
	e.t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb, func(k string) string { return e.env[k] })
	e.lastStdout, e.lastErrs = out.String(), errb.String()
	return out.String(), errb.String(), code
}

// must runs cortex and fails the test on a non-zero exit.
func (e *cliEnv) must(stdin string, args ...string) string {
	e.t.Helper()
	out, errs, code := e.run(stdin, args...)
	if code != 0 {
		e.t.Fatalf("cortex %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// seed saves memories of the fixtures' project, demo-project (the payloads'
// cwd is /home/dev/work/demo-project).
func (e *cliEnv) seed() {
	e.t.Helper()
	e.must("", "save", "--project", "demo-project", "--type", "decision", "Use RS256 to sign JWTs in production: HS256 shares the signing secret.")
	e.must("", "save", "--project", "demo-project", "--type", "fact", "The capital of France is Paris, where the client's office is.")
	e.must("", "save", "--type", "convention", "Commit messages say what changed and why, in the imperative mood.")
}

// hookLog reads the hook log's entries.
func (e *cliEnv) hookLog() []hooks.LogEntry {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.state, "hooks.log"))
	if err != nil {
		e.t.Fatal(err)
	}
	var out []hooks.LogEntry
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var le hooks.LogEntry
		if err := json.Unmarshal(line, &le); err != nil {
			e.t.Fatalf("hook log line %q: %v", line, err)
		}
		out = append(out, le)
	}
	return out
}

func (e *cliEnv) lastLog() hooks.LogEntry {
	e.t.Helper()
	l := e.hookLog()
	return l[len(l)-1]
}

// pending reads the inbox's pending events, oldest first.
func (e *cliEnv) pending() []*inbox.Event {
	e.t.Helper()
	files, err := filepath.Glob(filepath.Join(e.state, "vaults", "*", "inbox", "pending", "*.md"))
	if err != nil {
		e.t.Fatal(err)
	}
	var out []*inbox.Event
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			e.t.Fatal(err)
		}
		ev, err := inbox.Parse(data)
		if err != nil {
			e.t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

func readHookFixture(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(hookFixtures, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// firstFixture is the one payload of an event in a scenario folder.
func firstFixture(t *testing.T, dir, event string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(hookFixtures, dir, "*-"+event+".json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s payload in %s", event, dir)
	}
	rel, _ := filepath.Rel(hookFixtures, files[0])
	return rel
}

// decodeExact decodes stdout as exactly one JSON value on one line, refusing
// keys the answer should not have.
func decodeExact(t *testing.T, stdout string, v any) {
	t.Helper()
	if !strings.HasSuffix(stdout, "\n") || strings.Count(stdout, "\n") != 1 {
		t.Fatalf("stdout is not one line: %q", stdout)
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout %q: %v", stdout, err)
	}
}

// For every client and every event it has, driven by what the client really
// sent: session-start prints exactly the form the client's model receives,
// a prompt (with prompt recall on) likewise, and the events that end or
// compact a session print nothing and leave an event naming the session
// and its transcript.
func TestHookEveryClientAndEvent(t *testing.T) {
	type want struct {
		stdout    string // "json" for the hookSpecificOutput form, "cursor" for additional_context, "" for nothing
		eventName string // hookEventName of the JSON answer
		captured  inbox.Type
		skipped   bool // a repeat of a pending event
	}
	type step struct {
		event, payload string
		want           want
	}
	claude, codex, gemini := "claude-code/2.1.197/a_qa", "codex/0.169.0/a_qa", "gemini-cli/0.61.0/a_qa"
	tests := []struct {
		client string
		steps  []step
	}{
		{"claude-code", []step{
			{"session-start", firstFixture(t, claude, "SessionStart"), want{stdout: "json", eventName: "SessionStart"}},
			{"user-prompt-submit", firstFixture(t, claude, "UserPromptSubmit"), want{stdout: "json", eventName: "UserPromptSubmit"}},
			{"stop", firstFixture(t, claude, "Stop"), want{captured: inbox.TypeStop}},
			{"session-end", firstFixture(t, claude, "SessionEnd"), want{captured: inbox.TypeStop, skipped: true}},
			{"pre-compact", firstFixture(t, "claude-code/2.1.197/e_compact", "PreCompact"), want{captured: inbox.TypePreCompact}},
		}},
		{"codex", []step{
			{"session-start", firstFixture(t, codex, "SessionStart"), want{stdout: "json", eventName: "SessionStart"}},
			{"session-start", "codex/0.169.0/derived/null_transcript-codex-SessionStart.json", want{stdout: "json", eventName: "SessionStart"}},
			{"user-prompt-submit", firstFixture(t, codex, "UserPromptSubmit"), want{stdout: "json", eventName: "UserPromptSubmit"}},
			{"stop", "codex/0.169.0/derived/null_transcript-codex-Stop.json", want{captured: inbox.TypeStop}},
			{"stop", firstFixture(t, codex, "Stop"), want{captured: inbox.TypeStop}},
			{"session-end", firstFixture(t, codex, "SessionEnd"), want{captured: inbox.TypeStop, skipped: true}},
		}},
		{"gemini-cli", []step{
			{"SessionStart", firstFixture(t, gemini, "SessionStart"), want{stdout: "json", eventName: "SessionStart"}},
			{"BeforeAgent", firstFixture(t, gemini, "BeforeAgent"), want{stdout: "json", eventName: "BeforeAgent"}},
			{"PreCompress", firstFixture(t, gemini, "PreCompress"), want{captured: inbox.TypePreCompact}},
			{"AfterAgent", firstFixture(t, gemini, "AfterAgent"), want{captured: inbox.TypeStop}},
			{"SessionEnd", firstFixture(t, gemini, "SessionEnd"), want{captured: inbox.TypeStop, skipped: true}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			e := newCLIEnv(t)
			if err := os.WriteFile(e.config, []byte("hooks:\n  prompt_recall: true\n  prompt_min_score: 0.3\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			e.seed()
			for _, s := range tt.steps {
				payload := readHookFixture(t, s.payload)
				before := len(e.pending())
				start := time.Now()
				stdout, stderr, code := e.run(payload, "hook", tt.client, s.event)
				if d := time.Since(start); code != 0 || d > time.Second {
					t.Fatalf("%s: exit %d after %s\n%s", s.payload, code, d, stderr)
				}
				var p hooks.Payload
				if pp, err := hooks.ParsePayload([]byte(payload)); err == nil {
					p = *pp
				}
				log := e.lastLog()
				if log.Error != "" {
					t.Fatalf("%s: hook error %s", s.payload, log.Error)
				}
				switch s.want.stdout {
				case "json":
					var got struct {
						HookSpecificOutput struct {
							HookEventName     string `json:"hookEventName"`
							AdditionalContext string `json:"additionalContext"`
						} `json:"hookSpecificOutput"`
					}
					decodeExact(t, stdout, &got)
					h := got.HookSpecificOutput
					if h.HookEventName != s.want.eventName || !strings.HasPrefix(h.AdditionalContext, hooks.Header) {
						t.Errorf("%s: answer %q", s.payload, stdout)
					}
					wantText := "Use RS256"
					if s.want.eventName != "SessionStart" {
						wantText = "The capital of France is Paris" // the prompt asks for it
					}
					if !strings.Contains(h.AdditionalContext, wantText) {
						t.Errorf("%s: the context lacks %q:\n%s", s.payload, wantText, h.AdditionalContext)
					}
					if log.Outcome != hooks.OutcomeInjected || log.Session != p.SessionID || log.Project != "demo-project" {
						t.Errorf("%s: log %+v", s.payload, log)
					}
				case "":
					if stdout != "" {
						t.Errorf("%s: stdout %q, want nothing", s.payload, stdout)
					}
					evs := e.pending()
					if s.want.skipped {
						if len(evs) != before || log.Outcome != hooks.OutcomeSkipped {
							t.Errorf("%s: %d events (was %d), outcome %s; want the repeat skipped", s.payload, len(evs), before, log.Outcome)
						}
						continue
					}
					if len(evs) != before+1 || log.Outcome != hooks.OutcomeCaptured {
						t.Fatalf("%s: %d events (was %d), log %+v", s.payload, len(evs), before, log)
					}
					ev := evs[len(evs)-1]
					if ev.Type != s.want.captured || ev.Session != p.SessionID || ev.Transcript != p.Transcript ||
						ev.Client != tt.client || ev.Project != "demo-project" || ev.Body != strings.TrimSpace(payload) {
						t.Errorf("%s: event %+v", s.payload, ev)
					}
				}
			}
			// What status tells a person afterwards.
			out := e.must("", "status")
			for _, want := range []string{"last briefing", "receipt " + e.state, "pending, 0 failed"} {
				if !strings.Contains(out, want) {
					t.Errorf("status lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// Cursor: a hand-written payload in the shape its hooks send
// (conversation_id, workspace_roots); no recording of Cursor exists.
func TestHookCursor(t *testing.T) {
	e := newCLIEnv(t)
	e.seed()
	payload := `{"conversation_id":"c-1","generation_id":"g-1","hook_event_name":"sessionStart","workspace_roots":["/home/dev/work/demo-project"]}`
	stdout, _, code := e.run(payload, "hook", "cursor", "sessionStart")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var got struct {
		AdditionalContext string `json:"additional_context"`
	}
	decodeExact(t, stdout, &got)
	if !strings.Contains(got.AdditionalContext, "Use RS256") {
		t.Errorf("cursor context %q", got.AdditionalContext)
	}
	stdout, _, code = e.run(`{"conversation_id":"c-1","hook_event_name":"stop","workspace_roots":["/home/dev/work/demo-project"]}`, "hook", "cursor", "stop")
	if code != 0 || stdout != "" {
		t.Fatalf("stop: exit %d, %q", code, stdout)
	}
	if evs := e.pending(); len(evs) != 1 || evs[0].Session != "c-1" || evs[0].Client != "cursor" {
		t.Errorf("events %+v", evs)
	}
}

// Bad invocations are the hook's errors too: logged, exit 0, nothing on
// standard output.
func TestHookBadInvocation(t *testing.T) {
	e := newCLIEnv(t)
	for _, args := range [][]string{
		{"hook"},
		{"hook", "vim", "session-start"},
		{"hook", "claude-code", "PreToolUse"},
		{"hook", "claude-code", "stop", "extra"},
		{"hook", "claude-code", "stop", "--from-a-later-setup=1"},
	} {
		stdout, _, code := e.run("{}", args...)
		if code != 0 || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q", args, code, stdout)
		}
	}
	// A flag cortex does not know (a later setup's) is ignored: that run
	// captured its event.
	log := e.hookLog()
	var outcomes []string
	for _, l := range log {
		outcomes = append(outcomes, l.Outcome)
	}
	if diff := cmp.Diff(outcomes, []string{"error", "error", "error", "error", "captured"}); diff != "" {
		t.Errorf("outcomes (-got +want):\n%s", diff)
	}
	if !strings.Contains(log[1].Error, `client: "vim" is not a client`) || !strings.Contains(log[2].Error, `event: "PreToolUse"`) {
		t.Errorf("errors %q / %q", log[1].Error, log[2].Error)
	}
}

// panicReader panics when read: a bug anywhere in a hook's work.
type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("boom") }

func TestHookPanicIsLogged(t *testing.T) {
	e := newCLIEnv(t)
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"hook", "claude-code", "stop"}, panicReader{}, &out, &errb, func(k string) string { return e.env[k] })
	if code != 0 || out.Len() != 0 {
		t.Fatalf("exit %d, stdout %q", code, out.String())
	}
	l := e.lastLog()
	if l.Outcome != hooks.OutcomeError || !strings.Contains(l.Error, "internal error: boom") {
		t.Errorf("log %+v", l)
	}
}

// TestHookGC checks that a hook runs without the garbage collector up to
// shortLivedMemoryLimit, leaves a person's own GOGC or GOMEMLIMIT alone, and puts
// the settings back.
func TestHookGC(t *testing.T) {
	for _, tc := range []struct {
		name        string
		env         map[string]string
		wantPercent int
		wantLimit   int64
	}{
		{"untuned", nil, -1, shortLivedMemoryLimit},
		{"GOGC set", map[string]string{"GOGC": "50"}, 77, 1 << 40},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "1GiB"}, 77, 1 << 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer debug.SetGCPercent(debug.SetGCPercent(77))
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 40))
			restore := shortLivedGC(func(k string) string { return tc.env[k] })
			gotPercent, gotLimit := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)
			debug.SetGCPercent(gotPercent)
			restore()
			if gotPercent != tc.wantPercent || gotLimit != tc.wantLimit {
				t.Errorf("during the hook: GC percent %d, memory limit %d; want %d, %d", gotPercent, gotLimit, tc.wantPercent, tc.wantLimit)
			}
			if p, l := debug.SetGCPercent(77), debug.SetMemoryLimit(-1); p != 77 || l != 1<<40 {
				t.Errorf("after: GC percent %d, memory limit %d; want 77, %d", p, l, int64(1<<40))
			}
		})
	}
}
