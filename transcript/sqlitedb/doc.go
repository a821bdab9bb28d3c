// Package sqlitedb reads the SQLite databases agent tools keep their history
// in (Cursor's state.vscdb, Zed's threads.db, OpenCode's opencode.db)
// without ever getting in the running tool's way, and turns their rows into
// the JSON lines a transcript adapter parses.
//
// # Copy-on-read
//
// Open never opens the tool's file with SQLite. It copies the database and
// its write-ahead log (-wal) or rollback journal (-journal) into a private
// temporary folder with plain reads, and opens the copy. So:
//
//   - no lock is ever taken on the tool's files (plain reads take none: the
//     tool's writer never gets SQLITE_BUSY because of cortex, on any OS);
//   - rows that are only in the WAL (committed, not yet checkpointed) are
//     seen: SQLite recovers the copied WAL into the copy, as it would after
//     a crash. Opening the original with immutable=1 would skip the WAL
//     (and read pages a checkpoint is rewriting); mode=ro alone would take
//     shared locks and need the tool's -shm;
//   - the -shm (the WAL's index) is not copied: it is a cache SQLite rebuilds
//     from the WAL, and one copied while the tool writes may disagree with
//     the WAL copied beside it;
//   - a copy made while the tool wrote (a file's size or time changed
//     between before and after the copy) is made again, a few times, then
//     given up with ErrBusy; a copy SQLite finds damaged (a half-written
//     page, a cut file) gives ErrDamaged. Neither ever panics: the caller
//     skips the database with the reason and tries again on a later run.
//
// The copy costs a read of the whole database per Open; the temporary folder
// is removed by Close.
//
// # Rows as records
//
// AppendRow writes one row as a JSON line — {"table": …, "rowid": …,
// "values": {column: value, …}} — the record an adapter's Parse reads, so
// every adapter and test of the transcript model (invariants, goldens,
// fuzzing) works on databases unchanged. A value is written as JSON null, a
// number, or a string; a BLOB, or TEXT that is not UTF-8, as {"$blob":
// base64}; a column the adapter names as JSON holds its value itself
// (compacted) when it is valid JSON. Adapters read a table incrementally
// with a WHERE on its rowid or on its time of update (the position they
// keep in their state), so a resumed read gets only the rows written since.
package sqlitedb
