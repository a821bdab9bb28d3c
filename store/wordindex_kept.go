package store

import (
	"hash/crc32"
	"os"
	"sync"
	"time"
)

// keptIndexes keeps, in a resident store, the word indexes its saves read,
// mapped and checked, while their files are the ones read: a save into a
// project of 10,000 long notes read and checksummed its 9 MB index (about a
// millisecond, an eighth of the save) to count the few dozen lists of its
// words. A file is known by its identity, size and time: the store writes
// an index only whole (atomicfile.WriteDerived renames a new file over the
// old one), so another index, or a file changed by anything else, has
// another. Whether a kept index fits the catalog's base is asked again on
// each read (wordIndexes), as of one just read.
type keptIndexes struct {
	mu sync.Mutex
	m  map[string]*keptIndex
	// parses counts the index files read and checked, and dropped the
	// times a mapped index's pages were dropped (drop), for tests.
	parses, dropped int
}

// keptIndex is a word index as read from a file with identity id; refs
// counts the readers using it, and its bytes are released (unmap) once
// the last of them is done after it is dropped (dead).
type keptIndex struct {
	id     fileIdentity
	ix     *wordIndex
	unmap  func()
	mapped bool
	refs   int
	dead   bool
}

// fileIdentity tells a file from one that replaced it or was changed.
type fileIdentity struct {
	size    int64
	mtime   time.Time
	dev     uint64
	ino     uint64
	present bool
}

// identify is the identity of the file fi describes.
func identify(fi os.FileInfo) fileIdentity {
	dev, ino := fileNumbers(fi)
	return fileIdentity{size: fi.Size(), mtime: fi.ModTime(), dev: dev, ino: ino, present: true}
}

// read gives the word index of the file at path, as parseWordIndex reads
// it (false when it cannot be trusted), and the function that releases it.
// A resident store's keeps it while the file is unchanged.
func (k *keptIndexes) read(path string) (*wordIndex, func(), bool) {
	if k == nil {
		return readWordIndexFile(path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		k.drop(path)
		return nil, nil, false
	}
	id := identify(fi)
	k.mu.Lock()
	if e := k.m[path]; e != nil && e.id == id {
		e.refs++
		k.mu.Unlock()
		return e.ix, k.releaser(e), true
	}
	k.mu.Unlock()
	data, done, mfi, mapped, err := readMappedFile(path)
	if err != nil {
		k.drop(path)
		return nil, nil, false
	}
	var ix *wordIndex
	var ok bool
	if mapped {
		ix, ok = parseCheckedWordIndex(path, mfi, data, parseKeptWordIndex, checksumDropping)
	} else {
		ix, ok = parseWordIndex(data)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.parses++
	if old := k.m[path]; old != nil {
		k.kill(path, old)
	}
	if !ok {
		done()
		return nil, nil, false
	}
	// The identity taken before the read: a file replaced in between has
	// another one, and is read again next time.
	e := &keptIndex{id: id, ix: ix, unmap: done, mapped: mapped, refs: 1}
	if k.m == nil {
		k.m = map[string]*keptIndex{}
	}
	k.m[path] = e
	return ix, k.releaser(e), true
}

// readWordIndexFile reads the word index of the file at path, mapped until
// the function it returns is called, and kept by no one.
func readWordIndexFile(path string) (*wordIndex, func(), bool) {
	data, done, fi, _, err := readMappedFile(path)
	if err != nil {
		return nil, nil, false
	}
	ix, ok := parseCheckedWordIndex(path, fi, data, parseWordIndexSummed, crc32.ChecksumIEEE)
	if !ok {
		done()
		return nil, nil, false
	}
	return ix, done, true
}

// releaser is the release of one reader of e.
func (k *keptIndexes) releaser(e *keptIndex) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			k.mu.Lock()
			defer k.mu.Unlock()
			e.refs--
			if e.dead && e.refs == 0 {
				e.unmap()
			}
		})
	}
}

// drop forgets the index kept for path, if any (none when k is nil: a
// store that is not resident keeps none).
func (k *keptIndexes) drop(path string) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if e := k.m[path]; e != nil {
		k.kill(path, e)
	}
}

// kill forgets e, kept for path, releasing its bytes now or when its last
// reader is done; k.mu is held.
func (k *keptIndexes) kill(path string, e *keptIndex) {
	delete(k.m, path)
	e.dead = true
	if e.refs == 0 {
		e.unmap()
	}
}

// dropResident takes the pages of every index k keeps mapped out of the
// process's resident memory (see the function dropResident): they are read
// again from the page cache, a large page at a time, where a save next
// reads them. Preparing the checks reads every project's index, all of it
// (its checksum), and left 2 MB a project resident at 100,000 notes, where
// a save reads its project's and general's.
func (k *keptIndexes) dropResident() {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, e := range k.m {
		if e.mapped {
			dropResident(e.ix.data)
			k.dropped++
		}
	}
}
