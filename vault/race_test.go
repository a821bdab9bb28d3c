//go:build race

package vault

// raceEnabled: the race detector adds allocations of its own, so a test that
// counts allocated bytes cannot hold under it.
const raceEnabled = true
