// Package briefing assembles context: for a query and a project, one
// markdown briefing an agent reads before it works (SPEC §4.12; `cortex
// context`, MCP context_assemble). The sections come in a fixed order:
//
//  1. Playbook: the project's playbook note (playbooks/<project>.md, scanned
//     as a save is) and its conventions and standing decisions, bans first;
//  2. Memories: the memories that best answer the query;
//  3. Decisions: the decisions among them or linked from them, each with the
//     code edits it produced (the mined lineage's "## Produced" links);
//  4. Transcripts: the best exchanges of the agents' transcripts, through
//     the Excerpts port (transcript search).
//
// Every item carries what an agent needs to open it (a short id and a vault
// path, or a transcript file and line), and appears once however many
// sections find it. The whole briefing stays within a token budget
// (characters/4, default 1,500): Gather does the reading, Render is a pure
// function of what was gathered and the budget, which a property test holds
// for random material. What the briefing shows is recorded in the access log
// with source "context".
//
// Synthesis is optional: an external command (by default `claude -p --model
// haiku` when it is on PATH) rewrites the material into a briefing; its
// answer is scanned like a save and must fit the budget, and any failure —
// absent, failing, hanging past its timeout, unsafe, too long, empty — gives
// the deterministic briefing back with a line saying why.
//
// The package reads through small ports it declares (Memories, Notes,
// Playbooks, Excerpts, Synthesizer); package wiring plugs the real services
// in. It never imports a transport.
package briefing
