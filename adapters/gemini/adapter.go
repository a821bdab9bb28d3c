package gemini

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// EnvHome is Gemini CLI's override of the home folder: with it set, the CLI
// keeps everything in $GEMINI_CLI_HOME/.gemini instead of ~/.gemini.
const EnvHome = "GEMINI_CLI_HOME"

// The schema labels Fingerprint gives. Gemini CLI writes no version into its
// files, so the labels name the two containers only.
const (
	SchemaJSONL = "gemini-cli/jsonl" // the chat log of 0.39 and later
	SchemaJSON  = "gemini-cli/json"  // the single document of 0.38 and before
)

// Adapter reads Gemini CLI's JSONL chat files (one record a line). The zero
// value is ready to use. The legacy single-document files (session-*.json)
// are not JSON lines: Legacy reads them, and ForFile picks the adapter for a
// path.
type Adapter struct{}

var _ transcript.Adapter = (*Adapter)(nil)

// New returns the Gemini CLI adapter.
func New() *Adapter { return &Adapter{} }

// Source is Gemini CLI.
func (a *Adapter) Source() transcript.SourceKind { return transcript.GeminiCLI }

// ForFile returns the adapter that reads the transcript at path: Legacy for
// a .json file (one JSON document rewritten in place), a itself for the
// others (JSON lines). Discover lists both kinds.
func (a *Adapter) ForFile(path string) transcript.Adapter {
	if strings.HasSuffix(path, ".json") {
		return NewLegacy()
	}
	return a
}

// Discover lists Gemini CLI's chat files: <home>/.gemini/tmp/<project>/chats/
// session-*.jsonl (and the legacy session-*.json), and subagents'
// chats/<parent session>/<subagent session>.jsonl, where home is
// $GEMINI_CLI_HOME when set, else the home folder. <project> is a short slug
// (since early 2026) or the SHA-256 of the project's path (before). A legacy
// .json that has a .jsonl of the same name beside it was migrated into it by
// the CLI on resume and is skipped. A subagent's Found.Session is its
// parent's (the folder's name), which its events carry. Symbolic links are
// not followed.
func (a *Adapter) Discover(env transcript.Env) transcript.Discovery {
	d := transcript.NewDiscovery(transcript.GeminiCLI)
	var r transcript.Root
	switch home := env.Lookup(EnvHome); {
	case home != "":
		r = transcript.Root{Path: filepath.Join(home, ".gemini", "tmp"), From: EnvHome}
	case env.Home != "":
		r = transcript.Root{Path: filepath.Join(env.Home, ".gemini", "tmp"), From: "default"}
	default:
		d.Skip("~/.gemini/tmp", "no home folder and no "+EnvHome)
		return d
	}
	d.AddRoot(r, func(dir string) { walkRoot(&d, dir) })
	d.Sort()
	return d
}

// walkRoot looks in every project folder of tmp/ for a chats/ folder.
func walkRoot(d *transcript.Discovery, root string) {
	for _, p := range d.ReadDir(root) {
		if !p.IsDir() {
			continue
		}
		chats := filepath.Join(root, p.Name(), "chats")
		fi, err := os.Lstat(chats)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// A project folder without chats (tool outputs, plans only).
		case err != nil:
			d.Skip(chats, err.Error())
		case fi.Mode()&fs.ModeSymlink != 0:
			d.Skip(chats, "symbolic link, not followed")
		case fi.IsDir():
			walkChats(d, chats)
		}
	}
}

func walkChats(d *transcript.Discovery, dir string) {
	for _, e := range d.ReadDir(dir) {
		name, path := e.Name(), filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			walkSubagents(d, path, name)
		case !strings.HasPrefix(name, "session-"):
			d.Skip(path, "not a session file")
		case strings.HasSuffix(name, ".jsonl"):
			d.AddFile(path, "", transcript.RoleSession)
		case strings.HasSuffix(name, ".json") && exists(path+"l"):
			d.Skip(path, "migrated by the CLI into "+name+"l")
		case strings.HasSuffix(name, ".json"):
			d.AddFile(path, "", transcript.RoleSession)
		default:
			d.Skip(path, "not a session file")
		}
	}
}

// exists reports whether there is something (of any type, a link included)
// at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// walkSubagents lists the subagent transcripts in chats/<parent session>/.
func walkSubagents(d *transcript.Discovery, dir, parent string) {
	for _, e := range d.ReadDir(dir) {
		path := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			d.Skip(path, "a folder inside a subagent folder")
		case strings.HasSuffix(e.Name(), ".jsonl"):
			d.AddFile(path, parent, transcript.RoleSubagent)
		default:
			d.Skip(path, "not a subagent transcript")
		}
	}
}

// Fingerprint names a record's schema: SchemaJSONL for the records of a
// JSONL chat file (the session header, messages, $set and $rewindTo), and
// SchemaJSON for a whole legacy document on one line; empty for records that
// are not Gemini CLI's.
func (a *Adapter) Fingerprint(rec transcript.Record) transcript.Variant {
	return fingerprint(rec.Data, SchemaJSONL, false)
}

// messageTypes are the types of Gemini CLI's message records.
var messageTypes = map[string]bool{"user": true, "gemini": true, "info": true, "error": true, "warning": true}

// metadataKeys are the members of the session's metadata besides its id and
// project hash; a legacy document's members after its messages hold some.
var metadataKeys = map[string]bool{
	"sessionId": true, "projectHash": true, "startTime": true, "lastUpdated": true, "summary": true,
	"directories": true, "kind": true, "memoryScratchpad": true, "activeExtensionName": true,
}

func fingerprint(data []byte, schema string, legacy bool) transcript.Variant {
	v := transcript.Variant{Source: transcript.GeminiCLI}
	if !rawjson.IsObject(data) || !rawjson.Valid(data) {
		return v
	}
	m := rawjson.AsObject(data)
	switch {
	case len(m) == 1 && rawjson.IsString(m.Get("$rewindTo")), len(m) == 1 && rawjson.IsObject(m.Get("$set")):
		v.Schema = schema
	case isHeader(m):
		v.Schema = schema
		if rawjson.IsArray(m.Get("messages")) {
			v.Schema = SchemaJSON
		}
	case isMessage(m):
		v.Schema = schema
	case legacy && isMetadata(m):
		v.Schema = schema
	}
	return v
}

// isHeader reports whether m is a session's metadata record: the first line
// of a chat file, or a legacy document.
func isHeader(m rawjson.Object) bool {
	return rawjson.IsString(m.Get("sessionId")) && rawjson.IsString(m.Get("projectHash"))
}

// isMessage reports whether m is a message record as Gemini CLI writes it:
// an id, one of its types and content (other tools' records with an id and
// a type carry their text elsewhere).
func isMessage(m rawjson.Object) bool {
	return rawjson.IsString(m.Get("id")) && messageTypes[rawjson.AsString(m.Get("type"))] && m.Has("content")
}

// isMetadata reports whether every member of m is one of the session's
// metadata.
func isMetadata(m rawjson.Object) bool {
	if len(m) == 0 {
		return false
	}
	for _, mem := range m {
		if !metadataKeys[mem.KeyString()] {
			return false
		}
	}
	return true
}
