// Package transcripts searches the raw conversations of every agent tool
// cortex reads (SPEC §4.11): not the memories, but what was said — by the
// person, by the agent, by the tools — in every session on this machine.
//
// # What is indexed
//
// One document per exchange: a turn the person typed and everything the
// agent did until the next one — its replies, the names of the tools it
// called, the files it read or edited, the shell commands it ran, what a
// failed tool said — trimmed to a sane size. Compaction summaries are
// documents of their own; exchanges on a branch the person rewound away
// from are kept and marked. Each carries the tool, the session, the
// subagent, the project (working folder, repository root, branch), its time
// and a pointer back (file, byte offset, line). Every text is redacted with
// the credential rules before it is kept anywhere: a secret in a transcript
// is never in the index, in the reading state beside it, nor in a result.
//
// # Kept up to date
//
// The index is a cache in the state folder (per machine, never in a vault).
// Every search first brings it up to date, cheaply: discovery (each tool's
// default folders or its override variable) lists the transcripts; a file
// whose size and time are as last read is skipped; a file that grew is read
// from where the last read stopped, with the adapter's parser state saved
// then (transcript.Read resumes from a byte offset); a file rewritten,
// truncated or replaced — its size, its first bytes or the bytes before the
// offset say so — is read again whole, as is one whose new records reach
// back before the offset (a rewind, a message rewritten in place); a file
// gone has its documents removed. Documents have ids derived from the file
// and the record's offset, so reading a record twice replaces its document:
// nothing is indexed twice, and a sync killed half-way is finished by the
// next. Within Freshness of a full check (every transcript discovery finds,
// stat'ed), a sync checks only the transcripts written lately — the ones
// agents append to — and the parser's state is kept for those only.
//
// Locks (which always time out): write.lock serialises writers for their
// whole work; index.lock is shared by readers while they search and taken
// exclusively by a writer only while it changes the index files. A search
// that finds another process writing answers from the index as it stands
// rather than wait. A full rebuild (Rebuild) builds a new generation beside
// the live one and swaps it in.
//
// # Ranking
//
// BM25 over the whole exchange, with boosts for a query term found in the
// person's words, in a file path or in a tool name, and for an identifier,
// path or error code of the query found whole; the query is literal, as in
// recall (every term first, any term when that finds too little). A mild
// recency blend, one best exchange per session unless asked otherwise (from
// the branch that stands: a rewound exchange stands for its session only
// when nothing else of it matched), and snippets with the query's terms
// marked. Eval scores it on a dataset next to plain BM25 and ripgrep.
package transcripts
