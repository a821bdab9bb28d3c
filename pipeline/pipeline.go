package pipeline

import (
	"time"

	"github.com/cortexmem/cortex/transcript"
)

// Pipeline composes the stages: Segment (with its gate), Bind, Prep, then
// Redact or StripContent. The zero value is not usable; call New.
type Pipeline struct {
	gate      *Gate
	redactor  Redactor
	noContent bool
	window    time.Duration
}

// Option changes a Pipeline New makes.
type Option func(*Pipeline)

// WithGate swaps the gate (a rule table from config).
func WithGate(g *Gate) Option { return func(p *Pipeline) { p.gate = g } }

// WithRedactor swaps the redactor (extra patterns from config).
func WithRedactor(r Redactor) Option { return func(p *Pipeline) { p.redactor = r } }

// WithoutRedaction leaves the nodes' text verbatim: for golden tests, and
// for a person reading their own transcripts on their own machine.
func WithoutRedaction() Option { return func(p *Pipeline) { p.redactor = nil } }

// WithoutContent keeps the nodes' structure and drops their text.
func WithoutContent() Option { return func(p *Pipeline) { p.noContent = true } }

// WithWindow sets how long after a decision an edit may be bound to it.
func WithWindow(d time.Duration) Option { return func(p *Pipeline) { p.window = d } }

// New returns the default pipeline — the default gate, credentials redacted,
// a 30-minute binding window — changed by opts.
func New(opts ...Option) *Pipeline {
	r, _ := NewCredentialRedactor(nil)
	p := &Pipeline{gate: DefaultGate(), redactor: r, window: DefaultWindow}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Prepare turns events into nodes. Its output is an exact function of the
// events (and the pipeline's settings).
func (p *Pipeline) Prepare(events []transcript.Event) []Node {
	seg := Segment(events, p.gate)
	nodes := Prep(seg, Bind(seg, p.window))
	if p.noContent {
		StripContent(nodes)
	}
	Redact(nodes, p.redactor)
	return nodes
}

// RedactText is what the pipeline makes of a text outside any node (a
// session's model, its working folder): redacted as node text is, the
// same text without redaction.
func (p *Pipeline) RedactText(s string) string {
	if p.redactor == nil || s == "" {
		return s
	}
	return p.redactor.Redact(s)
}
