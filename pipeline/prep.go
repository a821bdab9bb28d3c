package pipeline

// Prep assembles the prepared nodes in their stable order: every
// conversation, then every decision, then every episode (each in event
// order), then the bindings (in episode order). Nodes are copies: changing
// them later (redaction) leaves the segmentation as it was.
func Prep(seg *Segmentation, bindings []Node) []Node {
	out := make([]Node, 0, len(seg.Conversations)+len(seg.Decisions)+len(seg.Episodes)+len(bindings))
	for _, it := range seg.Conversations {
		out = append(out, cloneNode(it.Node))
	}
	for _, it := range seg.Decisions {
		out = append(out, cloneNode(it.Node))
	}
	for _, it := range seg.Episodes {
		out = append(out, cloneNode(it.Node))
	}
	for _, b := range bindings {
		out = append(out, cloneNode(b))
	}
	return out
}

// cloneNode copies n's payload, deeply enough that editing its strings and
// lists does not reach the original.
func cloneNode(n Node) Node {
	switch {
	case n.Conversation != nil:
		c := *n.Conversation
		c.Turns = append([]Turn(nil), c.Turns...)
		c.Markers = append([]Match(nil), c.Markers...)
		n.Conversation = &c
	case n.Decision != nil:
		d := *n.Decision
		d.Chosen = append([]string(nil), d.Chosen...)
		d.Rejected = append([]string(nil), d.Rejected...)
		d.Categories = append([]Category(nil), d.Categories...)
		n.Decision = &d
	case n.Episode != nil:
		e := *n.Episode
		n.Episode = &e
	case n.Binding != nil:
		b := *n.Binding
		if b.Correlation != nil {
			c := *b.Correlation
			b.Correlation = &c
		}
		n.Binding = &b
	}
	return n
}
