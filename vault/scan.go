package vault

import (
	"errors"
	"hash/maphash"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/cortexmem/cortex/atomicfile"
)

// FileStat is one note file as a scan found it.
type FileStat struct {
	// Path is relative to the scanned folder, with forward slashes.
	Path  string
	Size  int64
	MTime int64 // modification time, Unix nanoseconds
	// Symlink is set by reads of a note that is a symbolic link: the file it
	// leads to.
	Symlink string
}

// Known is what the index remembers of the vault from its last look.
type Known interface {
	// Dirs lists the folders remembered, with their modification times.
	Dirs() []DirStat
	// Files lists the notes remembered in a folder, sorted by name.
	Files(dir string) []KnownFile
}

// KnownFile is a remembered note.
type KnownFile struct {
	Name  string
	Size  int64
	MTime int64
}

// ScanOptions say how thoroughly to look.
type ScanOptions struct {
	// RacyAfter (Unix ns): a folder or note modified at or after it may have
	// changed again within the same clock tick, so it is not trusted on time.
	RacyAfter int64
	// FineRacyAfter (Unix ns), when later than RacyAfter, is RacyAfter for a
	// folder or note whose time has sub-millisecond digits on a local
	// filesystem that keeps times that fine (see FineWindow): there a time
	// moves on with every tick of the kernel's clock, so once that tick is
	// over a later change cannot leave the time as it was, and a folder
	// written a moment ago (by the last save) need not be read again. Times
	// of whole milliseconds, and other filesystems (a network share's clock is
	// the server's), keep RacyAfter's margin. Zero (or earlier than RacyAfter)
	// applies RacyAfter to every time.
	FineRacyAfter int64
	// StatNotes stats every note, which finds notes edited in place (their
	// folder's time does not change). Without it only folders are stat'ed, and
	// only new notes in folders whose time changed are looked at: creations,
	// deletions and renames are found, in-place edits are not.
	StatNotes bool
	// Inside reports whether a note that is a symbolic link may be read: it
	// gets the resolved path the link leads to. A link it refuses is no note.
	// Nil allows links that lead below the scanned folder; Vault.Scan allows
	// the whole vault.
	Inside func(resolved string) bool
	// Unchanged, when set, is asked about a known folder whose time changed
	// (or is too recent to trust) before the folder is read: true says its
	// entries are known to be the notes known (the folder followed by other
	// means since the index last looked at it), so it is treated as a folder
	// whose time did not change. It is asked after the folder was stat'ed.
	// known tells whether the index knows a note of that name in the
	// folder (without listing the folder's notes when Known is a
	// KnownNotes: a project folder holds thousands).
	Unchanged func(rel string, known func(name string) bool) bool
}

// KnownNotes is a Known that can tell whether it remembers one note
// without listing its folder.
type KnownNotes interface {
	Known
	// KnowsNote reports whether the note at path (slash-separated, in the
	// scanned folder) is remembered.
	KnowsNote(path string) bool
}

// DirStat is a folder as a scan found it.
type DirStat struct {
	Path  string
	MTime int64
}

// ScanResult says how the vault differs from what the index knows.
type ScanResult struct {
	// Changed are notes that are new, or whose size or time differ.
	Changed []FileStat
	// Suspect are notes whose size and time match but were modified so close
	// to the index's last write that only their content can tell.
	Suspect []FileStat
	// Removed are notes the index knows that are gone.
	Removed []string
	// Dirs are every folder seen, with its time (for the next scan).
	Dirs []DirStat
	// Read are the folders whose entries were read (their time changed, is
	// too recent to trust, or they are new), sorted: the others were
	// trusted on their time to hold the notes the index knows.
	Read []string
	// Temps are leftover temporary files (a writer died mid-write), sorted.
	Temps []string
	// Problems are folders or files that could not be read; the scan goes on.
	Problems []error
	// Unsettled counts folders read again and notes checked by content because
	// their times were too recent to trust, or changed since the index last
	// looked: a full check that finds everything as the index knows it can
	// record what it saw, so the next scans need not look again.
	Unsettled int
}

// Clean reports whether the vault matches what the index knows.
func (r *ScanResult) Clean() bool {
	return len(r.Changed) == 0 && len(r.Suspect) == 0 && len(r.Removed) == 0
}

// skipDirs are top-level folders of the cortex folder that hold no memories.
var skipDirs = map[string]bool{"playbooks": true, IndexDir: true}

// Scan compares the notes under root (the cortex folder) with what the index
// knows. It reads a folder only when the folder's time changed or is too recent
// to trust: creating, deleting or renaming a note changes its folder's time. With
// opts.StatNotes it also stats every note, to find edits made in place. Hidden
// files and folders, the generated map of contents (and a sync tool's
// conflict copies of it) and folders that hold no memories are skipped. A
// missing root is an empty vault.
//
// This runs before commands, so it is on their hot path: it works in parallel
// and allocates little.
func Scan(root string, known Known, opts ScanOptions) (*ScanResult, error) {
	if opts.Inside == nil {
		top, err := filepath.EvalSymlinks(root)
		if err != nil {
			top = root
		}
		opts.Inside = func(p string) bool { return within(top, p) }
	}
	s := &scanner{root: root, opts: opts, res: &ScanResult{}, known: map[string]int64{}, files: known.Files}
	if kn, ok := known.(KnownNotes); ok {
		s.knows = kn.KnowsNote
	}
	for _, d := range known.Dirs() {
		s.known[d.Path] = d.MTime
	}
	if _, err := statDir(root); errors.Is(err, fs.ErrNotExist) {
		for d := range s.known {
			for _, f := range known.Files(d) {
				s.res.Removed = append(s.res.Removed, join(d, f.Name))
			}
		}
		sort.Strings(s.res.Removed)
		return s.res, nil
	}
	s.run()
	sort.Slice(s.res.Changed, func(i, j int) bool { return s.res.Changed[i].Path < s.res.Changed[j].Path })
	sort.Slice(s.res.Suspect, func(i, j int) bool { return s.res.Suspect[i].Path < s.res.Suspect[j].Path })
	sort.Strings(s.res.Removed)
	sort.Slice(s.res.Dirs, func(i, j int) bool { return s.res.Dirs[i].Path < s.res.Dirs[j].Path })
	sort.Strings(s.res.Temps)
	sort.Strings(s.res.Read)
	return s.res, nil
}

// NoKnown is an index that remembers nothing: a scan against it finds every note.
type NoKnown struct{}

func (NoKnown) Dirs() []DirStat          { return nil }
func (NoKnown) Files(string) []KnownFile { return nil }

type scanner struct {
	root string
	opts ScanOptions
	// fine caches, by folder, whether its filesystem keeps fine times.
	fine  sync.Map
	known map[string]int64 // folder → remembered time
	files func(dir string) []KnownFile
	knows func(path string) bool // nil when Known is no KnownNotes
	mu    sync.Mutex
	res   *ScanResult
	g     errgroup.Group
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func (s *scanner) abs(rel string) string {
	if rel == "" {
		return s.root
	}
	return s.root + "/" + rel
}

func (s *scanner) run() {
	procs := runtime.GOMAXPROCS(0)
	s.g.SetLimit(procs)
	// Every known folder is checked, so a note added to a folder deep down is
	// found even when the folders above it did not change. The calling
	// goroutine checks them, helped by others only when there are many: a
	// check of an unchanged folder is one stat, cheaper than starting and
	// waking a goroutine for it, and a resident store checks its folders
	// on every read. The folders found below them are checked on a goroutine
	// of their own when one is free, or by the goroutine that found them
	// (waiting there for another could wait forever).
	type dir struct {
		rel   string
		fresh bool
	}
	dirs := make([]dir, 0, len(s.known)+1)
	for p := range s.known {
		dirs = append(dirs, dir{rel: p})
	}
	if _, ok := s.known[""]; !ok {
		dirs = append(dirs, dir{rel: "", fresh: true})
	}
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= len(dirs) {
				return
			}
			s.checkDir(dirs[i].rel, dirs[i].fresh)
		}
	}
	for range min(procs-1, (len(dirs)-1)/dirsPerChecker) {
		s.g.Go(func() error { work(); return nil })
	}
	work()
	_ = s.g.Wait() // problems are collected in the result
}

// dirsPerChecker is how many known folders a scan checks per goroutine: up
// to that many, the calling goroutine checks them all, and each further
// dirsPerChecker adds one, up to GOMAXPROCS in all.
const dirsPerChecker = 64

// visit checks a folder found inside another, on a goroutine of its own when
// one is free. fresh means the folder is newly found: it must be read, and its
// subfolders visited.
func (s *scanner) visit(rel string, fresh bool) {
	if !s.g.TryGo(func() error { s.checkDir(rel, fresh); return nil }) {
		s.checkDir(rel, fresh)
	}
}

func (s *scanner) checkDir(rel string, fresh bool) {
	known, isKnown := s.known[rel]
	mtime, err := statDir(s.abs(rel))
	if err != nil {
		if isKnown {
			files := s.files(rel)
			s.mu.Lock()
			for _, f := range files {
				s.res.Removed = append(s.res.Removed, join(rel, f.Name))
			}
			s.mu.Unlock()
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errNotDir) {
			s.problem(err)
		}
		return
	}
	s.mu.Lock()
	s.res.Dirs = append(s.res.Dirs, DirStat{Path: rel, MTime: mtime})
	s.mu.Unlock()
	if isKnown && !fresh && mtime == known && !s.racy(rel, mtime) {
		// The folder's entries are what they were.
		if s.opts.StatNotes {
			s.statKnown(rel, s.files(rel))
		}
		return
	}
	if isKnown && !fresh && s.opts.Unchanged != nil {
		if s.opts.Unchanged(rel, s.knownIn(rel)) {
			if s.opts.StatNotes {
				s.statKnown(rel, s.files(rel))
			}
			return
		}
	}
	s.mu.Lock()
	s.res.Unsettled++
	s.res.Read = append(s.res.Read, rel)
	s.mu.Unlock()
	s.readDir(rel, isKnown)
}

// racy reports whether a time seen in folder rel (of the folder or of a note
// in it) is too close to the catalog's last look to prove the folder or note
// unchanged (see ScanOptions.RacyAfter and FineRacyAfter).
func (s *scanner) racy(rel string, mtime int64) bool {
	return s.opts.Racy(mtime, func() bool {
		fine, ok := s.fine.Load(rel)
		if !ok {
			fine = fineTimes(s.abs(rel))
			s.fine.Store(rel, fine)
		}
		return fine.(bool)
	})
}

// Racy reports whether mtime, the time of a folder or of a note in it, is
// too close to the catalog's last look to prove it unchanged: at or after
// RacyAfter, unless it is a fine time before FineRacyAfter on a folder
// whose filesystem keeps fine times, which fine says (FineTimes of the
// folder), asked only then.
func (o ScanOptions) Racy(mtime int64, fine func() bool) bool {
	if mtime < o.RacyAfter {
		return false
	}
	if mtime >= o.FineRacyAfter || mtime%int64(time.Millisecond) == 0 {
		return true
	}
	return !fine()
}

// knownIn tells whether the index knows a note of a name in folder rel:
// asked of Known one name at a time when it can, else looked up in the
// folder's notes, listed at the first question.
func (s *scanner) knownIn(rel string) func(name string) bool {
	if s.knows != nil {
		return func(name string) bool { return s.knows(join(rel, name)) }
	}
	var files []KnownFile
	listed := false
	return func(name string) bool {
		if !listed {
			files, listed = s.files(rel), true
		}
		_, ok := slices.BinarySearchFunc(files, name, func(f KnownFile, n string) int { return strings.Compare(f.Name, n) })
		return ok
	}
}

// statKnown stats the notes of an unchanged folder.
func (s *scanner) statKnown(rel string, files []KnownFile) {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	stats, err := statNames(s.abs(rel), names)
	if err != nil {
		s.problem(err)
		return
	}
	var changed, suspect []FileStat
	var removed []string
	for i, f := range files {
		st := stats[i]
		switch {
		case !st.ok:
			removed = append(removed, join(rel, f.Name))
		case st.size != f.Size || st.mtime != f.MTime:
			changed = append(changed, FileStat{Path: join(rel, f.Name), Size: st.size, MTime: st.mtime})
		case s.racy(rel, st.mtime):
			suspect = append(suspect, FileStat{Path: join(rel, f.Name), Size: st.size, MTime: st.mtime})
		}
	}
	s.mu.Lock()
	s.res.Changed = append(s.res.Changed, changed...)
	s.res.Suspect = append(s.res.Suspect, suspect...)
	s.res.Removed = append(s.res.Removed, removed...)
	s.mu.Unlock()
}

// readDir reads a folder that changed (or is new, or too recent to trust) and
// compares its notes; without StatNotes, notes it knows are not stat'ed. The
// folder a save lists is the one the last save wrote to, hundreds of notes:
// its names are looked up in the known ones, which Known gives sorted, by
// binary search rather than through a map made of them for the listing, and
// a note's path is made only when it is reported.
func (s *scanner) readDir(rel string, isKnown bool) {
	var known knownNames
	if isKnown {
		known = newKnownNames(s.files(rel))
	}
	entries, err := readDir(s.abs(rel), known.find, s.opts.StatNotes, s.linkReadable)
	if err != nil {
		s.problem(err)
		return
	}
	var changed, suspect []FileStat
	var removed, temps []string
	for _, e := range entries {
		switch {
		case atomicfile.IsTemp(e.name):
			temps = append(temps, join(rel, e.name))
		case strings.HasPrefix(e.name, "."):
		case e.dir:
			if rel == "" && skipDirs[e.name] {
				continue
			}
			if p := join(rel, e.name); !s.isKnownDir(p) {
				s.visit(p, true)
			}
		case e.note && !(rel == "" && (e.name == IndexFile || IsIndexCopy(e.name))):
			f := known.take(e.known)
			switch {
			case f == nil || e.stated && (f.Size != e.size || f.MTime != e.mtime):
				changed = append(changed, FileStat{Path: join(rel, e.name), Size: e.size, MTime: e.mtime})
			case e.stated && s.racy(rel, e.mtime):
				suspect = append(suspect, FileStat{Path: join(rel, e.name), Size: e.size, MTime: e.mtime})
			}
		}
	}
	for _, f := range known.left() {
		removed = append(removed, join(rel, f.Name))
	}
	s.mu.Lock()
	s.res.Changed = append(s.res.Changed, changed...)
	s.res.Suspect = append(s.res.Suspect, suspect...)
	s.res.Removed = append(s.res.Removed, removed...)
	s.res.Temps = append(s.res.Temps, temps...)
	s.mu.Unlock()
}

// isKnownDir reports whether the folder rel is one the index remembers.
func (s *scanner) isKnownDir(rel string) bool {
	_, ok := s.known[rel]
	return ok
}

// knownNames are a folder's known notes as a listing of the folder meets
// them: find looks a name up, take marks it met, left is what was not. The
// folder a command lists again is the one the last save wrote to, which may
// hold every note of the vault (one project folder of 10,000): a name is
// found by its hash, in a table of the known names' positions, with one
// comparison of strings where a binary search made fourteen, over names
// scattered through the catalog's memory.
type knownNames struct {
	files []KnownFile
	met   []bool
	// slots hold the position of a known name plus one (0: empty), at its
	// hash's slot or, taken, one of the next ones (linear probing); mask is
	// their count less one, a power of two.
	slots []int32
	mask  uint64
	seed  maphash.Seed
}

func newKnownNames(files []KnownFile) knownNames {
	k := knownNames{files: files, met: make([]bool, len(files)), seed: maphash.MakeSeed()}
	n := 8
	for n < 2*len(files) {
		n *= 2
	}
	k.slots, k.mask = make([]int32, n), uint64(n-1)
	for i, f := range files {
		h := maphash.String(k.seed, f.Name) & k.mask
		for k.slots[h] != 0 {
			if files[k.slots[h]-1].Name == f.Name {
				break // a name twice (Known promises none): the first is found
			}
			h = (h + 1) & k.mask
		}
		if k.slots[h] == 0 {
			k.slots[h] = int32(i + 1)
		}
	}
	return k
}

// find is the position of name among the known notes, -1 when unknown.
func (k *knownNames) find(name string) int {
	if len(k.files) == 0 {
		return -1
	}
	for h := maphash.String(k.seed, name) & k.mask; k.slots[h] != 0; h = (h + 1) & k.mask {
		if i := int(k.slots[h] - 1); k.files[i].Name == name {
			return i
		}
	}
	return -1
}

// take is the known note at position i (from find), marked as met; nil when
// unknown (i < 0) or met already.
func (k *knownNames) take(i int) *KnownFile {
	if i < 0 || k.met[i] {
		return nil
	}
	k.met[i] = true
	return &k.files[i]
}

// left are the known notes not met.
func (k *knownNames) left() []KnownFile {
	var out []KnownFile
	for i, met := range k.met {
		if !met {
			out = append(out, k.files[i])
		}
	}
	return out
}

// linkReadable reports whether the note at abs, a symbolic link, leads to a
// file the scan may read (see ScanOptions.Inside).
func (s *scanner) linkReadable(abs string) bool {
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return false // leads nowhere
	}
	if t, err := filepath.Abs(target); err == nil {
		target = t
	}
	return s.opts.Inside(target)
}

func (s *scanner) problem(err error) {
	s.mu.Lock()
	s.res.Problems = append(s.res.Problems, err)
	s.mu.Unlock()
}

// dirEntry is what reading a folder tells of one entry. note is set for markdown
// files; stated says size and mtime were read; known is the note's position
// among the folder's known notes (-1: unknown; see knownNames.find).
type dirEntry struct {
	name   string
	dir    bool
	note   bool
	stated bool
	known  int
	size   int64
	mtime  int64
}

// fileStat is the stat of one name in a folder; ok is false when it is gone or
// not a regular file.
type fileStat struct {
	ok    bool
	size  int64
	mtime int64
}

var errNotDir = errors.New("not a folder")

// isNoteName reports whether a file name is a markdown note.
func isNoteName(name string) bool {
	return strings.EqualFold(path.Ext(name), ".md") && !strings.HasPrefix(name, ".")
}

// FineTimes reports whether folder dir is on a local filesystem that keeps
// file times finer than a millisecond, from this machine's clock (see
// ScanOptions.FineRacyAfter).
func FineTimes(dir string) bool { return fineTimes(dir) }
