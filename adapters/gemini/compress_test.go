package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
)

// Records of a chat file, in 0.61.0's shapes, for the compression tests.
const (
	ccHeader = `{"sessionId":"7c9e6679-7425-40de-944b-e07fc1f90ae7","projectHash":"0fd39519d56fce64caaa383ff166b9f2ed276b818091d74edd33e9077b9373a8","startTime":"2026-11-23T11:00:00.000Z","lastUpdated":"2026-11-23T11:00:00.000Z","kind":"main"}`
	ccTime   = "2026-11-23T11:00:00.000Z"
)

// ccMsg is a message record: type user or gemini, its text.
func ccMsg(id, typ, text string) string {
	m := map[string]any{"id": id, "timestamp": ccTime, "type": typ, "content": []map[string]string{{"text": text}}}
	if typ == "gemini" {
		m["content"] = text
		m["model"] = "gemini-3.1-pro-preview"
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// ccSet is a checkpoint holding the messages.
func ccSet(msgs ...string) string { return `{"$set":{"messages":[` + strings.Join(msgs, ",") + `]}}` }

// TestCompressionByStructure: a compression is told by what the checkpoint
// does — it leaves out turns the conversation held and brings a user message
// never read — not by the words the model wrote in the summary. A prompt the
// person typed stays a prompt whatever it starts with; a resume that leaves
// prompts out, and a first load of a conversation, are no compressions.
func TestCompressionByStructure(t *testing.T) {
	ctx := ccMsg("c0", "user", "<session_context>\nThis is the Gemini CLI.\n- **Workspace Directories:**\n  - /home/dev/work/demo-project\n</session_context>")
	prompt := ccMsg("p1", "user", "Use MySQL for the store.")
	reply := ccMsg("r1", "gemini", "Switching the store to MySQL.")
	thanks := ccMsg("p2", "user", "Thanks, that's all.")
	welcome := ccMsg("r2", "gemini", "You're welcome.")
	ack := ccMsg("a1", "gemini", "Got it. Thanks for the additional context!")
	history := []string{ccHeader, ccSet(ctx), prompt, reply, thanks, welcome}
	type ev struct{ Kind, Text string }
	tests := []struct {
		name  string
		lines []string
		want  []ev // the events of the last record
	}{
		{"summary in prose", append(history, ccSet(ccMsg("s1", "user", "The user chose MySQL for the store; db.go was changed."), ack, thanks, welcome)),
			[]ev{{"compaction", "The user chose MySQL for the store; db.go was changed."}, {"assistant_turn", "Got it. Thanks for the additional context!"}}},
		{"summary after a preamble", append(history, ccSet(ccMsg("s1", "user", "Here is the snapshot.\n<state_snapshot>use MySQL</state_snapshot>"), ack)),
			[]ev{{"compaction", "Here is the snapshot.\n<state_snapshot>use MySQL</state_snapshot>"}, {"assistant_turn", "Got it. Thanks for the additional context!"}}},
		{"session context kept first", append(history, ccSet(ctx, ccMsg("s1", "user", "Summary: MySQL is the store."), ack, thanks, welcome)),
			[]ev{{"compaction", "Summary: MySQL is the store."}, {"assistant_turn", "Got it. Thanks for the additional context!"}}},
		{"a prompt that starts like a snapshot", append(history, ccMsg("p3", "user", "<state_snapshot> is the tag the CLI uses; use it in the docs.")),
			[]ev{{"user_turn", "<state_snapshot> is the tag the CLI uses; use it in the docs."}}},
		{"a resume that leaves the prompts out", append(history, ccSet(ctx, reply, welcome)), nil},
		{"a first load", []string{ccHeader, ccSet(ctx, prompt, reply)},
			[]ev{{"user_turn", "<session_context>"}, {"user_turn", "Use MySQL for the store."}, {"assistant_turn", "Switching the store to MySQL."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(strings.Join(tt.lines, "\n") + "\n")
			evs, _ := transcript.ParseBytes(New(), "session-2026-11-23T11-00-7c9e6679.jsonl", data, true)
			var got []ev
			for _, e := range evs {
				if e.Provenance.Line != len(tt.lines) {
					continue
				}
				switch {
				case e.Compaction != nil:
					got = append(got, ev{string(e.Kind), e.Compaction.Summary})
				case e.UserTurn != nil:
					text, _, _ := strings.Cut(e.UserTurn.Text, "\n")
					if e.UserTurn.Meta == "" {
						text = e.UserTurn.Text
					}
					got = append(got, ev{string(e.Kind), text})
				case e.AssistantTurn != nil:
					got = append(got, ev{string(e.Kind), e.AssistantTurn.Text})
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events of the last record (-want +got):\n%s", diff)
			}
		})
	}
}
