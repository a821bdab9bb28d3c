package continuedev

import (
	"path/filepath"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/jsondoc"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// EnvGlobalDir is Continue's override of its folder (~/.continue).
const EnvGlobalDir = "CONTINUE_GLOBAL_DIR"

// Schema is the label Fingerprint gives a session document.
const Schema = "continue/session"

// Adapter reads Continue's session files. The zero value is ready to use.
type Adapter struct {
	jsondoc.Framer
}

var (
	_ transcript.Adapter = (*Adapter)(nil)
	_ transcript.Framer  = (*Adapter)(nil)
)

// New returns the Continue adapter.
func New() *Adapter { return &Adapter{} }

// Source is Continue.
func (a *Adapter) Source() transcript.SourceKind { return transcript.Continue }

// Discover lists the session files in $CONTINUE_GLOBAL_DIR/sessions when the
// variable is set, else in ~/.continue/sessions (Windows:
// %USERPROFILE%\.continue\sessions). sessions.json, the index of sessions,
// is skipped with the reason; links are not followed.
func (a *Adapter) Discover(env transcript.Env) transcript.Discovery {
	d := transcript.NewDiscovery(transcript.Continue)
	var r transcript.Root
	switch dir := env.Lookup(EnvGlobalDir); {
	case dir != "":
		r = transcript.Root{Path: filepath.Join(dir, "sessions"), From: EnvGlobalDir}
	case env.Home != "":
		r = transcript.Root{Path: filepath.Join(env.Home, ".continue", "sessions"), From: "default"}
	default:
		d.Skip("~/.continue/sessions", "no home folder and no "+EnvGlobalDir)
		return d
	}
	d.AddRoot(r, func(dir string) {
		for _, e := range d.ReadDir(dir) {
			path := filepath.Join(dir, e.Name())
			switch name := e.Name(); {
			case e.IsDir():
				d.Skip(path, "a folder inside the sessions folder")
			case name == "sessions.json":
				d.Skip(path, "the index of sessions (titles, creation times), not a transcript")
			case strings.HasSuffix(name, ".json"):
				d.AddFile(path, strings.TrimSuffix(name, ".json"), transcript.RoleSession)
			default:
				d.Skip(path, "not a session file")
			}
		}
	})
	d.Sort()
	return d
}

// Fingerprint names a session document's schema: an object with a string
// sessionId and a history array; empty for anything else.
func (a *Adapter) Fingerprint(rec transcript.Record) transcript.Variant {
	v := transcript.Variant{Source: transcript.Continue}
	if rawjson.IsObject(rec.Data) && rawjson.Valid(rec.Data) && isSession(rawjson.AsObject(rec.Data)) {
		v.Schema = Schema
	}
	return v
}

func isSession(m rawjson.Object) bool {
	return rawjson.IsString(m.Get("sessionId")) && rawjson.IsArray(m.Get("history"))
}
