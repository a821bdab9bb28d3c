package windsurf

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// The schema labels Fingerprint gives: a line of a trajectory transcript,
// and a hook's payload.
const (
	SchemaTrajectory = "windsurf/trajectory"
	SchemaHook       = "windsurf/hook"
)

// Adapter reads what Windsurf's Cascade exposes as JSON lines: the
// trajectory transcripts it writes for a post_cascade_response_with_
// transcript hook (~/.windsurf/transcripts/<trajectory>.jsonl), and logs of
// its hooks' payloads (one payload a line). The zero value is ready to use.
type Adapter struct{}

var _ transcript.Adapter = (*Adapter)(nil)

// New returns the Windsurf adapter.
func New() *Adapter { return &Adapter{} }

// Source is Windsurf.
func (a *Adapter) Source() transcript.SourceKind { return transcript.Windsurf }

// cascadeStores are the folders (below the home folder) where Windsurf and
// Windsurf Next keep Cascade's own conversations: protobuf, not read.
var cascadeStores = []string{
	filepath.Join(".codeium", "windsurf", "cascade"),
	filepath.Join(".codeium", "windsurf-next", "cascade"),
}

// Discover lists the trajectory transcripts in ~/.windsurf/transcripts/
// (<trajectory>.jsonl). Windsurf writes them only when a
// post_cascade_response_with_transcript hook is configured; Cascade's own
// store (~/.codeium/windsurf/cascade/*.pb) is opaque protobuf and is
// reported as skipped, with the reason. Logs of hook payloads have no place
// of their own: they are read when named. Symbolic links are not followed.
func (a *Adapter) Discover(env transcript.Env) transcript.Discovery {
	d := transcript.NewDiscovery(transcript.Windsurf)
	if env.Home == "" {
		d.Skip("~/.windsurf/transcripts", "no home folder")
		return d
	}
	root := transcript.Root{Path: filepath.Join(env.Home, ".windsurf", "transcripts"), From: "default"}
	d.AddRoot(root, func(dir string) {
		for _, e := range d.ReadDir(dir) {
			name, path := e.Name(), filepath.Join(dir, e.Name())
			switch {
			case e.IsDir():
				d.Skip(path, "a folder inside transcripts")
			case strings.HasSuffix(name, ".jsonl"):
				d.AddFile(path, strings.TrimSuffix(name, ".jsonl"), transcript.RoleSession)
			default:
				d.Skip(path, "not a trajectory transcript")
			}
		}
	})
	for _, s := range cascadeStores {
		if fi, err := os.Lstat(filepath.Join(env.Home, s)); err == nil && fi.IsDir() {
			d.Skip(filepath.Join(env.Home, s), "Cascade's own conversations (*.pb): opaque protobuf, not read; "+
				"Windsurf writes a readable transcript to ~/.windsurf/transcripts when a post_cascade_response_with_transcript hook is configured")
		}
	}
	d.Sort()
	return d
}

// Fingerprint names a record's schema: SchemaTrajectory for a step of a
// trajectory transcript ({type, status, <type>: {…}}), SchemaHook for a
// hook's payload ({agent_action_name, trajectory_id, …}); empty for records
// that are not Windsurf's.
func (a *Adapter) Fingerprint(rec transcript.Record) transcript.Variant {
	v := transcript.Variant{Source: transcript.Windsurf}
	if !rawjson.IsObject(rec.Data) || !rawjson.Valid(rec.Data) {
		return v
	}
	m := rawjson.AsObject(rec.Data)
	switch {
	case isStep(m):
		v.Schema = SchemaTrajectory
	case isHookPayload(m):
		v.Schema = SchemaHook
	}
	return v
}

// isStep reports whether m is a trajectory step: a type naming the member
// that holds the step, beside a status.
func isStep(m rawjson.Object) bool {
	typ, ok := rawjson.String(m.Get("type"))
	return ok && typ != "" && rawjson.IsObject(m.Get(typ)) && rawjson.IsString(m.Get("status"))
}

// isHookPayload reports whether m is a Cascade hook's payload.
func isHookPayload(m rawjson.Object) bool {
	return rawjson.IsString(m.Get("agent_action_name")) && rawjson.IsString(m.Get("trajectory_id"))
}
