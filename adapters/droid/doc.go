// Package droid reads Factory Droid's session files
// (~/.factory/sessions/<project>/<session id>.jsonl, one record a line,
// appended while the session runs; <project> is the working folder with
// every character other than letters, digits and "-" turned into "-") into
// transcript events. The <session id>.settings.json beside each file (the
// model, autonomy level and the session's token totals) is not a
// transcript: discovery passes over it, naming why.
//
// The mapping:
//
//   - {type: "session_start", id, title, sessionTitle, owner, version,
//     cwd} (some builds nest the fields in "session") → session_start; its
//     cwd is the project's. "version" is the file format's, not Droid's.
//   - {type: "message", id, parentId?, timestamp, message: {role, model?,
//     content}}: content blocks of the Anthropic Messages shape. A user
//     message's text → user_turn: the first text is what the person typed;
//     the texts Droid adds for an @-mentioned file ("Contents of <path>
//     …") and <system-reminder> blocks → a user_turn with Meta injected
//     (system_reminder). Its tool_result blocks → tool_result (ok unless
//     is_error, or the result is an error text). An assistant message →
//     assistant_turn (text, thinking; the signature and other blocks kept
//     as parts) and a tool_call per tool_use.
//   - file edits, at each edit tool's result: Create {file_path, content}
//     (the whole new file), Edit {file_path, old_str, new_str} (the
//     result's diffLines when it has them, else the replaced text: a
//     Fragment either way, as neither carries line numbers), MultiEdit
//     {file_path, edits: [{old_str, new_str}]}, ApplyPatch {input: a V4A
//     patch "*** Begin Patch … *** End Patch"} (one edit per file of the
//     patch, its hunks a Fragment). A failed call gives the edit with ok
//     false.
//   - {type: "compaction_state", summary: {title, body}} → compaction
//     (the body is the summary).
//   - todo_state and other known records → unknown (unmapped); records of
//     other types → unknown (unrecognized); not JSON → unknown (malformed).
//
// Event ids are the record's id for its main event, with "#tool_call:",
// "#tool_result:" and "#edit:<call id>" for the others; parent ids are the
// record's parentId. Droid writes no end of session, no per-message usage
// and no Droid version: none is made up. No subagent transcript layout and
// no rewind record are known.
package droid
