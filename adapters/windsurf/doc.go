// Package windsurf reads what Windsurf's Cascade agent exposes as JSON
// lines. Cascade keeps its conversations in its own store
// (~/.codeium/windsurf/cascade/*.pb): protobuf with no published schema,
// which cortex does not read, and Discover says so. What Windsurf does
// expose, read here:
//
//   - trajectory transcripts: with a post_cascade_response_with_transcript
//     hook configured (Cascade Hooks, in ~/.codeium/windsurf/hooks.json or
//     a workspace's .windsurf/hooks.json), Windsurf writes each
//     conversation ("trajectory") as JSON lines to
//     ~/.windsurf/transcripts/<trajectory>.jsonl, one step a line:
//     {"type": <step>, "status": "done"|"error"|…, <step>: {…}};
//   - hook payloads: the JSON each hook gets on its standard input
//     ({agent_action_name, trajectory_id, execution_id, timestamp,
//     model_name?, tool_info: {…}}), logged one a line by a hook that
//     appends its input to a file. They have no place of their own; such
//     a log is read when named (cortex scribe parse --as windsurf).
//
// Neither names a session, and the steps carry no time and no id: the
// session is the trajectory (the transcript's file name, a payload's
// trajectory_id), started by a synthesized session_start; event ids are
// content hashes (HashID, with "#result" and "#edit" for a record's other
// events; a call's id is its event's). The mapping:
//
//   - user_input → user_turn (user_response, as typed: @-mentions and all);
//     planner_response → assistant_turn (response, thinking);
//   - code_action → tool_call, tool_result (done and not rejected by the
//     person: acknowledgement_type …_REJECT leaves the file as it was) and
//     file_edit: the file's whole content before (original_content; none
//     is a new file) and after (new_content), diffed — exact;
//   - any other step (view_file, run_command, find, grep_search,
//     list_directory, MCP tools, …) → tool_call, its input the step
//     without its output, and once it ran (status done, error or
//     cancelled) tool_result: ok when done (and, for run_command, exit code
//     0 and not refused by the person), its text the step's output;
//   - hook payloads: pre_user_prompt → user_turn; post_cascade_response →
//     assistant_turn (model_name); post_write_code → tool_call, tool_result
//     and a file_edit per edit (old_string and new_string alone:
//     fragments); post_read_code, post_run_command, post_mcp_tool_use →
//     tool_call and tool_result; the pre-hooks (the action may yet be
//     blocked; its post-hook says it ran), post_cascade_response_with_
//     transcript and post_setup_worktree → unknown (unmapped); other
//     actions → unknown (unrecognized);
//   - anything else → unknown (unrecognized or malformed).
//
// A transcript step carries no time, so events read from transcripts have
// none: the pipeline cannot bind their edits to a decision (binding needs
// both times), though it records the edits and the conversation.
package windsurf
