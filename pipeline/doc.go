// Package pipeline turns a stream of transcript events into prepared nodes —
// conversation spans, decisions, code-edit episodes and the bindings between
// them — with no model call: every stage is a pure, synchronous function, so
// the output is an exact function of the events (golden-testable, fuzzable).
//
// The stages, in order:
//
//   - Gate (gate.go) reads a person's turn and reports every commitment
//     marker in it — decision verbs, rejections, bans, imperatives, memory
//     directives — with byte offsets; it admits the turn when a marker
//     commits: it stands outside a question and asks nothing of the task at
//     hand (task.go: the agent's means, a value held for the conversation,
//     the memory itself). Its rule table is data and can come from config.
//   - Segment (segment.go) walks the events once: rewinds supersede the
//     abandoned branch and a message rewritten in place supersedes its older
//     version (kept, flagged); a compaction flags the range it replaced as
//     compacted (history still stands); a gated turn becomes a conversation
//     span and a decision candidate (epitome, chosen and rejected options, ban
//     flag); a successful file edit becomes an episode; a failed one nothing.
//   - Bind (bind.go) links each episode to the latest earlier decision of the
//     same session that was not superseded, made at most Window before it:
//     a "produced" edge with a provenance record (used at t_use, generated at
//     t_gen, t_use ≤ t_gen), and correlation figures when a decision binds
//     two episodes or more.
//   - Prep (prep.go) assembles the nodes in a stable order — conversations,
//     decisions, episodes, bindings — each with its fact status: observed
//     (verbatim from the source) or deterministically derived.
//   - Redact (redact.go) replaces every credential in every node's text with
//     [REDACTED:<rule>] (on by default), or drops the text altogether
//     (StripContent) keeping the structure.
//
// Pipeline composes them; New gives the default one.
package pipeline
