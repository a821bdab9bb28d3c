// Package vscodecopilot reads VS Code Copilot Chat's sessions
// (<User>/workspaceStorage/<hash>/chatSessions/<session>.jsonl and .json,
// <User>/globalStorage/emptyWindowChatSessions/, for VS Code, Insiders and
// VSCodium on Linux, macOS and Windows) into transcript events.
//
// VS Code keeps a chat session as one document, ISerializableChatData
// version 3 ({version, sessionId, creationDate, customTitle, requests: […]},
// VS Code's chatModel.ts); newer builds write it as a mutation log
// (chatSessionOperationLog.ts on objectMutationLog.ts): {"kind":0,"v":
// <the document>} first, then {"kind":1,"k":[path],"v":value} (set),
// {"kind":2,"k":[path],"v":[values],"i":cut?} (push onto an array, after
// cutting it at i) and {"kind":3,"k":[path]} (delete). The log is rewritten
// as a single kind-0 entry once it grows long. The adapter builds the
// requests from the log as VS Code's reader does, keeping only what is not
// final yet, and emits:
//
//   - the session → session_start (creationDate, the extension's version;
//     the other fields, customTitle among them, in Extra);
//   - each request, as soon as it appears → user_turn (message.text; the
//     attached variables as parts; Meta "command" for a slash command such
//     as /compact), id the requestId;
//   - each request once its response is final (modelState complete,
//     cancelled or failed; before modelState, a result or isCanceled): for
//     every tool-calling round of result.metadata.toolCallRounds an
//     assistant_turn (the round's text and thinking) and a tool_call per
//     call, with its tool_result from toolCallResults (the extension's
//     prompt-tsx tree flattened to text; "ERROR while calling tool…" and a
//     cancellation are failures); without rounds (ask and edit modes, older
//     builds) one assistant_turn of the response's markdown; a cancelled or
//     failed response says so in StopReason;
//   - file_edit for the edit tools' calls (create_file, replace_string_in_
//     file, multi_replace_string_in_file, insert_edit_into_file,
//     apply_patch) and for the response's textEditGroup parts: see
//     editSet. A subagent's tool invocations (subAgentInvocationId, which
//     VS Code records in the parent's response) give tool_call, tool_result
//     and file_edit events with the invocation as AgentID, after the
//     parent's runSubagent call;
//   - result.metadata.summary and summaries (the conversation compacted, by
//     /compact or when the context filled) → compaction, after the round it
//     names;
//   - requests cut off (a push onto requests from an index before its end:
//     the person undid requests or edited and resent one) → rewind, naming
//     the first event dropped, the last kept and the prompts that went;
//   - entries that change nothing final, or other fields of the session →
//     unknown (unmapped, raw type the entry's kind and path, such as
//     "push/requests.*.response").
//
// Times are numbers (Unix milliseconds) in VS Code's files; events carry
// them as RFC 3339 UTC text. Ids are the request's id, with "#round:<id>",
// "#tool_call:<id>", "#tool_result:<id>", "#edit:<id>", "#textedit:<n>",
// "#compaction:<n>" for its other events. The working folder comes from the
// workspace the extension described to the model, else the base of the
// response's markdown.
//
// Document reads the single-document .json files, a whole document a
// record; ForFile picks the adapter for a path.
package vscodecopilot
