//go:build race

package vault

// raceEnabled: the race detector's instrumentation allocates, so a count of
// allocations cannot hold under it.
const raceEnabled = true
