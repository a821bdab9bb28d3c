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

// WriterSpec is what a writer process does: open DB in WAL mode with no
// busy timeout (a lock anyone else holds fails its write at once, with
// SQLITE_BUSY), checkpointing every AutoCheckpoint pages, and run Statement
// N times, each in its own transaction, with %d replaced by the count from
// 1, pausing Pause between them.
type WriterSpec struct {
	DB             string        `json:"db"`
	Statement      string        `json:"statement"`
	N              int           `json:"n"`
	Pause          time.Duration `json:"pause"`
	AutoCheckpoint int           `json:"auto_checkpoint"`
}

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
	if _, err := db.Exec("PRAGMA journal_mode=WAL"); err != nil {
		return err
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA wal_autocheckpoint=%d", spec.AutoCheckpoint)); err != nil {
		return err
	}
	for i := 1; i <= spec.N; i++ {
		if _, err := db.Exec(strings.ReplaceAll(spec.Statement, "%d", fmt.Sprint(i))); err != nil {
			return fmt.Errorf("statement %d: %w", i, err)
		}
		time.Sleep(spec.Pause)
	}
	return nil
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
