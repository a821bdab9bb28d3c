// Package codex reads OpenAI Codex's rollouts (CLI, Desktop app and VS Code
// extension: ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl) into
// transcript events.
//
// Every line is one record: since about 0.3x an envelope {timestamp, type,
// payload}, before it (the early Rust CLI) a bare session header {id,
// timestamp, instructions, git}, bare response items and {"record_type":
// "state"} markers. The mapping:
//
//   - session_meta (the first) → session_start, with the project (cwd, git
//     branch, commit, remote) and the Codex version. A subagent's rollout
//     (source.subagent) belongs to its parent's session: its events carry
//     the parent thread as SessionID, their own thread as AgentID, and
//     Sidechain. Later session_meta lines are copies of a parent's header →
//     unknown (duplicate).
//   - A forked rollout (forked_from_id) starts by copying its parent's
//     lines with re-stamped timestamps: every record until the first of a
//     turn minted after the fork (turn ids are UUIDv7) → unknown
//     (duplicate).
//   - response_item message: user → user_turn (Meta set for what Codex
//     injects: environment context, AGENTS.md and other instructions, shell
//     commands, aborted-turn notes, subagent notifications, and whatever the
//     newer rollouts' metadata says the harness wrote); assistant →
//     assistant_turn; developer and system → unknown (unmapped). reasoning →
//     assistant_turn with Thinking (the summaries; the encrypted content
//     stays in Extra).
//   - Codex writes the conversation twice, as response items and as
//     event_msg user_message / agent_message / agent_reasoning (paginated
//     rollouts: item_completed UserMessage / AgentMessage / Reasoning), in
//     either order: the first of a pair is emitted, its copy — same item id,
//     or same text, within the turn — is unknown (duplicate).
//   - function_call, custom_tool_call, local_shell_call, tool_search_call,
//     web_search_call, image_generation_call → tool_call; their outputs →
//     tool_result, paired by call_id, ok read from the output (an exit code
//     in its first lines, legacy shell metadata, a "success" flag, Codex's
//     messages for a call that did not run) or else from an earlier
//     exec_command_end / mcp_tool_call_end (or item_completed) for the call.
//   - apply_patch — a custom tool call with the patch as input, a
//     function_call with {"input"} or {"patch"} arguments, or a shell /
//     exec_command running apply_patch with a heredoc — → one file_edit per
//     file: from patch_apply_end's changes (item_completed FileChange in
//     paginated rollouts) when Codex wrote them (the tool's own diff), else
//     at the call's output from the patch itself (an update is a Fragment:
//     V4A hunks carry no line numbers). Edits come once per call: a second
//     end record of the same call is unknown (duplicate), and the output of
//     a call whose edits came with patch_apply_end gives none.
//   - compacted, event_msg context_compacted, response_item compaction and
//     item_completed ContextCompaction → compaction (compacted's message is
//     the Summary; its replacement history, which repeats earlier items, is
//     kept in Extra and not read again). thread_rolled_back → rewind (Turns:
//     the user turns dropped).
//   - turn_context and thread_settings_applied (the model, the cwd: read
//     into the events that follow), world_state, token counts, turn
//     lifecycle, review mode, goals, collaboration and the other records
//     Codex is known to write → unknown (unmapped); types never seen →
//     unknown (unrecognized); a line that is not a JSON object → unknown
//     (malformed).
//
// Codex writes no end of session, so no session_end is made up. Codex lines
// have no ids of their own: a response item's event id is its item id (msg_…,
// fc_…), an item_completed's its item's, every other record's a content hash;
// a record's second and later events get that id and a "#" suffix
// (#edit:<path>). Fields the model has no slot for go to the event's Extra
// (the envelope's ordinal, the payload's keys, an item's as "item.<key>").
package codex
