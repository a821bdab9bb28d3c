package opencode

import (
	"bytes"
	"path/filepath"
	"strings"
	"time"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
)

// EnvDataHome is the variable that moves OpenCode's data folder:
// $XDG_DATA_HOME/opencode.
const EnvDataHome = "XDG_DATA_HOME"

// The schema labels Fingerprint gives, one per place the rows come from.
const (
	SchemaSQLite  = "opencode/sqlite"  // opencode.db, 1.2 and later
	SchemaStorage = "opencode/storage" // storage/ JSON files, before 1.2
	SchemaExport  = "opencode/export"  // opencode export
)

// Adapter reads OpenCode's sessions. The zero value is ready to use.
type Adapter struct{}

var (
	_ transcript.Adapter = (*Adapter)(nil)
	_ transcript.Loader  = (*Adapter)(nil)
)

// New returns the OpenCode adapter.
func New() *Adapter { return &Adapter{} }

// Source is OpenCode.
func (a *Adapter) Source() transcript.SourceKind { return transcript.OpenCode }

// Stat is the database's size and last change, its write-ahead log
// included; for a storage/ session, the latest change of its session,
// message and part files; for an export, the file's.
func (a *Adapter) Stat(path string) (int64, time.Time, error) {
	if kind, _ := sniff(path); kind == kindStorage {
		return statStorage(path)
	}
	return sqlitedb.Stat(path)
}

// Claims reports whether the file at path, whose first bytes are head, is
// OpenCode's: its database (an SQLite file named opencode*.db), an export
// ({"info": {"id": "ses_…"}, "messages": …}) or a storage/ session file.
func (a *Adapter) Claims(path string, head []byte) bool {
	switch {
	case bytes.HasPrefix(head, []byte("SQLite format 3\x00")):
		base := filepath.Base(path)
		return strings.HasPrefix(base, "opencode") && strings.HasSuffix(base, ".db")
	case isStorageSession(path):
		return true
	}
	h := head[rawjson.SkipSpace(head, 0):]
	return bytes.HasPrefix(h, []byte(`{`)) && bytes.Contains(h[:min(len(h), 200)], []byte(`"info"`)) &&
		bytes.Contains(h[:min(len(h), 400)], []byte(`"ses_`))
}

// Fingerprint names the schema of a row line: SchemaSQLite for a row of the
// database, SchemaStorage for a storage/ file, SchemaExport for a piece of
// an export; empty for records that are not OpenCode's rows.
func (a *Adapter) Fingerprint(rec transcript.Record) transcript.Variant {
	v := transcript.Variant{Source: transcript.OpenCode}
	if !rawjson.IsObject(rec.Data) || !rawjson.Valid(rec.Data) {
		return v
	}
	l, ok := sqlitedb.ParseLine(rec.Data)
	if !ok || rank(l.Table) < 0 || !rawjson.IsString(l.Values.Get("id")) {
		return v
	}
	switch {
	case l.Values.Has(colFile):
		v.Schema = SchemaStorage
	case l.Values.Has(colPointer):
		v.Schema = SchemaExport
	default:
		v.Schema = SchemaSQLite
	}
	if ver := rawjson.AsString(l.Values.Get("version")); ver != "" && l.Table == tableSession {
		v.ToolVersion = ver
	} else if ver := rawjson.AsString(rawjson.AsObject(l.Values.Get("data")).Get("version")); ver != "" && l.Table == tableSession {
		v.ToolVersion = ver
	}
	return v
}
