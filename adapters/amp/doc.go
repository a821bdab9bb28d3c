// Package amp reads Amp's thread files (~/.local/share/amp/threads/
// T-<uuid>.json, or $XDG_DATA_HOME/amp/threads) into transcript events.
//
// A thread is one JSON document that Amp rewrites whole after every change
// (its "v" counts the revisions), so the adapter frames a file as one
// record (package jsondoc) and reads the thread in one Parse; each event
// points back at its message with a JSON pointer (/messages/<i>). A
// position saved against one version of the file is not valid for the
// next: a changed thread is read again from the start.
//
// The mapping:
//
//   - the thread {v, id, created (epoch ms), title, agentMode, env:
//     {initial: {trees: [{uri (file://<cwd>), repository: {url, ref,
//     sha}}], platform: {clientVersion, …}}}, meta, messages} →
//     session_start: the thread id is the session, the first tree the
//     project (cwd, remote, branch from refs/heads/<branch>, commit), the
//     client version the tool version, the first model named by an
//     answer's usage the model; created the time. Its other members are
//     kept in Extra.
//   - a user message {role, messageId, content, meta: {sentAt}, …}: its
//     text blocks → user_turn (timestamped from sentAt), its tool_result
//     blocks {toolUseID, run: {status, result, error}} → tool_result (ok
//     when the status is "done"), and for an edit tool a file_edit. Amp
//     writes no time on a message of results: they carry the time of the
//     answer that made the call.
//   - an assistant message {content: [text | thinking | tool_use], state,
//     usage: {model, inputTokens, outputTokens, cacheCreationInputTokens,
//     cacheReadInputTokens, timestamp}} → assistant_turn (text, thinking
//     with its signature kept as a part, model, usage, stop reason) and a
//     tool_call per tool_use.
//   - file edits: edit_file {path, old_str, new_str} and undo_edit {path}
//     from the result's diff (a fenced unified diff with the file's line
//     numbers), else the replaced text (a Fragment); create_file {path,
//     content} the new file. A call that did not finish "done" gives its
//     edit from the input with ok false.
//   - messages of other roles → unknown (unrecognized); a document that is
//     not a thread → unknown (unrecognized), text that is not JSON →
//     unknown (malformed).
//
// Amp keeps no compaction and no rewind in the file: a handoff starts a new
// thread, and editing an earlier message truncates messages in place.
// Subagents (the Task tool) run inside the call: their result is the
// call's output, their own messages are not stored. Event ids are
// "<thread>/<messageId>", with "#tool_call:", "#tool_result:" and
// "#edit:<call id>" for a message's other events.
package amp
