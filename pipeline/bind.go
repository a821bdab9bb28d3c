package pipeline

import (
	"math"
	"slices"
	"time"
)

// DefaultWindow is how long after a decision an edit can be bound to it.
const DefaultWindow = 30 * time.Minute

// Bind links each episode that stands to the latest earlier decision of its
// session that stands, when the decision was made no more than window
// before the edit (and not after it): a "produced" binding carrying the
// provenance record. A decision that binds two episodes or more has its
// correlation figures on each of its bindings. Bindings are in episode order.
func Bind(seg *Segmentation, window time.Duration) []Node {
	type scope struct {
		decision int // index into seg.Decisions
		episodes []int
		calls    int
	}
	type session struct {
		episodes, actions int
		scopes            map[int]*scope
	}
	sessions := map[sessionKey]*session{}
	get := func(sk sessionKey) *session {
		s := sessions[sk]
		if s == nil {
			s = &session{scopes: map[int]*scope{}}
			sessions[sk] = s
		}
		return s
	}
	// The decisions, episodes and calls in event order.
	type step struct {
		index int
		kind  NodeKind // decision, episode, or "" for a call
		item  int
	}
	steps := make([]step, 0, len(seg.Decisions)+len(seg.Episodes)+len(seg.Calls))
	for i, it := range seg.Decisions {
		steps = append(steps, step{it.Index, KindDecision, i})
	}
	for i, it := range seg.Episodes {
		steps = append(steps, step{it.Index, KindEpisode, i})
	}
	for i, it := range seg.Calls {
		steps = append(steps, step{it.Index, "", i})
	}
	slices.SortStableFunc(steps, func(a, b step) int { return a.index - b.index })

	last := map[sessionKey]int{} // the latest decision that stands, per session
	// inScope returns the decision an action at event index i falls under.
	inScope := func(sk sessionKey, i int) (int, bool) {
		d, ok := last[sk]
		if !ok {
			return 0, false
		}
		td, te := seg.Times[seg.Decisions[d].Index], seg.Times[i]
		if td.IsZero() || te.IsZero() || te.Before(td) || te.Sub(td) > window {
			return 0, false
		}
		return d, true
	}
	var bound []struct{ decision, episode int }
	for _, st := range steps {
		e := &seg.Events[st.index]
		sk := sessionKey{e.Source, e.SessionID}
		switch st.kind {
		case KindDecision:
			if seg.Decisions[st.item].Node.Superseded == "" {
				last[sk] = st.item
			}
			continue
		case KindEpisode:
			if seg.Episodes[st.item].Node.Superseded != "" {
				continue
			}
			s := get(sk)
			s.episodes++
			s.actions++
			if d, ok := inScope(sk, st.index); ok {
				sc := s.scopes[d]
				if sc == nil {
					sc = &scope{decision: d}
					s.scopes[d] = sc
				}
				sc.episodes = append(sc.episodes, st.item)
				bound = append(bound, struct{ decision, episode int }{d, st.item})
			}
		default:
			if seg.Calls[st.item].Node.Superseded != "" {
				continue
			}
			s := get(sk)
			s.actions++
			if d, ok := inScope(sk, st.index); ok {
				sc := s.scopes[d]
				if sc == nil {
					sc = &scope{decision: d}
					s.scopes[d] = sc
				}
				sc.calls++
			}
		}
	}

	out := make([]Node, 0, len(bound))
	for _, b := range bound {
		d, ep := seg.Decisions[b.decision], seg.Episodes[b.episode]
		de, ee := &seg.Events[d.Index], &seg.Events[ep.Index]
		td, te := seg.Times[d.Index], seg.Times[ep.Index]
		n := Node{
			SchemaVersion: SchemaVersion,
			Kind:          KindBinding,
			ID:            BindingID(d.Node.ID, ep.Node.ID),
			Fact:          DeterministicallyDerived,
			Source:        ee.Source,
			SessionID:     ee.SessionID,
			Compacted:     ep.Node.Compacted,
			Binding: &Binding{
				Relation: RelationProduced,
				Decision: d.Node.ID,
				Episode:  ep.Node.ID,
				Prov: ProvRecord{
					Session:     ee.SessionID,
					UsedEvent:   de.EventID,
					UsedAt:      formatTime(td),
					Generated:   ee.EventID,
					GeneratedAt: formatTime(te),
					GapSeconds:  round6(te.Sub(td).Seconds()),
				},
			},
		}
		s := sessions[sessionKey{ee.Source, ee.SessionID}]
		if sc := s.scopes[b.decision]; len(sc.episodes) >= 2 {
			a := len(sc.episodes)
			bb := sc.calls
			c := s.episodes - a
			dd := s.actions - a - bb - c
			n.Binding.Correlation = correlate(a, bb, c, dd)
		}
		out = append(out, n)
	}
	return out
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// correlate computes the figures of a 2×2 table (see Correlation).
func correlate(a, b, c, d int) *Correlation {
	n := a + b + c + d
	r := &Correlation{A: a, B: b, C: c, D: d}
	if n == 0 {
		return r
	}
	fa, fb, fc, fd, fn := float64(a), float64(b), float64(c), float64(d), float64(n)
	r.Support = round6(fa / fn)
	if a+b > 0 {
		conf := fa / (fa + fb)
		r.Confidence = round6(conf)
		if a+c > 0 {
			r.Lift = round6(conf / ((fa + fc) / fn))
		}
	}
	if den := (fa + fb) * (fc + fd) * (fa + fc) * (fb + fd); den > 0 {
		r.Phi = round6((fa*fd - fb*fc) / math.Sqrt(den))
	}
	r.P = round6(fisherGreater(a, b, c, d))
	return r
}

// fisherGreater is the one-sided Fisher exact p-value: the probability, with
// the margins fixed, of a table whose top-left cell is a or more.
func fisherGreater(a, b, c, d int) float64 {
	n := a + b + c + d
	row, col := a+b, a+c
	lo, hi := a, min(row, col)
	p := 0.0
	for k := lo; k <= hi; k++ {
		p += math.Exp(logChoose(col, k) + logChoose(n-col, row-k) - logChoose(n, row))
	}
	return math.Min(p, 1)
}

func logChoose(n, k int) float64 {
	if k < 0 || k > n {
		return math.Inf(-1)
	}
	return lgamma(n+1) - lgamma(k+1) - lgamma(n-k+1)
}

func lgamma(n int) float64 {
	v, _ := math.Lgamma(float64(n))
	return v
}

// round6 rounds to 6 decimals (half away from zero).
func round6(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	r := math.Round(x*1e6) / 1e6
	if r == 0 {
		return 0 // not -0
	}
	return r
}
