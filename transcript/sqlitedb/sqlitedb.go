package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Errors a caller branches on: both mean "skip this database now, with the
// reason, and read it on a later run".
var (
	// ErrBusy: the database kept changing while it was copied, or SQLite
	// answered busy or locked however long it was waited for.
	ErrBusy = errors.New("the database is busy")
	// ErrDamaged: SQLite cannot read the copy — a half-written page, a file
	// cut short, or not a database at all.
	ErrDamaged = errors.New("the database is damaged or not a database")
)

// companions are the files SQLite keeps beside a database that hold
// committed changes: the write-ahead log and the rollback journal. The -shm
// is left out (see the package documentation).
var companions = []string{"-wal", "-journal"}

// Options tunes Open. The zero value is ready to use.
type Options struct {
	// TempDir is where copies are made; os.TempDir() when empty.
	TempDir string
	// Attempts bounds how many times a copy is made while the files change
	// under it (default 5).
	Attempts int
	// Wait is the pause before the first retry, doubled after each (default
	// 20ms): the tool's write is usually a few milliseconds.
	Wait time.Duration

	// copied, when set, runs after each copy is made and before the files
	// are looked at again (tests change them there).
	copied func()
}

func (o Options) attempts() int {
	if o.Attempts > 0 {
		return o.Attempts
	}
	return 5
}

func (o Options) wait() time.Duration {
	if o.Wait > 0 {
		return o.Wait
	}
	return 20 * time.Millisecond
}

// DB is a private, consistent copy of a tool's database, open read-only.
type DB struct {
	// Path is the tool's database the copy was made of.
	Path string
	db   *sql.DB
	dir  string
}

// Open copies the database at path, with its WAL or journal, and opens the
// copy. The tool's files are only ever read. A missing file is an error
// wrapping fs.ErrNotExist; a copy that cannot be made consistent ErrBusy; a
// copy SQLite cannot read ErrDamaged.
func Open(ctx context.Context, path string, opt Options) (*DB, error) {
	dir, err := os.MkdirTemp(opt.TempDir, "cortex-sqlite-")
	if err != nil {
		return nil, fmt.Errorf("copy %s: %w", path, err)
	}
	copyPath := filepath.Join(dir, "db")
	if err := snapshot(ctx, path, copyPath, opt); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	db, err := openCopy(copyPath)
	if err == nil {
		err = probe(ctx, copyPath, db)
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		os.RemoveAll(dir)
		return nil, fmt.Errorf("open %s: %w", path, Classify(err))
	}
	return &DB{Path: path, db: db, dir: dir}, nil
}

// Close closes the copy and removes it.
func (d *DB) Close() error {
	err := d.db.Close()
	return errors.Join(err, os.RemoveAll(d.dir))
}

// openCopy opens the private copy. It is opened read-write so SQLite can
// recover the copied WAL into it and build the -shm beside it; query_only
// keeps every statement from writing anything else.
func openCopy(path string) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "query_only(1)")
	q.Add("_pragma", "busy_timeout(2000)")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	// One connection: the copy is private, and one connection recovers the
	// WAL once.
	db.SetMaxOpenConns(1)
	return db, nil
}

// magic starts every SQLite database file.
const magic = "SQLite format 3\x00"

// probe checks the copy is a database (SQLite takes a file too short to
// have a header for an empty database) and reads its schema, which makes
// SQLite read the header and recover the WAL: a copy it cannot read fails
// here rather than mid-query.
func probe(ctx context.Context, path string, db *sql.DB) error {
	head := make([]byte, len(magic))
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	n, _ := io.ReadFull(f, head)
	f.Close()
	if n > 0 && string(head[:n]) != magic[:n] || n > 0 && n < len(magic) {
		return fmt.Errorf("%w: no SQLite header", ErrDamaged)
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 && fi.Size() < 100 {
		return fmt.Errorf("%w: %d bytes, shorter than the header", ErrDamaged, fi.Size())
	}
	var tables int
	return db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&tables)
}

// fileState is what says a file changed: its size and time, or its absence.
type fileState struct {
	exists bool
	size   int64
	mtime  time.Time
}

func statAll(path string) ([]fileState, error) {
	var out []fileState
	for _, suffix := range append([]string{""}, companions...) {
		fi, err := os.Stat(path + suffix)
		switch {
		case errors.Is(err, fs.ErrNotExist) && suffix != "":
			out = append(out, fileState{})
		case err != nil:
			return nil, err
		default:
			out = append(out, fileState{exists: true, size: fi.Size(), mtime: fi.ModTime()})
		}
	}
	return out, nil
}

func sameStates(a, b []fileState) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].exists != b[i].exists || a[i].size != b[i].size || !a[i].mtime.Equal(b[i].mtime) {
			return false
		}
	}
	return true
}

// snapshot copies the database and its companions to dst until a copy is
// made with no file changing during it.
func snapshot(ctx context.Context, src, dst string, opt Options) error {
	wait := opt.wait()
	var last error
	for attempt := range opt.attempts() {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
			wait *= 2
		}
		before, err := statAll(src)
		if err != nil {
			return fmt.Errorf("copy %s: %w", src, err)
		}
		if err := copyOnce(src, dst, before); err != nil {
			if errors.Is(err, fs.ErrNotExist) && !before[0].exists {
				return fmt.Errorf("copy %s: %w", src, err)
			}
			// A companion removed mid-copy (a checkpoint deleting the
			// journal) is a change: try again.
			last = err
			continue
		}
		if opt.copied != nil {
			opt.copied()
		}
		after, err := statAll(src)
		if err != nil {
			return fmt.Errorf("copy %s: %w", src, err)
		}
		if sameStates(before, after) {
			return nil
		}
		last = errors.New("it changed while it was copied")
	}
	return fmt.Errorf("copy %s: %w: %w", src, ErrBusy, last)
}

func copyOnce(src, dst string, states []fileState) error {
	for i, suffix := range append([]string{""}, companions...) {
		os.Remove(dst + suffix)
		if !states[i].exists {
			continue
		}
		if err := copyFile(src+suffix, dst+suffix); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// Classify maps an SQLite error to ErrBusy or ErrDamaged (wrapping both the
// sentinel and the error), and returns other errors as they are.
func Classify(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return fmt.Errorf("%w: %w", ErrBusy, err)
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN,
		sqlite3.SQLITE_FORMAT, sqlite3.SQLITE_RANGE, sqlite3.SQLITE_EMPTY:
		return fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	return err
}

// Stat is the database's size (with its WAL and journal) and the latest
// time any of them changed: what tells a reader the database has new rows,
// which the WAL holds long before the database file changes.
func Stat(path string) (size int64, modTime time.Time, err error) {
	states, err := statAll(path)
	if err != nil {
		return 0, time.Time{}, err
	}
	for _, s := range states {
		size += s.size
		if s.mtime.After(modTime) {
			modTime = s.mtime
		}
	}
	return size, modTime, nil
}
