//go:build !race

package transcript

// raceEnabled: see race_test.go.
const raceEnabled = false
