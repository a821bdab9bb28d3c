package pipeline

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
)

// stream builds a one-session event stream for tests: each helper appends an
// event at a clock time ("10:01:30") on 2026-11-22.
type stream struct {
	events  []transcript.Event
	session string
}

func newStream() *stream { return &stream{session: "s1"} }

func (s *stream) add(at string, kind transcript.Kind, fill func(*transcript.Event)) string {
	e := transcript.Event{
		SchemaVersion: transcript.SchemaVersion,
		Source:        transcript.ClaudeCode,
		SessionID:     s.session,
		Seq:           uint64(len(s.events)),
		EventID:       fmt.Sprintf("e%d", len(s.events)),
		Kind:          kind,
		Project:       transcript.Project{Cwd: "/w", GitSHA: "abc123"},
	}
	if at != "" {
		e.Timestamp = "2026-11-22T" + at + "Z"
	}
	fill(&e)
	s.events = append(s.events, e)
	return e.EventID
}

func (s *stream) user(at, text string) string {
	return s.add(at, transcript.KindUserTurn, func(e *transcript.Event) { e.UserTurn = &transcript.UserTurn{Text: text} })
}

func (s *stream) assistant(at, text string) string {
	return s.add(at, transcript.KindAssistantTurn, func(e *transcript.Event) { e.AssistantTurn = &transcript.AssistantTurn{Text: text} })
}

func (s *stream) call(at, id string) string {
	return s.add(at, transcript.KindToolCall, func(e *transcript.Event) { e.ToolCall = &transcript.ToolCall{CallID: id, Name: "Bash"} })
}

func (s *stream) result(at, id string, ok bool) string {
	return s.add(at, transcript.KindToolResult, func(e *transcript.Event) { e.ToolResult = &transcript.ToolResult{CallID: id, OK: ok} })
}

// edit appends a call and its edit.
func (s *stream) edit(at, id, path string, ok bool) string {
	s.call(at, id)
	return s.add(at, transcript.KindFileEdit, func(e *transcript.Event) {
		e.FileEdit = &transcript.FileEdit{CallID: id, Tool: "Edit", Path: path, Op: transcript.OpUpdate, OK: ok,
			Unified: "--- " + path + "\n+++ " + path + "\n@@ -1 +1 @@\n-a\n+b\n", Added: 1, Removed: 1, From: transcript.FromToolPatch}
	})
}

// summary is a node reduced to what the tests compare.
type summary struct {
	Kind       NodeKind
	Event      string
	Superseded string `json:",omitempty"`
	Compacted  bool   `json:",omitempty"`
	Text       string `json:",omitempty"`
}

func summarize(nodes []Node) []summary {
	var out []summary
	for _, n := range nodes {
		s := summary{Kind: n.Kind, Superseded: n.Superseded, Compacted: n.Compacted}
		switch n.Kind {
		case KindConversation:
			s.Event = n.Conversation.EventID
			for _, t := range n.Conversation.Turns {
				s.Text += "|" + t.Text
			}
		case KindDecision:
			s.Event, s.Text = n.Decision.EventID, n.Decision.Epitome
		case KindEpisode:
			s.Event, s.Text = n.Episode.EventID, n.Episode.Path
		case KindBinding:
			s.Event = n.Binding.Prov.UsedEvent + "→" + n.Binding.Prov.Generated
		}
		out = append(out, s)
	}
	return out
}

func TestSegmentHappyPath(t *testing.T) {
	s := newStream()
	s.user("10:00:00", "Use Redis for the cache.")
	s.assistant("10:00:01", "On it.")
	s.edit("10:00:02", "c1", "/w/cache.go", true)
	s.assistant("10:00:03", "Done.")
	s.user("10:00:04", "Thanks, looks good.")
	s.assistant("10:00:05", "Glad to help.")
	nodes := New(WithoutRedaction()).Prepare(s.events)
	want := []summary{
		{Kind: KindConversation, Event: "e0", Text: "|Use Redis for the cache.|On it.|Done."},
		{Kind: KindDecision, Event: "e0", Text: "Use Redis for the cache."},
		{Kind: KindEpisode, Event: "e3", Text: "/w/cache.go"},
		{Kind: KindBinding, Event: "e0→e3"},
	}
	if diff := cmp.Diff(want, summarize(nodes)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	ep := nodes[2].Episode
	if ep.GitRef != "abc123" || ep.Seq != 3 || nodes[2].ID != EpisodeID("s1", "", 3, "/w/cache.go") || nodes[2].Fact != Observed {
		t.Errorf("episode %+v id %s fact %s", ep, nodes[2].ID, nodes[2].Fact)
	}
	b := nodes[3].Binding
	want3 := ProvRecord{Session: "s1", UsedEvent: "e0", UsedAt: "2026-11-22T10:00:00Z", Generated: "e3", GeneratedAt: "2026-11-22T10:00:02Z", GapSeconds: 2}
	if diff := cmp.Diff(want3, b.Prov); diff != "" || b.Decision != nodes[1].ID || b.Episode != nodes[2].ID || b.Correlation != nil {
		t.Errorf("binding %+v (-want +got prov):\n%s", b, diff)
	}
}

// TestSegmentCompactionEndsConversation: the assistant's words after a
// compaction answer the summary, not the person's decision.
func TestSegmentCompactionEndsConversation(t *testing.T) {
	s := newStream()
	s.user("10:00:00", "Use Postgres for the store.")
	s.assistant("10:00:01", "OK.")
	s.add("10:00:02", transcript.KindCompaction, func(e *transcript.Event) { e.Compaction = &transcript.Compaction{} })
	s.assistant("10:00:03", "Got it. Thanks for the additional context!")
	nodes := New(WithoutRedaction()).Prepare(s.events)
	if len(nodes) == 0 || nodes[0].Conversation == nil || len(nodes[0].Conversation.Turns) != 2 {
		t.Fatalf("conversation: %+v", summarize(nodes))
	}
}

func TestSegmentFailuresRewindsRewritesCompactions(t *testing.T) {
	tests := []struct {
		name  string
		build func(s *stream)
		want  []summary
	}{
		{"failed edit", func(s *stream) {
			s.user("10:00:00", "Use Redis.")
			s.edit("10:00:01", "c1", "/w/a.go", false)
			s.edit("10:00:02", "c2", "/w/b.go", true)
			s.result("10:00:03", "c2", false) // the result says the call failed
		}, []summary{{Kind: KindConversation, Event: "e0", Text: "|Use Redis."}, {Kind: KindDecision, Event: "e0", Text: "Use Redis."}}},
		{"rewind by dropped id", func(s *stream) {
			s.user("10:00:00", "Use SQLite.")
			s.user("10:00:10", "Actually, use Redis instead of SQLite.") // e1: abandoned
			s.edit("10:00:11", "c1", "/w/redis.go", true)                // e3: abandoned
			s.add("10:01:00", transcript.KindRewind, func(e *transcript.Event) { e.Rewind = &transcript.Rewind{To: "e0", Dropped: "e1"} })
			s.edit("10:01:01", "c2", "/w/sqlite.go", true) // binds to e0, not the abandoned e1
		}, []summary{
			{Kind: KindConversation, Event: "e0", Text: "|Use SQLite."},
			{Kind: KindConversation, Event: "e1", Superseded: SupersededRewind, Text: "|Actually, use Redis instead of SQLite."},
			{Kind: KindDecision, Event: "e0", Text: "Use SQLite."},
			{Kind: KindDecision, Event: "e1", Superseded: SupersededRewind, Text: "Actually, use Redis instead of SQLite."},
			{Kind: KindEpisode, Event: "e3", Superseded: SupersededRewind, Text: "/w/redis.go"},
			{Kind: KindEpisode, Event: "e6", Text: "/w/sqlite.go"},
			{Kind: KindBinding, Event: "e0→e6"},
		}},
		{"rewind by turns", func(s *stream) {
			s.user("10:00:00", "Use SQLite.")
			s.user("10:00:10", "Never use Redis.")
			s.user("10:00:20", "From now on, use tabs.")
			s.add("10:00:30", transcript.KindRewind, func(e *transcript.Event) { e.Rewind = &transcript.Rewind{Turns: 2} })
		}, []summary{
			{Kind: KindConversation, Event: "e0", Text: "|Use SQLite."},
			{Kind: KindConversation, Event: "e1", Superseded: SupersededRewind, Text: "|Never use Redis."},
			{Kind: KindConversation, Event: "e2", Superseded: SupersededRewind, Text: "|From now on, use tabs."},
			{Kind: KindDecision, Event: "e0", Text: "Use SQLite."},
			{Kind: KindDecision, Event: "e1", Superseded: SupersededRewind, Text: "Never use Redis."},
			{Kind: KindDecision, Event: "e2", Superseded: SupersededRewind, Text: "From now on, use tabs."},
		}},
		{"rewind to an unknown id", func(s *stream) {
			s.user("10:00:00", "Use SQLite.")
			s.add("10:00:30", transcript.KindRewind, func(e *transcript.Event) { e.Rewind = &transcript.Rewind{To: "nope"} })
		}, []summary{{Kind: KindConversation, Event: "e0", Text: "|Use SQLite."}, {Kind: KindDecision, Event: "e0", Text: "Use SQLite."}}},
		{"message rewritten in place", func(s *stream) {
			s.user("10:00:00", "Use SQLite.")
			s.assistant("10:00:01", "draft")
			s.add("10:00:02", transcript.KindAssistantTurn, func(e *transcript.Event) {
				e.AssistantTurn = &transcript.AssistantTurn{Text: "final"}
				e.Replaces = "e1"
			})
		}, []summary{{Kind: KindConversation, Event: "e0", Text: "|Use SQLite.|final"}, {Kind: KindDecision, Event: "e0", Text: "Use SQLite."}}},
		{"compaction keeps history, flagged", func(s *stream) {
			s.user("10:00:00", "Use SQLite.")
			s.edit("10:00:01", "c1", "/w/a.go", true)
			s.add("10:00:05", transcript.KindCompaction, func(e *transcript.Event) { e.Compaction = &transcript.Compaction{Trigger: "auto"} })
			s.edit("10:00:06", "c2", "/w/b.go", true)
		}, []summary{
			{Kind: KindConversation, Event: "e0", Compacted: true, Text: "|Use SQLite."},
			{Kind: KindDecision, Event: "e0", Compacted: true, Text: "Use SQLite."},
			{Kind: KindEpisode, Event: "e2", Compacted: true, Text: "/w/a.go"},
			{Kind: KindEpisode, Event: "e5", Text: "/w/b.go"},
			{Kind: KindBinding, Event: "e0→e2", Compacted: true},
			{Kind: KindBinding, Event: "e0→e5"},
		}},
		{"no marker, meta and sidechain turns", func(s *stream) {
			s.user("10:00:00", "Fix the flaky test.")
			s.add("10:00:01", transcript.KindUserTurn, func(e *transcript.Event) {
				e.UserTurn = &transcript.UserTurn{Text: "Use the hook output.", Meta: transcript.MetaInjected}
			})
			s.add("10:00:02", transcript.KindUserTurn, func(e *transcript.Event) {
				e.UserTurn = &transcript.UserTurn{Text: "Use grep to find TODOs."}
				e.Sidechain, e.AgentID = true, "a1"
			})
			s.edit("10:00:03", "c1", "/w/a.go", true)
		}, []summary{{Kind: KindEpisode, Event: "e4", Text: "/w/a.go"}}},
		{"window and clock", func(s *stream) {
			s.user("10:00:00", "Use SQLite.")
			s.edit("10:30:00", "c1", "/w/in.go", true)  // exactly 30 minutes: bound
			s.edit("10:30:01", "c2", "/w/out.go", true) // later: not
			s.user("11:00:00", "Use Redis.")
			s.edit("10:59:00", "c3", "/w/skew.go", true) // a clock going back: not
			s.edit("", "c4", "/w/notime.go", true)       // no time: the last one, 10:59, still before the decision
		}, []summary{
			{Kind: KindConversation, Event: "e0", Text: "|Use SQLite."},
			{Kind: KindConversation, Event: "e5", Text: "|Use Redis."},
			{Kind: KindDecision, Event: "e0", Text: "Use SQLite."},
			{Kind: KindDecision, Event: "e5", Text: "Use Redis."},
			{Kind: KindEpisode, Event: "e2", Text: "/w/in.go"},
			{Kind: KindEpisode, Event: "e4", Text: "/w/out.go"},
			{Kind: KindEpisode, Event: "e7", Text: "/w/skew.go"},
			{Kind: KindEpisode, Event: "e9", Text: "/w/notime.go"},
			{Kind: KindBinding, Event: "e0→e2"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStream()
			tt.build(s)
			nodes := New(WithoutRedaction()).Prepare(s.events)
			if diff := cmp.Diff(tt.want, summarize(nodes)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if err := checkNodes(s.events, nodes); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestCorrelationByHand checks the figures of a decision that binds two
// episodes against values worked out by hand. The session's actions: a call
// before any decision (c0); decision D; two edits (e1, e2) and a call (c1)
// under D; decision D2; an edit (e3) and a call (c2) under D2; a call an
// hour later (c3), under nothing. For D: A = 2 (e1, e2), B = 1 (c1), C = 1
// (e3), D = 3 (c0, c2, c3); N = 7.
//
//	support    = 2/7                                  = 0.285714
//	confidence = 2/3                                  = 0.666667
//	lift       = (2/3) / (3/7) = 14/9                 = 1.555556
//	phi        = (2·3 − 1·1) / √(3·4·3·4) = 5/12      = 0.416667
//	p          = P(X ≥ 2), X ~ Hypergeometric(N=7, K=3, n=3)
//	           = [C(3,2)·C(4,1) + C(3,3)·C(4,0)] / C(7,3) = 13/35 = 0.371429
func TestCorrelationByHand(t *testing.T) {
	s := newStream()
	s.call("09:59:00", "c0")
	s.user("10:00:00", "Use Redis for the cache.")
	s.edit("10:01:00", "e1", "/w/a.go", true)
	s.edit("10:02:00", "e2", "/w/b.go", true)
	s.call("10:03:00", "c1")
	s.user("10:10:00", "Switch to zap for logging.")
	s.edit("10:11:00", "e3", "/w/log.go", true)
	s.call("10:12:00", "c2")
	s.call("11:30:00", "c3")
	var got []*Correlation
	for _, n := range New(WithoutRedaction()).Prepare(s.events) {
		if n.Binding != nil {
			got = append(got, n.Binding.Correlation)
		}
	}
	want := &Correlation{A: 2, B: 1, C: 1, D: 3, Support: 0.285714, Confidence: 0.666667, Lift: 1.555556, Phi: 0.416667, P: 0.371429}
	if diff := cmp.Diff([]*Correlation{want, want, nil}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFisherGreater(t *testing.T) {
	tests := []struct {
		a, b, c, d int
		want       float64
	}{
		{2, 1, 1, 3, 13.0 / 35},
		{3, 0, 0, 3, 1.0 / 20}, // the most extreme table of N=6, n=K=3
		{0, 3, 3, 0, 1},        // the least: every table is as extreme or more
		{1, 0, 0, 0, 1},
		{5, 0, 0, 5, 1.0 / 252}, // C(10,5) = 252
	}
	for _, tt := range tests {
		if got := fisherGreater(tt.a, tt.b, tt.c, tt.d); round6(got) != round6(tt.want) {
			t.Errorf("fisherGreater(%d,%d,%d,%d) = %v, want %v", tt.a, tt.b, tt.c, tt.d, got, tt.want)
		}
	}
}
