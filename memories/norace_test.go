//go:build !race

package memories

// raceEnabled: see race_test.go.
const raceEnabled = false
