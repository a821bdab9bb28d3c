package pipelinetest

import (
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/transcript"
)

// Scenario is one situation of the catalog and the shape every tool's
// transcript of it must normalise to.
type Scenario struct {
	// Name is the fixtures' file stem: <tool>/<Name>.jsonl.
	Name string
	// Shows is what the scenario shows, in a sentence or two.
	Shows string
	// Forms says how each tool writes the situation where the tools
	// differ (rewinds, compactions, subagents): the records a fixture of
	// that tool must hold.
	Forms map[transcript.SourceKind]string
	// Cannot says, for each tool whose on-disk format cannot hold the
	// situation, why: that tool has no fixture of the scenario.
	Cannot map[transcript.SourceKind]string
	// Want is the shape of the nodes, the same for every tool.
	Want Shape
}

// Why Windsurf's formats cannot hold most scenarios: the pipeline binds an
// edit to the decision before it by their times.
const windsurfNoTimes = "Cascade's trajectory transcripts carry no time, and an edit binds to the decision before it by time; " +
	"its hook payloads, which carry times, hold one response per turn and edits as old and new strings without the files' content"

// cannotWindsurf is the Cannot of a scenario that needs a binding.
func cannotWindsurf() map[transcript.SourceKind]string {
	return map[transcript.SourceKind]string{transcript.Windsurf: windsurfNoTimes}
}

// The scenarios' names, in catalog order.
const (
	HappyPath           = "happy_path"
	RejectedAlternative = "rejected_alternative"
	Ban                 = "ban"
	InterleavedArcs     = "interleaved_arcs"
	SeveralEdits        = "several_edits"
	FailedToolCall      = "failed_tool_call"
	RewindCompaction    = "rewind_compaction"
	SubagentThread      = "subagent_thread"
	NoMarker            = "no_marker"
	TaskRequests        = "task_requests"
)

// Node kinds, short, for the shapes below.
const (
	conv = pipeline.KindConversation
	dec  = pipeline.KindDecision
	ep   = pipeline.KindEpisode
	bind = pipeline.KindBinding
)

// Catalog returns the scenarios of SPEC §7, in a fixed order. Every call
// returns fresh values: callers may change them.
func Catalog() []Scenario {
	return []Scenario{
		{
			Name:   HappyPath,
			Cannot: cannotWindsurf(),
			Shows: "A person decides (\"Let's use SQLite for the cache.\"); the assistant answers, " +
				"creates cache.go and says so. One conversation, one decision with its chosen option, " +
				"one episode, and the binding from the decision to the episode.",
			Want: Shape{
				Kinds:         []pipeline.NodeKind{conv, dec, ep, bind},
				Conversations: []ConversationShape{{User: 1, Assistant: 2}},
				Decisions: []DecisionShape{{
					Categories: []pipeline.Category{pipeline.CategoryDecision},
					Chosen:     []string{"SQLite"},
					Epitome:    "Let's use SQLite for the cache.",
				}},
				Episodes: []EpisodeShape{{File: "cache.go", Op: transcript.OpCreate, Added: 3}},
				Bindings: []BindingShape{{Decision: 0, Episode: 0}},
			},
		},
		{
			Name:   RejectedAlternative,
			Cannot: cannotWindsurf(),
			Shows: "\"Use zerolog instead of logrus for logging.\": the decision names the option chosen " +
				"and the one rejected; the edit that swaps the import binds to it.",
			Want: Shape{
				Kinds:         []pipeline.NodeKind{conv, dec, ep, bind},
				Conversations: []ConversationShape{{User: 1, Assistant: 2}},
				Decisions: []DecisionShape{{
					Categories: []pipeline.Category{pipeline.CategoryDecision, pipeline.CategoryRejection},
					Chosen:     []string{"zerolog"},
					Rejected:   []string{"logrus"},
					Epitome:    "Use zerolog instead of logrus for logging.",
				}},
				Episodes: []EpisodeShape{{File: "log.go", Op: transcript.OpUpdate, Added: 1, Removed: 1}},
				Bindings: []BindingShape{{Decision: 0, Episode: 0}},
			},
		},
		{
			Name:   Ban,
			Cannot: cannotWindsurf(),
			Shows: "\"Never use the unsafe package in this codebase.\": a ban (is_ban, the banned thing " +
				"rejected) that is also an imperative; the edit removing the unsafe call binds to it.",
			Want: Shape{
				Kinds:         []pipeline.NodeKind{conv, dec, ep, bind},
				Conversations: []ConversationShape{{User: 1, Assistant: 2}},
				Decisions: []DecisionShape{{
					Categories: []pipeline.Category{pipeline.CategoryBan, pipeline.CategoryImperative},
					IsBan:      true,
					Rejected:   []string{"unsafe package"},
					Epitome:    "Never use the unsafe package in this codebase.",
				}},
				Episodes: []EpisodeShape{{File: "conv.go", Op: transcript.OpUpdate, Added: 1, Removed: 3}},
				Bindings: []BindingShape{{Decision: 0, Episode: 0}},
			},
		},
		{
			Name:   InterleavedArcs,
			Cannot: cannotWindsurf(),
			Shows: "Two decisions, each followed by its edits: \"Use chi for the router.\" then an edit " +
				"of router.go; \"Switch to pgx for the database driver.\" then edits of db.go and of " +
				"router.go again. Each edit binds to the latest decision before it, not to the one " +
				"whose file it touches; the second decision binds two episodes, so its bindings carry " +
				"correlation figures (the first episode is the session's other one).",
			Want: Shape{
				Kinds: []pipeline.NodeKind{conv, conv, dec, dec, ep, ep, ep, bind, bind, bind},
				Conversations: []ConversationShape{
					{User: 1, Assistant: 2},
					{User: 1, Assistant: 2},
				},
				Decisions: []DecisionShape{
					{
						Categories: []pipeline.Category{pipeline.CategoryDecision},
						Chosen:     []string{"chi"},
						Epitome:    "Use chi for the router.",
					},
					{
						Categories: []pipeline.Category{pipeline.CategoryDecision},
						Chosen:     []string{"pgx"},
						Epitome:    "Switch to pgx for the database driver.",
					},
				},
				Episodes: []EpisodeShape{
					{File: "router.go", Op: transcript.OpUpdate, Added: 1, Removed: 1},
					{File: "db.go", Op: transcript.OpUpdate, Added: 1, Removed: 1},
					{File: "router.go", Op: transcript.OpUpdate, Added: 2},
				},
				Bindings: []BindingShape{
					{Decision: 0, Episode: 0},
					{Decision: 1, Episode: 1, Correlation: &Table{A: 2, C: 1}},
					{Decision: 1, Episode: 2, Correlation: &Table{A: 2, C: 1}},
				},
			},
		},
		{
			Name:   SeveralEdits,
			Cannot: cannotWindsurf(),
			Shows: "\"Go with table-driven tests for the parser.\" then three edits: parser_test.go " +
				"created, parser_test.go changed, parser.go changed. One decision binds all three, " +
				"each binding with the correlation figures (three of three actions are its episodes).",
			Want: Shape{
				Kinds:         []pipeline.NodeKind{conv, dec, ep, ep, ep, bind, bind, bind},
				Conversations: []ConversationShape{{User: 1, Assistant: 2}},
				Decisions: []DecisionShape{{
					Categories: []pipeline.Category{pipeline.CategoryDecision},
					Chosen:     []string{"table-driven tests"},
					Epitome:    "Go with table-driven tests for the parser.",
				}},
				Episodes: []EpisodeShape{
					{File: "parser_test.go", Op: transcript.OpCreate, Added: 8},
					{File: "parser_test.go", Op: transcript.OpUpdate, Added: 3, Removed: 1},
					{File: "parser.go", Op: transcript.OpUpdate, Added: 1, Removed: 1},
				},
				Bindings: []BindingShape{
					{Decision: 0, Episode: 0, Correlation: &Table{A: 3}},
					{Decision: 0, Episode: 1, Correlation: &Table{A: 3}},
					{Decision: 0, Episode: 2, Correlation: &Table{A: 3}},
				},
			},
		},
		{
			Name:   FailedToolCall,
			Cannot: cannotWindsurf(),
			Shows: "\"Use errors.Join to combine the close errors.\" then an edit of store.go that " +
				"fails (the text to replace is not in the file) and a retry that succeeds: the failed " +
				"call makes no episode, the retry one, bound to the decision.",
			Forms: map[transcript.SourceKind]string{
				transcript.ClaudeCode:        "Edit whose tool_result has is_error and toolUseResult \"Error: String to replace not found in file.…\"",
				transcript.Codex:             "apply_patch custom_tool_call whose output is \"apply_patch verification failed: …\", with no patch_apply_end",
				transcript.GeminiCLI:         "replace tool call with status \"error\" and a functionResponse whose response is {error: \"Failed to edit, 0 occurrences found…\"}",
				transcript.CopilotCLI:        "edit call whose tool.execution_complete has success false and an error, no result",
				transcript.VSCodeCopilotChat: "replace_string_in_file call whose toolCallResults entry is \"ERROR while calling tool: Could not find matching text to replace…\", its invocation resultDetails.isError, no text edit",
				transcript.OpenCode:          "edit tool part whose state has status \"error\" and error \"Error: Could not find oldString in the file.…\"",
				transcript.Zed:               "edit_file ToolUse whose tool result has is_error and no output",
				transcript.Cursor:            "search_replace bubble whose toolFormerData has status \"error\" and result {error: \"The string to replace was not found in the file.\"}",
			},
			Want: Shape{
				Kinds:         []pipeline.NodeKind{conv, dec, ep, bind},
				Conversations: []ConversationShape{{User: 1, Assistant: 3}},
				Decisions: []DecisionShape{{
					Categories: []pipeline.Category{pipeline.CategoryDecision},
					Chosen:     []string{"errors.Join"},
					Epitome:    "Use errors.Join to combine the close errors.",
				}},
				Episodes: []EpisodeShape{{File: "store.go", Op: transcript.OpUpdate, Added: 1, Removed: 1}},
				Bindings: []BindingShape{{Decision: 0, Episode: 0}},
			},
		},
		{
			Name: RewindCompaction,
			Cannot: map[transcript.SourceKind]string{
				transcript.CopilotCLI: "/rewind removes the events it drops from events.jsonl (session.snapshot_rewind is transient, never written): the abandoned branch leaves nothing to read",
				transcript.Windsurf:   "Cascade writes no record of a checkpoint restored or of a compaction, in either form",
			},
			Shows: "A question with no marker and its answer; \"Use MySQL for the store.\" and an edit " +
				"of db.go; the person goes back to before that prompt and says \"Use Postgres for the " +
				"store.\" instead, and db.go is edited again; after a word of thanks (no marker) the " +
				"conversation is compacted and the person adds \"From now on, keep functions short.\". " +
				"The MySQL decision and its edit are superseded (kept, flagged, bound to nothing); " +
				"everything before the compaction is flagged compacted; the Postgres decision binds the " +
				"second edit.",
			Forms: map[transcript.SourceKind]string{
				transcript.ClaudeCode:        "rewind: a prompt whose parentUuid is the answer the abandoned prompt also hangs from (a fork of the DAG); compaction: /compact (compact_boundary, isCompactSummary)",
				transcript.Codex:             "rewind: event_msg thread_rolled_back {num_turns: 1} (Esc Esc backtrack in the TUI); compaction: /compact (compacted with replacement_history, event_msg context_compacted)",
				transcript.GeminiCLI:         "rewind: {\"$rewindTo\": <the abandoned prompt's id>} (/rewind); compaction: /compress, which rewrites the history as a {\"$set\":{\"messages\":[…]}} checkpoint: the <state_snapshot> summary, the model's \"Got it. Thanks for the additional context!\" (an assistant turn after the compaction, which no open conversation takes in because the word of thanks closed it) and the latest exchange kept verbatim",
				transcript.VSCodeCopilotChat: "rewind: the requests cut back to before the abandoned one and the new prompt pushed ({\"kind\":2,\"k\":[\"requests\"],\"v\":[…],\"i\":1}, an edited and resent request); compaction: a /compact request whose result.metadata.summary holds the summary",
				transcript.OpenCode:          "rewind: /undo, the session row read again with revert {messageID: the abandoned prompt's message}; compaction: /compact, a user message holding a compaction part, then the summary (an assistant message with summary: true)",
			},
			Want: Shape{
				Kinds: []pipeline.NodeKind{conv, conv, conv, dec, dec, dec, ep, ep, bind},
				Conversations: []ConversationShape{
					{User: 1, Assistant: 2, Superseded: pipeline.SupersededRewind, Compacted: true},
					{User: 1, Assistant: 2, Compacted: true},
					{User: 1, Assistant: 1},
				},
				Decisions: []DecisionShape{
					{
						Categories: []pipeline.Category{pipeline.CategoryDecision},
						Chosen:     []string{"MySQL"},
						Epitome:    "Use MySQL for the store.",
						Superseded: pipeline.SupersededRewind,
						Compacted:  true,
					},
					{
						Categories: []pipeline.Category{pipeline.CategoryDecision},
						Chosen:     []string{"Postgres"},
						Epitome:    "Use Postgres for the store.",
						Compacted:  true,
					},
					{
						Categories: []pipeline.Category{pipeline.CategoryMemory},
						Epitome:    "From now on, keep functions short.",
					},
				},
				Episodes: []EpisodeShape{
					{File: "db.go", Op: transcript.OpUpdate, Added: 1, Removed: 1, Superseded: pipeline.SupersededRewind, Compacted: true},
					{File: "db.go", Op: transcript.OpUpdate, Added: 1, Removed: 1, Compacted: true},
				},
				Bindings: []BindingShape{{Decision: 1, Episode: 1}},
			},
		},
		{
			Name:   SubagentThread,
			Cannot: map[transcript.SourceKind]string{transcript.Windsurf: "Cascade has no subagents"},
			Shows: "\"Use testify for the parser tests.\"; the assistant hands the work to a subagent, " +
				"whose own prompt (written by the assistant, with markers in it) makes no " +
				"conversation, and whose file edit is an episode of the session marked as a " +
				"subagent's, bound to the person's decision.",
			Forms: map[transcript.SourceKind]string{
				transcript.ClaudeCode:        "Task tool call; the subagent's records in <session>/subagents/agent-<id>.jsonl (isSidechain, agentId, the parent's sessionId): fixture subagent_thread.jsonl + subagent_thread/<session>/subagents/agent-<id>.jsonl",
				transcript.Codex:             "spawn_agent and wait function calls; the subagent's thread is a rollout of its own (session_meta with id the new thread, session_id and parent_thread_id the parent's, source {subagent: {thread_spawn: …}}): fixture subagent_thread.jsonl + subagent_thread/rollout-<time>-<thread>.jsonl",
				transcript.GeminiCLI:         "a call of the subagent's tool (its name, {query}); the subagent's chat file chats/<parent session>/<subagent session>.jsonl (kind \"subagent\", its own sessionId), ending with complete_task: fixture subagent_thread.jsonl + subagent_thread/<session>/<subagent session>.jsonl; the parent session is named by the folder alone",
				transcript.CopilotCLI:        "task tool call; the subagent's events in the session's own events.jsonl, between subagent.started and subagent.completed, each with the envelope's agentId",
				transcript.VSCodeCopilotChat: "runSubagent call of the parent's round; the subagent's tool invocations in the parent's response, each with subAgentInvocationId, and its text edits after them",
				transcript.OpenCode:          "task tool part ({description, prompt, subagent_type}, metadata.sessionId); the subagent's child session (parent_id the session) and its messages in the same database: one file",
			},
			Want: Shape{
				Kinds:         []pipeline.NodeKind{conv, dec, ep, bind},
				Conversations: []ConversationShape{{User: 1, Assistant: 2}},
				Decisions: []DecisionShape{{
					Categories: []pipeline.Category{pipeline.CategoryDecision},
					Chosen:     []string{"testify"},
					Epitome:    "Use testify for the parser tests.",
				}},
				Episodes: []EpisodeShape{{File: "parser_test.go", Op: transcript.OpCreate, Added: 9, Subagent: true}},
				Bindings: []BindingShape{{Decision: 0, Episode: 0}},
			},
		},
		{
			Name: NoMarker,
			Shows: "\"Fix the typo in the README.\" commits to nothing: no conversation, no decision; " +
				"the edit is still an episode, bound to nothing.",
			Want: Shape{
				Kinds:    []pipeline.NodeKind{ep},
				Episodes: []EpisodeShape{{File: "README.md", Op: transcript.OpUpdate, Added: 1, Removed: 1}},
			},
		},
		{
			Name: TaskRequests,
			Shows: "Three requests for the task at hand, each answered in words — \"Remember the number 42.\" " +
				"(a value held for the conversation), \"Use a subagent to list the files.\" (the agent's " +
				"means of working), \"Remember our database decision in cortex.\" (a request about the " +
				"memory itself) — then \"Fix the typo in the README.\" and its edit. None is a decision " +
				"about the project, though each holds a marker: no conversation, no decision; the edit is " +
				"an episode bound to nothing.",
			Want: Shape{
				Kinds:    []pipeline.NodeKind{ep},
				Episodes: []EpisodeShape{{File: "README.md", Op: transcript.OpUpdate, Added: 1, Removed: 1}},
			},
		},
	}
}

// Lookup returns the scenario of the catalog named name.
func Lookup(name string) (Scenario, bool) {
	for _, s := range Catalog() {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}
