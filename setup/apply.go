package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/cortexmem/cortex/atomicfile"
)

// BackupSuffix is put between a file's name and the time in its backup's name.
const BackupSuffix = ".cortex-backup-"

// Result is what setup did to one file.
type Result struct {
	Path   string
	Action string // "created", "updated" or "removed"
	Backup string // the copy of the file as it was, when there was one
}

// Apply writes the plan's changes: each file is copied to a backup beside it,
// then replaced atomically (a file reached through a symbolic link is
// replaced where it really is). A file changed since the plan was made (the
// client itself rewrites its settings) is read again and the same edit made
// to what is there now. When a file cannot be written, the files already
// written are put back as they were.
func Apply(p *Plan, now time.Time) ([]Result, error) {
	var done []Result
	var undo []func() error
	for _, ch := range p.Changes {
		if !ch.Changed() {
			continue
		}
		r, u, err := applyChange(p, ch, now)
		if err != nil {
			for i := len(undo) - 1; i >= 0; i-- {
				if uerr := undo[i](); uerr != nil {
					err = fmt.Errorf("%w; putting back an earlier file failed too: %v", err, uerr)
				}
			}
			return nil, err
		}
		if r.Action != "" {
			done = append(done, r)
			undo = append(undo, u)
		}
	}
	return done, nil
}

func applyChange(p *Plan, ch *Change, now time.Time) (Result, func() error, error) {
	path := ch.Path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	cur, existed, err := readFile(path)
	if err != nil {
		return Result{}, nil, err
	}
	if existed != ch.Existed || !bytes.Equal(cur, ch.Before) {
		fresh := &Change{Path: ch.Path, Existed: existed, Before: cur, t: ch.t}
		if _, err := fresh.compute(p.Client, p.Options); err != nil {
			return Result{}, nil, fmt.Errorf("%s changed while setup ran, and: %w", ch.Path, err)
		}
		*ch = *fresh
		if !ch.Changed() {
			return Result{}, nil, nil
		}
	}
	r := Result{Path: ch.Path}
	if existed {
		if r.Backup, err = backup(path, cur, now); err != nil {
			return Result{}, nil, err
		}
	}
	restore := func() error {
		if !existed {
			return os.Remove(path)
		}
		return writeAtomic(path, cur)
	}
	switch {
	case ch.Remove:
		r.Action = "removed"
		if err := os.Remove(path); err != nil {
			return Result{}, nil, fmt.Errorf("remove %s: %w", ch.Path, err)
		}
		if err := atomicfile.SyncDir(filepath.Dir(path)); err != nil {
			return Result{}, nil, err
		}
	default:
		r.Action = "updated"
		if !existed {
			r.Action = "created"
			if err := os.MkdirAll(filepath.Dir(path), atomicfile.DirPerm); err != nil {
				return Result{}, nil, fmt.Errorf("create the folder of %s: %w", ch.Path, err)
			}
		}
		if err := writeAtomic(path, ch.After); err != nil {
			return Result{}, nil, err
		}
	}
	return r, restore, nil
}

// backup copies a file's bytes to <path>.cortex-backup-<time>, a name no
// other file has.
func backup(path string, data []byte, now time.Time) (string, error) {
	base := path + BackupSuffix + now.UTC().Format("20060102T150405Z")
	for i := 1; ; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, atomicfile.FilePerm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		return name, nil
	}
}

// writeAtomic replaces path with data through a temporary file beside it. A
// file that existed keeps its permissions; a new one gets cortex's.
func writeAtomic(path string, data []byte) error {
	perm := atomicfile.FilePerm
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	return atomicfile.WriteMode(path, data, perm)
}
