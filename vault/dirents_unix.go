//go:build unix && !linux

package vault

import "os"

// listDir lists a folder's entries, "." and ".." aside, in the order the
// file system gives them, with their types.
func listDir(dir string) ([]dirent, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	des, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return nil, err
	}
	out := make([]dirent, len(des))
	for i, de := range des {
		out[i] = dirent{name: de.Name(), typ: de.Type()}
	}
	return out, nil
}
