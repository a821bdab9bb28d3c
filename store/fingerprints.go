package store

import (
	"context"
	"os"
	"sync"

	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// maxCachedFingerprints bounds the fingerprints a resident store keeps: about
// 3 KB each for a note of a page, so some 12 MB at most.
const maxCachedFingerprints = 4096

// fingerprints keeps, in a resident store, the dedup fingerprints of the
// notes a save compared with, while their files are unchanged. The notes a
// save is compared with are the ones sharing its rarest words, and the saves
// of one session share their subjects: in a run of saves into a few
// projects about half the comparisons are with notes compared before, each
// a read, a hash and a fingerprint spared.
type fingerprints struct {
	mu sync.Mutex
	m  map[string]cachedFingerprint
	// hits counts the fingerprints given from the cache, and keyHits the
	// conflicts told from kept keys, for tests.
	hits, keyHits int
}

// cachedFingerprint is the fingerprint of a note's text as read when its
// file had size and mtime and its bytes the hash of its catalog record.
// A note found to conflict by its keys alone has them kept instead (keys,
// fp nil): the next save it is compared with tells its conflict from them,
// without reading the note.
type cachedFingerprint struct {
	size, mtime int64
	hash        uint64
	fp          *dedup.Fingerprint
	keys        *dedup.Keys
}

func (c *fingerprints) get(path string, hash uint64, size, mtime int64) *dedup.Fingerprint {
	e := c.entry(path, hash, size, mtime)
	if e.fp == nil {
		return nil
	}
	c.mu.Lock()
	c.hits++
	c.mu.Unlock()
	return e.fp
}

// entry is what is kept of the note at path while it has size, mtime and
// the record's hash; empty when nothing is.
func (c *fingerprints) entry(path string, hash uint64, size, mtime int64) cachedFingerprint {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[path]
	if !ok || e.hash != hash || e.size != size || e.mtime != mtime {
		return cachedFingerprint{}
	}
	return e
}

func (c *fingerprints) put(path string, e cachedFingerprint) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]cachedFingerprint{}
	}
	if old, ok := c.m[path]; ok && e.fp == nil && old.hash == e.hash && old.size == e.size && old.mtime == e.mtime {
		e.fp = old.fp // the same text's fingerprint, kept beside its keys
	}
	if _, ok := c.m[path]; !ok && len(c.m) >= maxCachedFingerprints {
		// Any one goes: the cache only spares work, it never changes what
		// a comparison finds.
		for p := range c.m {
			delete(c.m, p)
			break
		}
	}
	c.m[path] = e
}

// LoadFingerprint is build of the title and body LoadText gives the note at
// path (memories' fingerprintLoader). A resident store keeps what build
// returns for a note whose bytes are those of its catalog record, and gives
// it again while the file keeps its size and time and the record its hash:
// the same test the store trusts to tell a changed note, at the cost of a
// stat instead of a read, a hash and build.
func (sn *snapshot) LoadFingerprint(ctx context.Context, path string, build func(title, body string) *dedup.Fingerprint) (*dedup.Fingerprint, error) {
	c := sn.s.fps
	if c == nil {
		return sn.fingerprint(ctx, path, build)
	}
	rec, err := sn.cat.Get(path)
	if err != nil {
		return nil, err
	}
	if rec == nil || rec.Broken != "" {
		return sn.fingerprint(ctx, path, build)
	}
	// Lstat: a note that became a link is read again (ReadRaw follows only
	// the links it accepts).
	if fi, err := os.Lstat(sn.s.v.Abs(path)); err == nil && fi.Mode().IsRegular() {
		if fp := c.get(path, rec.Hash, fi.Size(), fi.ModTime().UnixNano()); fp != nil {
			return fp, nil
		}
	}
	data, st, err := sn.s.v.ReadRaw(path)
	if err != nil || st.Symlink != "" || st.Size != rec.Size || hash(data) != rec.Hash {
		return sn.fingerprint(ctx, path, build)
	}
	body, ok := vault.NoteBody(data)
	if !ok {
		return sn.fingerprint(ctx, path, build)
	}
	fp := build(rec.Title, string(body))
	c.put(path, cachedFingerprint{size: st.Size, mtime: st.MTime, hash: rec.Hash, fp: fp})
	return fp, nil
}

// fingerprint is build of the note's text as LoadText reads it, kept nowhere.
func (sn *snapshot) fingerprint(ctx context.Context, path string, build func(title, body string) *dedup.Fingerprint) (*dedup.Fingerprint, error) {
	title, body, err := sn.LoadText(ctx, path)
	if err != nil {
		return nil, err
	}
	return build(title, body), nil
}

// LoadFingerprintOrConflict is LoadFingerprint, but for a note whose bytes
// are those of its catalog record (so those its word sets were made from)
// it first asks conflicts of the note's keys (made by keys of its title and
// body), and when that says the note conflicts with the memory being saved
// it returns conflict true and no fingerprint: the caller knows the pair's
// score from its word counts alone (memories' conflictLoader). A save's
// text is often contained in dozens of long notes that each differ from it
// by a number or a name; fingerprinting each whole was most of a save's
// check. A resident store keeps the keys of a note found to conflict, and
// asks them again while the file keeps its size and time and the record
// its hash, as LoadFingerprint keeps fingerprints. conflicts nil asks
// nothing (LoadFingerprint).
//
// given, when not nil, are the note's keys as its word index keeps them
// (WordOverlaps.Keys), made from bytes with given.Hash: they are used in
// place of keys of the note's text (a scan of it all) only once the note is
// read and its bytes found to have that hash, the record's. The read stays:
// a note edited in place that the catalog has not taken in yet (a folder
// only check does not see it; its size and time may even be put back) is
// then fingerprinted as it is, never decided from the keys of its old text.
func (sn *snapshot) LoadFingerprintOrConflict(ctx context.Context, path string, build func(title, body string) *dedup.Fingerprint, keys func(title, body string) dedup.Keys, conflicts func(dedup.Keys) bool, given *memories.KnownKeys) (_ *dedup.Fingerprint, conflict bool, _ error) {
	if conflicts == nil {
		fp, err := sn.LoadFingerprint(ctx, path, build)
		return fp, false, err
	}
	rec, err := sn.cat.Get(path)
	if err != nil {
		return nil, false, err
	}
	if rec == nil || rec.Broken != "" {
		fp, err := sn.LoadFingerprint(ctx, path, build)
		return fp, false, err
	}
	c := sn.s.fps
	var known *dedup.Keys // kept, and found not to conflict
	if given != nil && given.Hash == rec.Hash {
		known = &given.Keys
	}
	if c != nil {
		if fi, err := os.Lstat(sn.s.v.Abs(path)); err == nil && fi.Mode().IsRegular() {
			e := c.entry(path, rec.Hash, fi.Size(), fi.ModTime().UnixNano())
			if e.keys != nil {
				known = e.keys
			}
			switch {
			case e.keys != nil && conflicts(*e.keys):
				c.mu.Lock()
				c.keyHits++
				c.mu.Unlock()
				return nil, true, nil
			case e.fp != nil:
				c.mu.Lock()
				c.hits++
				c.mu.Unlock()
				return e.fp, false, nil
			}
		}
	}
	data, st, err := sn.s.v.ReadRaw(path)
	if err != nil || st.Symlink != "" || st.Size != rec.Size || hash(data) != rec.Hash {
		// Changed, gone or unreadable: LoadFingerprint reads it as it does.
		fp, err := sn.LoadFingerprint(ctx, path, build)
		return fp, false, err
	}
	body, ok := vault.NoteBody(data)
	if !ok {
		fp, err := sn.LoadFingerprint(ctx, path, build)
		return fp, false, err
	}
	// Kept keys, and a word index's, were made from bytes with the
	// record's hash, as these are.
	k := known
	if k == nil {
		ks := keys(rec.Title, string(body))
		k = &ks
	}
	if conflicts(*k) {
		if given != nil && k == &given.Keys {
			sn.s.indexKeys.Add(1)
		}
		if c != nil {
			c.put(path, cachedFingerprint{size: st.Size, mtime: st.MTime, hash: rec.Hash, keys: k})
		}
		return nil, true, nil
	}
	fp := build(rec.Title, string(body))
	if c != nil {
		// The fingerprint alone: it is given whole next time, and keys
		// beside it would only take room.
		c.put(path, cachedFingerprint{size: st.Size, mtime: st.MTime, hash: rec.Hash, fp: fp})
	}
	return fp, false, nil
}
