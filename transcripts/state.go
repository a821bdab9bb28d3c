package transcripts

import (
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
	"unicode/utf8"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/transcript"
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
	// stateVersion is the version of the manifest and of the reading
	// states: an index whose manifest is of another version is rebuilt.
	stateVersion = 2
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
	// head is set on a manifest of which only the head was read (see
	// loadManifestHead): Files holds the transcripts written lately and
	// the unreadable ones, and readable and docs count them all.
	head           bool
	readable, docs int
}

// headWindow is how recently a transcript must have been written, when the
// manifest is saved, to be in its head: every transcript a quick check
// looks at (resumeWindow), with a day to spare for a clock set back.
const headWindow = resumeWindow + 24*time.Hour

// inHead reports whether e is in the head of a manifest synced then: what a
// search's quick check and its report need.
func inHead(e *fileEntry, synced int64) bool {
	return e.Err != "" || synced-e.MTime < int64(headWindow)
}

// counts are how many transcripts the index holds (read without error) and
// how many documents they gave.
func (m *manifest) counts() (readable, docs int) {
	if m.head {
		return m.readable, m.docs
	}
	for _, e := range m.Files {
		if e.Err == "" {
			readable++
			docs += e.Docs
		}
	}
	return readable, docs
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
	if err := atomicfile.MkdirAll(filepath.Join(gen, filesDir)); err != nil {
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
		if de.IsDir() && strings.HasPrefix(name, genPrefix) && name != filepath.Base(keep) || !de.IsDir() && atomicfile.IsTemp(name) {
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
	return parseManifest(data, false)
}

// loadManifestHead reads the header and the head of a generation's
// manifest only: what a search that finds nothing changed needs, without
// reading a line per transcript on the machine.
func loadManifestHead(gen string) (*manifest, error) {
	f, err := os.Open(filepath.Join(gen, manifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &corruptError{"manifest missing"}
	}
	if err != nil {
		return nil, fmt.Errorf("read transcript index manifest: %w", err)
	}
	defer f.Close()
	buf := make([]byte, 16<<10)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read transcript index manifest: %w", err)
	}
	buf = buf[:n]
	if need, ok := headLength(buf); ok && need > len(buf) && need <= maxHead {
		more := make([]byte, need)
		copy(more, buf)
		if _, err := f.ReadAt(more[len(buf):], int64(len(buf))); err != nil {
			return nil, &corruptError{"manifest shorter than its header says"}
		}
		buf = more
	}
	return parseManifest(buf, true)
}

// maxHead bounds the head a search reads: the header of a damaged manifest
// does not make it allocate much.
const maxHead = 256 << 20

// headLength is how many bytes of a manifest hold its header and head, as
// its header says.
func headLength(data []byte) (int, bool) {
	line, _, found := bytes.Cut(data, []byte("\n"))
	var hf [7][]byte
	if !found || splitTabs(line, hf[:]) != len(hf) {
		return 0, false
	}
	n, ok := atoi(hf[6])
	if !ok || n < 0 || n > maxHead {
		return 0, false
	}
	return len(line) + 1 + int(n), true
}

// The manifest is text: a header line — the magic, the version, the schema,
// when it was synced, how many transcripts read without error and how many
// documents they gave, and the length in bytes of the head — then one line
// per transcript, its fields separated by tabs: first the head (the
// transcripts written lately and the unreadable ones, sorted by path), then
// the others (sorted too). A path or an error holding a tab, a newline, a
// backslash or starting with a quote is written quoted (Go syntax). Every
// search reads the header and the head; a sync that finds something changed
// reads it all, so it is made to be read fast: no allocation per field but
// the strings kept. With head, only the header and the head are read (data
// may stop after them).
func parseManifest(data []byte, head bool) (*manifest, error) {
	bad := func(line int, msg string) error {
		return &corruptError{fmt.Sprintf("manifest line %d: %s", line, msg)}
	}
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	var hf [7][]byte
	if n := splitTabs(first, hf[:]); n != len(hf) || string(hf[0]) != manifestMagic || string(hf[1]) != strconv.Itoa(stateVersion) {
		return nil, bad(1, "not a transcript manifest of this version")
	}
	m := newManifest()
	m.Schema = string(hf[2])
	var oks [4]bool
	var readable, docs, headBytes int64
	m.Synced, oks[0] = atoi(hf[3])
	readable, oks[1] = atoi(hf[4])
	docs, oks[2] = atoi(hf[5])
	headBytes, oks[3] = atoi(hf[6])
	for _, ok := range oks {
		if !ok {
			return nil, bad(1, "bad number")
		}
	}
	if headBytes < 0 || headBytes > int64(len(rest)) || headBytes > 0 && rest[headBytes-1] != '\n' {
		return nil, bad(1, "the head's length does not fit the manifest")
	}
	if head {
		rest = rest[:headBytes]
		m.head, m.readable, m.docs = true, int(readable), int(docs)
	}
	m.Files = make(map[string]*fileEntry, bytes.Count(rest, []byte("\n")))
	var f [15][]byte
	at := int64(0)
	for n := 2; len(rest) > 0; n++ {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if splitTabs(line, f[:]) != len(f) {
			return nil, bad(n, "wrong number of fields")
		}
		e := &fileEntry{Tool: transcript.SourceKind(f[1]), Head: string(f[5]), Mark: string(f[9]), State: string(f[13]), Tail: string(f[8]) == "1"}
		var oks [9]bool
		var headLen, line64, docs, msgs int64
		e.Size, oks[0] = atoi(f[2])
		e.MTime, oks[1] = atoi(f[3])
		headLen, oks[2] = atoi(f[4])
		e.Offset, oks[3] = atoi(f[6])
		line64, oks[4] = atoi(f[7])
		docs, oks[5] = atoi(f[10])
		msgs, oks[6] = atoi(f[11])
		e.HeadLen, e.Line, e.Docs, e.Messages = int(headLen), int(line64), int(docs), int(msgs)
		e.Path, oks[7] = unfield(f[0])
		e.Err, oks[8] = unfield(f[14])
		for _, ok := range oks {
			if !ok {
				return nil, bad(n, "bad field")
			}
		}
		if e.Path == "" {
			return nil, bad(n, "no path")
		}
		if _, dup := m.Files[e.Path]; dup {
			return nil, bad(n, "a transcript listed twice")
		}
		if (at < headBytes) != inHead(e, m.Synced) {
			return nil, bad(n, "a transcript on the wrong side of the head")
		}
		at += int64(len(line)) + 1
		m.Files[e.Path] = e
	}
	if !head {
		if r, d := m.counts(); int64(r) != readable || int64(d) != docs {
			return nil, bad(1, "the counts do not match the transcripts listed")
		}
	}
	return m, nil
}

// splitTabs splits line at its tabs into f, and returns how many fields it
// has (more than len(f) when it has too many).
func splitTabs(line []byte, f [][]byte) int {
	n := 0
	for {
		i := bytes.IndexByte(line, '\t')
		if n < len(f) {
			if i < 0 {
				f[n] = line
			} else {
				f[n] = line[:i]
			}
		}
		n++
		if i < 0 {
			return n
		}
		line = line[i+1:]
	}
}

// atoi reads a decimal integer, optionally negative.
func atoi(b []byte) (int64, bool) {
	if len(b) > 18 {
		v, err := strconv.ParseInt(string(b), 10, 64)
		return v, err == nil
	}
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// field writes s as a manifest field: as it is, or quoted when it could be
// taken for something else.
func field(s string) string {
	if s == "" || !strings.ContainsAny(s, "\t\n\r\\") && s[0] != '"' && utf8.ValidString(s) {
		return s
	}
	return strconv.Quote(s)
}

// unfield reads a field field wrote.
func unfield(b []byte) (string, bool) {
	if len(b) > 0 && b[0] == '"' {
		s, err := strconv.Unquote(string(b))
		return s, err == nil
	}
	return string(b), true
}

func (m *manifest) encode() []byte {
	// The lines first, the head's before the others': the header says how
	// long the head is.
	var b bytes.Buffer
	b.Grow(len(m.Files) * 200)
	num := func(v int64) {
		var buf [20]byte
		b.Write(strconv.AppendInt(buf[:0], v, 10))
		b.WriteByte('\t')
	}
	str := func(s string) {
		b.WriteString(s)
		b.WriteByte('\t')
	}
	paths := m.paths()
	headLen := 0
	for _, inHeadPass := range []bool{true, false} {
		for _, p := range paths {
			e := m.Files[p]
			if inHead(e, m.Synced) != inHeadPass {
				continue
			}
			tail := "0"
			if e.Tail {
				tail = "1"
			}
			str(field(e.Path))
			str(string(e.Tool))
			num(e.Size)
			num(e.MTime)
			num(int64(e.HeadLen))
			str(e.Head)
			num(e.Offset)
			num(int64(e.Line))
			str(tail)
			str(e.Mark)
			num(int64(e.Docs))
			num(int64(e.Messages))
			str("-")
			str(e.State)
			b.WriteString(field(e.Err))
			b.WriteByte('\n')
		}
		if inHeadPass {
			headLen = b.Len()
		}
	}
	readable, docs := m.counts()
	header := fmt.Sprintf("%s\t%d\t%s\t%d\t%d\t%d\t%d\n", manifestMagic, stateVersion, m.Schema, m.Synced, readable, docs, headLen)
	return append([]byte(header), b.Bytes()...)
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
	return atomicfile.WriteDerived(filepath.Join(gen, manifestFile), m.encode())
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
	if err := atomicfile.WriteDerived(filepath.Join(gen, filesDir, name), []byte(red)); err != nil {
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
