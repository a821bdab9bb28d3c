//go:build race

package security

// raceEnabled: the race detector makes sync.Pool drop items at random, so a
// test of what a pool saves cannot hold under it.
const raceEnabled = true
