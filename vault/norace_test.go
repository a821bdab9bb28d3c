//go:build !race

package vault

// raceEnabled: see race_test.go.
const raceEnabled = false
