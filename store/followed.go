package store

// Followed is told by a watcher in this process (the MCP server's, see
// package watch) whether it follows the vault and the index has taken in
// every change it saw: while it does, reads and writes skip stat'ing every
// note (the check Options.Freshness otherwise makes once a window), since
// the watcher re-indexes a note edited in place a debounce window after the
// edit. They still look at the folders, so notes created, renamed or deleted
// are seen at once as before, and a note this process writes is in the index
// before the write returns. Any doubt — an event not yet taken in, events
// lost, the watcher polling or stopped — is said with false, and the checks
// are made as without a watcher.
func (s *Store) Followed(clean bool) { s.followed.Store(clean) }

// IsFollowed reports what a watcher last told Followed: for tests and the
// benchmark, which wait for the watcher's first re-index.
func (s *Store) IsFollowed() bool { return s.followed.Load() }
