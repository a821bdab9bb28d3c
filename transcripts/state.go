package transcripts

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/vault"
)

// The index folder:
//
//	CURRENT                      names the live generation
//	gen-<time>-<random>/bleve/   the Bleve index
//	gen-<…>/manifest             every transcript indexed: how far it was read
//	gen-<…>/files/<key>-<n>.json the parser state and open exchanges of one
//	                             transcript at its offset (redacted)
//	write.lock, index.lock
const (
	currentFile  = "CURRENT"
	genPrefix    = "gen-"
	bleveDir     = "bleve"
	manifestFile = "manifest"
	filesDir     = "files"
	writeLock    = "write.lock"
	indexLock    = "index.lock"

	manifestMagic = "cortex-transcripts"
	stateVersion  = 1
	// headBytes is how much of a file's start its head hash covers, and
	// markBytes how much before its offset the mark covers: a file rewritten
	// or replaced differs in one or the other.
	headBytes = 4096
	markBytes = 64
)

// fileEntry is one transcript as the index last read it.
type fileEntry struct {
	Path string
	Tool transcript.SourceKind
	// Size and MTime are the file's as it was read (not what a writer
	// appended during the read).
	Size  int64
	MTime int64
	// Head is a hash of the file's first HeadLen bytes; Mark of the
	// markBytes before Offset.
	HeadLen int
	Head    string
	// Offset and Line are where the read stopped: the start of the next
	// record, or of a last line still being written.
	Offset int64
	Line   int
	Mark   string
	// Tail is set when a final read took an unterminated last line as a
	// record: more bytes after it would continue that line.
	Tail     bool
	Docs     int
	Messages int
	// State names the file holding the parser state and the open
	// exchanges at Offset; empty when the next read must start over.
	State string
	// Err is why the file could not be read.
	Err string
}

// manifest is what the index holds: every transcript read, by path.
type manifest struct {
	Schema string
	// Synced is when the index was last brought up to date (Unix ns).
	Synced int64
	Files  map[string]*fileEntry
}

func newManifest() *manifest {
	return &manifest{Schema: index.TranscriptSchema, Files: map[string]*fileEntry{}}
}

// errNoIndex means there is no live generation yet.
var errNoIndex = errors.New("no transcript index yet")

// corruptError is an index folder that cannot be trusted: it is rebuilt.
type corruptError struct{ msg string }

func (e *corruptError) Error() string { return "transcript index: " + e.msg }

// current is the folder of the live generation.
func current(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, currentFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", errNoIndex
	}
	if err != nil {
		return "", fmt.Errorf("read transcript index pointer: %w", err)
	}
	name := strings.TrimSpace(string(data))
	if !strings.HasPrefix(name, genPrefix) || strings.ContainsAny(name, `/\`) {
		return "", &corruptError{currentFile + " does not name a generation"}
	}
	return filepath.Join(dir, name), nil
}

// newGeneration makes an empty generation folder beside the live one.
func newGeneration(dir string, now time.Time) (string, error) {
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	gen := filepath.Join(dir, fmt.Sprintf("%s%d-%s", genPrefix, now.UnixNano(), hex.EncodeToString(rnd[:])))
	if err := vault.MkdirAll(filepath.Join(gen, filesDir)); err != nil {
		return "", err
	}
	return gen, nil
}

// staleGenerations are the generations besides keep, and temporary files.
func staleGenerations(dir, keep string) []string {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, de := range des {
		name := de.Name()
		if de.IsDir() && strings.HasPrefix(name, genPrefix) && name != filepath.Base(keep) || !de.IsDir() && vault.IsTemp(name) {
			out = append(out, filepath.Join(dir, name))
		}
	}
	return out
}

// loadManifest reads a generation's manifest.
func loadManifest(gen string) (*manifest, error) {
	data, err := os.ReadFile(filepath.Join(gen, manifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &corruptError{"manifest missing"}
	}
	if err != nil {
		return nil, fmt.Errorf("read transcript index manifest: %w", err)
	}
	return parseManifest(data)
}

// The manifest is text: a header line, then one line per transcript, its
// fields separated by tabs, the path and the error quoted. It is read on
// every search, so it is made to be read fast.
func parseManifest(data []byte) (*manifest, error) {
	bad := func(line int, msg string) error {
		return &corruptError{fmt.Sprintf("manifest line %d: %s", line, msg)}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	if !sc.Scan() {
		return nil, bad(1, "empty")
	}
	head := strings.Split(sc.Text(), "\t")
	if len(head) != 4 || head[0] != manifestMagic || head[1] != strconv.Itoa(stateVersion) {
		return nil, bad(1, "not a transcript manifest of this version")
	}
	m := newManifest()
	m.Schema = head[2]
	synced, err := strconv.ParseInt(head[3], 10, 64)
	if err != nil {
		return nil, bad(1, "bad time")
	}
	m.Synced = synced
	for n := 2; sc.Scan(); n++ {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 15 {
			return nil, bad(n, "wrong number of fields")
		}
		e := &fileEntry{Tool: transcript.SourceKind(f[1]), Head: f[5], Mark: f[9], State: f[13]}
		var errs []error
		unq := func(s string) string {
			u, err := strconv.Unquote(s)
			errs = append(errs, err)
			return u
		}
		i64 := func(s string) int64 {
			v, err := strconv.ParseInt(s, 10, 64)
			errs = append(errs, err)
			return v
		}
		e.Path = unq(f[0])
		e.Size, e.MTime, e.HeadLen = i64(f[2]), i64(f[3]), int(i64(f[4]))
		e.Offset, e.Line = i64(f[6]), int(i64(f[7]))
		e.Tail = f[8] == "1"
		e.Docs, e.Messages = int(i64(f[10])), int(i64(f[11]))
		e.Err = unq(f[14])
		_ = f[12] // reserved
		if err := errors.Join(errs...); err != nil || e.Path == "" {
			return nil, bad(n, "bad field")
		}
		m.Files[e.Path] = e
	}
	if err := sc.Err(); err != nil {
		return nil, &corruptError{"manifest: " + err.Error()}
	}
	return m, nil
}

func (m *manifest) encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\t%d\t%s\t%d\n", manifestMagic, stateVersion, m.Schema, m.Synced)
	for _, p := range m.paths() {
		e := m.Files[p]
		tail := "0"
		if e.Tail {
			tail = "1"
		}
		fmt.Fprintf(&b, "%s\t%s\t%d\t%d\t%d\t%s\t%d\t%d\t%s\t%s\t%d\t%d\t-\t%s\t%s\n",
			strconv.Quote(e.Path), e.Tool, e.Size, e.MTime, e.HeadLen, e.Head, e.Offset, e.Line, tail, e.Mark,
			e.Docs, e.Messages, e.State, strconv.Quote(e.Err))
	}
	return b.Bytes()
}

// paths are the manifest's files, sorted.
func (m *manifest) paths() []string {
	out := make([]string, 0, len(m.Files))
	for p := range m.Files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func (m *manifest) save(gen string) error {
	return vault.WriteDerived(filepath.Join(gen, manifestFile), m.encode())
}

// fileKey names a transcript in the index: its documents' ids start with it.
func fileKey(path string) string {
	sum := sha256.Sum256([]byte(path))
	return hex.EncodeToString(sum[:8])
}

// readState is what a read leaves for the next: the parser's position and
// the exchanges still open.
type readState struct {
	Version int                   `json:"version"`
	Offset  int64                 `json:"offset"`
	Line    int                   `json:"line"`
	Context *transcript.Context   `json:"context"`
	Open    []*exchange           `json:"open,omitempty"`
	Tool    transcript.SourceKind `json:"tool"`
}

// saveState writes st for the file, redacted as a whole (the parser keeps
// the arguments of edits waiting for their result, which may hold a secret),
// and returns its name; "" when the redacted state no longer reads back (a
// secret inside the parser's own records), so that the next read starts over.
func saveState(gen, key string, st *readState, redact func(string) string) (string, error) {
	data, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("encode transcript reading state: %w", err)
	}
	red := redact(string(data))
	if red != string(data) {
		// Something was redacted: keep the state only if it still reads.
		var back readState
		if err := json.Unmarshal([]byte(red), &back); err != nil || back.Context == nil || back.Offset != st.Offset {
			return "", nil
		}
	}
	name := fmt.Sprintf("%s-%d.json", key, st.Offset)
	if err := vault.WriteDerived(filepath.Join(gen, filesDir, name), []byte(red)); err != nil {
		return "", err
	}
	return name, nil
}

// loadState reads the state a read left at entry's offset; nil when there
// is none that fits.
func loadState(gen string, e *fileEntry) *readState {
	if e.State == "" {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(gen, filesDir, e.State))
	if err != nil {
		return nil
	}
	var st readState
	if json.Unmarshal(data, &st) != nil || st.Version != stateVersion || st.Context == nil ||
		st.Offset != e.Offset || st.Line != e.Line || st.Tool != e.Tool {
		return nil
	}
	return &st
}

// removeStates deletes the state files not named in keep.
func removeStates(gen string, keep map[string]bool) {
	des, err := os.ReadDir(filepath.Join(gen, filesDir))
	if err != nil {
		return
	}
	for _, de := range des {
		if !keep[de.Name()] {
			_ = os.Remove(filepath.Join(gen, filesDir, de.Name()))
		}
	}
}

// hashRange hashes n bytes of f from off; ok is false when the file is
// shorter.
func hashRange(f io.ReaderAt, off int64, n int) (string, bool) {
	if n <= 0 {
		return "", true
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil {
		return "", false
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:8]), true
}
