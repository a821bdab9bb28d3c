package store

import (
	"encoding/binary"
	"errors"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/cortexmem/cortex/atomicfile"
)

// keepWatch follows one folder's entries with inotify.
type keepWatch struct {
	fd  int
	wd  int
	abs string
	// dev and ino are the folder's, as followed.
	dev, ino uint64
}

// keepMask: entries made, removed or moved, the folder itself gone or
// moved. Not the entries' attributes or bytes (IN_ATTRIB, IN_MODIFY): a
// watch asking for those has the kernel mark every entry of the folder it
// holds in memory, at its start, as watched, which in a project folder of
// 10,000 notes took 1.3-1.4 ms, a tenth of a one-shot save. The folder's own
// time, which settle sets, is checked by its look instead (setTime).
const keepMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW

// watch follows folder abs when its time is still m0 once followed (so
// nothing changed it between the scan and now); nil otherwise.
func watch(abs string, m0 int64) *keepWatch {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	w := &keepWatch{fd: fd, abs: abs}
	if w.wd, err = unix.InotifyAddWatch(fd, abs, keepMask); err != nil {
		w.close()
		return nil
	}
	var st unix.Stat_t
	if err := unix.Lstat(abs, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Mtim.Nano() != m0 {
		w.close()
		return nil
	}
	w.dev, w.ino = uint64(st.Dev), st.Ino
	return w
}

func (w *keepWatch) close() { _ = unix.Close(w.fd) }

// stop ends the following, so that the kernel can release it while the
// save goes on: closing a follower waits until the kernel has.
func (w *keepWatch) stop() { _, _ = unix.InotifyRmWatch(w.fd, uint32(w.wd)) }

// keepEvent is one inotify event; name is "" for the folder itself.
type keepEvent struct {
	mask uint32
	name string
}

// events reads the events queued; ok is false when they cannot be read
// whole.
func (w *keepWatch) events() (evs []keepEvent, ok bool) {
	buf := make([]byte, 16<<10)
	for {
		n, err := unix.Read(w.fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.EAGAIN) {
			return evs, true
		}
		if err != nil || n <= 0 {
			return nil, false
		}
		for off := 0; off < n; {
			if n-off < unix.SizeofInotifyEvent {
				return nil, false
			}
			mask := binary.NativeEndian.Uint32(buf[off+4:])
			l := int(binary.NativeEndian.Uint32(buf[off+12:]))
			off += unix.SizeofInotifyEvent
			if l > n-off {
				return nil, false
			}
			name, _, _ := strings.Cut(string(buf[off:off+l]), "\x00")
			off += l
			evs = append(evs, keepEvent{mask: mask, name: name})
		}
	}
}

// lost are the events that end the following or say events were lost.
const lost = unix.IN_Q_OVERFLOW | unix.IN_IGNORED | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_UNMOUNT

// onlyOwn reports whether every change to the folder's entries since it was
// followed is the save's own: temporary files (atomicfile's) made and gone
// again, and each of own's names made once (true) or removed once (false).
// A change of an entry's attributes or bytes does not change the entries;
// one of the folder's own does not come from a save.
func (w *keepWatch) onlyOwn(own map[string]bool) bool {
	evs, ok := w.events()
	if !ok {
		return false
	}
	temps := map[string]bool{}
	seen := map[string]bool{}
	for _, e := range evs {
		switch {
		case e.mask&lost != 0, e.name == "":
			return false
		case e.mask&(unix.IN_ATTRIB|unix.IN_MODIFY) != 0:
		case atomicfile.IsTemp(e.name):
			if e.mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 {
				temps[e.name] = true
			} else {
				delete(temps, e.name)
			}
		default:
			made, mine := own[e.name]
			if !mine || seen[e.name] || e.mask&unix.IN_ISDIR != 0 {
				return false
			}
			seen[e.name] = true
			if made != (e.mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0) {
				return false
			}
		}
	}
	return len(temps) == 0 && len(seen) == len(own)
}

// setTime sets the folder's time to v, and reports whether nothing but
// that changed the folder meanwhile (then it holds, at v, what onlyOwn
// saw): no entry made, removed or moved since onlyOwn, and the folder at
// its path is the one followed, at v. When something else changed it, its
// change is in the folder's time no more; the catalog does not record v,
// so the folder is read again. A change after the look gives the folder
// another time than v, which the next command reads again as well.
func (w *keepWatch) setTime(v int64) bool {
	ts := []unix.Timespec{{Nsec: unix.UTIME_OMIT}, unix.NsecToTimespec(v)}
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, w.abs, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return false
	}
	if evs, ok := w.events(); !ok || len(evs) > 0 {
		return false // an entry changed, or the folder went
	}
	var st unix.Stat_t
	return unix.Lstat(w.abs, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR &&
		uint64(st.Dev) == w.dev && st.Ino == w.ino && st.Mtim.Nano() == v
}
