package zed

import (
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
)

// Discover lists Zed's threads database (<data>/threads/threads.db) and its
// text conversations (<data>/conversations/*.zed.json, and in the config
// folder's conversations/, where macOS and earlier versions keep them), in
// the folders Zed uses on this system: on Linux $XDG_DATA_HOME/zed (else
// ~/.local/share/zed) and $XDG_CONFIG_HOME/zed (else ~/.config/zed); on
// macOS ~/Library/Application Support/Zed and ~/.config/zed; on Windows
// %LOCALAPPDATA%\Zed and %APPDATA%\Zed. The database's -wal and -shm are
// read with it.
func (a *Adapter) Discover(env transcript.Env) transcript.Discovery {
	return discover(env, runtime.GOOS)
}

// root is a folder of Zed's and where its name came from.
type root struct {
	path, from string
}

// folders returns Zed's data and config folders on goos.
func folders(env transcript.Env, goos string) (data, config root, ok bool) {
	home := env.Home
	xdg := func(name, def string) root {
		if v := env.Lookup(name); v != "" && filepath.IsAbs(v) {
			return root{filepath.Join(v, "zed"), name}
		}
		return root{filepath.Join(home, def, "zed"), "default"}
	}
	switch goos {
	case "darwin":
		data = root{filepath.Join(home, "Library", "Application Support", "Zed"), "default"}
		config = root{filepath.Join(home, ".config", "zed"), "default"}
	case "windows":
		data = root{filepath.Join(home, "AppData", "Local", "Zed"), "default"}
		if v := env.Lookup(EnvLocalApp); v != "" {
			data = root{filepath.Join(v, "Zed"), EnvLocalApp}
		}
		config = root{filepath.Join(home, "AppData", "Roaming", "Zed"), "default"}
		if v := env.Lookup("APPDATA"); v != "" {
			config = root{filepath.Join(v, "Zed"), "APPDATA"}
		}
	default:
		data = xdg(EnvDataHome, filepath.Join(".local", "share"))
		config = xdg(EnvConfigHome, ".config")
	}
	return data, config, home != "" || data.from != "default"
}

func discover(env transcript.Env, goos string) transcript.Discovery {
	d := transcript.NewDiscovery(transcript.Zed)
	data, config, ok := folders(env, goos)
	if !ok {
		d.Skip("~/.local/share/zed", "no home folder")
		return d
	}
	d.AddRoot(transcript.Root{Path: filepath.Join(data.path, "threads"), From: data.from}, func(dir string) {
		for _, e := range d.ReadDir(dir) {
			path := filepath.Join(dir, e.Name())
			switch name := e.Name(); {
			case name == "threads.db":
				sqlitedb.AddDatabase(&d, path, "", transcript.RoleSession)
			case strings.HasPrefix(name, "threads.db-"):
				// Its write-ahead log and index: read with it.
			default:
				d.Skip(path, "not Zed's threads database")
			}
		}
	})
	for _, r := range []root{{filepath.Join(data.path, "conversations"), data.from}, {filepath.Join(config.path, "conversations"), config.from}} {
		d.AddRoot(transcript.Root{Path: r.path, From: r.from}, func(dir string) {
			for _, e := range d.ReadDir(dir) {
				path := filepath.Join(dir, e.Name())
				switch {
				case e.IsDir():
					d.Skip(path, "a folder among the conversations")
				case strings.HasSuffix(e.Name(), ".json"):
					d.AddFile(path, "", transcript.RoleSession)
				default:
					d.Skip(path, "not a conversation file")
				}
			}
		})
	}
	d.Sort()
	return d
}
