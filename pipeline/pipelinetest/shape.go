package pipelinetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cortexmem/cortex/pipeline"
)

// Shape is what a stream of nodes means, without what the tool that wrote
// the transcript happens to record (see the package doc).
type Shape struct {
	// Kinds is the kind of every node, in order.
	Kinds         []pipeline.NodeKind
	Conversations []ConversationShape
	Decisions     []DecisionShape
	Episodes      []EpisodeShape
	Bindings      []BindingShape
}

// ConversationShape is a conversation span: how many turns of each role it
// holds, and its standing.
type ConversationShape struct {
	User, Assistant int
	Superseded      string
	Compacted       bool
}

// DecisionShape is a decision candidate.
type DecisionShape struct {
	Categories []pipeline.Category
	IsBan      bool
	Chosen     []string
	Rejected   []string
	Epitome    string
	Superseded string
	Compacted  bool
}

// EpisodeShape is a file edit.
type EpisodeShape struct {
	// File is the base name of the edited file's path.
	File           string
	Op             string
	Added, Removed int
	// Subagent marks an edit a subagent made (its events name an agent or
	// are a side conversation's).
	Subagent   bool
	Superseded string
	Compacted  bool
}

// BindingShape is a "produced" edge: the index of the decision among the
// nodes' decisions and of the episode among their episodes.
type BindingShape struct {
	Decision, Episode int
	// Correlation is the 2×2 table behind the correlation figures, set
	// when the decision binds two episodes or more.
	Correlation *Table
}

// Table is a binding's 2×2 table of actions (pipeline.Correlation): A the
// decision's episodes, B its other tool calls, C the session's other
// episodes, D the rest. The figures are a function of it.
type Table struct {
	A, B, C, D int
}

// ShapeOf normalises nodes (Prepare's output, in its order) to their shape.
// A binding whose decision or episode is not among nodes gets index -1.
func ShapeOf(nodes []pipeline.Node) Shape {
	var s Shape
	decisions := map[string]int{}
	episodes := map[string]int{}
	for i := range nodes {
		n := &nodes[i]
		s.Kinds = append(s.Kinds, n.Kind)
		switch {
		case n.Conversation != nil:
			c := ConversationShape{Superseded: n.Superseded, Compacted: n.Compacted}
			for _, t := range n.Conversation.Turns {
				switch t.Role {
				case "user":
					c.User++
				case "assistant":
					c.Assistant++
				}
			}
			s.Conversations = append(s.Conversations, c)
		case n.Decision != nil:
			d := n.Decision
			decisions[n.ID] = len(s.Decisions)
			s.Decisions = append(s.Decisions, DecisionShape{
				Categories: d.Categories,
				IsBan:      d.IsBan,
				Chosen:     d.Chosen,
				Rejected:   d.Rejected,
				Epitome:    d.Epitome,
				Superseded: n.Superseded,
				Compacted:  n.Compacted,
			})
		case n.Episode != nil:
			e := n.Episode
			episodes[n.ID] = len(s.Episodes)
			s.Episodes = append(s.Episodes, EpisodeShape{
				File:       baseName(e.Path),
				Op:         e.Op,
				Added:      e.Added,
				Removed:    e.Removed,
				Subagent:   e.AgentID != "" || e.Sidechain,
				Superseded: n.Superseded,
				Compacted:  n.Compacted,
			})
		case n.Binding != nil:
			b := BindingShape{Decision: -1, Episode: -1}
			if d, ok := decisions[n.Binding.Decision]; ok {
				b.Decision = d
			}
			if e, ok := episodes[n.Binding.Episode]; ok {
				b.Episode = e
			}
			if c := n.Binding.Correlation; c != nil {
				b.Correlation = &Table{A: c.A, B: c.B, C: c.C, D: c.D}
			}
			s.Bindings = append(s.Bindings, b)
		}
	}
	return s
}

// baseName is the last element of a path written on any system.
func baseName(p string) string {
	p = strings.TrimRight(strings.ReplaceAll(p, `\`, "/"), "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// Diff returns the difference between two shapes (-want +got), empty when
// they are equal. Nil and empty lists are equal.
func Diff(want, got Shape) string {
	return cmp.Diff(want, got, cmpopts.EquateEmpty())
}

// Check fails t when nodes do not have the scenario's shape, showing both
// shapes and their difference.
func Check(t testing.TB, sc Scenario, nodes []pipeline.Node) {
	t.Helper()
	got := ShapeOf(nodes)
	if d := Diff(sc.Want, got); d != "" {
		t.Errorf("scenario %s: the nodes do not have the expected shape\nwant:\n%s\ngot:\n%s\ndiff (-want +got):\n%s",
			sc.Name, indent(sc.Want.String()), indent(got.String()), d)
	}
}

func indent(s string) string {
	if s == "" {
		return "\t(no nodes)\n"
	}
	return "\t" + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n\t") + "\n"
}

// String lists the shape one node a line, in the nodes' order:
//
//	conversation 0: user 1, assistant 2
//	decision 0: [decision] chosen [SQLite] "Let's use SQLite for the cache."
//	episode 0: cache.go create +3 -0
//	binding: decision 0 → episode 0
func (s Shape) String() string {
	var b strings.Builder
	flags := func(superseded string, compacted bool) {
		if superseded != "" {
			fmt.Fprintf(&b, " superseded(%s)", superseded)
		}
		if compacted {
			b.WriteString(" compacted")
		}
	}
	var c, d, e, bi int
	for _, k := range s.Kinds {
		switch k {
		case pipeline.KindConversation:
			if c < len(s.Conversations) {
				x := s.Conversations[c]
				fmt.Fprintf(&b, "conversation %d: user %d, assistant %d", c, x.User, x.Assistant)
				flags(x.Superseded, x.Compacted)
			}
			c++
		case pipeline.KindDecision:
			if d < len(s.Decisions) {
				x := s.Decisions[d]
				fmt.Fprintf(&b, "decision %d: %v", d, x.Categories)
				if x.IsBan {
					b.WriteString(" ban")
				}
				if len(x.Chosen) > 0 {
					fmt.Fprintf(&b, " chosen %q", x.Chosen)
				}
				if len(x.Rejected) > 0 {
					fmt.Fprintf(&b, " rejected %q", x.Rejected)
				}
				fmt.Fprintf(&b, " %q", x.Epitome)
				flags(x.Superseded, x.Compacted)
			}
			d++
		case pipeline.KindEpisode:
			if e < len(s.Episodes) {
				x := s.Episodes[e]
				fmt.Fprintf(&b, "episode %d: %s %s +%d -%d", e, x.File, x.Op, x.Added, x.Removed)
				if x.Subagent {
					b.WriteString(" subagent")
				}
				flags(x.Superseded, x.Compacted)
			}
			e++
		case pipeline.KindBinding:
			if bi < len(s.Bindings) {
				x := s.Bindings[bi]
				fmt.Fprintf(&b, "binding: decision %d → episode %d", x.Decision, x.Episode)
				if x.Correlation != nil {
					fmt.Fprintf(&b, " correlation %+v", *x.Correlation)
				}
			}
			bi++
		default:
			fmt.Fprintf(&b, "%s", k)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
