// Package zed reads Zed's AI history into transcript events: the agent's
// threads and the older text conversations.
//
// # Agent threads: threads.db
//
// Zed keeps its agent threads in SQLite, <data>/threads/threads.db (data:
// $XDG_DATA_HOME/zed or ~/.local/share/zed on Linux, ~/Library/Application
// Support/Zed on macOS, %LOCALAPPDATA%\Zed on Windows), one row a thread
// (crates/agent/src/db.rs): threads(id, summary, updated_at, data_type,
// data) and, added by later versions, parent_id (a subagent's thread),
// folder_paths, folder_paths_order and created_at. data is the whole
// thread as JSON, compressed with zstd when data_type is "zstd" (what Zed
// writes) or plain when "json". Zed rewrites the row every time the thread
// changes (INSERT OR REPLACE, later ON CONFLICT DO UPDATE).
//
// The database is read through package sqlitedb (a private copy, never a
// lock on Zed's file, the write-ahead log honoured); Adapter implements
// transcript.Loader: Load gives the rows whose updated_at is after the
// position the stream's state holds, as row lines (the data a {"$blob":
// base64} member), oldest thread first. Parse decodes a row's data (zstd
// with a bounded window and output, so a damaged or hostile blob cannot
// take the memory) and maps the thread — format 0.3.0 (messages {"User":
// {id, content}} / {"Agent": {content, tool_results}} / "Resume") and the
// older 0.1.0/0.2.0 (messages {id, role, segments, tool_uses,
// tool_results}):
//
//   - the first row of a thread → session_start (the model, the worktree
//     of its project snapshot or its folder as the working folder, the git
//     branch, head and remote); a subagent's thread (parent_id, or
//     subagent_context.parent_thread_id) gives events under its root
//     thread's id with its own as AgentID, Sidechain set.
//   - a user message → user_turn (its Text items; mentions and images as
//     parts); "Resume" → user_turn (Meta injected: Zed's "Continue where
//     you left off").
//   - an agent message → for each item, Text → assistant_turn, Thinking →
//     assistant_turn (thinking), RedactedThinking → assistant_turn (the
//     item as a part), ToolUse → tool_call; then each tool result →
//     tool_result and, for the edit tools (edit_file, streaming_edit_file,
//     write_file, delete_path, move_path), a file_edit: the file's text
//     before and after when the result kept them (old_text, new_text),
//     else its diff, else the arguments (edits[] of old_text/new_text, a
//     content); ok false when the result is an error.
//   - a row read again: the messages compared with those read before.
//     Unchanged ones give nothing; a message grown in place (the agent's
//     last, as it streams) gives its new items and results; a message
//     changed, or the thread cut short (a message edited and resent) → a
//     rewind dropping the events from that message on, then the new
//     messages. A row whose thread is unchanged → unknown (duplicate).
//   - a row whose data cannot be decoded → unknown (malformed), of an
//     unknown data_type → unknown (unrecognized).
//
// Zed keeps no time per message: every event of a row carries the row's
// updated_at (created_at for the start). It writes no compaction (its
// thread summary is a title) and no end of session.
//
// # Text conversations: *.zed.json
//
// Conversations is the adapter of the older assistant's text threads
// (conversations/<title> - <n>.zed.json in the config folder on macOS, the
// data folder elsewhere; ~/.config/zed/conversations in earlier versions):
// one JSON document (SavedContext, crates/assistant_context) rewritten in
// place — {id, zed: "context", version, text, messages, summary}, each
// message a byte offset into text where it starts, with its role (in
// message_metadata before 0.4.0). It is framed as one record; each message
// gives a user_turn (system: Meta injected) or an assistant_turn.
package zed
