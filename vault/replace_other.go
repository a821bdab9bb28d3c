//go:build !linux

package vault

import "os"

// replace moves the synced temporary file tmp to path, atomically.
func replace(tmp, path string) error { return os.Rename(tmp, path) }
