package inbox

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func sampleEvent() *Event {
	return &Event{
		ID: "01jn0000000000000000000001", Type: TypeStop, Time: time.Date(2026, 11, 22, 4, 7, 4, 123456789, time.UTC),
		Origin: OriginHook, Client: "codex", Hook: "Stop", Session: "01a2016f-a952-7792-819c-21ee528dd237", Project: "demo-project",
		Tags: []string{"a", "b"}, Transcript: "/home/dev/.codex/sessions/rollout.jsonl", TranscriptSize: 4096, Cwd: "/home/dev/work/demo-project",
		Trigger: "manual", Reason: "exit", Body: `{"session_id":"s"}`,
	}
}

func TestMarshalParseRoundTrip(t *testing.T) {
	bodies := []struct{ name, body string }{
		{"json payload", `{"session_id":"s","transcript_path":null}`},
		{"empty", ""},
		{"markdown with a rule and the heading", "# Meeting\n\n---\n\n## Raw Content\n\n- [ ] call Bob\n"},
		{"trailing newlines kept", "text\n\n\n"},
		{"leading newline", "\nstarts blank"},
		{"unicode", "Réunion 会议 — ✓ 🎉"},
		{"frontmatter lookalike", "---\nid: fake\n---\n"},
		{"windows line ends", "a\r\nb\r\n"},
	}
	for _, tt := range bodies {
		t.Run(tt.name, func(t *testing.T) {
			ev := sampleEvent()
			ev.Body = tt.body
			data, err := ev.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(data)
			if err != nil {
				t.Fatalf("Parse: %v\n%s", err, data)
			}
			if diff := cmp.Diff(got, ev); diff != "" {
				t.Errorf("round trip (-got +want):\n%s", diff)
			}
		})
	}
}

// The file as normalize and a person read it: frontmatter keys in a fixed
// order, the body under its heading.
func TestMarshalLayout(t *testing.T) {
	ev := sampleEvent()
	ev.Tags = nil
	ev.Trigger, ev.Reason = "", ""
	data, err := ev.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `---
cortex_event: 1
id: 01jn0000000000000000000001
type: stop
timestamp: "2026-11-22T04:07:04.123456789Z"
origin: hook
client: codex
hook: Stop
session: 01a2016f-a952-7792-819c-21ee528dd237
project: demo-project
transcript: /home/dev/.codex/sessions/rollout.jsonl
transcript_size: 4096
cwd: /home/dev/work/demo-project
---

## Raw Content

{"session_id":"s"}
`
	if diff := cmp.Diff(string(data), want); diff != "" {
		t.Errorf("event file (-got +want):\n%s", diff)
	}
	// No transcript: no transcript keys at all (Codex can send null).
	ev.Transcript, ev.TranscriptSize = "", -1
	data, err = ev.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "transcript") {
		t.Errorf("an event without a transcript names one:\n%s", data)
	}
	got, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Transcript != "" || got.TranscriptSize != -1 {
		t.Errorf("transcript = %q, size %d; want none, -1", got.Transcript, got.TranscriptSize)
	}
}

func TestParseErrors(t *testing.T) {
	good := func() string {
		data, err := sampleEvent().Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}()
	tests := []struct{ name, data, want string }{
		{"empty", "", "does not start with a --- line"},
		{"no closing line", "---\nid: x\n", "no closing --- line"},
		{"later format", strings.Replace(good, "cortex_event: 1", "cortex_event: 2", 1), "format 2 is newer"},
		{"no format", strings.Replace(good, "cortex_event: 1\n", "", 1), "cortex_event is missing"},
		{"no id", strings.Replace(good, "id: 01jn0000000000000000000001\n", "", 1), "id is missing"},
		{"bad type", strings.Replace(good, "type: stop", "type: lunch", 1), `type "lunch" is not an event type`},
		{"no type", strings.Replace(good, "type: stop\n", "", 1), `type "" is not an event type`},
		{"bad time", strings.Replace(good, `"2026-11-22T04:07:04.123456789Z"`, "yesterday", 1), `timestamp "yesterday"`},
		{"no heading", strings.Replace(good, "## Raw Content", "## Body", 1), `no "## Raw Content" heading`},
		{"cut short", strings.TrimSuffix(good, "\n"), "does not end with a newline"},
		{"bad yaml", strings.Replace(good, "origin: hook", "origin: [hook", 1), "frontmatter"},
		{"invalid utf-8", good + "\xff", "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.data))
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %v, want a ParseError containing %q", err, tt.want)
			}
		})
	}
}

// Unknown keys a later cortex adds are ignored.
func TestParseUnknownKeys(t *testing.T) {
	data, err := sampleEvent().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "origin: hook\n", "origin: hook\nfuture_key: [1, 2]\n", 1))
	got, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, sampleEvent()); diff != "" {
		t.Errorf("(-got +want):\n%s", diff)
	}
}

// FuzzParse: Parse never panics, and what it reads is written back as the
// same event.
func FuzzParse(f *testing.F) {
	data, _ := sampleEvent().Marshal()
	f.Add(data)
	f.Add([]byte("---\ncortex_event: 1\nid: x\ntype: manual\ntimestamp: 2026-01-01T00:00:00Z\norigin: cli\n---\n\n## Raw Content\n\n\n"))
	f.Add([]byte("---\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := Parse(data)
		if err != nil {
			return
		}
		again, err := ev.Marshal()
		if err != nil {
			return // a value Parse took that YAML cannot write back is not an event capture writes
		}
		ev2, err := Parse(again)
		if err != nil {
			t.Fatalf("a parsed event, written again, does not parse: %v\n%q", err, again)
		}
		if diff := cmp.Diff(ev2, ev); diff != "" {
			t.Fatalf("round trip of a parsed event (-got +want):\n%s", diff)
		}
	})
}
