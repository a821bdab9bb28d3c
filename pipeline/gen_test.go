package pipeline

import (
	"fmt"
	"time"

	"github.com/cortexmem/cortex/transcript"
)

// byteSource hands out the bytes of a fuzz input (zero once they run out).
type byteSource struct {
	data []byte
	i    int
}

func (b *byteSource) next() int {
	if b.i >= len(b.data) {
		return 0
	}
	b.i++
	return int(b.data[b.i-1])
}

func (b *byteSource) done() bool { return b.i >= len(b.data) }

// Fake credentials of shapes the security package's rules know; none is live.
const (
	fakeGitHubPAT = "ghp_R7hK2mQ9xL4vT8nB3cW6yF1jD5sA0pE2gU9z"
	fakeAWSKeyID  = "AKIAQ3EGUSX7NW5KZLPT"
	fakeStripeKey = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
)

// genTexts are what generated people type: with markers, questions, code,
// secrets, and none.
var genTexts = []string{
	"Use SQLite for the cache.",
	"Actually, use Redis instead of SQLite.",
	"Never use lodash. No new dependencies.",
	"Should we use Postgres?",
	"Fix the flaky test.",
	"From now on, run gofmt. The key is " + fakeAWSKeyID + " and export GITHUB_TOKEN=" + fakeGitHubPAT,
	"```\nmust\n```",
	"Let's go with option B rather than option A.",
	"",
}

// genStream builds an event stream from src: up to three sessions, turns,
// tool calls with results and edits (some failing), rewinds by id and by
// turns, in-place rewrites, compactions, sidechains, and timestamps that
// mostly move forward (sometimes missing, sometimes back, sometimes an hour
// later).
func genStream(src *byteSource, max int) []transcript.Event {
	var evs []transcript.Event
	seq := map[string]uint64{}
	t := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	var ids []string
	calls := 0
	for n := 0; n < max && !src.done(); n++ {
		op := src.next()
		session := fmt.Sprintf("s%d", src.next()%3)
		switch src.next() % 8 {
		case 0:
			t = t.Add(-time.Minute)
		case 1:
			t = t.Add(time.Hour)
		default:
			t = t.Add(time.Duration(src.next()) * time.Second)
		}
		ts := t.Format(time.RFC3339Nano)
		if src.next()%10 == 0 {
			ts = ""
		}
		e := transcript.Event{
			SchemaVersion: transcript.SchemaVersion,
			Source:        transcript.ClaudeCode,
			SessionID:     session,
			Seq:           seq[session],
			EventID:       fmt.Sprintf("e%d", len(evs)),
			Timestamp:     ts,
			Project:       transcript.Project{Cwd: "/w", GitBranch: "main"},
			Sidechain:     src.next()%7 == 0,
		}
		seq[session]++
		pick := func() string {
			if len(ids) == 0 {
				return "missing"
			}
			return ids[src.next()%len(ids)]
		}
		switch op % 9 {
		case 0, 1:
			e.Kind = transcript.KindUserTurn
			e.UserTurn = &transcript.UserTurn{Text: genTexts[src.next()%len(genTexts)]}
			if src.next()%5 == 0 {
				e.UserTurn.Meta = transcript.MetaInjected
			}
		case 2:
			e.Kind = transcript.KindAssistantTurn
			e.AssistantTurn = &transcript.AssistantTurn{Text: genTexts[src.next()%len(genTexts)]}
		case 3:
			calls++
			e.Kind = transcript.KindToolCall
			e.ToolCall = &transcript.ToolCall{CallID: fmt.Sprintf("c%d", calls), Name: "Bash"}
		case 4:
			e.Kind = transcript.KindToolResult
			e.ToolResult = &transcript.ToolResult{CallID: fmt.Sprintf("c%d", src.next()%(calls+1)), OK: src.next()%4 != 0}
		case 5, 6:
			e.Kind = transcript.KindFileEdit
			e.FileEdit = &transcript.FileEdit{
				CallID: fmt.Sprintf("c%d", src.next()%(calls+1)), Tool: "Edit", Path: fmt.Sprintf("/w/f%d.go", src.next()%4),
				Op: transcript.OpUpdate, OK: src.next()%5 != 0, Unified: "--- a\n+++ a\n@@ -1 +1 @@\n-x\n+stripe = \"" + fakeStripeKey + "\"\n",
				Added: 1, Removed: 1, From: transcript.FromToolPatch,
			}
		case 7:
			e.Kind = transcript.KindRewind
			e.Rewind = &transcript.Rewind{}
			switch src.next() % 3 {
			case 0:
				e.Rewind.To = pick()
			case 1:
				e.Rewind.Dropped = pick()
			default:
				e.Rewind.Turns = src.next() % 3
			}
		case 8:
			if src.next()%2 == 0 {
				e.Kind = transcript.KindCompaction
				e.Compaction = &transcript.Compaction{Trigger: "auto"}
			} else {
				e.Kind = transcript.KindUserTurn
				e.UserTurn = &transcript.UserTurn{Text: genTexts[src.next()%len(genTexts)]}
				e.Replaces = pick()
			}
		}
		ids = append(ids, e.EventID)
		evs = append(evs, e)
	}
	return evs
}
