//go:build !linux

package store

// keepWatch follows a folder's entries where the system can tell them:
// nowhere here, so a save's folder is read again by the next command.
type keepWatch struct{}

func watch(string, int64) *keepWatch { return nil }

func (*keepWatch) close()                       {}
func (*keepWatch) stop()                        {}
func (*keepWatch) onlyOwn(map[string]bool) bool { return false }
func (*keepWatch) setTime(int64) bool           { return false }
