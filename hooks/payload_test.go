package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fixtureDir holds the payloads the real clients sent (see its README).
const fixtureDir = "../fixtures/hooks"

// fixture is one recorded payload.
type fixture struct {
	client Client
	path   string // relative to fixtureDir
	event  string // the client's event name, from the file name
}

// fixtures lists every recorded payload, in firing order per scenario.
func fixtures(t testing.TB) []fixture {
	t.Helper()
	var out []fixture
	for _, c := range []struct {
		client Client
		dir    string
	}{{ClaudeCode, "claude-code"}, {Codex, "codex"}, {GeminiCLI, "gemini-cli"}} {
		files, err := filepath.Glob(filepath.Join(fixtureDir, c.dir, "*", "*", "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			rel, _ := filepath.Rel(fixtureDir, f)
			name := strings.TrimSuffix(filepath.Base(f), ".json")
			out = append(out, fixture{client: c.client, path: rel, event: name[strings.LastIndex(name, "-")+1:]})
		}
	}
	if len(out) < 100 {
		t.Fatalf("only %d payload fixtures in %s", len(out), fixtureDir)
	}
	return out
}

func readFixture(t testing.TB, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Every recorded payload parses, names its session, folder and event, and
// the event is one cortex handles.
func TestParsePayloadFixtures(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.path, func(t *testing.T) {
			p, err := ParsePayload(readFixture(t, f.path))
			if err != nil {
				t.Fatal(err)
			}
			if p.SessionID == "" || p.Cwd != "/home/dev/work/demo-project" || p.HookEventName != f.event {
				t.Errorf("payload = session %q, cwd %q, event %q", p.SessionID, p.Cwd, p.HookEventName)
			}
			null := strings.Contains(f.path, "null_transcript")
			if null != (p.Transcript == "") {
				t.Errorf("transcript %q", p.Transcript)
			}
			if _, err := ParseEvent(f.event); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestParsePayload(t *testing.T) {
	tests := []struct {
		name, in string
		want     Payload
	}{
		{"empty", "  \n", Payload{}},
		{"claude pre-compact", `{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/w","hook_event_name":"PreCompact","trigger":"manual","custom_instructions":"keep 42"}`,
			Payload{SessionID: "s", Transcript: "/t.jsonl", Cwd: "/w", HookEventName: "PreCompact", Trigger: "manual"}},
		{"null transcript", `{"session_id":"s","transcript_path":null}`, Payload{SessionID: "s"}},
		{"cursor", `{"conversation_id":"c1","workspace_roots":["/w/a","/w/b"],"hook_event_name":"sessionStart"}`,
			Payload{SessionID: "c1", Cwd: "/w/a", HookEventName: "sessionStart"}},
		{"wrong types are ignored", `{"session_id":7,"cwd":["x"],"source":{"a":1},"prompt":"hi","reason":null,"extra":{"deep":[1,2]}}`,
			Payload{Prompt: "hi"}},
		{"unknown fields", `{"session_id":"s","new_field_2027":"x","hook_event_name":"SessionEnd","reason":"exit"}`,
			Payload{SessionID: "s", HookEventName: "SessionEnd", Reason: "exit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePayload([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(*got, tt.want, cmpopts.IgnoreFields(Payload{}, "Raw")); diff != "" {
				t.Errorf("(-got +want):\n%s", diff)
			}
			if string(got.Raw) != strings.TrimSpace(tt.in) {
				t.Errorf("Raw = %q", got.Raw)
			}
		})
	}
	for _, bad := range []string{"[1,2]", "null", `"text"`, "{", "plain words", "{\"a\":\"\xff\"}"} {
		if _, err := ParsePayload([]byte(bad)); err == nil {
			t.Errorf("ParsePayload(%q) took it", bad)
		}
	}
}

func FuzzParsePayload(f *testing.F) {
	for _, fx := range fixtures(f)[:10] {
		f.Add(readFixture(f, fx.path))
	}
	f.Add([]byte(`{"workspace_roots":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePayload(data)
		if err != nil {
			return
		}
		if len(p.Raw) > len(data) {
			t.Fatalf("Raw grew: %q", p.Raw)
		}
	})
}
