// Package continuedev reads Continue's session files (the VS Code and
// JetBrains extensions and the cn CLI: ~/.continue/sessions/<session
// id>.json, or $CONTINUE_GLOBAL_DIR/sessions) into transcript events. (The
// package is not named continue, a Go keyword.)
//
// A session is one JSON document that Continue rewrites whole after every
// change: the adapter frames a file as one record (package jsondoc) and
// each event points back at its history item (/history/<i>). A changed
// session is read again from the start.
//
// The mapping:
//
//   - the session {sessionId, title, workspaceDirectory, history, mode?,
//     chatModelTitle?, usage?} → session_start: workspaceDirectory (a path,
//     or a file:// URI in the extensions) is the project, chatModelTitle
//     the model; the other members are kept in Extra.
//   - a history item {message, contextItems, editorState?, toolCallStates?,
//     reasoning?, conversationSummary?, …} by its message's role:
//     "user" → user_turn (text, and image parts kept as parts; the
//     attached context items stay in Extra); "assistant" → assistant_turn
//     (with usage when the message has it) and a tool_call per toolCalls
//     entry {id, function: {name, arguments (a JSON string)}}; "thinking"
//     → assistant_turn with the thinking alone; "tool" → tool_result for a
//     call no tool call state answered; "system" → unknown (unmapped).
//   - each toolCallStates entry {toolCallId, status, parsedArgs, output:
//     [{content}]} → tool_result once its status is done, errored or
//     canceled (ok when done) and, for an edit tool, file_edit: from the
//     "Diff:" the tool's output carries (its own patch, with the file's
//     line numbers), else from the arguments — the replaced text (a
//     Fragment), a created file's content, SEARCH/REPLACE blocks.
//     edit_existing_file's "changes" are the model's sketch with the
//     unchanged code elided: its edit holds them as New with no diff.
//   - conversationSummary (the history compacted up to that item) →
//     compaction, after the item's events.
//
// Continue writes no time for a message: the session's creation time is
// only in sessions.json (the index, not read as a transcript). The only
// times are those of a reasoning span (reasoning.startAt), which its
// item's events carry. Without times the pipeline cannot bind a decision
// to an edit. No rewind is recorded (editing an earlier message truncates
// the history in place) and no subagent transcript is kept.
//
// Event ids are "<session>/<item index>", with "#tool_call:",
// "#tool_result:", "#edit:<call id>" and "#compaction" for an item's
// other events.
package continuedev
