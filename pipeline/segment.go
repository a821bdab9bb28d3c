package pipeline

import (
	"time"

	"github.com/cortexmem/cortex/transcript"
)

// Segmentation is what Segment makes of an event stream: each event's
// standing, and the candidates the binder and Prep work on.
type Segmentation struct {
	Events []transcript.Event
	// Superseded[i] is why event i no longer stands (SupersededRewind,
	// SupersededReplaced), empty when it does.
	Superseded []string
	// Compacted[i] marks event i as summarised by a later compaction.
	Compacted []bool
	// Times[i] is event i's time: its own timestamp, else the last one
	// before it in its session; zero when there is none yet.
	Times []time.Time

	// Conversations, Decisions and Episodes are in event order; a
	// conversation and the decision it holds share an Index.
	Conversations []Item
	Decisions     []Item
	Episodes      []Item
	// Calls are the tool calls that made no episode: the other actions
	// correlation counts.
	Calls []Item
}

// Item is a candidate node and the index of the event it came from.
type Item struct {
	Node  Node
	Index int
}

type sessionKey struct {
	source  transcript.SourceKind
	session string
}

type eventKey struct {
	sessionKey
	id string
}

// Segment reads the events of one or more transcripts (each stream in file
// order; streams of one session merged in time order) and finds the
// conversation spans, decision candidates and episodes, with what rewinds,
// rewrites and compactions did to them. It is a pure function of its
// arguments.
func Segment(events []transcript.Event, gate *Gate) *Segmentation {
	seg := &Segmentation{
		Events:     events,
		Superseded: make([]string, len(events)),
		Compacted:  make([]bool, len(events)),
		Times:      make([]time.Time, len(events)),
	}
	index := make(map[eventKey]int, len(events))
	failed := map[eventKey]bool{} // tool calls whose result says they failed
	edited := map[eventKey]bool{} // tool calls that made an episode
	lastTime := map[sessionKey]time.Time{}
	for i := range events {
		e := &events[i]
		sk := sessionKey{e.Source, e.SessionID}
		if t, ok := ParseTime(e.Timestamp); ok {
			lastTime[sk] = t
		}
		seg.Times[i] = lastTime[sk]
		k := eventKey{sk, e.EventID}
		if _, dup := index[k]; !dup {
			index[k] = i
		}
		if e.ToolResult != nil && !e.ToolResult.OK && e.ToolResult.CallID != "" {
			failed[eventKey{sk, e.ToolResult.CallID}] = true
		}
	}
	seg.supersede(index)

	open := map[sessionKey]int{} // the conversation each session's assistant replies join
	for i := range events {
		e := &events[i]
		sk := sessionKey{e.Source, e.SessionID}
		switch e.Kind {
		case transcript.KindUserTurn:
			if e.UserTurn.Meta != "" || e.Sidechain {
				continue
			}
			delete(open, sk)
			if seg.Superseded[i] == SupersededReplaced {
				continue // its newer version follows and is read instead
			}
			v := gate.Check(e.UserTurn.Text)
			if !v.Admits {
				continue
			}
			open[sk] = len(seg.Conversations)
			seg.addDecision(i, v)
		case transcript.KindCompaction:
			// What the assistant says after a compaction answers the
			// summary (Gemini CLI acknowledges it), not the person.
			delete(open, sk)
		case transcript.KindAssistantTurn:
			c, ok := open[sk]
			if !ok || e.Sidechain || e.AssistantTurn.Text == "" || seg.Superseded[i] == SupersededReplaced {
				continue
			}
			conv := seg.Conversations[c].Node.Conversation
			conv.Turns = append(conv.Turns, Turn{EventID: e.EventID, Role: "assistant", Timestamp: e.Timestamp, Text: e.AssistantTurn.Text})
		case transcript.KindFileEdit:
			fe := e.FileEdit
			if !fe.OK || fe.CallID != "" && failed[eventKey{sk, fe.CallID}] {
				continue // a failed edit changed nothing
			}
			if fe.CallID != "" {
				edited[eventKey{sk, fe.CallID}] = true
			}
			seg.addEpisode(i)
		}
	}
	for i := range events {
		e := &events[i]
		if e.Kind != transcript.KindToolCall || edited[eventKey{sessionKey{e.Source, e.SessionID}, e.ToolCall.CallID}] {
			continue
		}
		seg.Calls = append(seg.Calls, Item{Node: seg.base(i, "", ""), Index: i})
	}
	return seg
}

// supersede flags the events rewinds abandoned, the messages rewritten in
// place and the ranges compactions summarised. Each session's events are
// walked through a list of their own, and a rewind skips over the events
// already flagged (a union-find "next standing event"), so a stream of n
// events takes about O(n) whatever it holds.
func (seg *Segmentation) supersede(index map[eventKey]int) {
	events := seg.Events
	sessions := map[sessionKey]*sessionEvents{}
	at := make([]int, len(events)) // each event's position in its session's list
	for i := range events {
		e := &events[i]
		sk := sessionKey{e.Source, e.SessionID}
		s := sessions[sk]
		if s == nil {
			s = &sessionEvents{}
			sessions[sk] = s
		}
		at[i] = len(s.events)
		s.events = append(s.events, i)
		s.next = append(s.next, at[i])

		if e.Replaces != "" {
			if j, ok := index[eventKey{sk, e.Replaces}]; ok && j < i && seg.Superseded[j] == "" {
				seg.Superseded[j] = SupersededReplaced
				s.next[at[j]] = at[j] + 1
			}
		}
		switch e.Kind {
		case transcript.KindUserTurn:
			if e.UserTurn.Meta == "" && !e.Sidechain {
				s.turns = append(s.turns, at[i])
			}
		case transcript.KindRewind:
			start := seg.rewindStart(e, s, index, at)
			if start < 0 {
				break
			}
			for p := s.find(start); p < at[i]; p = s.find(p) {
				seg.Superseded[s.events[p]] = SupersededRewind
				s.next[p] = p + 1
			}
			for len(s.turns) > 0 && s.turns[len(s.turns)-1] >= start {
				s.turns = s.turns[:len(s.turns)-1]
			}
		case transcript.KindCompaction:
			for p := s.compacted; p < at[i]; p++ {
				if j := s.events[p]; events[j].Kind != transcript.KindCompaction {
					seg.Compacted[j] = true
				}
			}
			s.compacted = at[i]
		}
	}
}

// sessionEvents is one session's events, for supersede.
type sessionEvents struct {
	events    []int // indices into the stream, in order
	next      []int // union-find over positions: the first standing one at or after p
	turns     []int // positions of the typed user turns no rewind abandoned, in order
	compacted int   // the positions before it are flagged compacted
}

// find returns the first position at or after p whose event stands (or the
// list's length).
func (s *sessionEvents) find(p int) int {
	root := p
	for root < len(s.next) && s.next[root] != root {
		root = s.next[root]
	}
	for p < len(s.next) && s.next[p] != p { // compress the path
		p, s.next[p] = s.next[p], root
	}
	return root
}

// rewindStart is the position in its session's list of the first event a
// rewind abandons: the one it names as dropped, else the one after the point
// it goes back to, else the Turns-th typed user turn back; -1 when it says
// nothing usable.
func (seg *Segmentation) rewindStart(e *transcript.Event, s *sessionEvents, index map[eventKey]int, at []int) int {
	sk := sessionKey{e.Source, e.SessionID}
	r := e.Rewind
	here := len(s.events) - 1 // the rewind's own position
	if r.Dropped != "" {
		if j, ok := index[eventKey{sk, r.Dropped}]; ok && at[j] < here {
			return at[j]
		}
	}
	if r.To != "" {
		if j, ok := index[eventKey{sk, r.To}]; ok && at[j] < here {
			return at[j] + 1
		}
	}
	if r.Turns > 0 {
		n := 0
		for k := len(s.turns) - 1; k >= 0; k-- {
			p := s.turns[k]
			if seg.Superseded[s.events[p]] != "" {
				continue
			}
			if n++; n == r.Turns {
				return p
			}
		}
	}
	return -1
}

// base starts the node of event i.
func (seg *Segmentation) base(i int, kind NodeKind, id string) Node {
	e := &seg.Events[i]
	return Node{
		SchemaVersion: SchemaVersion,
		Kind:          kind,
		ID:            id,
		Source:        e.Source,
		SessionID:     e.SessionID,
		Superseded:    seg.Superseded[i],
		Compacted:     seg.Compacted[i],
	}
}

func (seg *Segmentation) addDecision(i int, v Verdict) {
	e := &seg.Events[i]
	text := e.UserTurn.Text
	conv := seg.base(i, KindConversation, ConversationID(e.SessionID, e.EventID))
	conv.Fact = Observed
	conv.Conversation = &Conversation{
		EventID:    e.EventID,
		Timestamp:  e.Timestamp,
		Project:    e.Project,
		Turns:      []Turn{{EventID: e.EventID, Role: "user", Timestamp: e.Timestamp, Text: text}},
		Markers:    v.Matches,
		Provenance: e.Provenance,
	}
	seg.Conversations = append(seg.Conversations, Item{Node: conv, Index: i})

	epitome, chosen, rejected := decide(text, v)
	var cats []Category
	for _, c := range categories {
		for _, m := range v.Matches {
			if m.Category == c && m.Commits() {
				cats = append(cats, c)
				break
			}
		}
	}
	dec := seg.base(i, KindDecision, DecisionID(e.SessionID, e.EventID))
	dec.Fact = DeterministicallyDerived
	dec.Decision = &Decision{
		Conversation: conv.ID,
		EventID:      e.EventID,
		Timestamp:    e.Timestamp,
		Project:      e.Project,
		Epitome:      epitome,
		Chosen:       chosen,
		Rejected:     rejected,
		IsBan:        v.IsBan,
		Categories:   cats,
		Provenance:   e.Provenance,
	}
	seg.Decisions = append(seg.Decisions, Item{Node: dec, Index: i})
}

func (seg *Segmentation) addEpisode(i int) {
	e := &seg.Events[i]
	fe := e.FileEdit
	ep := seg.base(i, KindEpisode, EpisodeID(e.SessionID, e.AgentID, e.Seq, fe.Path))
	// A diff the tool wrote is observed; one cortex computed from the
	// content or the call's arguments is derived.
	ep.Fact = DeterministicallyDerived
	if fe.From == transcript.FromToolPatch {
		ep.Fact = Observed
	}
	ref := e.Project.GitSHA
	if ref == "" {
		ref = e.Project.GitBranch
	}
	ep.Episode = &Episode{
		EventID:    e.EventID,
		Seq:        e.Seq,
		Timestamp:  e.Timestamp,
		Project:    e.Project,
		GitRef:     ref,
		AgentID:    e.AgentID,
		Sidechain:  e.Sidechain,
		Tool:       fe.Tool,
		CallID:     fe.CallID,
		Path:       fe.Path,
		MovePath:   fe.MovePath,
		Op:         fe.Op,
		Unified:    fe.Unified,
		Added:      fe.Added,
		Removed:    fe.Removed,
		From:       fe.From,
		Fragment:   fe.Fragment,
		Provenance: e.Provenance,
	}
	seg.Episodes = append(seg.Episodes, Item{Node: ep, Index: i})
}

// ParseTime reads a transcript timestamp: RFC 3339, with or without
// fractions, with a space for the T, or without a zone (read as UTC).
func ParseTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
