package bench

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/adapters"
	"github.com/cortexmem/cortex/transcript"
)

func sampleConversation(tool transcript.SourceKind) *Conversation {
	return &Conversation{
		Tool: tool, Session: "0a1b2c3d-1111-4222-8333-444455556666", Cwd: "/home/dev/work/webapp", Branch: "main",
		Start: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC),
		Turns: []Turn{
			{User: "Why does the login test fail on CI?", Steps: []Step{
				{Text: "Let me run it."},
				{Shell: "npm test -- login", Output: "FAIL src/login.test.ts: expected 200, got 401", Failed: true},
				{Read: "/home/dev/work/webapp/src/login.ts", Output: "export const tz = 'UTC'"},
				{Edit: "/home/dev/work/webapp/src/login.ts", Old: "export const tz = 'UTC'", New: "export const tz = process.env.TZ"},
				{Text: "The test assumed UTC; it now reads TZ."},
			}},
			{User: "Thanks, now run the whole suite", Steps: []Step{{Shell: "npm test", Output: "42 passed"}, {Text: "All 42 pass."}}},
		},
	}
}

// TestWrittenSessionsParse writes a session in each tool's format and reads
// it back with the tool's adapter: the turns, replies, tool calls, failed
// results and edits come out as written, and nothing is unknown for a
// reason other than being metadata.
func TestWrittenSessionsParse(t *testing.T) {
	for _, tool := range []transcript.SourceKind{transcript.ClaudeCode, transcript.Codex, transcript.GeminiCLI} {
		t.Run(string(tool), func(t *testing.T) {
			c := sampleConversation(tool)
			var b bytes.Buffer
			if err := WriteSession(&b, c); err != nil {
				t.Fatal(err)
			}
			path := SessionPath("/home/dev", c)
			ad, err := adapters.DetectFile(path, b.Bytes())
			if err != nil || ad.Source() != tool {
				t.Fatalf("detected %v %v, want %s", ad, err, tool)
			}
			if rep := transcript.Verify(ad, path, b.Bytes(), transcript.VerifyOptions{}); !rep.OK() {
				t.Fatalf("invariants: %v", rep.Violations)
			}
			evs, _ := transcript.ParseBytes(ad, path, b.Bytes(), true)
			var users, replies, calls, edits, failed []string
			for _, e := range evs {
				switch e.Kind {
				case transcript.KindUserTurn:
					if e.UserTurn.Meta == "" {
						users = append(users, e.UserTurn.Text)
					}
				case transcript.KindAssistantTurn:
					if e.AssistantTurn.Text != "" {
						replies = append(replies, e.AssistantTurn.Text)
					}
				case transcript.KindToolCall:
					calls = append(calls, e.ToolCall.Name)
				case transcript.KindFileEdit:
					edits = append(edits, e.FileEdit.Path)
				case transcript.KindToolResult:
					if !e.ToolResult.OK {
						failed = append(failed, e.ToolResult.Text)
					}
				case transcript.KindUnknown:
					if r := e.Unknown.Reason; r != transcript.ReasonUnmapped && r != transcript.ReasonDuplicate {
						t.Errorf("line %d: unknown, %s (%s)", e.Provenance.Line, r, e.Unknown.RawType)
					}
				}
				if e.SessionID != c.Session {
					t.Errorf("line %d: session %q", e.Provenance.Line, e.SessionID)
				}
			}
			if diff := cmp.Diff([]string{c.Turns[0].User, c.Turns[1].User}, users); diff != "" {
				t.Errorf("turns (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff([]string{"Let me run it.", "The test assumed UTC; it now reads TZ.", "All 42 pass."}, replies); diff != "" {
				t.Errorf("replies (-want +got)\n%s", diff)
			}
			if len(calls) != 4 {
				t.Errorf("tool calls %v, want 4", calls)
			}
			if diff := cmp.Diff([]string{"/home/dev/work/webapp/src/login.ts"}, edits); diff != "" {
				t.Errorf("edits (-want +got)\n%s", diff)
			}
			if len(failed) != 1 || !strings.Contains(failed[0], "expected 200, got 401") {
				t.Errorf("failed results %q", failed)
			}
			if filepath.Base(filepath.Dir(path)) == "" {
				t.Errorf("path %s", path)
			}
		})
	}
}

var update = flag.Bool("update", false, "rewrite the evaluation corpus from its conversations")

// evalCorpus is the transcript retrieval dataset's corpus: the
// conversations, and the sessions written from them.
const evalCorpus = "../fixtures/eval/transcripts"

// TestEvalCorpus checks that the evaluation corpus's sessions are what the
// writer makes of its conversations (-update writes them).
func TestEvalCorpus(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(evalCorpus, "conversations.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Conversations []Conversation `json:"conversations"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(evalCorpus, "home")
	want := map[string]bool{}
	for i := range file.Conversations {
		c := &file.Conversations[i]
		var b bytes.Buffer
		if err := WriteSession(&b, c); err != nil {
			t.Fatal(err)
		}
		p := SessionPath(home, c)
		want[p] = true
		if *update {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%v (go test ./bench -run EvalCorpus -update writes it)", err)
			continue
		}
		if !bytes.Equal(got, b.Bytes()) {
			t.Errorf("%s is not what its conversation writes (go test ./bench -run EvalCorpus -update)", p)
		}
	}
	err = filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !want[p] {
			t.Errorf("%s: no conversation writes it", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
