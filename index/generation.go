package index

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cortexmem/cortex/atomicfile"
)

const (
	currentFile = "CURRENT"
	bleveDir    = "bleve"
	genPrefix   = "gen-"
	// sourceFile, in a generation, names the folder of notes it was built
	// from: an index is a cache of one vault, and must never answer for
	// another.
	sourceFile = "source"
)

// Index is the folder of index generations of one folder of notes.
type Index struct {
	Dir string
	// Source is the folder of notes the generations index (its canonical
	// path); every new generation records it, and CheckSource compares it.
	Source string
}

// New returns the index kept in dir of the notes in source.
func New(dir, source string) *Index { return &Index{Dir: dir, Source: source} }

// Current is the folder of the live generation; ErrNoCatalog when there is none.
func (x *Index) Current() (string, error) {
	data, err := os.ReadFile(filepath.Join(x.Dir, currentFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", ErrNoCatalog
	}
	if err != nil {
		return "", fmt.Errorf("read index pointer: %w", err)
	}
	name := strings.TrimSpace(string(data))
	if !strings.HasPrefix(name, genPrefix) || strings.ContainsAny(name, `/\`) {
		return "", &CorruptError{File: currentFile, Line: 1, Msg: "does not name a generation"}
	}
	return filepath.Join(x.Dir, name), nil
}

// Pointer is the live generation as CurrentSince last read it, with the
// look at the pointer file taken before that read.
type Pointer struct {
	gen  string
	seen os.FileInfo
}

// CurrentSince is Current, reading the pointer file only when it is not the
// file p saw (the same file, size and time): the pointer is replaced by
// renaming a new file over it (Publish), so a stat tells a reader that
// answers call after call whether the generation it read is still live.
// The file is looked at before it is read, so what p keeps is never newer
// than what it saw: a change in between is read again at the next call.
func (x *Index) CurrentSince(p *Pointer) (string, error) {
	fi, err := os.Stat(filepath.Join(x.Dir, currentFile))
	if err == nil && p.seen != nil && os.SameFile(fi, p.seen) && fi.Size() == p.seen.Size() && fi.ModTime().Equal(p.seen.ModTime()) {
		return p.gen, nil
	}
	gen, cerr := x.Current()
	if cerr != nil || err != nil {
		*p = Pointer{}
		return gen, cerr
	}
	*p = Pointer{gen: gen, seen: fi}
	return gen, nil
}

// NewGeneration creates an empty generation folder with a new Bleve index in it.
// It is not live until Publish.
func (x *Index) NewGeneration(now time.Time) (string, *Bleve, error) {
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", nil, err
	}
	gen := filepath.Join(x.Dir, fmt.Sprintf("%s%d-%s", genPrefix, now.UnixNano(), hex.EncodeToString(rnd[:])))
	if err := atomicfile.MkdirAll(gen); err != nil {
		return "", nil, err
	}
	if err := atomicfile.Write(filepath.Join(gen, sourceFile), []byte(x.Source+"\n")); err != nil {
		_ = os.RemoveAll(gen)
		return "", nil, fmt.Errorf("new index generation: %w", err)
	}
	b, err := createBleve(filepath.Join(gen, bleveDir))
	if err != nil {
		_ = os.RemoveAll(gen)
		return "", nil, err
	}
	return gen, b, nil
}

// Publish makes gen the live generation and removes every other one. The caller
// holds the index lock exclusively, so no reader is inside an old generation.
func (x *Index) Publish(gen string) error {
	if err := atomicfile.Write(filepath.Join(x.Dir, currentFile), []byte(filepath.Base(gen)+"\n")); err != nil {
		return fmt.Errorf("publish index: %w", err)
	}
	x.RemoveOthers(gen)
	return nil
}

// RemoveOthers deletes every generation but keep (abandoned builds included)
// and leftover temporary files of the index folder. The caller makes sure no
// one uses them: it holds the write lock (no generation is being built) and
// the index lock exclusively (no reader is inside one). Failures are
// harmless: the next command tries again.
func (x *Index) RemoveOthers(keep string) {
	stale, err := x.Stale(keep)
	if err != nil {
		return
	}
	for _, p := range stale {
		_ = os.RemoveAll(p)
	}
}

// Stale lists what the index folder holds besides the generation keep and the
// pointer to it: other generations — old ones, and builds a killed process
// abandoned or a live one is making — and temporary files. It reads one small
// folder, so a command can afford to look after every answer.
func (x *Index) Stale(keep string) ([]string, error) {
	des, err := os.ReadDir(x.Dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, de := range des {
		name := de.Name()
		if de.IsDir() && strings.HasPrefix(name, genPrefix) && name != filepath.Base(keep) || !de.IsDir() && atomicfile.IsTemp(name) {
			out = append(out, filepath.Join(x.Dir, name))
		}
	}
	return out, nil
}

// CheckSource verifies that gen was built from the index's Source. A
// generation of another folder of notes, or one that does not say (made by an
// older cortex, whose state folder served every vault alike), is a
// CorruptError: it must be rebuilt, never trusted.
func (x *Index) CheckSource(gen string) error {
	got, err := GenerationSource(gen)
	if err != nil {
		return err
	}
	if got != x.Source {
		return &CorruptError{File: sourceFile, Msg: fmt.Sprintf("built from %s, not %s", got, x.Source)}
	}
	return nil
}

// GenerationSource reads the folder of notes gen was built from.
func GenerationSource(gen string) (string, error) {
	data, err := os.ReadFile(filepath.Join(gen, sourceFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", &CorruptError{File: sourceFile, Msg: "missing: the index does not say which vault it was built from"}
	}
	if err != nil {
		return "", fmt.Errorf("read index source: %w", err)
	}
	src, ok := strings.CutSuffix(string(data), "\n")
	if !ok || src == "" || strings.ContainsAny(src, "\n\x00") {
		return "", &CorruptError{File: sourceFile, Line: 1, Msg: "does not name a folder"}
	}
	return src, nil
}

// CheckGeneration verifies cheaply that gen's Bleve files are there (their
// content is checked when they are opened).
func CheckGeneration(gen string) error {
	for _, f := range []string{"index_meta.json", "store/root.bolt"} {
		if _, err := os.Stat(filepath.Join(gen, bleveDir, f)); err != nil {
			return &CorruptError{File: filepath.Join(bleveDir, f), Msg: "missing"}
		}
	}
	return nil
}

// OpenGeneration opens the Bleve index of gen.
func OpenGeneration(gen string, readOnly bool) (*Bleve, error) {
	return openBleve(filepath.Join(gen, bleveDir), readOnly)
}
