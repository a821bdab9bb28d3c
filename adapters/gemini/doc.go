// Package gemini reads Gemini CLI's chat files
// (~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl, subagents'
// chats/<parent session>/<session>.jsonl, and the single-document
// session-*.json of 0.38 and before) into transcript events.
//
// A JSONL chat file (0.39 and later) is a log of updates to the conversation
// the CLI holds, replayed the way the CLI's own loader and writer do; the
// mapping:
//
//   - the metadata line {sessionId, projectHash, startTime, kind, …} →
//     session_start (trigger "resume" for a session already started);
//     {"$set": {"sessionId": …}} naming a started session is how the CLI
//     marks reopening a file → session_start (resume), unless a start came
//     just before. The file names no working folder: the cwd comes from
//     the session context message (its workspace directories), or a
//     subagent's directories. A subagent's file (kind "subagent", in
//     chats/<parent session>/) names only its own session: its events
//     carry the parent's, from the folder of the file name the stream was
//     given, with the subagent's as AgentID — the shape of Claude Code's
//     subagents, so a subagent's edits join the session that asked for
//     them.
//   - a message record {id, timestamp, type, content, …}. The CLI appends
//     the whole message again each time it changes (tool calls added,
//     results arriving, tokens attached): the last record of an id wins.
//     Only what changed gives events, each a new version whose id has
//     "#v<n>" and whose Replaces names the version it supersedes; a
//     byte-identical record is unknown (duplicate), one that changes
//     nothing the events carry unknown (unmapped, raw type "<type>/rewrite").
//   - type "user" → user_turn: displayContent (what the person typed, before
//     @-file expansion) when there is one, with the <hook_context> blocks
//     hooks added taken out (the content the model got stays in Extra);
//     Meta "injected" for the CLI's <session_context> and for hook output
//     alone. A message of function responses only (sent back to the
//     model) gives a tool_result only for a call whose result the model's
//     message did not hold, else unknown (unmapped, "user/functionResponse").
//   - type "gemini" → assistant_turn (text, thinking from thoughts[], model,
//     usage from tokens; none for a message of tool calls alone with
//     nothing else), and for each toolCalls[] entry a tool_call, then once
//     its status is success, error or cancelled a tool_result (ok when
//     success) and, for replace and write_file, a file_edit: diffed from
//     resultDisplay's originalContent and newContent, else the CLI's own
//     fileDiff, else (a failed call) the arguments, with ok false.
//   - types info, error and warning → unknown (unmapped); others unknown
//     (unrecognized).
//   - {"$set": {"messages": [...]}} is a checkpoint: the list replaces the
//     conversation (at start, on resume, after compression or masking).
//     Messages never read give their events, pointing at
//     /$set/messages/<i>; messages read before give none, whatever the
//     checkpoint changed in them — the CLI rewrites history to save context
//     (masked tool outputs, parts re-encoded), which is not a new version of
//     what happened. A checkpoint that leaves out messages the
//     conversation held and brings a user message never read is a
//     compression: that message is its summary → compaction, told by the
//     file's structure and not by what the model wrote in it (a load or a
//     resume leaves messages out too, but brings none never read besides
//     the session context). Other $set records (lastUpdated, summary,
//     directories) → unknown (unmapped) after they update the session and
//     project.
//   - {"$rewindTo": id} → rewind: the message and everything after it are
//     dropped (an id the conversation does not hold clears it, as the CLI's
//     loader does); To is the last event kept, Dropped the first dropped,
//     Turns the prompts that went.
//   - anything else → unknown (unrecognized); not a JSON object → unknown
//     (malformed).
//
// Event ids are the message id for its main event, "<message>#tool_call:",
// "#tool_result:" and "#edit:<call id>" for the others, "<session>#start"
// for starts, a content hash for records without an id ($set, $rewindTo).
// Gemini CLI writes no end of session and no tool version: neither is made
// up.
//
// Legacy reads the single-document files, framing one record per message
// (see Legacy); ForFile picks the adapter for a path.
package gemini
