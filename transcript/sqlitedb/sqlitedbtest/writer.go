package sqlitedbtest

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// writerEnv carries a WriterSpec to the test binary run as a writer.
const writerEnv = "CORTEX_SQLITEDB_TEST_WRITER"

// WriterSpec is what a writer process does: open DB in WAL mode (or the
// rollback journal Journal names) with no busy timeout (a lock anyone else
// holds fails its write at once, with SQLITE_BUSY), checkpointing every
// AutoCheckpoint pages, and run Statement N times, each in its own
// transaction, with %d replaced by the count from 1, pausing Pause between
// them.
//
// With Hold set, the N statements run in one transaction instead (BEGIN
// IMMEDIATE: the write lock taken at once), and before committing it the
// writer creates the file Hold+".ready" and waits for Hold+".release": the
// test reads the database while a running tool is mid-transaction.
type WriterSpec struct {
	DB             string        `json:"db"`
	Statement      string        `json:"statement"`
	N              int           `json:"n"`
	Pause          time.Duration `json:"pause"`
	AutoCheckpoint int           `json:"auto_checkpoint"`
	// Journal is the journal mode: "" or "WAL", else a rollback journal
	// mode ("DELETE", "TRUNCATE", "PERSIST").
	Journal string `json:"journal,omitempty"`
	// CacheSize, when not 0, is the page cache's size in pages: a small one
	// makes a rollback-journal writer spill changed pages into the database
	// file before it commits.
	CacheSize int    `json:"cache_size,omitempty"`
	Hold      string `json:"hold,omitempty"`
}

// holdLimit bounds how long a holding writer waits for its release: a test
// that died must not leave a writer behind.
const holdLimit = time.Minute

// RunWriterIfAsked runs the writer and exits when the process was started
// as one (StartWriter); otherwise it returns at once. Call it first in the
// TestMain of a package whose tests start writers.
func RunWriterIfAsked() {
	raw := os.Getenv(writerEnv)
	if raw == "" {
		return
	}
	var spec WriterSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "writer spec:", err)
		os.Exit(2)
	}
	if err := runWriter(spec); err != nil {
		fmt.Fprintln(os.Stderr, "writer:", err)
		os.Exit(3)
	}
	os.Exit(0)
}

func runWriter(spec WriterSpec) error {
	db, err := sql.Open("sqlite", "file:"+spec.DB+"?_pragma=busy_timeout(0)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	journal := spec.Journal
	if journal == "" {
		journal = "WAL"
	}
	pragmas := []string{"PRAGMA journal_mode=" + journal, fmt.Sprintf("PRAGMA wal_autocheckpoint=%d", spec.AutoCheckpoint)}
	if spec.CacheSize != 0 {
		pragmas = append(pragmas, fmt.Sprintf("PRAGMA cache_size=%d", spec.CacheSize))
	}
	for _, p := range pragmas {
		if _, err := db.Exec(p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	if spec.Hold != "" {
		if _, err := db.Exec("BEGIN IMMEDIATE"); err != nil {
			return err
		}
	}
	for i := 1; i <= spec.N; i++ {
		if _, err := db.Exec(strings.ReplaceAll(spec.Statement, "%d", fmt.Sprint(i))); err != nil {
			return fmt.Errorf("statement %d: %w", i, err)
		}
		time.Sleep(spec.Pause)
	}
	if spec.Hold == "" {
		return nil
	}
	if err := os.WriteFile(spec.Hold+".ready", nil, 0o600); err != nil {
		return err
	}
	for deadline := time.Now().Add(holdLimit); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(spec.Hold + ".release"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not released within %s", holdLimit)
		}
	}
	if _, err := db.Exec("COMMIT"); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// WaitReady waits for a writer started with Hold to be mid-transaction
// (its ready file written), failing the test after limit.
func (w *Writer) WaitReady(tb testing.TB, hold string, limit time.Duration) {
	tb.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(hold + ".ready"); err == nil {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the writer did not reach its held transaction within %s", limit)
		}
	}
}

// Release lets a writer started with Hold commit.
func Release(tb testing.TB, hold string) {
	tb.Helper()
	if err := os.WriteFile(hold+".release", nil, 0o600); err != nil {
		tb.Fatal(err)
	}
}

// Writer is a writer process started by StartWriter.
type Writer struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
}

// StartWriter runs the test binary as a writer of spec, in another process:
// its locks are real POSIX (or Windows) locks, not the in-process ones two
// connections of one process share.
func StartWriter(tb testing.TB, spec WriterSpec) *Writer {
	tb.Helper()
	raw, err := json.Marshal(spec)
	if err != nil {
		tb.Fatal(err)
	}
	w := &Writer{cmd: exec.Command(os.Args[0], "-test.run=^$")}
	w.cmd.Env = append(os.Environ(), writerEnv+"="+string(raw))
	w.cmd.Stderr = &w.stderr
	if err := w.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = w.cmd.Process.Kill(); _ = w.cmd.Wait() })
	return w
}

// Wait waits for the writer to finish: an error says one of its writes
// failed (with SQLite's message: "database is locked" is SQLITE_BUSY).
func (w *Writer) Wait() error {
	if err := w.cmd.Wait(); err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(w.stderr.String()))
	}
	return nil
}
