//go:build !race

package importer

// raceEnabled: see race_test.go.
const raceEnabled = false
