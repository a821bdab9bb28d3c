//go:build race

package importer

// raceEnabled: the race detector adds allocations of its own, so a test that
// counts allocations cannot hold under it.
const raceEnabled = true
