// Package transcript is the thin waist of cortex's transcript half: the one
// event model every agent tool's log is normalised into, and the machinery
// around it that no adapter should write twice.
//
// # The model
//
// An Event has an envelope — schema version, source tool, session id, seq,
// event id, parent id, verbatim timestamp, project, provenance back into the
// source bytes — and exactly one payload, named by its Kind: session_start,
// user_turn, assistant_turn, tool_call, tool_result, file_edit (a normalised
// unified diff), compaction, rewind, session_end, or unknown (a record the
// model has no kind for, kept verbatim with the reason). Events encode as
// NDJSON (Encoder, Marshal, Decode) with a fixed key order.
//
// # Guarantees
//
// Everything here is a pure function of the input bytes: no clock, no random
// ids, no dependence on map order, no goroutines. An adapter's output keeps
// the invariants Verify checks (and transcripttest runs on every fixture):
//
//   - well formed: each event has its kind's payload and no other; diffs parse;
//   - seq strictly increases within every session (it counts a stream's
//     events from 0, in file order);
//   - event ids are unique within a stream: the tool's native id, with a "#"
//     suffix for the second and later events of one record, else a content
//     hash (HashID); UniqueID appends "~2", "~3" to a repeat;
//   - lossless: every record gives at least one event, pointing back at it;
//   - deterministic: the same bytes give byte-identical NDJSON;
//   - resumable: a read stopped at a record boundary (a Position: offset,
//     line, and the Context as JSON) and continued later, in another
//     process, gives the events of one read; a line still being written is
//     left for the next read;
//   - no panic: a record the adapter fails on becomes an Unknown event.
//
// # Writing an adapter
//
// An adapter (package adapters/<tool>) implements Adapter: Source, Discover
// (default locations and the tool's override variable, sorted), Fingerprint
// (the schema variant of one record; the registry also uses it to tell which
// tool wrote a file) and Parse (one record into events). Parse builds every
// event with Context.NewEvent, which assigns seq, a unique id and the
// provenance; it keeps what it must remember between records in its own state
// type through StateOf, which must round-trip through encoding/json so a
// Position can be saved. Records are JSON lines unless the adapter implements
// Framer. Package rawjson takes validated JSON apart without decoding it
// twice; Diff, FormatUnified and Apply build and check unified diffs;
// Discovery's AddRoot, ReadDir, WalkFiles and AddFile walk a tool's folders
// (links not followed). Package ndjson is the NDJSON encoding of events and
// of the pipeline's nodes.
//
// It imports nothing of cortex but its own subpackages, so the adapters, which
// import only it and its subpackages, stay free of the memory half
// (arch_test.go checks both).
package transcript
