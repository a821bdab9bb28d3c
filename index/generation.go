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

	"github.com/cortexmem/cortex/vault"
)

const (
	currentFile = "CURRENT"
	bleveDir    = "bleve"
	genPrefix   = "gen-"
)

// Index is the folder of index generations.
type Index struct {
	Dir string
}

// New returns the index kept in dir.
func New(dir string) *Index { return &Index{Dir: dir} }

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

// NewGeneration creates an empty generation folder with a new Bleve index in it.
// It is not live until Publish.
func (x *Index) NewGeneration(now time.Time) (string, *Bleve, error) {
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", nil, err
	}
	gen := filepath.Join(x.Dir, fmt.Sprintf("%s%d-%s", genPrefix, now.UnixNano(), hex.EncodeToString(rnd[:])))
	if err := vault.MkdirAll(gen); err != nil {
		return "", nil, err
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
	if err := vault.WriteFile(filepath.Join(x.Dir, currentFile), []byte(filepath.Base(gen)+"\n")); err != nil {
		return fmt.Errorf("publish index: %w", err)
	}
	x.RemoveOthers(gen)
	return nil
}

// RemoveOthers deletes every generation but keep (abandoned builds included).
// Failures are harmless: the next rebuild tries again.
func (x *Index) RemoveOthers(keep string) {
	des, err := os.ReadDir(x.Dir)
	if err != nil {
		return
	}
	for _, de := range des {
		if de.IsDir() && strings.HasPrefix(de.Name(), genPrefix) && de.Name() != filepath.Base(keep) {
			_ = os.RemoveAll(filepath.Join(x.Dir, de.Name()))
		}
	}
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
