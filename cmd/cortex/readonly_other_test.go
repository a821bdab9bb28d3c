//go:build !linux

package main

import "testing"

// makeReadOnly makes the folder dir read-only for the rest of the test.
func makeReadOnly(t *testing.T, dir string) {
	t.Helper()
	chmodReadOnly(t, dir)
}
