package opencode

import (
	"path/filepath"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
)

// Discover lists OpenCode's transcripts in its data folder
// ($XDG_DATA_HOME/opencode when the variable is set, else
// ~/.local/share/opencode — on macOS and Windows too, where OpenCode keeps
// the same XDG layout under the home folder): the database opencode.db (its
// -wal and -shm are its own, not transcripts) and, from before 1.2, every
// session file storage/session/<project>/<session>.json (its messages and
// parts are read with it). A data folder holding both is read both ways:
// OpenCode's own ids make the events of a session read twice the same, and
// a run keeps the first.
func (a *Adapter) Discover(env transcript.Env) transcript.Discovery {
	d := transcript.NewDiscovery(transcript.OpenCode)
	var r transcript.Root
	switch xdg := env.Lookup(EnvDataHome); {
	case xdg != "" && filepath.IsAbs(xdg):
		r = transcript.Root{Path: filepath.Join(xdg, "opencode"), From: EnvDataHome}
	case env.Home != "":
		r = transcript.Root{Path: filepath.Join(env.Home, ".local", "share", "opencode"), From: "default"}
	default:
		d.Skip("~/.local/share/opencode", "no home folder and no "+EnvDataHome)
		return d
	}
	d.AddRoot(r, func(dir string) { walkData(&d, dir) })
	d.Sort()
	return d
}

// walkData looks at the top of the data folder for databases and at
// storage/session for the sessions of the JSON layout; the rest of the data
// folder (logs, snapshots, bin, tool output) holds no transcripts.
func walkData(d *transcript.Discovery, dir string) {
	for _, e := range d.ReadDir(dir) {
		name, path := e.Name(), filepath.Join(dir, e.Name())
		switch {
		case e.IsDir() && name == "storage":
			walkStorage(d, path)
		case e.IsDir():
		case strings.HasPrefix(name, "opencode") && strings.HasSuffix(name, ".db"):
			// Its -wal, -shm and -journal are read with it.
			sqlitedb.AddDatabase(d, path, "", transcript.RoleSession)
		}
	}
}

// walkStorage lists storage/session/<project>/<session>.json.
func walkStorage(d *transcript.Discovery, storage string) {
	sessions := filepath.Join(storage, "session")
	for _, p := range d.ReadDir(sessions) {
		dir := filepath.Join(sessions, p.Name())
		if !p.IsDir() {
			d.Skip(dir, "not a project folder of sessions")
			continue
		}
		for _, f := range d.ReadDir(dir) {
			path := filepath.Join(dir, f.Name())
			switch {
			case f.IsDir():
				d.Skip(path, "a folder inside a project's sessions")
			case strings.HasSuffix(f.Name(), ".json"):
				d.AddFile(path, strings.TrimSuffix(f.Name(), ".json"), transcript.RoleSession)
			default:
				d.Skip(path, "not a session file")
			}
		}
	}
}
