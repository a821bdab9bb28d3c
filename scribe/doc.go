// Package scribe turns agents' transcripts into notes of the vault: it finds
// transcript files (through the adapters), reads what is new in them, runs
// the deterministic pipeline and renders its nodes as session, decision and
// episode notes — a link graph Obsidian shows as decision → edit lineage —
// which memories.Service.Mine writes idempotently.
//
// Render is a pure function of the nodes and the sessions' facts; Run does
// the I/O: discovery, the per-file read offsets kept in cortex's state
// folder, and the grouping of a session's files (main, subagents, resumed)
// before the pipeline sees them.
package scribe
