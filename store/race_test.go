//go:build race

package store

// raceEnabled: the race detector instruments allocations and makes
// sync.Pool drop items at random, so tests that bound allocations skip
// under it.
const raceEnabled = true
