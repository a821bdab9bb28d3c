package transcript

import (
	"time"
)

// Loader is implemented by adapters whose transcripts are not files of
// records: a SQLite database (Cursor's state.vscdb, Zed's threads.db,
// OpenCode's opencode.db), or a tree of small JSON files one session spans.
// Load reads the transcript at path into the records Parse reads, as JSON
// lines (a row, a file, a message a line); a reader then reads those bytes
// as it reads any JSON lines transcript.
//
// Load reads only what is new since the position ctx holds — the adapter's
// state, which remembers how far each table was read (a rowid, a time of
// update) — and everything for a fresh context (Start). So a read resumed in
// another process, from a position saved as JSON, continues from the rows
// the last one saw: the byte offsets of a Position are those of one Load's
// bytes, and a new Load starts at 0 with the saved context. A row read
// again because it changed gives the events of what changed.
//
// Stat is the transcript's size and the last time anything it is read from
// changed (a database's write-ahead log included), which tells a reader to
// read it again. Load and Stat touch the file system; Parse stays pure.
type Loader interface {
	Load(path string, ctx *Context) ([]byte, error)
	Stat(path string) (size int64, modTime time.Time, err error)
}
