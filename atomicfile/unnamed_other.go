//go:build !linux

package atomicfile

import "io/fs"

// linkUnnamed writes nothing where files without a name cannot be made:
// CreateUnlistedStat goes the named way.
func linkUnnamed(string, []byte) (fs.FileInfo, bool, error) { return nil, false, nil }
