package droid

import (
	"path/filepath"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// Schema is the label Fingerprint gives Droid's records.
const Schema = "factory-droid/jsonl"

// Adapter reads Factory Droid's session files. The zero value is ready to
// use.
type Adapter struct{}

var _ transcript.Adapter = (*Adapter)(nil)

// New returns the Factory Droid adapter.
func New() *Adapter { return &Adapter{} }

// Source is Factory Droid.
func (a *Adapter) Source() transcript.SourceKind { return transcript.FactoryDroid }

// Discover lists the session files under ~/.factory/sessions (Windows:
// %USERPROFILE%\.factory\sessions): <project>/<id>.jsonl, and <id>.jsonl
// directly in sessions/ as older builds wrote them. Droid documents no
// variable that moves the folder. Settings sidecars are skipped with the
// reason; links are not followed.
func (a *Adapter) Discover(env transcript.Env) transcript.Discovery {
	d := transcript.NewDiscovery(transcript.FactoryDroid)
	if env.Home == "" {
		d.Skip("~/.factory/sessions", "no home folder")
		return d
	}
	r := transcript.Root{Path: filepath.Join(env.Home, ".factory", "sessions"), From: "default"}
	d.AddRoot(r, func(dir string) {
		for _, e := range d.ReadDir(dir) {
			path := filepath.Join(dir, e.Name())
			if !e.IsDir() {
				addFile(&d, path, e.Name())
				continue
			}
			for _, f := range d.ReadDir(path) {
				p := filepath.Join(path, f.Name())
				if f.IsDir() {
					d.Skip(p, "a folder inside a project's sessions")
					continue
				}
				addFile(&d, p, f.Name())
			}
		}
	})
	d.Sort()
	return d
}

func addFile(d *transcript.Discovery, path, name string) {
	switch {
	case strings.HasSuffix(name, ".settings.json"):
		d.Skip(path, "the session's settings (model, token totals), not a transcript")
	case strings.HasSuffix(name, ".jsonl"):
		d.AddFile(path, strings.TrimSuffix(name, ".jsonl"), transcript.RoleSession)
	default:
		d.Skip(path, "not a session file")
	}
}

// recordTypes are the types of Droid's records.
var recordTypes = map[string]bool{"session_start": true, "message": true, "todo_state": true, "compaction_state": true}

// Fingerprint names the schema of a Droid record: one of its types with the
// member that type always has (a session's id, a message's message object,
// a todo list, a summary); empty for other records.
func (a *Adapter) Fingerprint(rec transcript.Record) transcript.Variant {
	v := transcript.Variant{Source: transcript.FactoryDroid}
	if !rawjson.IsObject(rec.Data) || !rawjson.Valid(rec.Data) {
		return v
	}
	m := rawjson.AsObject(rec.Data)
	typ := rawjson.AsString(m.Get("type"))
	ok := false
	switch typ {
	case "session_start":
		ok = rawjson.IsString(m.Get("id")) || rawjson.IsObject(m.Get("session"))
	case "message":
		msg := rawjson.AsObject(m.Get("message"))
		ok = rawjson.IsString(m.Get("id")) && rawjson.IsString(msg.Get("role")) && msg.Has("content")
	case "todo_state":
		ok = m.Has("todos")
	case "compaction_state":
		ok = m.Has("summary")
	}
	if ok && recordTypes[typ] {
		v.Schema = Schema
	}
	return v
}
