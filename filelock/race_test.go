//go:build race

package filelock

// raceEnabled: the race detector instruments the code under test, which
// allocates where it would not, so a test of allocations cannot hold under it.
const raceEnabled = true
