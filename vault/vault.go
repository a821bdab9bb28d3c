package vault

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/sync/errgroup"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/memories"
)

const (
	// IndexFile is the generated map of contents at the top of the cortex folder.
	IndexFile = "_index.md"
	// MaxNoteBytes is the largest note cortex reads; a bigger file is skipped.
	MaxNoteBytes = 8 << 20
	// maxSlug bounds the title part of a file name.
	maxSlug = 60
)

// Vault is the cortex folder of an Obsidian vault.
type Vault struct {
	// Root is the vault's folder.
	Root string
	// Dir is cortex's own folder inside it; paths of notes are relative to Dir.
	Dir string
}

// New returns the vault at root with cortex's folder at root/folder. It checks
// that root, when it exists, is a folder; it creates nothing.
func New(root, folder string) (*Vault, error) {
	if root == "" {
		return nil, &memories.ArgError{Arg: "vault", Rule: "must not be empty"}
	}
	fi, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("vault %s: %w", root, err)
	case !fi.IsDir():
		return nil, &memories.ArgError{Arg: "vault", Rule: fmt.Sprintf("%s is a file; the vault must be a folder", root)}
	}
	if folder == "" || filepath.IsAbs(folder) || strings.HasPrefix(filepath.Clean(folder), "..") {
		return nil, &memories.ArgError{Arg: "vault_folder", Rule: "must be a relative folder inside the vault"}
	}
	return &Vault{Root: root, Dir: filepath.Join(root, folder)}, nil
}

// Abs is the absolute path of a note path.
func (v *Vault) Abs(rel string) string { return filepath.Join(v.Dir, filepath.FromSlash(rel)) }

// Rel is the note path (relative to the cortex folder, with forward
// slashes) of abs, a clean absolute path; false when abs is not below the
// cortex folder. It is Abs the other way.
func (v *Vault) Rel(abs string) (string, bool) {
	if abs == v.Dir || !within(v.Dir, abs) {
		return "", false
	}
	rel, err := filepath.Rel(v.Dir, abs)
	if err != nil {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// VaultPath is a note path relative to the vault root, as Obsidian shows it.
func (v *Vault) VaultPath(rel string) string {
	p, err := filepath.Rel(v.Root, v.Abs(rel))
	if err != nil {
		return v.Abs(rel)
	}
	return filepath.ToSlash(p)
}

// Scan compares the vault's notes with what the index knows (see Scan). A
// note that is a symbolic link is a note when it leads inside the vault.
func (v *Vault) Scan(known Known, opts ScanOptions) (*ScanResult, error) {
	if opts.Inside == nil {
		opts.Inside = v.inside
	}
	return Scan(v.Dir, known, opts)
}

// Read reads a note, stat first so that the stat never claims content newer than
// what was read.
func (v *Vault) Read(rel string) (*Note, FileStat, error) {
	return v.read(rel, ParseNote)
}

// read is Read with the given parser.
func (v *Vault) read(rel string, parse func([]byte) (*Note, error)) (*Note, FileStat, error) {
	data, st, err := v.ReadRaw(rel)
	if err != nil {
		return nil, st, err
	}
	n, err := parse(data)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.Path = v.VaultPath(rel)
		}
		return nil, st, err
	}
	n.folder = v.linkFolder()
	return n, st, nil
}

// ReadRaw reads a note's bytes and its stat. A note that is a symbolic link
// is read only when it leads to a file inside the vault (its stat then names
// the file, in Symlink); one that leads outside is an *OutsideError, which
// matches fs.ErrNotExist.
func (v *Vault) ReadRaw(rel string) ([]byte, FileStat, error) {
	st := FileStat{Path: rel}
	f, target, err := v.openNote(v.Abs(rel), v.VaultPath(rel))
	if err != nil {
		return nil, st, err
	}
	defer f.Close()
	st.Symlink = target
	fi, err := f.Stat()
	if err != nil {
		return nil, st, err
	}
	st.Size, st.MTime = fi.Size(), fi.ModTime().UnixNano()
	if fi.Size() > MaxNoteBytes {
		return nil, st, fmt.Errorf("%s: %w: %d bytes, more than %d", v.VaultPath(rel), ErrTooLarge, fi.Size(), MaxNoteBytes)
	}
	data, err := readSized(f, fi.Size())
	if err != nil {
		return nil, st, err
	}
	return data, st, nil
}

// readSized reads f, a note of size bytes when it was opened, to its end,
// at most MaxNoteBytes+1 bytes (atomicfile.ReadSized): reading a rebuild's
// notes with io.ReadAll's growing buffer was most of what it cost beside
// the system calls.
func readSized(f io.Reader, size int64) ([]byte, error) {
	return atomicfile.ReadSized(f, size, MaxNoteBytes)
}

// ErrTooLarge marks a note over MaxNoteBytes.
var ErrTooLarge = errors.New("note too large")

// Load reads a note as a memory. The note is only read, never rewritten from
// what Load parsed, so a note in the plain shape cortex writes is split
// without the YAML decoder (ParseWritten: the same memory), which was most of
// what loading the notes a recall or a briefing shows cost.
func (v *Vault) Load(rel string) (*memories.Memory, error) {
	n, st, err := v.read(rel, ParseWritten)
	if err != nil {
		return nil, err
	}
	m := n.Memory(rel, time.Unix(0, st.MTime))
	m.Symlink = st.Symlink
	return m, nil
}

// MemoryDir is the folder, relative to the cortex folder, that Create writes
// a new memory of project into.
func MemoryDir(project string) string { return path.Join("memories", project) }

// Create writes m as a new note under memories/<project>/ and sets m.Path. The
// file name is the title's slug and the id's first eight characters, more of the
// id when that name is taken.
func (v *Vault) Create(m *memories.Memory) error {
	if err := v.CreateUnlisted(m); err != nil {
		return err
	}
	return v.SyncFolder(path.Dir(m.Path))
}

// SyncFolder makes the names written in the folder dir (relative to the
// cortex folder) durable: see CreateUnlisted.
func (v *Vault) SyncFolder(dir string) error {
	return atomicfile.SyncDir(v.Abs(dir))
}

// CreateUnlisted is Create but for the sync of the note's folder, which the
// caller makes (SyncFolder of path.Dir(m.Path)) before it counts the note
// as written: the note's bytes are durable, its name not yet
// (atomicfile.CreateUnlisted).
func (v *Vault) CreateUnlisted(m *memories.Memory) error {
	_, err := v.CreateUnlistedWritten(m)
	return err
}

// CreateUnlistedWritten is CreateUnlisted that returns what it wrote: the
// note's bytes and their size and time on disk, as ReadRaw would read them
// back but for a change made to the file since by another program.
func (v *Vault) CreateUnlistedWritten(m *memories.Memory) (Written, error) {
	n, err := v.NewNote(m)
	if err != nil {
		return Written{}, err
	}
	data, err := n.Bytes()
	if err != nil {
		return Written{}, err
	}
	dir := MemoryDir(m.Project)
	if err := atomicfile.MkdirAll(v.Abs(dir)); err != nil {
		return Written{}, err
	}
	slug := Slug(m.Title)
	for _, k := range []int{memories.MinPrefix, 12, len(m.ID)} {
		if k > len(m.ID) {
			k = len(m.ID)
		}
		rel := path.Join(dir, slug+"-"+m.ID[:k]+".md")
		fi, err := atomicfile.CreateUnlistedStat(v.Abs(rel), data)
		if err == nil {
			m.Path = rel
			return Written{Data: data, Stat: FileStat{Path: rel, Size: fi.Size(), MTime: fi.ModTime().UnixNano()}}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return Written{}, err
		}
	}
	return Written{}, fmt.Errorf("create note for %s: every file name is taken", m.ID)
}

// AssignPaths gives each memory without a Path the name Create would give it,
// free in the vault and not given to another memory of ms, without writing
// anything. On an error no Path is set.
func (v *Vault) AssignPaths(ms []*memories.Memory) error {
	taken := map[string]bool{}
	for _, m := range ms {
		if m.Path != "" {
			taken[m.Path] = true
		}
	}
	// The names in each folder, read once: a large batch would otherwise
	// stat a name per note.
	listed := map[string]bool{}
	list := func(dir string) error {
		if listed[dir] {
			return nil
		}
		listed[dir] = true
		es, err := os.ReadDir(v.Abs(dir))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("create notes in %s: %w", dir, err)
		}
		for _, e := range es {
			taken[path.Join(dir, e.Name())] = true
		}
		return nil
	}
	var set []*memories.Memory
	for _, m := range ms {
		if m.Path != "" {
			continue
		}
		dir, slug := path.Join("memories", m.Project), Slug(m.Title)
		if err := list(dir); err != nil {
			for _, m := range set {
				m.Path = ""
			}
			return err
		}
		for _, k := range []int{memories.MinPrefix, 12, len(m.ID)} {
			rel := path.Join(dir, slug+"-"+m.ID[:min(k, len(m.ID))]+".md")
			if taken[rel] {
				continue
			}
			m.Path, taken[rel] = rel, true
			set = append(set, m)
			break
		}
		if m.Path == "" {
			for _, m := range set {
				m.Path = ""
			}
			return fmt.Errorf("create note for %s: every file name is taken", m.ID)
		}
	}
	return nil
}

// Written is a note CreateAll wrote: its bytes and its size and time on disk,
// so that the caller can index it without reading it back.
type Written struct {
	Data []byte
	Stat FileStat
}

// CreateAll writes many new notes, each at its Path (assigned first, as
// AssignPaths does, when empty), with one flush of the file system for all of
// them instead of two per note: the notes are written to temporary files, the
// file system is synced once, then each is renamed into place (never over
// another file) and each folder synced once. A crash leaves every note whole
// or absent. It returns what it wrote, in the order of ms. On an error, the
// memories whose Path was assigned here and that were not written get their
// Path back to empty, and a file that appeared at a Path meanwhile is never
// replaced; the notes placed before the error are returned with it.
func (v *Vault) CreateAll(ms []*memories.Memory) (out []Written, err error) {
	var assigned []*memories.Memory
	for _, m := range ms {
		if m.Path == "" {
			assigned = append(assigned, m)
		}
	}
	if err := v.AssignPaths(ms); err != nil {
		return nil, err
	}
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	batch := hex.EncodeToString(rnd[:])
	written := map[*memories.Memory]bool{}
	made := map[string]bool{}
	tmps := make([]string, len(ms))
	out = make([]Written, len(ms))
	defer func() {
		for _, t := range tmps {
			if t != "" {
				_ = os.Remove(t)
			}
		}
		if err != nil {
			for _, m := range assigned {
				if !written[m] {
					m.Path = ""
				}
			}
			// What was placed before the error is in the vault: say so.
			var placed []Written
			for i, m := range ms {
				if written[m] {
					placed = append(placed, out[i])
				}
			}
			out = placed
		}
	}()
	for _, m := range ms {
		if d := path.Dir(m.Path); !made[d] {
			if err := atomicfile.MkdirAll(v.Abs(d)); err != nil {
				return nil, err
			}
			made[d] = true
		}
	}
	// Rendering and writing the temporary files is most of the work and
	// independent per note: it runs on every core.
	errs := make([]error, len(ms))
	inParallel(len(ms), func(i int) {
		m := ms[i]
		n, err := v.NewNote(m)
		if err != nil {
			errs[i] = err
			return
		}
		data, err := n.Bytes()
		if err != nil {
			errs[i] = err
			return
		}
		tmp := atomicfile.TempPath(v.Abs(m.Path), batch+strconv.Itoa(i))
		fi, err := atomicfile.WriteTemp(tmp, data)
		if err != nil {
			errs[i] = fmt.Errorf("write %s: %w", m.Path, err)
			return
		}
		tmps[i] = tmp
		out[i] = Written{Data: data, Stat: FileStat{Path: m.Path, Size: fi.Size(), MTime: fi.ModTime().UnixNano()}}
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := atomicfile.SyncAll(v.Dir, slices.Values(tmps)); err != nil {
		return nil, err
	}
	dirs := map[string]bool{}
	for i, m := range ms {
		if err := atomicfile.Place(tmps[i], v.Abs(m.Path)); err != nil {
			return out, fmt.Errorf("create %s: %w", m.Path, err)
		}
		written[m] = true
		tmps[i] = ""
		dirs[path.Dir(m.Path)] = true
	}
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		if err := atomicfile.SyncDir(v.Abs(d)); err != nil {
			return out, err
		}
	}
	return out, nil
}

// Rewrite writes a changed note back in place. It writes nothing, and
// reports false, when the bytes are what the file already holds. A note that
// is a symbolic link is never rewritten (a *LinkError): that would replace
// the person's link with a file.
func (v *Vault) Rewrite(rel string, n *Note) (bool, error) {
	if err := refuseLink(v.Abs(rel), v.VaultPath(rel)); err != nil {
		return false, err
	}
	data, err := n.Bytes()
	if err != nil {
		return false, err
	}
	old, err := os.ReadFile(v.Abs(rel))
	if err == nil && string(old) == string(data) {
		return false, nil
	}
	return true, writeFile(v.Abs(rel), v.VaultPath(rel), data, true)
}

// Slug turns a title into the name part of a file: lower-case letters and digits
// joined by "-", at most 60 characters, "note" when nothing is left.
func Slug(title string) string {
	var b strings.Builder
	dash := false
	n := 0
	for _, r := range strings.ToLower(title) {
		if n >= maxSlug {
			break
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				if n+2 > maxSlug { // no room for the dash and a character
					break
				}
				b.WriteByte('-')
				n++
			}
			b.WriteRune(r)
			n++
			dash = false
			continue
		}
		dash = true
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		return "note"
	}
	return s
}

// CleanTemps removes leftover temporary files (paths relative to the cortex
// folder). Call it only while holding the write lock: then no live writer owns
// them.
func (v *Vault) CleanTemps(temps []string) error {
	var errs []error
	for _, t := range temps {
		if err := os.Remove(v.Abs(t)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// inParallel calls fn for 0 … n-1 on as many goroutines as there are cores.
func inParallel(n int, fn func(i int)) {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range n {
		g.Go(func() error { fn(i); return nil })
	}
	_ = g.Wait() // fn reports its errors itself
}
