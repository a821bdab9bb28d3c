package store

import (
	"context"
	"path"
)

// CatalogLoads is how many catalogs the store has loaded from disk.
func (s *Store) CatalogLoads() int64 { return s.catalogLoads.Load() }

// FoldersToReadAgain is how many folders (and notes by content) the next
// command's check of the vault would read again, having found their times
// too recent to trust or changed since the catalog's last look.
func (s *Store) FoldersToReadAgain() (int, error) {
	gen, cat, err := s.load()
	if err != nil {
		return 0, err
	}
	defer cat.Close()
	scan, err := s.scan(gen, cat, false, false)
	if err != nil {
		return 0, err
	}
	return scan.Unsettled, nil
}

// FingerprintHits is how many fingerprints the store gave from its cache.
func (s *Store) FingerprintHits() int {
	if s.fps == nil {
		return 0
	}
	s.fps.mu.Lock()
	defer s.fps.mu.Unlock()
	return s.fps.hits
}

// NoteReads is how many notes the store has read from the vault.
func (s *Store) NoteReads() int64 { return s.noteReads.Load() }

// WordReads is how many notes the store has read for the duplicate check's
// word sets.
func (s *Store) WordReads() int64 { return s.wordReads.Load() }

// WordsFile is the file of a project's word sets.
func (s *Store) WordsFile(project string) string { return s.wordsPath(project) }

// WordIndexFile is the file of a project's word index.
func (s *Store) WordIndexFile(project string) string { return s.wordIndexPath(project) }

// MapRenders is how many maps of contents the store rendered whole.
func (s *Store) MapRenders() int64 { return s.mapRenders.Load() }

// WriterTrusts reports whether this store's next writer would trust folder
// rel (in the cortex folder) without listing it, its time changed or not,
// as a folder this process follows (see dirWatch).
func (s *Store) WriterTrusts(ctx context.Context, rel string) (ok bool, err error) {
	wl, err := s.lockWrite(ctx)
	if err != nil {
		return false, err
	}
	defer release(wl, &err)
	_, cat, err := s.writerCatalog()
	if err != nil {
		return false, err
	}
	defer cat.Close()
	return s.followedDir(rel, func(name string) bool { return cat.KnowsNote(path.Join(rel, name)) }), nil
}

// IndexKeys counts the conflicts told from a word index's keys.
func (s *Store) IndexKeys() int64 { return s.indexKeys.Load() }

// KeyHits counts the conflicts a resident store told from kept keys.
func (s *Store) KeyHits() int {
	s.fps.mu.Lock()
	defer s.fps.mu.Unlock()
	return s.fps.keyHits
}
