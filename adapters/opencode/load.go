package opencode

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
)

// The tables rows come from, and the columns a row line may carry besides
// OpenCode's own.
const (
	tableSession = "session"
	tableMessage = "message"
	tablePart    = "part"

	colFile    = "file"    // a storage/ row: its file, below storage/
	colPointer = "pointer" // an export row: its JSON pointer
)

// rank orders the rows of one creation time: a session before its
// messages, a message before its parts. -1 for other tables.
func rank(table string) int {
	switch table {
	case tableSession:
		return 0
	case tableMessage:
		return 1
	case tablePart:
		return 2
	}
	return -1
}

// jsonColumns are the columns that hold JSON documents, per table.
var jsonColumns = []string{"data", "revert", "permission", "model", "summary_diffs", "metadata"}

type kind int

const (
	kindDB kind = iota
	kindStorage
	kindExport
	kindRows
)

// sniff tells what the file at path is from its place and first bytes.
func sniff(path string) (kind, error) {
	if isStorageSession(path) {
		return kindStorage, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return kindExport, err
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	switch {
	case string(head[:n]) == "SQLite format 3\x00", strings.HasSuffix(path, ".db"):
		// A file named as a database that is not one is refused as a
		// damaged database, not read as something else.
		return kindDB, nil
	case strings.HasPrefix(string(head[:n]), `{"table":`):
		return kindRows, nil
	}
	return kindExport, nil
}

// isStorageSession reports whether path is storage/session/<project>/<id>.json.
func isStorageSession(path string) bool {
	dir := filepath.Dir(filepath.Dir(path))
	return strings.HasSuffix(path, ".json") && filepath.Base(dir) == "session" && filepath.Base(filepath.Dir(dir)) == "storage"
}

// Load reads the OpenCode transcript at path — the database, a storage/
// session file, an export, or a file of row lines (which it gives as they
// are) — into row lines: the rows written since the
// position ctx holds (see transcript.Loader).
func (a *Adapter) Load(path string, ctx *transcript.Context) ([]byte, error) {
	st := transcript.StateOf[state](ctx)
	k, err := sniff(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var rows []sqlitedb.Row
	switch k {
	case kindDB:
		rows, err = loadDB(path, st)
	case kindStorage:
		rows, err = loadStorage(path, st)
	case kindRows:
		// Row lines already (what Load gave once, kept in a file).
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		return data, nil
	default:
		rows, err = loadExport(path)
	}
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, r := range rows {
		out = r.AppendJSON(out, jsonColumns...)
		out = append(out, '\n')
	}
	return out, nil
}

// loadDB reads the session, message and part rows of opencode.db changed
// since the marks, in creation order.
func loadDB(path string, st *state) ([]sqlitedb.Row, error) {
	ctx := context.Background()
	db, err := sqlitedb.Open(ctx, path, sqlitedb.Options{})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var rows []sqlitedb.Row
	found := 0
	for _, table := range []string{tableSession, tableMessage, tablePart} {
		cols, err := db.Columns(ctx, table)
		if err != nil {
			return nil, err
		}
		if len(cols) == 0 {
			continue
		}
		found++
		q := fmt.Sprintf(`SELECT rowid, * FROM "%s"`, table)
		var args []any
		if slices.Contains(cols, "time_updated") && slices.Contains(cols, "id") {
			m := st.Marks[table]
			ids, _ := json.Marshal(m.IDs)
			q += ` WHERE time_updated > ? OR (time_updated = ? AND id NOT IN (SELECT value FROM json_each(?)))`
			args = []any{m.Time, m.Time, string(ids)}
		}
		err = db.Query(ctx, table, q, args, func(r sqlitedb.Row) error {
			rows = append(rows, r)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if found == 0 {
		return nil, fmt.Errorf("read %s: not an OpenCode database (no session, message or part table)", path)
	}
	sortByCreation(rows)
	return rows, nil
}

// sortByCreation orders rows by creation time, then session, message,
// part, then id (OpenCode's ids sort in creation order). A row is never
// put before its session's or message's row: a fork copies its parent's
// messages into the new session keeping their times, which are older than
// the fork's session row, so a message's time counts as no earlier than
// its session's, and a part's as no earlier than its message's.
func sortByCreation(rows []sqlitedb.Row) {
	created := func(r sqlitedb.Row) int64 { t, _ := r.Value("time_created").(int64); return t }
	str := func(r sqlitedb.Row, col string) string { s, _ := r.Value(col).(string); return s }
	sessions := map[string]int64{}
	for _, r := range rows {
		if r.Table == tableSession {
			sessions[str(r, "id")] = created(r)
		}
	}
	messages := map[string]int64{}
	for _, r := range rows {
		if r.Table == tableMessage {
			messages[str(r, "id")] = max(created(r), sessions[str(r, "session_id")])
		}
	}
	type keyed struct {
		t   int64
		row sqlitedb.Row
	}
	ks := make([]keyed, len(rows))
	for i, r := range rows {
		t := created(r)
		switch r.Table {
		case tableMessage:
			t = messages[str(r, "id")]
		case tablePart:
			t = max(t, messages[str(r, "message_id")])
		}
		ks[i] = keyed{t, r}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		if c := cmp.Compare(rank(a.row.Table), rank(b.row.Table)); c != 0 {
			return c
		}
		return strings.Compare(str(a.row, "id"), str(b.row, "id"))
	})
	for i := range ks {
		rows[i] = ks[i].row
	}
}

// storageRoot is the storage/ folder of a session file.
func storageRoot(sessionFile string) string {
	return filepath.Dir(filepath.Dir(filepath.Dir(sessionFile)))
}

// storageFile is one JSON file of the storage/ layout.
type storageFile struct {
	table string
	path  string
	rel   string
	data  []byte
	mtime time.Time
	obj   rawjson.Object
}

// storageFiles reads a session file and the message and part files of the
// session: the session first, then each message (by creation, then id)
// followed by its parts (by id: OpenCode's ids sort in creation order). A
// file that vanished while it was listed (OpenCode rewrites them) is left
// out.
func storageFiles(sessionFile string) ([]storageFile, error) {
	root := storageRoot(sessionFile)
	read := func(table, path string) (storageFile, bool, error) {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return storageFile{}, false, nil
		}
		if err != nil {
			return storageFile{}, false, err
		}
		fi, err := os.Stat(path)
		if err != nil {
			return storageFile{}, false, nil
		}
		rel, _ := filepath.Rel(root, path)
		f := storageFile{table: table, path: path, rel: "storage/" + filepath.ToSlash(rel), data: data, mtime: fi.ModTime()}
		if rawjson.Valid(data) {
			f.obj, _ = rawjson.ParseObject(data)
		}
		return f, true, nil
	}
	list := func(dir string) ([]string, error) {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		var out []string
		for _, e := range entries {
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
		return out, err
	}
	sess, ok, err := read(tableSession, sessionFile)
	if err != nil || !ok {
		return nil, fmt.Errorf("read %s: %w", sessionFile, cmp.Or(err, fs.ErrNotExist))
	}
	sid := cmp.Or(rawjson.AsString(sess.obj.Get("id")), strings.TrimSuffix(filepath.Base(sessionFile), ".json"))
	out := []storageFile{sess}
	msgPaths, err := list(filepath.Join(root, "message", sid))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sessionFile, err)
	}
	var msgs []storageFile
	for _, p := range msgPaths {
		m, ok, err := read(tableMessage, p)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		if ok {
			msgs = append(msgs, m)
		}
	}
	slices.SortStableFunc(msgs, func(a, b storageFile) int {
		return cmp.Or(cmp.Compare(rawjson.Int(a.obj.Path("time", "created")), rawjson.Int(b.obj.Path("time", "created"))),
			strings.Compare(fileID(a), fileID(b)))
	})
	for _, m := range msgs {
		out = append(out, m)
		partPaths, err := list(filepath.Join(root, "part", fileID(m)))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", sessionFile, err)
		}
		var parts []storageFile
		for _, p := range partPaths {
			pf, ok, err := read(tablePart, p)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", p, err)
			}
			if ok {
				parts = append(parts, pf)
			}
		}
		slices.SortStableFunc(parts, func(a, b storageFile) int { return strings.Compare(fileID(a), fileID(b)) })
		out = append(out, parts...)
	}
	return out, nil
}

// fileID is the id a storage file's JSON gives, else its name.
func fileID(f storageFile) string {
	return cmp.Or(rawjson.AsString(f.obj.Get("id")), strings.TrimSuffix(filepath.Base(f.path), ".json"))
}

// loadStorage reads a storage/ session as rows: each file whose content is
// not what the stream's state last read of it. (Its time of change is no
// part of the row: a row is then the same bytes in every copy of the tree,
// and OpenCode no longer writes this layout.)
func loadStorage(path string, st *state) ([]sqlitedb.Row, error) {
	files, err := storageFiles(path)
	if err != nil {
		return nil, err
	}
	sid := fileID(files[0])
	var rows []sqlitedb.Row
	msgID := ""
	for _, f := range files {
		id := fileID(f)
		if f.table == tableMessage {
			msgID = id
		}
		r := sqlitedb.Row{Table: f.table, Columns: []string{"id"}, Values: []any{id}}
		add := func(c string, v any) { r.Columns, r.Values = append(r.Columns, c), append(r.Values, v) }
		switch f.table {
		case tableMessage:
			add("session_id", sid)
		case tablePart:
			add("message_id", msgID)
			add("session_id", sid)
		}
		add(colFile, f.rel)
		add("data", string(f.data))
		line := r.AppendJSON(nil, jsonColumns...)
		if st.seen(f.table, msgID, id, transcript.HashID(line)) {
			continue
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// statStorage is the size of a storage/ session's files and the latest
// time one changed.
func statStorage(path string) (int64, time.Time, error) {
	files, err := storageFiles(path)
	if err != nil {
		return 0, time.Time{}, err
	}
	var size int64
	var latest time.Time
	for _, f := range files {
		size += int64(len(f.data))
		if f.mtime.After(latest) {
			latest = f.mtime
		}
	}
	return size, latest, nil
}

// loadExport reads `opencode export` JSON — {info, messages: [{info,
// parts}]} — as rows in the order of the document. An export is read whole
// every time: it is written once.
func loadExport(path string) ([]sqlitedb.Row, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !rawjson.Valid(data) {
		return nil, fmt.Errorf("read %s: not an OpenCode export: not JSON", path)
	}
	doc, ok := rawjson.ParseObject(data)
	info := rawjson.AsObject(doc.Get("info"))
	if !ok || !rawjson.IsString(info.Get("id")) || !rawjson.IsArray(doc.Get("messages")) {
		return nil, fmt.Errorf("read %s: not an OpenCode export: no info.id and messages", path)
	}
	sid := rawjson.AsString(info.Get("id"))
	rows := []sqlitedb.Row{{Table: tableSession, Columns: []string{"id", colPointer, "data"},
		Values: []any{sid, "/info", string(doc.Get("info"))}}}
	for i, m := range rawjson.AsArray(doc.Get("messages")) {
		mo := rawjson.AsObject(m)
		minfo := rawjson.AsObject(mo.Get("info"))
		mid := rawjson.AsString(minfo.Get("id"))
		rows = append(rows, sqlitedb.Row{Table: tableMessage, Columns: []string{"id", "session_id", colPointer, "data"},
			Values: []any{mid, sid, fmt.Sprintf("/messages/%d/info", i), string(rawjson.Value(mo.Get("info")))}})
		for j, p := range rawjson.AsArray(mo.Get("parts")) {
			po := rawjson.AsObject(p)
			rows = append(rows, sqlitedb.Row{Table: tablePart, Columns: []string{"id", "message_id", "session_id", colPointer, "data"},
				Values: []any{rawjson.AsString(po.Get("id")), mid, sid, fmt.Sprintf("/messages/%d/parts/%d", i, j), string(p)}})
		}
	}
	return rows, nil
}
