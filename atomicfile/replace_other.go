//go:build !linux

package atomicfile

import "os"

// replace moves the synced temporary file tmp to path, atomically.
func replace(tmp, path string) error { return os.Rename(tmp, path) }

// Place moves the temporary file tmp to path when no file is there (an error
// matching fs.ErrExist when path exists): a link, then the removal of tmp.
func Place(tmp, path string) error { return linkPlace(tmp, path) }
