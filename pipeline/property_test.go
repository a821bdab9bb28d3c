package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/security"
	"github.com/cortexmem/cortex/transcript"
)

// checkNodes checks what must hold of the nodes of any event stream: kinds in
// order, ids unique, every node tied to the event it names and flagged
// exactly as that event stands, episodes only from edits that succeeded,
// every binding between nodes that stand, of one session, in order and
// temporally valid within the window.
func checkNodes(events []transcript.Event, nodes []Node) error {
	seg := Segment(events, DefaultGate())
	index := map[eventKey]int{}
	failed := map[eventKey]bool{}
	for i, e := range events {
		k := eventKey{sessionKey{e.Source, e.SessionID}, e.EventID}
		if _, ok := index[k]; !ok {
			index[k] = i
		}
		if e.ToolResult != nil && !e.ToolResult.OK {
			failed[eventKey{k.sessionKey, e.ToolResult.CallID}] = true
		}
	}
	order := map[NodeKind]int{KindConversation: 0, KindDecision: 1, KindEpisode: 2, KindBinding: 3}
	byID := map[string]*Node{}
	prev := 0
	for i := range nodes {
		n := &nodes[i]
		if order[n.Kind] < prev {
			return fmt.Errorf("node %d (%s) after a %d-kind node", i, n.Kind, prev)
		}
		prev = order[n.Kind]
		if byID[n.ID] != nil {
			return fmt.Errorf("node id %s twice", n.ID)
		}
		byID[n.ID] = n
		if n.Fact != Observed && n.Fact != DeterministicallyDerived {
			return fmt.Errorf("node %s: fact status %q", n.ID, n.Fact)
		}
		var eventID string
		switch n.Kind {
		case KindConversation:
			eventID = n.Conversation.EventID
		case KindDecision:
			eventID = n.Decision.EventID
			if byID[n.Decision.Conversation] == nil {
				return fmt.Errorf("decision %s: no conversation %s", n.ID, n.Decision.Conversation)
			}
		case KindEpisode:
			eventID = n.Episode.EventID
		case KindBinding:
			b := n.Binding
			d, ep := byID[b.Decision], byID[b.Episode]
			switch {
			case d == nil || ep == nil:
				return fmt.Errorf("binding %s: decision or episode missing", n.ID)
			case d.Superseded != "" || ep.Superseded != "":
				return fmt.Errorf("binding %s: to a superseded node", n.ID)
			case d.SessionID != ep.SessionID || d.Source != ep.Source:
				return fmt.Errorf("binding %s: across sessions", n.ID)
			case !b.Prov.TemporallyValid():
				return fmt.Errorf("binding %s: used at %s, generated at %s", n.ID, b.Prov.UsedAt, b.Prov.GeneratedAt)
			case b.Prov.GapSeconds > DefaultWindow.Seconds():
				return fmt.Errorf("binding %s: %v s apart", n.ID, b.Prov.GapSeconds)
			}
			di := index[eventKey{sessionKey{d.Source, d.SessionID}, d.Decision.EventID}]
			ei := index[eventKey{sessionKey{ep.Source, ep.SessionID}, ep.Episode.EventID}]
			if di >= ei {
				return fmt.Errorf("binding %s: the decision (event %d) is not before the edit (event %d)", n.ID, di, ei)
			}
			continue
		}
		i, ok := index[eventKey{sessionKey{n.Source, n.SessionID}, eventID}]
		if !ok {
			return fmt.Errorf("node %s: no event %s", n.ID, eventID)
		}
		if n.Superseded != seg.Superseded[i] {
			return fmt.Errorf("node %s: flagged %q, its event stands %q", n.ID, n.Superseded, seg.Superseded[i])
		}
		if n.Kind == KindEpisode {
			fe := events[i].FileEdit
			if fe == nil || !fe.OK || failed[eventKey{sessionKey{n.Source, n.SessionID}, fe.CallID}] {
				return fmt.Errorf("episode %s from a failed or missing edit", n.ID)
			}
		}
	}
	return nil
}

// TestPropertiesRandomStreams runs the pipeline over generated streams and
// checks checkNodes, determinism, and that redaction leaves no credential.
func TestPropertiesRandomStreams(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	p := New(WithoutRedaction())
	red := New()
	planted := 0
	for i := range 200 {
		data := make([]byte, 50+r.IntN(1500))
		for j := range data {
			data[j] = byte(r.IntN(256))
		}
		events := genStream(&byteSource{data: data}, 400)
		nodes := p.Prepare(events)
		if err := checkNodes(events, nodes); err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		a, _ := Marshal(nodes)
		b, _ := Marshal(p.Prepare(events))
		if !bytes.Equal(a, b) {
			t.Fatalf("stream %d: two runs differ", i)
		}
		if err := noCredentials(red.Prepare(events)); err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		if noCredentials(nodes) != nil {
			planted++
		}
	}
	// The generated secrets reach the nodes when nothing redacts them:
	// the check above is not vacuous.
	if planted < 50 {
		t.Errorf("only %d of 200 streams had a credential in their unredacted nodes", planted)
	}
}

// FuzzSegment runs the whole pipeline on streams built from the input.
func FuzzSegment(f *testing.F) {
	f.Add([]byte{0, 0, 2, 5, 0, 0, 5, 1, 2, 3, 0, 0, 5, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte("use sqlite then edit twice, rewind, compact"))
	p := New(WithoutRedaction())
	f.Fuzz(func(t *testing.T, data []byte) {
		events := genStream(&byteSource{data: data}, 2000)
		nodes := p.Prepare(events)
		if err := checkNodes(events, nodes); err != nil {
			t.Fatal(err)
		}
		if _, err := Marshal(nodes); err != nil {
			t.Fatal(err)
		}
	})
}

// noCredentials reports a credential left in the nodes' JSON: in the text
// and in every string value of it.
func noCredentials(nodes []Node) error {
	data, err := Marshal(nodes)
	if err != nil {
		return err
	}
	if f := security.ScanCredentials(string(data)); len(f) > 0 {
		return fmt.Errorf("the nodes' JSON holds %s", f[0])
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			return err
		}
		if s, ok := findString(v, func(s string) bool { return len(security.ScanCredentials(s)) > 0 }); ok {
			return fmt.Errorf("a node holds a credential in %q", s)
		}
	}
	return nil
}

// findString returns the first string in a decoded JSON value that pred
// holds for.
func findString(v any, pred func(string) bool) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, pred(x)
	case []any:
		for _, e := range x {
			if s, ok := findString(e, pred); ok {
				return s, true
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if s, ok := findString(x[k], pred); ok {
				return s, true
			}
		}
	}
	return "", false
}

// naiveSupersede is the plain quadratic reading of the rules supersede
// implements: a reference for it.
func naiveSupersede(events []transcript.Event) ([]string, []bool) {
	sup, comp := make([]string, len(events)), make([]bool, len(events))
	same := func(a, b *transcript.Event) bool { return a.Source == b.Source && a.SessionID == b.SessionID }
	find := func(i int, id string) int {
		for j := 0; j < i; j++ {
			if events[j].EventID == id && same(&events[j], &events[i]) {
				return j
			}
		}
		return -1
	}
	for i := range events {
		e := &events[i]
		if e.Replaces != "" {
			if j := find(i, e.Replaces); j >= 0 && sup[j] == "" {
				sup[j] = SupersededReplaced
			}
		}
		switch e.Kind {
		case transcript.KindRewind:
			start := -1
			if j := find(i, e.Rewind.Dropped); e.Rewind.Dropped != "" && j >= 0 {
				start = j
			} else if j := find(i, e.Rewind.To); e.Rewind.To != "" && j >= 0 {
				start = i // the next event of the session after j, if any before i
				for k := j + 1; k < i; k++ {
					if same(&events[k], e) {
						start = k
						break
					}
				}
			} else if e.Rewind.Turns > 0 {
				n := 0
				for k := i - 1; k >= 0; k-- {
					o := &events[k]
					if same(o, e) && o.Kind == transcript.KindUserTurn && o.UserTurn.Meta == "" && !o.Sidechain && sup[k] == "" {
						if n++; n == e.Rewind.Turns {
							start = k
							break
						}
					}
				}
			}
			for k := max(start, 0); start >= 0 && k < i; k++ {
				if same(&events[k], e) && sup[k] == "" {
					sup[k] = SupersededRewind
				}
			}
		case transcript.KindCompaction:
			for k := i - 1; k >= 0; k-- {
				o := &events[k]
				if !same(o, e) {
					continue
				}
				if o.Kind == transcript.KindCompaction {
					break
				}
				comp[k] = true
			}
		}
	}
	return sup, comp
}

func TestSupersedeMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		data := make([]byte, 50+r.IntN(3000))
		for j := range data {
			data[j] = byte(r.IntN(256))
		}
		events := genStream(&byteSource{data: data}, 1000)
		seg := Segment(events, DefaultGate())
		sup, comp := naiveSupersede(events)
		if diff := cmp.Diff(sup, seg.Superseded); diff != "" {
			t.Fatalf("stream %d: superseded (-reference +got):\n%s", i, diff)
		}
		if diff := cmp.Diff(comp, seg.Compacted); diff != "" {
			t.Fatalf("stream %d: compacted (-reference +got):\n%s", i, diff)
		}
	}
}
