// Package access keeps the access log: one line each time a memory is put in
// front of someone (recall, session-start injection, context assembly), from
// which recall computes a memory's activation (SPEC §4.3). It lives in the state
// folder, not in the index, so it survives every rebuild.
//
// # Files
//
// access.log is append-only JSON lines. Its first line names the log,
// {"log":"<token>"}, and every other line is one access,
// {"id":…,"ts":…,"source":…}, or, after compaction, a count of accesses of one
// memory from one source with the time of the last, {"id":…,"ts":…,
// "source":…,"n":17}. Appends take a shared lock on access.lock and write
// their lines in one call, so concurrent writers never interleave or lose a
// line; compaction, which folds the log into counts and replaces it, takes the
// lock exclusively.
//
// access.idx is a cache: the counts of the whole log up to a byte offset, as
// sorted fixed-size binary records, and the log token it was made from. A
// reader loads it and folds in only the lines after the offset, so reading
// costs little however long the log is. A cache that does not match the log
// (another token, an offset past its end, a damaged file) is ignored and
// rebuilt; deleting it loses nothing.
package access
