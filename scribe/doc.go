// Package scribe is the transcript service: what cortex does with agents'
// transcripts, for every transport (the CLI's scribe commands, and the MCP
// tools and hooks that build on them) to call rather than copy.
//
//   - Select picks the files to read — every one the adapters' discovery
//     finds, or files a person named (of a tool named, or recognised from
//     their first records by Detect), modified since a time — and says what
//     it passed over; Discover is discovery's whole report.
//   - Open opens one file with its adapter; Transcript.Events streams its
//     events, redacted or not; ReadEvents reads events back from NDJSON.
//   - Verify checks the adapters' invariants on files; CheckGoldens checks
//     the golden fixtures kept beside transcripts.
//   - Runner.Run reads files — each session's files together (main,
//     subagents, resumed copies), only what changed since the last run when
//     it keeps offsets — runs the deterministic pipeline (Prepare) and, with
//     a Service, writes the nodes as session, decision and episode notes
//     (MineToVault): a link graph Obsidian shows as decision → edit lineage,
//     which memories.Service.Mine writes idempotently.
//
// Render is a pure function of the nodes and the sessions' facts. Errors a
// person can fix (a missing file, an unknown tool) are memories.ArgError,
// naming the command-line flag that carries the value; transports map them.
// The state folder's layout is not scribe's: Runner is given the folder for
// its offsets.
package scribe
