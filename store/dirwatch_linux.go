//go:build linux

package store

import (
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/vault"
)

// A resident store's save lists the folder it saves into again at the next
// save: its own note changed the folder's time. In a project folder of
// thousands of notes that listing was most of a save in the MCP server (9 of
// 18 ms at 10,000 real-shaped notes). The folders a resident store writes
// into are followed with inotify instead: once a folder's listing matched the
// catalog with the watch in place, every entry created, removed or renamed
// in it since is an event, and when every such name stands in the writer's
// catalog as it stands on disk, the folder holds the notes the catalog knows
// and need not be listed. Anything unusual — events lost, the folder moved
// or replaced, a subfolder made, a leftover temporary file, a name the
// catalog does not agree with — is answered by listing the folder as before.
//
// One inotify instance serves every resident store of the process (the
// user's instances are few), made at the first use.
var dirWatches struct {
	once sync.Once
	w    *dirWatch // nil when inotify is not available
}

// maxWatchedDirs bounds the folders followed; a server saves into a few
// projects' folders.
const maxWatchedDirs = 64

// maxWatchedNames bounds the names a followed folder remembers; past it the
// folder is listed again and followed afresh.
const maxWatchedNames = 4096

const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW

type dirWatch struct {
	mu   sync.Mutex
	fd   int
	dirs map[string]*watchedDir // by key (see watchKey)
	byWD map[int32][]*watchedDir
	buf  []byte
	// listings counts the folders follow listed, for tests.
	listings int
}

// watchedDir is one followed folder of one state folder's catalog.
type watchedDir struct {
	abs      string
	root     bool // the cortex folder itself (its map of contents is no note)
	wd       int32
	dev, ino uint64
	// armed says the folder's listing matched the catalog with the watch
	// in place; names are the entries named by an event since, until a
	// check finds them as the catalog has them. What an entry is now is
	// asked of the folder, not told by the events: a rename may exchange
	// two names (as a rewrite of a note does), and events of one entry
	// may interleave with another's.
	armed bool
	names map[string]struct{}
	// failed counts the listings in a row that did not match the catalog
	// (a link or a file a scan would report stays in the folder): the
	// next tries wait 2, 4, … 64 writes, so that such a folder costs a
	// listing now and then, not one more at every save.
	failed, waited int
}

func sharedDirWatch() *dirWatch {
	dirWatches.once.Do(func() {
		fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
		if err != nil {
			return
		}
		dirWatches.w = &dirWatch{fd: fd, dirs: map[string]*watchedDir{}, byWD: map[int32][]*watchedDir{}, buf: make([]byte, 64<<10)}
	})
	return dirWatches.w
}

// watchKey tells the folders of different state folders apart: each is
// checked against its own catalog.
func watchKey(state, abs string) string { return state + "\x00" + abs }

// follow starts following folder abs (rel in the vault) for the catalog of
// state folder state, whose notes there known lists (sorted by name, asked
// only when the folder is listed: a project folder holds thousands): the
// writer calls it holding the write lock, after its commit. A folder
// followed already is left as it is. It lists the folder once: only a
// listing that matches known arms the watch.
func (w *dirWatch) follow(state, abs string, root bool, known func() []vault.KnownFile, knownDir func(name string) bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	key := watchKey(state, abs)
	d := w.dirs[key]
	if d != nil && d.armed {
		return
	}
	if d == nil && len(w.dirs) >= maxWatchedDirs {
		return
	}
	if d != nil && d.failed > 0 {
		if d.waited++; d.waited < 1<<min(d.failed, 6) {
			return
		}
		d.waited = 0
	}
	var before, after unix.Stat_t
	if err := unix.Stat(abs, &before); err != nil {
		return
	}
	wd, err := unix.InotifyAddWatch(w.fd, abs, watchMask)
	if err != nil {
		return
	}
	if d == nil {
		d = &watchedDir{abs: abs, root: root}
		w.dirs[key] = d
	}
	w.setWD(d, int32(wd))
	// Events queued before the listing below are in it; those after are
	// taken in from now on, the folder's own move or removal included.
	w.drain()
	d.armed, d.names = true, map[string]struct{}{}
	d.dev, d.ino = uint64(before.Dev), before.Ino
	w.listings++
	if !listedAsKnown(abs, root, known(), knownDir) || unix.Stat(abs, &after) != nil || after.Dev != before.Dev || after.Ino != before.Ino {
		d.armed = false
		d.failed++
		return
	}
	d.failed = 0
}

func (w *dirWatch) setWD(d *watchedDir, wd int32) {
	if d.wd == wd && slices.Contains(w.byWD[wd], d) {
		return
	}
	if old := w.byWD[d.wd]; old != nil {
		w.byWD[d.wd] = slices.DeleteFunc(old, func(o *watchedDir) bool { return o == d })
	}
	d.wd = wd
	w.byWD[wd] = append(w.byWD[wd], d)
}

// listedAsKnown reports whether folder abs holds exactly the notes known,
// with no leftover temporary file, link or subfolder the catalog does not
// know (knownDir).
func listedAsKnown(abs string, root bool, known []vault.KnownFile, knownDir func(name string) bool) bool {
	des, err := os.ReadDir(abs)
	if err != nil {
		return false
	}
	n := 0
	for _, de := range des {
		name := de.Name()
		switch {
		case atomicfile.IsTemp(name):
			return false
		case strings.HasPrefix(name, "."):
		case de.IsDir():
			if !knownDir(name) {
				return false
			}
		case !isScannedNote(name, root):
		case !de.Type().IsRegular():
			return false
		default:
			if _, ok := slices.BinarySearchFunc(known, name, func(f vault.KnownFile, n string) int { return strings.Compare(f.Name, n) }); !ok {
				return false
			}
			n++
		}
	}
	return n == len(known)
}

// isScannedNote reports whether a scan takes a file of this name for a note.
func isScannedNote(name string, root bool) bool {
	if root && (name == vault.IndexFile || vault.IsIndexCopy(name)) {
		return false
	}
	return strings.EqualFold(name[max(0, len(name)-3):], ".md") && !strings.HasPrefix(name, ".")
}

// unchanged reports whether folder abs, followed for state's catalog, holds
// the notes known says the catalog has: every entry created, removed or renamed
// there since its watch was armed stands in known as it stands on disk. The
// caller stat'ed the folder before: every change its time shows is in the
// events read here.
func (w *dirWatch) unchanged(state, abs string, known func(name string) bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.dirs[watchKey(state, abs)]
	if d == nil || !d.armed {
		return false
	}
	var st unix.Stat_t
	if err := unix.Stat(abs, &st); err != nil || uint64(st.Dev) != d.dev || st.Ino != d.ino {
		// Not the folder followed (replaced, or a folder above moved).
		d.armed = false
		return false
	}
	w.drain()
	if !d.armed {
		return false
	}
	for name := range d.names {
		var st unix.Stat_t
		err := unix.Fstatat(unix.AT_FDCWD, abs+"/"+name, &st, unix.AT_SYMLINK_NOFOLLOW)
		there := err == nil
		switch {
		case err != nil && !errors.Is(err, unix.ENOENT):
			return false
		case atomicfile.IsTemp(name):
			if there {
				return false // left over: the scan reports it
			}
			continue
		case there && st.Mode&unix.S_IFMT != unix.S_IFREG:
			return false
		}
		if known(name) != there {
			return false
		}
	}
	// Each entry named is as the catalog has it: it stays so until an event
	// names it again.
	clear(d.names)
	return true
}

// drain reads the events queued; the caller holds mu.
func (w *dirWatch) drain() {
	for {
		n, err := unix.Read(w.fd, w.buf)
		if err != nil || n <= 0 {
			if err != nil && !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR) {
				w.disarmAll()
			}
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			name := ""
			if ev.Len > 0 {
				b := w.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
				if i := slices.Index(b, 0); i >= 0 {
					b = b[:i]
				}
				name = string(b)
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				w.disarmAll()
				continue
			}
			for _, d := range w.byWD[ev.Wd] {
				d.event(ev.Mask, name)
			}
		}
	}
}

func (d *watchedDir) event(mask uint32, name string) {
	if !d.armed {
		return
	}
	switch {
	case mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED|unix.IN_UNMOUNT) != 0:
		d.armed = false
	case atomicfile.IsTemp(name):
		d.names[name] = struct{}{}
	case strings.HasPrefix(name, "."):
		// Hidden: no scan looks at it.
	case mask&unix.IN_ISDIR != 0:
		d.armed = false // a subfolder made or gone: the scan must see it
	case isScannedNote(name, d.root):
		d.names[name] = struct{}{}
	}
	if len(d.names) > maxWatchedNames {
		d.armed = false
	}
}

func (w *dirWatch) disarmAll() {
	for _, d := range w.dirs {
		d.armed = false
	}
}
