package cursor

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
)

// EnvConfigHome moves Cursor's User folder on Linux ($XDG_CONFIG_HOME/Cursor);
// EnvAppData is its parent on Windows.
const (
	EnvConfigHome = "XDG_CONFIG_HOME"
	EnvAppData    = "APPDATA"
)

// Discover lists Cursor's databases: <User>/globalStorage/state.vscdb and
// <User>/workspaceStorage/<hash>/state.vscdb, where <User> is
// ~/.config/Cursor/User on Linux ($XDG_CONFIG_HOME/Cursor/User),
// ~/Library/Application Support/Cursor/User on macOS and
// %APPDATA%\Cursor\User on Windows. Backups (state.vscdb.backup) and the
// databases' -wal and -shm are not transcripts; a database that cannot be
// read (not one, or not readable by the person) is skipped with why. The
// cursor-agent CLI's
// ~/.cursor/chats is listed as skipped, with why.
func (a *Adapter) Discover(env transcript.Env) transcript.Discovery {
	return discover(env, runtime.GOOS)
}

func discover(env transcript.Env, goos string) transcript.Discovery {
	d := transcript.NewDiscovery(transcript.Cursor)
	var r transcript.Root
	switch {
	case goos == "windows" && env.Lookup(EnvAppData) != "":
		r = transcript.Root{Path: filepath.Join(env.Lookup(EnvAppData), "Cursor", "User"), From: EnvAppData}
	case goos == "linux" && filepath.IsAbs(env.Lookup(EnvConfigHome)):
		r = transcript.Root{Path: filepath.Join(env.Lookup(EnvConfigHome), "Cursor", "User"), From: EnvConfigHome}
	case env.Home == "":
		d.Skip("~/.config/Cursor/User", "no home folder")
		return d
	case goos == "darwin":
		r = transcript.Root{Path: filepath.Join(env.Home, "Library", "Application Support", "Cursor", "User"), From: "default"}
	case goos == "windows":
		r = transcript.Root{Path: filepath.Join(env.Home, "AppData", "Roaming", "Cursor", "User"), From: "default"}
	default:
		r = transcript.Root{Path: filepath.Join(env.Home, ".config", "Cursor", "User"), From: "default"}
	}
	d.AddRoot(r, func(dir string) {
		addDB(&d, filepath.Join(dir, "globalStorage", "state.vscdb"))
		ws := filepath.Join(dir, "workspaceStorage")
		if _, err := os.Lstat(ws); errors.Is(err, fs.ErrNotExist) {
			return
		}
		for _, e := range d.ReadDir(ws) {
			if e.IsDir() {
				addDB(&d, filepath.Join(ws, e.Name(), "state.vscdb"))
			}
		}
	})
	// The cursor-agent CLI's chats: said why they are not read.
	if env.Home != "" {
		chats := filepath.Join(env.Home, ".cursor", "chats")
		if fi, err := os.Stat(chats); err == nil && fi.IsDir() {
			d.Skip(chats, "cursor-agent's store.db files hold content-addressed blobs (protobuf tree nodes): not read")
		}
	}
	d.Sort()
	return d
}

// addDB lists the database at path when there is one (skipped, with why,
// when it cannot be read).
func addDB(d *transcript.Discovery, path string) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return
	}
	sqlitedb.AddDatabase(d, path, "", transcript.RoleSession)
}
