package zed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
)

// The variables that move Zed's folders on Linux (XDG), and the Windows
// one Discover reads there.
const (
	EnvDataHome   = "XDG_DATA_HOME"
	EnvConfigHome = "XDG_CONFIG_HOME"
	EnvLocalApp   = "LOCALAPPDATA"
)

// The schema labels Fingerprint gives.
const (
	SchemaThreads      = "zed/threads"      // a row of threads.db
	SchemaConversation = "zed/conversation" // a text conversation document
)

// Adapter reads Zed's threads database. The zero value is ready to use;
// ForFile gives Conversations for a text conversation file.
type Adapter struct{}

var (
	_ transcript.Adapter = (*Adapter)(nil)
	_ transcript.Loader  = (*Adapter)(nil)
)

// New returns the Zed adapter.
func New() *Adapter { return &Adapter{} }

// Source is Zed.
func (a *Adapter) Source() transcript.SourceKind { return transcript.Zed }

// ForFile returns the adapter of the file at path: Conversations for a
// .json file (a text conversation), a itself for the threads database.
func (a *Adapter) ForFile(path string) transcript.Adapter {
	if strings.HasSuffix(path, ".json") {
		return NewConversations()
	}
	return a
}

// Claims reports whether the file at path (first bytes head) is Zed's: a
// SQLite file named threads.db, or a text conversation (.zed.json).
func (a *Adapter) Claims(path string, head []byte) bool {
	if bytes.HasPrefix(head, []byte("SQLite format 3\x00")) {
		return filepath.Base(path) == "threads.db"
	}
	return strings.HasSuffix(path, ".zed.json") && bytes.Contains(head[:min(len(head), 4096)], []byte(`"zed"`))
}

// Stat is the database's size and last change, its write-ahead log
// included.
func (a *Adapter) Stat(path string) (int64, time.Time, error) { return sqlitedb.Stat(path) }

// Fingerprint names a record's schema: SchemaThreads for a row of the
// threads table; empty for others.
func (a *Adapter) Fingerprint(rec transcript.Record) transcript.Variant {
	v := transcript.Variant{Source: transcript.Zed}
	if !rawjson.IsObject(rec.Data) || !rawjson.Valid(rec.Data) {
		return v
	}
	if l, ok := sqlitedb.ParseLine(rec.Data); ok && l.Table == tableThreads && rawjson.IsString(l.Values.Get("id")) && l.Values.Has("data") {
		v.Schema = SchemaThreads
	}
	return v
}

// tableThreads is the table of agent threads.
const tableThreads = "threads"

// Load reads the rows of threads.db updated since the position ctx holds,
// oldest thread first (see the package documentation). A file of row lines
// already (what Load gave once, kept) is given as it is; a file named .db
// that is not a database is refused as a damaged one.
func (a *Adapter) Load(path string, ctx *transcript.Context) ([]byte, error) {
	st := transcript.StateOf[state](ctx)
	head := make([]byte, 16)
	if f, err := os.Open(path); err == nil {
		n, _ := f.Read(head)
		f.Close()
		head = head[:n]
	} else {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !bytes.HasPrefix(head, []byte("SQLite format 3\x00")) && !strings.HasSuffix(path, ".db") {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		return data, nil
	}
	bg := context.Background()
	db, err := sqlitedb.Open(bg, path, sqlitedb.Options{})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	cols, err := db.Columns(bg, tableThreads)
	if err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("read %s: not Zed's threads database (no threads table)", path)
	}
	order := "updated_at, id"
	for _, c := range cols {
		if c == "created_at" {
			order = "coalesce(created_at, updated_at), id"
		}
	}
	ids, _ := json.Marshal(st.Mark.IDs)
	q := `SELECT rowid, * FROM threads WHERE updated_at > ? OR (updated_at = ? AND id NOT IN (SELECT value FROM json_each(?))) ORDER BY ` + order
	var out []byte
	err = db.Query(bg, tableThreads, q, []any{st.Mark.Time, st.Mark.Time, string(ids)}, func(r sqlitedb.Row) error {
		out = r.AppendJSON(out)
		out = append(out, '\n')
		return nil
	})
	return out, err
}
