package otlp

import (
	"path/filepath"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// Schema is the label Fingerprint gives a record the receiver kept.
const Schema = "otlp/log"

// EnvHome is the environment variable naming cortex's state folder, where
// the receiver keeps what it receives (in otlp/); DefaultHome (below the
// home folder) otherwise. They mirror config's: an adapter knows nothing
// of cortex's config.
const (
	EnvHome     = "CORTEX_HOME"
	DefaultHome = ".cortex"
	// Dir is the folder of the state folder holding the received records.
	Dir = "otlp"
)

// Adapter reads the log records cortex's OTLP receiver keeps. The zero
// value is ready to use.
type Adapter struct{}

var _ transcript.Adapter = (*Adapter)(nil)

// New returns the OTLP adapter.
func New() *Adapter { return &Adapter{} }

// Source is OTLP.
func (a *Adapter) Source() transcript.SourceKind { return transcript.OTLP }

// Discover lists <state>/otlp/<service>/<session>.jsonl, the state folder
// being CORTEX_HOME's when set, else ~/.cortex. Symbolic links are not
// followed.
func (a *Adapter) Discover(env transcript.Env) transcript.Discovery {
	d := transcript.NewDiscovery(transcript.OTLP)
	root := transcript.Root{From: EnvHome}
	switch h := env.Lookup(EnvHome); {
	case h != "":
		root.Path = filepath.Join(h, Dir)
	case env.Home != "":
		root.Path, root.From = filepath.Join(env.Home, DefaultHome, Dir), "default"
	default:
		d.Skip(filepath.Join("~", DefaultHome, Dir), "no home folder")
		return d
	}
	d.AddRoot(root, func(dir string) {
		for _, svc := range d.ReadDir(dir) {
			sdir := filepath.Join(dir, svc.Name())
			if !svc.IsDir() {
				d.Skip(sdir, "not a service's folder")
				continue
			}
			for _, e := range d.ReadDir(sdir) {
				name, path := e.Name(), filepath.Join(sdir, e.Name())
				switch {
				case e.IsDir():
					d.Skip(path, "a folder inside a service's folder")
				case strings.HasSuffix(name, ".jsonl"):
					d.AddFile(path, strings.TrimSuffix(name, ".jsonl"), transcript.RoleSession)
				default:
					d.Skip(path, "not a session's records")
				}
			}
		}
	})
	d.Sort()
	return d
}

// Fingerprint names a record the receiver kept ({"otlp":"log", …}); empty
// for any other line.
func (a *Adapter) Fingerprint(rec transcript.Record) transcript.Variant {
	v := transcript.Variant{Source: transcript.OTLP}
	if !rawjson.IsObject(rec.Data) || !rawjson.Valid(rec.Data) {
		return v
	}
	m := rawjson.AsObject(rec.Data)
	if isRecord(m) {
		v.Schema = Schema
		v.ToolVersion = rawjson.AsString(m.Get("service_version"))
	}
	return v
}

// isRecord reports whether m is a log record the receiver kept.
func isRecord(m rawjson.Object) bool { return rawjson.AsString(m.Get("otlp")) == "log" }
