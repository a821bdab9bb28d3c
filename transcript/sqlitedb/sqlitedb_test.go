package sqlitedb_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript/sqlitedb"
	"github.com/cortexmem/cortex/transcript/sqlitedb/sqlitedbtest"
)

func TestMain(m *testing.M) {
	sqlitedbtest.RunWriterIfAsked()
	os.Exit(m.Run())
}

const schema = "== t\nCREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT, data BLOB)\n"

// counts reads the ids of t in the copy of path.
func ids(t *testing.T, path string) []int64 {
	t.Helper()
	db, err := sqlitedb.Open(context.Background(), path, sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []int64
	err = db.Query(context.Background(), "t", "SELECT id FROM t ORDER BY id", nil, func(r sqlitedb.Row) error {
		out = append(out, r.Values[0].(int64))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWALRowsSeen writes rows that stay in the write-ahead log (the writer
// is open, checkpoints off): the tool's database file alone does not hold
// them — opening it immutable, as a reader that ignores the WAL does, finds
// none — and a copy read through Open sees every one.
func TestWALRowsSeen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	sqlitedbtest.Build(t, path, []byte(schema+`{"id":1,"body":"checkpointed"}`+"\n"), true)
	w, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0",
		"INSERT INTO t (id, body) VALUES (2, 'in the wal')", "INSERT INTO t (id, body) VALUES (3, 'in the wal too')"} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("no write-ahead log: %v", err)
	}
	imm, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer imm.Close()
	var n int
	if err := imm.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the database file alone has %d rows (err %v), want 1: the test's rows are not only in the WAL", n, err)
	}
	if diff := cmp.Diff([]int64{1, 2, 3}, ids(t, path)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestWriterNeverBlocked reads a database again and again while another
// process writes it — a row a transaction, no busy timeout, checkpointing
// every few pages — and checks the writer never fails (a lock held by the
// reader would fail its write with SQLITE_BUSY at once), and each read sees
// a consistent database: the rows 1..k with no gap, k never going back.
func TestWriterNeverBlocked(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a writer process for a few seconds")
	}
	path := filepath.Join(t.TempDir(), "live.db")
	sqlitedbtest.Build(t, path, []byte(schema), true)
	const n = 400
	w := sqlitedbtest.StartWriter(t, sqlitedbtest.WriterSpec{
		DB:        path,
		Statement: "INSERT INTO t (id, body, data) VALUES (%d, printf('row %d %.*c', 2000, 'x'), randomblob(3000))",
		N:         n, Pause: time.Millisecond, AutoCheckpoint: 8,
	})
	done := make(chan error, 1)
	go func() { done <- w.Wait() }()
	var reads, busy int
	last := 0
	for finished := false; !finished; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("the writer failed: %v", err)
			}
			finished = true
		default:
		}
		db, err := sqlitedb.Open(context.Background(), path, sqlitedb.Options{Attempts: 3, Wait: time.Millisecond})
		if errors.Is(err, sqlitedb.ErrBusy) {
			busy++
			continue
		}
		if err != nil {
			t.Fatalf("read %d: %v", reads, err)
		}
		var got []int64
		err = db.Query(context.Background(), "t", "SELECT id FROM t ORDER BY id", nil, func(r sqlitedb.Row) error {
			got = append(got, r.Values[0].(int64))
			return nil
		})
		db.Close()
		if err != nil {
			t.Fatalf("read %d: %v", reads, err)
		}
		for i, id := range got {
			if id != int64(i+1) {
				t.Fatalf("read %d: row %d is id %d: not a consistent state", reads, i, id)
			}
		}
		if len(got) < last {
			t.Fatalf("read %d saw %d rows after one saw %d", reads, len(got), last)
		}
		last = len(got)
		reads++
	}
	if got := ids(t, path); len(got) != n {
		t.Errorf("after the writer, %d rows, want %d", len(got), n)
	}
	t.Logf("%d reads while the writer wrote (%d copies given up as busy)", reads, busy)
	if reads < 3 {
		t.Errorf("only %d reads overlapped the writer", reads)
	}
}

// TestDamaged reads copies of a database cut at many places (a write cut
// off mid-page) and with pages overwritten by junk: every read ends with
// rows or with ErrDamaged, never a panic or another error.
func TestDamaged(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	var dump strings.Builder
	dump.WriteString(schema)
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&dump, `{"id":%d,"body":"%s"}`+"\n", i, strings.Repeat("y", 200))
	}
	sqlitedbtest.Build(t, src, []byte(dump.String()), false)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var damaged, whole int
	check := func(name string, b []byte) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		db, err := sqlitedb.Open(context.Background(), p, sqlitedb.Options{})
		if err == nil {
			var cols []string
			if cols, err = db.Columns(context.Background(), "t"); err == nil && len(cols) > 0 {
				err = db.Query(context.Background(), "t", "SELECT id, body FROM t", nil, func(sqlitedb.Row) error { return nil })
			}
			db.Close()
		}
		switch {
		case err == nil:
			whole++
		case errors.Is(err, sqlitedb.ErrDamaged):
			damaged++
		default:
			t.Errorf("%s: %v, want ErrDamaged or rows", name, err)
		}
	}
	for _, cut := range []int{0, 1, 50, 99, 100, 512, 4095, 4096, 4097, 6000, len(data) / 2, len(data) - 1} {
		check(fmt.Sprintf("cut-%d.db", cut), data[:min(cut, len(data))])
	}
	for page := 1; page*4096 < len(data); page += 3 {
		b := []byte(string(data))
		for i := page * 4096; i < page*4096+64 && i < len(b); i++ {
			b[i] = byte(i * 31)
		}
		check(fmt.Sprintf("junk-%d.db", page), b)
	}
	if damaged == 0 {
		t.Error("no damaged copy was told apart")
	}
	t.Logf("%d damaged copies refused, %d read", damaged, whole)
}

func TestMissing(t *testing.T) {
	_, err := sqlitedb.Open(context.Background(), filepath.Join(t.TempDir(), "none.db"), sqlitedb.Options{})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing file: %v, want fs.ErrNotExist", err)
	}
}

// TestIncrementalByRowID reads a table, then only the rows written after
// the last rowid read: the second read gets exactly the new rows, WAL-only
// ones included.
func TestIncrementalByRowID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kv.db")
	sqlitedbtest.Build(t, path, []byte("== kv\nCREATE TABLE kv (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)\n"+
		`{"key":"a","value":"1"}`+"\n"+`{"key":"b","value":"2"}`+"\n"), true)
	read := func(after int64) (keys []string, last int64) {
		db, err := sqlitedb.Open(context.Background(), path, sqlitedb.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		err = db.Query(context.Background(), "kv", "SELECT rowid, key FROM kv WHERE rowid > ? ORDER BY rowid", []any{after},
			func(r sqlitedb.Row) error {
				keys = append(keys, r.Values[0].(string))
				last = r.RowID
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		return keys, last
	}
	keys, last := read(0)
	if diff := cmp.Diff([]string{"a", "b"}, keys); diff != "" {
		t.Fatalf("first read (-want +got):\n%s", diff)
	}
	w, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// A value replaced (UNIQUE ON CONFLICT REPLACE gives it a new rowid, as
	// VS Code's and Cursor's tables do) and a new key.
	for _, q := range []string{"PRAGMA wal_autocheckpoint=0", "INSERT INTO kv VALUES ('a', '1 again')", "INSERT INTO kv VALUES ('c', '3')"} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	keys, _ = read(last)
	if diff := cmp.Diff([]string{"a", "c"}, keys); diff != "" {
		t.Errorf("second read (-want +got):\n%s", diff)
	}
}

func TestStat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	sqlitedbtest.Build(t, path, []byte(schema), true)
	size0, mt0, err := sqlitedb.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	time.Sleep(10 * time.Millisecond)
	for _, q := range []string{"PRAGMA wal_autocheckpoint=0", "INSERT INTO t (id) VALUES (9)"} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	size1, mt1, err := sqlitedb.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if size1 <= size0 || !mt1.After(mt0) {
		t.Errorf("a row written to the WAL: size %d → %d, time %v → %v; want both to grow", size0, size1, mt0, mt1)
	}
}

// TestWriterHoldingTransaction reads a database while another process holds
// a write transaction open on it — the write lock taken, rows inserted, its
// pages spilled into the database file (rollback journal) or the WAL, not
// committed: the read neither waits nor fails, sees only what was committed,
// leaves the tool's files byte for byte as they were, and the writer then
// commits with no busy timeout while the copy is still open.
func TestWriterHoldingTransaction(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a writer process")
	}
	tests := []struct {
		name      string
		wal       bool
		journal   string
		cacheSize int
	}{
		{"WAL", true, "WAL", 0},
		{"WAL, pages spilled", true, "WAL", 10},
		{"rollback journal, pages spilled", false, "DELETE", 10},
	}
	const n = 200
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "held.db")
			sqlitedbtest.Build(t, path, []byte(schema+`{"id":1,"body":"a"}`+"\n"+`{"id":2,"body":"b"}`+"\n"+`{"id":3,"body":"c"}`+"\n"), tt.wal)
			hold := filepath.Join(dir, "hold")
			w := sqlitedbtest.StartWriter(t, sqlitedbtest.WriterSpec{
				DB:        path,
				Statement: "INSERT INTO t (id, body, data) VALUES (100 + %d, printf('row %d %.*c', 2000, 'x'), randomblob(2000))",
				N:         n, Journal: tt.journal, CacheSize: tt.cacheSize, Hold: hold,
			})
			w.WaitReady(t, hold, 30*time.Second)
			if tt.journal == "DELETE" {
				if fi, err := os.Stat(path + "-journal"); err != nil || fi.Size() == 0 {
					t.Fatalf("the writer holds no rollback journal: %v", err)
				}
			}
			before := fileBytes(t, path)

			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			start := time.Now()
			db, err := sqlitedb.Open(ctx, path, sqlitedb.Options{})
			if err != nil {
				t.Fatalf("read while the writer holds its transaction: %v", err)
			}
			var got []int64
			err = db.Query(ctx, "t", "SELECT id FROM t ORDER BY id", nil, func(r sqlitedb.Row) error {
				got = append(got, r.Values[0].(int64))
				return nil
			})
			if err != nil {
				t.Fatalf("query: %v", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("the read took %s: it waited on the writer", d)
			}
			if diff := cmp.Diff([]int64{1, 2, 3}, got); diff != "" {
				t.Errorf("rows seen mid-transaction (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, fileBytes(t, path)); diff != "" {
				t.Errorf("the read changed the tool's files (-before +after):\n%s", diff)
			}

			sqlitedbtest.Release(t, hold)
			if err := w.Wait(); err != nil {
				t.Fatalf("the writer could not commit while the copy was open: %v", err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if got := ids(t, path); len(got) != 3+n {
				t.Errorf("after the commit, %d rows, want %d", len(got), 3+n)
			}
		})
	}
}

// fileBytes is a digest of the database's files (it, -wal, -journal, -shm):
// their sizes and contents.
func fileBytes(t *testing.T, path string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, suffix := range []string{"", "-wal", "-journal", "-shm"} {
		b, err := os.ReadFile(path + suffix)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out[suffix] = fmt.Sprintf("%d bytes, %x", len(b), sha256.Sum256(b))
	}
	return out
}
