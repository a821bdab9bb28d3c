//go:build !race

package filelock

// raceEnabled: see race_test.go.
const raceEnabled = false
