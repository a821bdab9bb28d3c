// Package claudecode reads Claude Code's session transcripts
// (~/.claude/projects/<encoded-cwd>/<session>.jsonl and the subagent files
// beside them) into transcript events.
//
// Every line is one record; the mapping:
//
//   - user: tool_result blocks → tool_result (pairing by tool_use_id) and, for
//     Edit, MultiEdit, Write and NotebookEdit, file_edit (the diff from
//     toolUseResult.structuredPatch, else from the file's content before and
//     after, else — a failed call — from the call's input, with ok false);
//     other content → user_turn, with Meta set for what the person did not
//     type (isMeta records, slash-command echoes and their output, caveats,
//     system reminders, task notifications, interruptions). A person's
//     prompt whose parent already has a child written at another time is a
//     fork of the parentUuid graph: a rewind event comes before its
//     user_turn. isCompactSummary → compaction (the summary).
//   - assistant: one event per record (Claude Code writes one API message as
//     several records sharing message.id: the second and later are marked
//     Continued and carry no usage); text and thinking → assistant_turn,
//     each tool_use block → tool_call.
//   - system: compact_boundary → compaction; session_start → session_start;
//     other subtypes → unknown (unmapped).
//   - attachment: a SessionStart hook's (startup, resume, compact, clear) →
//     session_start, once per start; others → unknown (unmapped).
//   - Lines without a uuid (titles, summaries, queue operations, file-history
//     snapshots, modes, links, …) → unknown (unmapped); types never seen →
//     unknown (unrecognized); a line that is not a JSON object → unknown
//     (malformed); a byte-identical copy of a record already read (a replay)
//     → unknown (duplicate).
//
// A session_start is synthesised (Synthesized) before the first record of a
// session that has a uuid, unless that record is a start itself. Claude Code
// writes no end of session, so no session_end is made up; nor is a summary
// line taken for a compaction (most are titles): compact_boundary is the
// marker. Event ids
// are the record's uuid; a record's second and later events get the uuid
// and a "#" suffix (#start, #rewind, #tool_use:<id>, #tool_result:<id>,
// #edit:<id>); lines without a uuid get a content hash. Fields the model has
// no slot for go to the event's Extra.
package claudecode
