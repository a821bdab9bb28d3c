package index

import (
	"os"
	"sync/atomic"
)

// mapCatalogs says whether catalog files are mapped into memory rather than
// read (MapCatalogs).
var mapCatalogs atomic.Bool

// MapCatalogs makes the catalogs loaded from now on map their base file into
// memory instead of reading it: for a process that lives a few milliseconds
// — a hook — where copying the file's megabytes into fresh memory (at 10,000
// notes, 2.6 MB, page by page) cost more than what it does with them. A
// mapping is never unmapped, since records share its memory: a long-running
// process must not call it (each catalog it loads would stay mapped, and a
// replaced file's blocks stay on disk while mapped).
//
// A base file is never changed in place — a writer replaces it whole (see
// Catalog.Write) — so a mapping always shows the file as it was opened. Only
// someone truncating it by hand while it is mapped could make a read fault:
// the hook makes that a panic it recovers from in its own goroutine
// (debug.SetPanicOnFault), though not in the vault scan's goroutines, which
// read the catalog's names too. Where mapping is not possible the file is
// read.
func MapCatalogs() { mapCatalogs.Store(true) }

// mapFile maps the first size bytes of f, read-only.
func mapFile(f *os.File, size int64) ([]byte, error) {
	return mmap(f, size)
}
