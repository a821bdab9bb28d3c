package cursor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
)

// SchemaVSCDB is the label Fingerprint gives a row of a state.vscdb.
const SchemaVSCDB = "cursor/state.vscdb"

// The tables and the keys read.
const (
	tableKV        = "cursorDiskKV"
	tableItems     = "ItemTable"
	tableWorkspace = "workspace" // the line naming a workspace database's folder
	keyComposer    = "composerData:"
	keyBubble      = "bubbleId:"
	keyChatData    = "workbench.panel.aichat.view.aichat.chatdata"
	keyComposers   = "composer.composerData"
)

// Adapter reads Cursor's state.vscdb databases. The zero value is ready to
// use.
type Adapter struct{}

var (
	_ transcript.Adapter = (*Adapter)(nil)
	_ transcript.Loader  = (*Adapter)(nil)
)

// New returns the Cursor adapter.
func New() *Adapter { return &Adapter{} }

// Source is Cursor.
func (a *Adapter) Source() transcript.SourceKind { return transcript.Cursor }

// Claims reports whether the file at path (first bytes head) is a Cursor
// database: an SQLite file named state.vscdb below a Cursor folder.
func (a *Adapter) Claims(path string, head []byte) bool {
	return bytes.HasPrefix(head, []byte("SQLite format 3\x00")) && filepath.Base(path) == "state.vscdb" &&
		strings.Contains(filepath.ToSlash(path), "/Cursor/")
}

// Stat is the database's size and last change, its write-ahead log
// included.
func (a *Adapter) Stat(path string) (int64, time.Time, error) { return sqlitedb.Stat(path) }

// Fingerprint names a row line's schema: SchemaVSCDB for a row of the keys
// Load reads; empty for others.
func (a *Adapter) Fingerprint(rec transcript.Record) transcript.Variant {
	v := transcript.Variant{Source: transcript.Cursor}
	if !rawjson.IsObject(rec.Data) || !rawjson.Valid(rec.Data) {
		return v
	}
	l, ok := sqlitedb.ParseLine(rec.Data)
	if !ok {
		return v
	}
	key := rawjson.AsString(l.Values.Get("key"))
	switch {
	case l.Table == tableKV && (strings.HasPrefix(key, keyComposer) || strings.HasPrefix(key, keyBubble)),
		l.Table == tableItems && (key == keyChatData || key == keyComposers),
		l.Table == tableWorkspace:
		v.Schema = SchemaVSCDB
	}
	return v
}

// Load reads the rows of the database at path written since the position
// ctx holds (see the package documentation). A file of row lines already is
// given as it is; a file named .vscdb that is not a database is refused as
// a damaged one.
func (a *Adapter) Load(path string, ctx *transcript.Context) ([]byte, error) {
	st := transcript.StateOf[state](ctx)
	head := make([]byte, 16)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	n, _ := f.Read(head)
	f.Close()
	if !bytes.HasPrefix(head[:n], []byte("SQLite format 3\x00")) && !strings.HasSuffix(path, ".vscdb") {
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
	var out []byte
	if folder := workspaceFolder(path); folder != "" && st.Folder == "" {
		r := sqlitedb.Row{Table: tableWorkspace, Columns: []string{"folder"}, Values: []any{folder}}
		out = append(r.AppendJSON(out), '\n')
	}
	queries := map[string]string{
		tableKV: `SELECT rowid, key, value FROM cursorDiskKV WHERE rowid > ? AND (key LIKE 'composerData:%' OR key LIKE 'bubbleId:%') ORDER BY rowid`,
		tableItems: `SELECT rowid, key, value FROM ItemTable WHERE rowid > ? AND key IN ('` + keyChatData + `', '` + keyComposers +
			`') ORDER BY rowid`,
	}
	found := 0
	for _, table := range []string{tableItems, tableKV} {
		cols, err := db.Columns(bg, table)
		if err != nil {
			return nil, err
		}
		if len(cols) == 0 {
			continue
		}
		found++
		err = db.Query(bg, table, queries[table], []any{st.Marks[table]}, func(r sqlitedb.Row) error {
			out = append(r.AppendJSON(out, "value"), '\n')
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if found == 0 {
		return nil, fmt.Errorf("read %s: not a Cursor database (no ItemTable or cursorDiskKV table)", path)
	}
	return out, nil
}

// workspaceFolder is the folder a workspace database's workspace.json
// names ({"folder": "file:///…"}), "" for the global database or none.
func workspaceFolder(dbPath string) string {
	data, err := os.ReadFile(filepath.Join(filepath.Dir(dbPath), "workspace.json"))
	if err != nil || !rawjson.Valid(data) {
		return ""
	}
	var w struct {
		Folder string `json:"folder"`
	}
	if json.Unmarshal(data, &w) != nil || w.Folder == "" {
		return ""
	}
	u, err := url.Parse(w.Folder)
	if err != nil || u.Scheme != "file" {
		return w.Folder
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		p = strings.TrimPrefix(p, "/")
	}
	return p
}
