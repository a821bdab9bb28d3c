// Package otlp reads the log records cortex's OTLP receiver (cortex scribe
// otlp) keeps: the events coding agents export as OpenTelemetry logs when
// their telemetry is pointed at cortex, stored one JSON object a line,
// per service and session: <state>/otlp/<service>/<session>.jsonl. The
// records are transcript/otlp's (its Record); this package turns them into
// events.
//
// Telemetry is not a transcript: the agents send what happened (a prompt,
// a tool run, a model request), not the conversation. What each record
// gives:
//
//   - <tool>.user_prompt (Claude Code, Codex, Gemini CLI) → user_turn: the
//     prompt attribute, which the agents send only when told to log
//     prompts (OTEL_LOG_USER_PROMPTS=1, Codex's otel.log_user_prompt,
//     Gemini CLI's logPrompts); empty otherwise;
//   - <tool>.tool_result (Claude Code, Codex), <tool>.tool_call (Gemini
//     CLI) → tool_call and tool_result: tool_name or function_name, the
//     arguments (tool_parameters, arguments, function_args), success, the
//     output or the error;
//   - <tool>.api_response (Gemini CLI), an api_request that carries token
//     counts (Claude Code's), and Codex's sse_event of a completed response
//     → assistant_turn: model and token counts, and the response text when
//     the agent logs it; an api_request without them (Codex's, Gemini
//     CLI's: the request made, not answered yet) → unknown (unmapped);
//   - codex.conversation_starts, gemini_cli.config → session_start (the
//     model, the tool's version);
//   - VS Code Copilot Chat (service copilot-chat), by whole name:
//     copilot_chat.session.start → session_start (gen_ai.request.model);
//     gen_ai.client.inference.operation.details (one per model request) →
//     assistant_turn (gen_ai.response.model, gen_ai.usage.* tokens), after
//     a user_turn when content capture is on and the request's last input
//     message (gen_ai.input.messages) is the person's — the request that
//     opened the turn (the record does not say which request it was, so
//     a side request Copilot makes with a text of its own — a chat's
//     title — reads as a prompt too); a failed request (error.type, no
//     tokens) → unknown (unmapped); copilot_chat.tool.call → tool_call and tool_result
//     (gen_ai.tool.name, success, error.type; the event carries no
//     arguments or output); copilot_chat.agent.turn (the tokens of a
//     request already read) and the edit and feedback records → unknown
//     (unmapped). Its session start names the chat (session.id); its
//     other records name none, so they carry the resource's session.id,
//     the VS Code window's. The Copilot CLI runtime exports traces and
//     metrics, no log records: nothing of it reaches here;
//   - every other record (tool decisions, API errors, SSE events, …) →
//     unknown (unmapped), kept verbatim; a line that is not such a record →
//     unknown (unrecognized or malformed).
//
// The session is the record's session (session.id, conversation.id, …,
// which the receiver resolved), else the file's name. Records carry no id:
// event ids are content hashes. A session's start is synthesized before its
// first record when the agent sends none. Telemetry holds no file edits:
// an edit shows only as its tool's call and result.
package otlp
