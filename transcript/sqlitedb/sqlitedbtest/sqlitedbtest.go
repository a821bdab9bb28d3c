// Package sqlitedbtest builds the SQLite databases the tests of
// SQLite-backed adapters read, from text dumps a person can review, and runs
// a writer in another process to read a database against while it is
// written.
//
// # Dumps
//
// A dump is text: "== <table>" starts a table, the lines after it up to the
// first row are its CREATE TABLE statement, and each row is a JSON object on
// one line, its members the columns in order. Values: null, numbers
// (integers stay integers, a number with a fraction or exponent is REAL),
// strings (TEXT), and three wrappers for what text cannot say — {"$json":
// value} is TEXT holding the value as compact JSON, {"$zstd_json": value} a
// BLOB holding it compressed with zstd (as Zed stores threads), {"$blob":
// base64} a BLOB. Lines starting with "#" are comments. Rows are inserted in
// the order written, so their rowids count from 1 in that order.
package sqlitedbtest

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // the driver

	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/zstd"
)

// Build creates the database at path from the dump text. The database is in
// journal mode WAL when wal is true (what the tools use), checkpointed and
// closed.
func Build(tb testing.TB, path string, dump []byte, wal bool) {
	tb.Helper()
	if err := BuildErr(path, dump, wal); err != nil {
		tb.Fatal(err)
	}
}

// BuildFile is Build from the dump in the file dumpPath.
func BuildFile(tb testing.TB, path, dumpPath string, wal bool) {
	tb.Helper()
	dump, err := os.ReadFile(dumpPath)
	if err != nil {
		tb.Fatal(err)
	}
	Build(tb, path, dump, wal)
}

// BuildErr is Build returning its error.
func BuildErr(path string, dump []byte, wal bool) error {
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if wal {
		if _, err := db.Exec("PRAGMA journal_mode=WAL"); err != nil {
			return err
		}
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := load(tx, dump); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if wal {
		if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			return err
		}
	}
	return nil
}

func load(tx *sql.Tx, dump []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(dump))
	sc.Buffer(nil, 64<<20)
	var table string
	var create strings.Builder
	created := true
	flush := func() error {
		if created {
			return nil
		}
		created = true
		if _, err := tx.Exec(create.String()); err != nil {
			return fmt.Errorf("create %s: %w", table, err)
		}
		return nil
	}
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "#"), strings.TrimSpace(l) == "" && created:
		case strings.HasPrefix(l, "== "):
			if err := flush(); err != nil {
				return err
			}
			table, created = strings.TrimSpace(l[3:]), false
			create.Reset()
		case strings.HasPrefix(l, "{"):
			if err := flush(); err != nil {
				return err
			}
			if err := insert(tx, table, []byte(l)); err != nil {
				return fmt.Errorf("dump line %d: %w", line, err)
			}
		default:
			create.WriteString(l)
			create.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return flush()
}

func insert(tx *sql.Tx, table string, row []byte) error {
	if !rawjson.Valid(row) {
		return fmt.Errorf("not JSON: %.80s", row)
	}
	m, ok := rawjson.ParseObject(row)
	if !ok {
		return fmt.Errorf("not an object: %.80s", row)
	}
	var cols, marks []string
	var args []any
	for _, mem := range m {
		v, err := value(mem.Value)
		if err != nil {
			return fmt.Errorf("%s: %w", mem.KeyString(), err)
		}
		cols = append(cols, `"`+strings.ReplaceAll(mem.KeyString(), `"`, `""`)+`"`)
		marks = append(marks, "?")
		args = append(args, v)
	}
	q := fmt.Sprintf(`INSERT INTO "%s" (%s) VALUES (%s)`, table, strings.Join(cols, ","), strings.Join(marks, ","))
	_, err := tx.Exec(q, args...)
	return err
}

func value(v []byte) (any, error) {
	switch {
	case string(v) == "null":
		return nil, nil
	case rawjson.IsString(v):
		s, _ := rawjson.String(v)
		return s, nil
	case rawjson.IsNumber(v):
		if bytes.ContainsAny(v, ".eE") {
			var f float64
			err := json.Unmarshal(v, &f)
			return f, err
		}
		var n int64
		err := json.Unmarshal(v, &n)
		return n, err
	case rawjson.IsObject(v):
		m, _ := rawjson.ParseObject(v)
		if len(m) == 1 {
			var buf bytes.Buffer
			switch m[0].KeyString() {
			case "$json":
				if err := json.Compact(&buf, m[0].Value); err != nil {
					return nil, err
				}
				return buf.String(), nil
			case "$zstd_json":
				if err := json.Compact(&buf, m[0].Value); err != nil {
					return nil, err
				}
				return Zstd(buf.Bytes()), nil
			case "$blob":
				s, _ := rawjson.String(m[0].Value)
				return base64.StdEncoding.DecodeString(s)
			}
		}
	}
	return nil, fmt.Errorf("a value that is not null, a number, a string or a wrapper: %.80s", v)
}

// Zstd compresses b as Zed does (one zstd frame, level 3's equivalent).
func Zstd(b []byte) []byte {
	return zstd.Encode(b)
}
