//go:build !linux

package hugeheap

// Prepare does nothing where there is no transparent huge page advice.
func Prepare(reserve int64) (Advice, error) { return Advice{}, nil }
