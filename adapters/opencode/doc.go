// Package opencode reads OpenCode's sessions into transcript events, from
// the three places OpenCode keeps or gives them:
//
//   - opencode.db (1.2 and later): a SQLite database (Drizzle) in the data
//     folder, $XDG_DATA_HOME/opencode or ~/.local/share/opencode, with tables
//     session, message and part (their JSON in a data column). It is read
//     through package sqlitedb: a private copy, never a lock on OpenCode's
//     file, the write-ahead log honoured.
//   - storage/ (before 1.2): JSON files, each rewritten in place as a message
//     streams — storage/session/<project>/<session>.json,
//     storage/message/<session>/<message>.json and
//     storage/part/<message>/<part>.json. A session file is the transcript;
//     Load gathers its messages and parts.
//   - `opencode export <session>` JSON: {info, messages: [{info, parts}]}.
//
// All three become the same records: one JSON line per row (package
// sqlitedb's row line, {"table", "rowid", "values"}), a row being a session,
// a message or a part, ordered by creation time (session, then message,
// then part on a tie; a message never before its session, a part never
// before its message) — the order OpenCode wrote them. Adapter implements
// transcript.Loader: Load gives the rows of the database (or the tree, or
// the export) written since the position the stream's state holds, the
// highest time_updated read per table (and the rows at that time already
// read), so a resumed read gets the rows written or changed since.
//
// The mapping of a row:
//
//   - session → session_start (the version, the model, the directory as the
//     working folder); a child session (parent_id: a subagent's task) gives
//     events under its root session's id, with its own as AgentID and
//     Sidechain set. A fork (no parent_id; OpenCode titles it "<title>
//     (fork #n)") starts with trigger fork; the messages it copied from the
//     session it forks, with new ids but their own times — older than the
//     fork's session — and their parts → unknown (duplicate): the forked
//     session gives them. Seen again: revert set by /undo → rewind (Dropped: the
//     reverted message, or part); time_archived set → session_end
//     (archived); anything else → unknown (unmapped, "session/update").
//   - message → unknown (unmapped, "message/<role>"): its content is in its
//     parts; what it says (role, model, tokens, whether it is a compaction's
//     summary) is kept for them.
//   - part, by type: text → user_turn (Meta injected when synthetic or
//     ignored) or assistant_turn (the message's model, its token usage on
//     the first); in a compaction's summary message (summary: true) →
//     compaction with the summary. reasoning → assistant_turn (thinking).
//     tool → tool_call, then once its state is completed or error a
//     tool_result and, for edit, write, multiedit, patch and apply_patch, a
//     file_edit: the file before and after diffed when OpenCode kept them
//     (filediff before/after), else its own patch (metadata.diff,
//     filediff.patch), else — a failed call, or a write of a file that
//     existed — the arguments. compaction → compaction (auto or manual).
//     Other types (step-start, step-finish, patch, snapshot, file, agent,
//     subtask, retry) → unknown (unmapped, "part/<type>").
//   - a row read again that changed: only what changed gives events — a
//     text's new version (id "<part>#v<n>", Replaces the one before), a
//     tool's result when it arrived; a row unchanged → unknown (duplicate).
//
// Event ids are OpenCode's own (ses_…, msg_…, prt_…), with "#result" and
// "#edit" for a tool part's result and edit. Times are the rows' epoch
// milliseconds as RFC 3339 (UTC). Every event's provenance names its row in
// Pointer: <table>/<id> for the database, the file for storage/, the JSON
// pointer for an export.
package opencode
