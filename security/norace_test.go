//go:build !race

package security

// raceEnabled: see race_test.go.
const raceEnabled = false
