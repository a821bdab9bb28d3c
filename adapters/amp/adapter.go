package amp

import (
	"path/filepath"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/jsondoc"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// EnvDataHome is the XDG variable Amp keeps its data under when set.
const EnvDataHome = "XDG_DATA_HOME"

// Schema is the label Fingerprint gives a thread.
const Schema = "amp/thread"

// Adapter reads Amp's thread files. The zero value is ready to use.
type Adapter struct {
	jsondoc.Framer
}

var (
	_ transcript.Adapter = (*Adapter)(nil)
	_ transcript.Framer  = (*Adapter)(nil)
)

// New returns the Amp adapter.
func New() *Adapter { return &Adapter{} }

// Source is Amp.
func (a *Adapter) Source() transcript.SourceKind { return transcript.Amp }

// Discover lists the thread files T-*.json in $XDG_DATA_HOME/amp/threads
// when the variable is set, else in ~/.local/share/amp/threads (the same
// on every OS). Links are not followed.
func (a *Adapter) Discover(env transcript.Env) transcript.Discovery {
	d := transcript.NewDiscovery(transcript.Amp)
	var r transcript.Root
	switch xdg := env.Lookup(EnvDataHome); {
	case xdg != "":
		r = transcript.Root{Path: filepath.Join(xdg, "amp", "threads"), From: EnvDataHome}
	case env.Home != "":
		r = transcript.Root{Path: filepath.Join(env.Home, ".local", "share", "amp", "threads"), From: "default"}
	default:
		d.Skip("~/.local/share/amp/threads", "no home folder and no "+EnvDataHome)
		return d
	}
	d.AddRoot(r, func(dir string) {
		for _, e := range d.ReadDir(dir) {
			path := filepath.Join(dir, e.Name())
			switch name := e.Name(); {
			case e.IsDir():
				d.Skip(path, "a folder inside the threads folder")
			case strings.HasPrefix(name, "T-") && strings.HasSuffix(name, ".json"):
				d.AddFile(path, strings.TrimSuffix(name, ".json"), transcript.RoleSession)
			default:
				d.Skip(path, "not a thread file")
			}
		}
	})
	d.Sort()
	return d
}

// Fingerprint names a thread document's schema: an object with a string id
// and a messages array (and Amp's created or v); empty for anything else.
func (a *Adapter) Fingerprint(rec transcript.Record) transcript.Variant {
	v := transcript.Variant{Source: transcript.Amp}
	if !rawjson.IsObject(rec.Data) || !rawjson.Valid(rec.Data) {
		return v
	}
	m := rawjson.AsObject(rec.Data)
	if isThread(m) {
		v.Schema = Schema
		v.ToolVersion = rawjson.AsString(rawjson.AsObject(rawjson.AsObject(m.Path("env", "initial")).Get("platform")).Get("clientVersion"))
	}
	return v
}

// isThread reports whether m is an Amp thread: an id, messages, and the
// created time or revision counter Amp writes.
func isThread(m rawjson.Object) bool {
	return rawjson.IsString(m.Get("id")) && rawjson.IsArray(m.Get("messages")) &&
		(rawjson.IsNumber(m.Get("created")) || rawjson.IsNumber(m.Get("v")))
}
