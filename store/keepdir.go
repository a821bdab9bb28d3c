package store

import (
	"slices"
	"time"

	"github.com/cortexmem/cortex/vault"
)

// A one-shot save writes its note into a folder that, in a real vault, may
// hold thousands of notes (one project folder of 10,000), and creating the
// note changes the folder's time: the next command would read the whole
// folder again to find what changed, most of what a save in a row cost. A
// folder's time tells that something changed, not what; what changed
// while the save wrote is what the kernel's notifications (inotify) tell.
// So, where the scan knows the folder's entries for as long as its time
// stays as it saw it (it trusted the time, or read the folder and the time
// is older than the racy window), the save follows the folder from just
// before it writes. When the only changes are its own (its temporary files
// come and go, its note appears), it sets the folder's time back to one
// that nothing else can give it (a nanosecond past the time the scan saw,
// older than the kernel's clock by the racy window) and checks that nothing
// else changed the folder meanwhile; after its catalog commit it records
// that time. A change by another program after that gives the folder the
// clock's time, which differs, so the next command reads the folder as
// before; one before it is seen, and the time is then not recorded, so the
// folder's time differs from the one the catalog holds and it is read too.
// A crash or a power loss between the steps leaves a time the catalog does
// not hold: read again.

// dirKeep is a folder a save follows while it writes into it.
type dirKeep struct {
	rel string // relative to the cortex folder
	abs string
	m0  int64 // its time, as the scan trusted it
	w   *keepWatch
	// kept is the time settle set the folder to, 0 when it did not.
	kept int64
}

// watchDir starts following folder rel for a one-shot save about to write
// into it, when the scan knows its entries; nil otherwise, or
// when following it is not possible (no inotify, too many followers).
func (s *Store) watchDir(st *writeState, rel string) *dirKeep {
	if st == nil || !st.lazy || s.res != nil || s.fineWindow <= 0 {
		return nil
	}
	i := slices.IndexFunc(st.dirs, func(d vault.DirStat) bool { return d.Path == rel })
	if i < 0 {
		return nil // a new folder
	}
	k := &dirKeep{rel: rel, abs: s.v.Abs(rel), m0: st.dirs[i].MTime}
	if _, read := slices.BinarySearch(st.read, rel); read {
		// The scan read the folder (the last save changed it), and the
		// catalog holds what it found. A later change cannot leave its time
		// as it was if that time is older than the look by the racy window
		// (see vault.ScanOptions): then the entries are known as well.
		since := st.observed.UnixNano() - k.m0
		fine := since > int64(s.fineWindow) && k.m0%int64(time.Millisecond) != 0 && vault.FineTimes(k.abs)
		if since <= int64(racyWindow) && !fine {
			return nil
		}
	}
	k.w = watch(k.abs, k.m0)
	if k.w == nil {
		return nil
	}
	return k
}

// close stops following the folder.
func (k *dirKeep) close() {
	if k != nil && k.w != nil {
		k.w.close()
		k.w = nil
	}
}

// keptTime is the time a save gives back to a folder it trusted at m0: a
// nanosecond later, so that a catalog that lost the record of it reads the
// folder again, and with digits below the millisecond (see
// vault.ScanOptions.FineRacyAfter).
func keptTime(m0 int64) int64 {
	v := m0 + 1
	if v%int64(time.Millisecond) == 0 {
		v++
	}
	return v
}

// settle, right after the save wrote its notes into the folder (names:
// the note's file name and whether it is there now, true, or was removed),
// sets the folder back to its kept time when the only changes seen there
// are the save's own, and stops following the folder. It is done before
// the catalog commit, whose flushes give the kernel time to release the
// follower (closing it waits for that, tens of milliseconds under load): a
// time the catalog does not record yet reads the folder again, so a crash
// before the commit loses nothing.
func (k *dirKeep) settle(s *Store, names map[string]bool) {
	if k == nil || k.w == nil {
		return
	}
	if s.beforeKeep != nil {
		s.beforeKeep()
	}
	if len(names) > 0 && k.w.onlyOwn(names) {
		if v := keptTime(k.m0); k.w.setTime(v) {
			k.kept = v
		}
	}
	k.w.stop()
}

// keepDir, after a save's catalog commit, records the time the save set
// its folder back to (see settle). It is an optimisation: on any doubt
// nothing is recorded, and the folder is read again by the next command.
func (s *Store) keepDir(st *writeState, k *dirKeep) {
	if k == nil || k.kept == 0 {
		return
	}
	if err := st.cat.KeepDir(st.gen, vault.DirStat{Path: k.rel, MTime: k.kept}); err != nil {
		s.warn(err.Error())
	}
}
