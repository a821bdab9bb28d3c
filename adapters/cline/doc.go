// Package cline reads the task conversations of Cline and of its forks Roo
// Code and Kilo Code, which keep the same files in their own extension
// folder: <editor user folder>/globalStorage/<extension>/tasks/<task
// id>/api_conversation_history.json (saoudrizwan.claude-dev,
// rooveterinaryinc.roo-cline, kilocode.kilo-code), and the Cline CLI's
// ~/.cline/data/tasks/<task id>/. New, NewRoo and NewKilo return the three
// tools' adapters; ForFile picks the one an extension folder names.
//
// The file is the conversation as the model saw it: a JSON array of
// Anthropic MessageParams ({role, content}, and in newer builds ts in epoch
// milliseconds, Cline's modelInfo and metrics, Roo Code's condense and
// truncation marks), rewritten whole after every change — one record
// (package jsondoc), each event pointing at its message (/<index>). The
// task's ui_messages.json (what the panel shows) is passed over: the
// conversation is here, with the tool calls' inputs and results.
//
// The mapping:
//
//   - the task → session_start: the task id (the folder's name) is the
//     session; its time the first message's ts, else the task id when it is
//     Cline's creation time in epoch milliseconds; the working folder the
//     one the first environment details name ("# Current Working
//     Directory (…) Files", Roo Code's "Current Workspace Directory").
//   - a user message: what the person typed is wrapped by the extension —
//     <task>, <feedback>, <answer>, <user_message> — in a text block or
//     inside a tool result: that text → user_turn. The rest
//     (<environment_details>, attached file contents, resumption notices,
//     errors reported to the model) → user_turn with Meta injected.
//     tool_result blocks, and with XML tool calling the text "[<tool> for
//     '<path>'] Result:" followed by the result (in the same block, or the
//     next in older builds) → tool_result, ok unless it reports an error or
//     a denial.
//   - an assistant message → assistant_turn: its text without the tool
//     calls, <thinking> and thinking blocks as thinking, and the words of
//     the tools that speak to the person (attempt_completion's result,
//     plan_mode_respond's response, ask_followup_question's question):
//     such a call acts on nothing, so it is no tool_call but a part of the
//     answer ("tool_use:<name>"); its result is still paired.
//     tool_use blocks, and with XML tool calling <tool><param>…</param>
//     </tool> in the text → tool_call (an XML call gets the id
//     "<message id>:<n>", which its result and edit carry).
//     summarize_task and condense (Cline's compaction) → compaction, their
//     context the summary.
//   - file edits, at each edit tool's result: write_to_file (a created file;
//     one Roo Code reports "modified" has no diff: its content before is not
//     in the conversation), replace_in_file and apply_diff (SEARCH/REPLACE
//     blocks: undone on the <final_file_content> Cline quotes in its result
//     to diff the file before and after, else each block's text, a
//     Fragment), insert_content, search_and_replace, edit, edit_file and
//     search_replace (the replaced text, a Fragment). A failed call gives
//     its edits with ok false.
//   - Roo Code's summary message (isSummary) → compaction; its truncation
//     marker → compaction (trigger "truncation"); its reasoning items and
//     other elements → unknown.
//
// Restoring a checkpoint truncates the conversation in place: no rewind is
// recorded. A subtask (new_task) is a task of its own, its own session.
// Event ids are "<task>/<index>", with "#…" suffixes for a message's other
// events.
package cline
