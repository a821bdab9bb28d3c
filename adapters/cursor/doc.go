// Package cursor reads the chat history of the Cursor IDE into transcript
// events: its SQLite key-value databases, state.vscdb.
//
// Cursor keeps them where VS Code keeps its state, in its User folder
// (~/.config/Cursor/User on Linux, ~/Library/Application
// Support/Cursor/User on macOS, %APPDATA%\Cursor\User on Windows):
// globalStorage/state.vscdb for everything, and
// workspaceStorage/<hash>/state.vscdb per workspace (workspace.json beside it
// names the folder). Each has the tables ItemTable and cursorDiskKV, both
// (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB) with JSON values — so a
// value written again is a new row with a higher rowid. Cursor publishes
// none of this; the shapes below are those third-party readers document,
// and the fixtures are hand-made in them.
//
// The databases are read through package sqlitedb (a private copy, never a
// lock on Cursor's file, the write-ahead log honoured). Adapter implements
// transcript.Loader: Load gives the rows of the keys it reads with a rowid
// above the one the stream's state holds per table, in rowid order (the
// order Cursor wrote them), as row lines; a workspace database's first line
// is its folder, from workspace.json. The keys read, and what they give:
//
//   - cursorDiskKV bubbleId:<composer>:<bubble> — one message of a composer
//     (chat, agent) session: type 1 → user_turn; type 2 → assistant_turn
//     (text, thinking, code blocks as parts, token counts as usage) and,
//     when it is a tool call (toolFormerData {name, rawArgs, result,
//     status, toolCallId}), a tool_call then, once its status is completed
//     or error, a tool_result and for the edit tools a file_edit: edit_file
//     from its result's diff chunks (else its code_edit), search_replace
//     and edit_file_v2 from old_string/new_string, write from its contents,
//     delete_file a deletion. The events carry the composer's id as their
//     session. A bubble written again: only what changed gives events (a
//     text's new version replaces the old, a result that arrived); unchanged,
//     unknown (duplicate).
//   - cursorDiskKV composerData:<composer> — the session's metadata (name,
//     createdAt, the order of its bubbles): session_start the first time
//     (synthesised at the first bubble when a bubble comes first), unknown
//     (unmapped) after; the bubbles of versions that kept the conversation
//     inline (conversation: [bubble…]) give their events from it.
//   - ItemTable workbench.panel.aichat.view.aichat.chatdata — the older chat
//     panel: each tab a session, each bubble (type user or ai) a turn.
//   - ItemTable composer.composerData — a workspace's list of its composers:
//     unknown (unmapped).
//
// Not read: the other keys of cursorDiskKV (checkpointId,
// messageRequestContext, inlineDiffs: no public sample shows their shape
// well enough to turn them into edits; codeBlockDiff, whose segments hold
// the new lines but not the text they replace, so no diff can be made of
// them — the agent's edits they record are its edit_file calls, read from
// their diff chunks), and the cursor-agent CLI's
// ~/.cursor/chats/*/store.db (content-addressed blobs of protobuf tree
// nodes). Cursor writes no per-message time in most versions: events carry a
// bubble's createdAt when it has one, the composer's times otherwise.
package cursor
