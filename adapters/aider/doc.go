// Package aider reads aider's chat histories (.aider.chat.history.md, in a
// project's repository root, or where --chat-history-file and
// AIDER_CHAT_HISTORY_FILE put it) into transcript events, and its prompt
// histories (.aider.input.history) through InputHistory.
//
// A chat history is markdown that aider appends to, every session of a
// project in one file. Adapter frames it into records (it implements
// transcript.Framer), as aider's io.py writes them:
//
//   - "# aider chat started at YYYY-MM-DD HH:MM:SS" (local time, no zone)
//     opens a session → session_start. The time, verbatim, is the session
//     id and the start's timestamp; aider writes no other time, so the
//     session's other events carry none. The folder of the file (when the
//     stream's file name is absolute) is the project.
//   - aider's own output: lines starting with "> ", each message ending
//     with the two spaces of a markdown line break (a message of several
//     lines has "> " on its first only, and may hold anything, SEARCH/
//     REPLACE markers and pytest's ">" included, until that line). A run of
//     messages is one record → unknown (unmapped, raw type "tool_output"),
//     kept verbatim; it is read for "Aider v…", the model and edit format
//     ("Model(s): <model> with <format> edit format"), "Creating empty file
//     <path>", and whether the last reply's edits were applied: "Applied
//     edit to <path>" → a file_edit for each of that reply's edits of the
//     file (ok); "Did not apply edit to" (--dry-run), "Skipping edits to",
//     "The LLM did not conform to the edit format." and "SEARCH/REPLACE
//     block(s) failed to match" → the edits not made (ok false).
//   - the person's lines, "#### " and the line break's two spaces → one
//     user_turn ("<blank>" is an empty prompt); Meta command for an in-chat
//     /command, shell for !command, injected for the lint errors aider
//     sends back ("# Fix any errors below") and for the architect's reply,
//     which architect mode hands to the editor model as a prompt and writes
//     as the person's lines (the same text as the reply just before).
//   - anything else is the model's reply, up to the next header, message of
//     aider's, or line of the person's ending in two spaces, outside code
//     fences → assistant_turn (the model the last Model(s) line named), and
//     a tool_call for each edit it asks for, in the session's edit format:
//     SEARCH/REPLACE blocks after their file's name (diff, diff-fenced,
//     editor-diff) → search_replace; a file's whole content in a fence
//     after its name (whole) → whole; fenced unified diffs without line
//     numbers (udiff) → udiff. Their file edits: the replaced text, a
//     Fragment; a file aider created empty for the edit, created; a whole
//     file's new content, with no diff (its content before is not in the
//     history); a udiff's hunks as written, a Fragment.
//
// A "#### " line inside a reply is the model's markdown heading unless it
// ends in two spaces; a "#### " line at the start of a record is the
// person's even without them (hand-written files). Text before the first
// header → unknown (unrecognized). Aider records no compaction (it
// summarises old messages silently), no rewind (/undo reverts a commit,
// which the history shows only as aider's output) and no subagent.
//
// A reply cut off while the model wrote code (Ctrl-C) leaves its fence open:
// inside a fence the reply still ends where aider went on — the person's
// line after two blank lines, or aider's "^C" or "Tokens:" message after
// one — and a line of white space alone never ends one of aider's
// messages (an indented blank line in pytest's output).
//
// Framing needs no state between records; the reader may stop at any
// record boundary and resume there. A record is complete once the next
// begins, or once its last line has its newline (aider writes a reply, a
// prompt and a message each in one write).
package aider
