// Package pipelinetest is the cross-tool conformance catalog of SPEC §7: ten
// scenarios every transcript adapter must normalise to the same shape of
// nodes, whatever tool wrote the transcript.
//
// The event model is the thin waist between the tools' formats and the
// pipeline; the catalog is how that claim is tested. Each Scenario names a
// situation (a decision then an edit, a rejected alternative, a ban, two
// interleaved arcs, several edits under one decision, a failed edit, a
// rewind and a compaction, a subagent's edit, a turn with no marker, and
// requests for the task at hand that hold markers but decide nothing) and
// the Shape the pipeline must give for it. The shared fixtures hold one
// transcript per tool and scenario, written in each tool's own format
// (fixtures/conformance/<tool>/<scenario>.jsonl, and under <scenario>/ the
// session's other files, such as a subagent's, where the tool puts them);
// package pipeline's conformance test parses each with the tool's adapter,
// merges a session's files with pipeline.Merge, prepares the nodes without
// redaction and calls Check.
//
// A Shape keeps what a scenario means and drops what a tool happens to
// write. Kept: the order of node kinds; for each conversation the number of
// turns by role; for each decision the marker categories that fired, the ban
// flag, the chosen and rejected options, the epitome; for each episode the
// base name of the file, the operation and the added and removed line
// counts, and whether a subagent made it; for each binding which decision
// (by its index among the decisions) produced which episode (by its index
// among the episodes) and the 2×2 table behind its correlation figures; and
// for every node whether a rewind or rewrite superseded it and whether a
// compaction summarised it. Dropped: ids, session ids, timestamps, absolute
// paths, provenance, seqs, tool names, verbatim texts other than the epitome
// and options, and where a diff came from.
//
// ShapeOf computes a Shape from nodes; Check compares it with a scenario's
// and reports a readable difference. Adding a tool means writing a fixture
// of every scenario its format can hold, and saying in the scenario's Cannot
// why it cannot hold the others; adding a scenario means adding it to
// Catalog and writing one fixture per tool.
//
// PlantCredentials puts fake credentials into every text of a stream of
// events, for the tests that check redaction leaves none in nodes (package
// pipeline) or notes (package scribe).
package pipelinetest
