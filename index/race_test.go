//go:build race

package index

// raceEnabled: the race detector makes sync.Pool drop items at random (Bleve
// pools its segment builders' buffers), so a count of allocations cannot
// hold under it.
const raceEnabled = true
