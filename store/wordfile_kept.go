package store

import (
	"maps"
	"os"
	"sync"
)

// keptWordFiles keeps, in a resident store, the recent files (words.go) its
// saves read, as read, while each file keeps its identity: every save read
// and checked its project's recent file again (the sets of the notes saved
// since the catalog's base, some hundreds of records), though nothing but
// the store's own saves had changed it. A file this store writes is kept
// as written, with the identity it has after. Each read gets a copy of its
// own to add to: the sets are shared, never changed.
type keptWordFiles struct {
	mu sync.Mutex
	m  map[string]keptWordFile
	// reads counts the files read and decoded, for tests.
	reads int
}

type keptWordFile struct {
	id fileIdentity
	wf *wordFile
}

// read is readWords of path, kept while the file is unchanged.
func (k *keptWordFiles) read(path string) *wordFile {
	if k == nil {
		return readWords(path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		k.drop(path)
		return readWords(path)
	}
	id := identify(fi)
	k.mu.Lock()
	if e, ok := k.m[path]; ok && e.id == id {
		k.mu.Unlock()
		return e.wf.clone()
	}
	k.reads++
	k.mu.Unlock()
	// The identity taken before the read: a file changed in between has
	// another one, and is read again next time.
	wf := readWords(path)
	k.put(path, id, wf)
	return wf.clone()
}

// wrote records that this store made the file at path hold wf (a write
// that succeeded): it is kept with the file's identity now.
func (k *keptWordFiles) wrote(path string, wf *wordFile) {
	if k == nil {
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		k.drop(path)
		return
	}
	k.put(path, identify(fi), wf.clone())
}

func (k *keptWordFiles) put(path string, id fileIdentity, wf *wordFile) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if wf.torn {
		delete(k.m, path) // read whole again next time
		return
	}
	if k.m == nil {
		k.m = map[string]keptWordFile{}
	}
	k.m[path] = keptWordFile{id: id, wf: wf}
}

// drop forgets the file kept for path, if any.
func (k *keptWordFiles) drop(path string) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, path)
}

// clone is a copy of wf whose map can be added to.
func (wf *wordFile) clone() *wordFile {
	c := *wf
	c.m = maps.Clone(wf.m)
	if c.m == nil {
		c.m = map[string]wordEntry{}
	}
	return &c
}
