//go:build !linux

package store

import "github.com/cortexmem/cortex/vault"

// dirWatch follows folders on Linux only (inotify); elsewhere a writer
// lists a changed folder as before.
type dirWatch struct{}

func sharedDirWatch() *dirWatch { return nil }

func (*dirWatch) follow(state, abs string, root bool, known func() []vault.KnownFile, knownDir func(string) bool) {
}

func (*dirWatch) unchanged(state, abs string, known func(name string) bool) bool { return false }
