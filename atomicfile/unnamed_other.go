//go:build !linux

package atomicfile

// linkUnnamed writes nothing where files without a name cannot be made:
// CreateUnlisted goes the named way.
func linkUnnamed(string, []byte) (bool, error) { return false, nil }
