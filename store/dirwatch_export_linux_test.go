//go:build linux

package store

// FollowListings is how many folders the process's folder watch has listed
// to arm itself.
func FollowListings() int {
	w := sharedDirWatch()
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.listings
}
