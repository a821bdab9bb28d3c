// Package copilotcli reads the GitHub Copilot CLI's session event logs
// (~/.copilot/session-state/<session>/events.jsonl since 1.0.11, the older
// session-state/<session>.jsonl; COPILOT_HOME moves ~/.copilot) into
// transcript events. The VS Code Copilot extension writes the same envelope
// for its agent sessions (workspaceStorage/<hash>/GitHub.copilot-chat/
// transcripts/<session>.jsonl): this adapter reads those too when named,
// though discovery leaves them to the VS Code Copilot Chat adapter, whose
// chatSessions files hold the same sessions with more.
//
// Every line is an event of the CLI's own log, {type: "<namespace>.<event>",
// data: {…}, id, timestamp, parentId, agentId?}: the id is the event's id
// (a record's other events add "#tool_call:<call>", "#edit:<call>"), the
// parentId its parent (a linear chain), and agentId, on a subagent's
// events, its AgentID (Sidechain); logs before agentId name the subagent by
// data.parentToolCallId. The record types and fields are the Copilot SDK's
// (github/copilot-sdk, nodejs/src/generated/session-events.ts). The
// mapping:
//
//   - session.start → session_start (model, CLI version; the session id,
//     the working folder and git context); session.resume → session_start
//     with the trigger "resume". Records before the start carry the session
//     the file's path names (session-state/<session>/events.jsonl).
//   - user.message → user_turn: content, what the person typed (the
//     transformedContent the model got stays in Extra), attachments as
//     parts; Meta "injected" when a skill, an agent or autopilot sent it.
//   - assistant.message → assistant_turn (content, reasoningText, model,
//     output tokens; a response split in chunks gives Continued to all but
//     the first), and a tool_call for each toolRequests entry;
//     assistant.reasoning → an assistant_turn of thinking alone.
//   - tool.execution_start (and tool.user_requested) → the call's tool_call
//     when the log has not named it yet, else unknown (unmapped).
//   - tool.execution_complete → tool_result (success is explicit; older
//     logs' result_type and an error say it otherwise) and, for the tools
//     that change files, file_edit: see fileEdits.
//   - session.truncation (messages dropped to fit the window) and a
//     successful session.compaction_complete (the summary) → compaction.
//   - session.snapshot_rewind → rewind. The SDK marks it transient: the CLI
//     removes the rewound events from the log instead, and a log that holds
//     none shows no rewind (the abandoned branch is simply gone).
//   - abort (a turn cut short) → user_turn with Meta "interrupt", its
//     reason as text; session.shutdown → session_end.
//   - the other types the SDK lists (turn boundaries, hooks, subagent
//     start and end, permissions, usage, model changes — which set the
//     model later messages carry —, context changes — which set the
//     project) → unknown (unmapped); types it does not list → unknown
//     (unrecognized); lines that are not an envelope → unknown (malformed or
//     unrecognized).
package copilotcli
