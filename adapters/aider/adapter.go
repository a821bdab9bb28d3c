package aider

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cortexmem/cortex/transcript"
)

// The files aider writes in a project.
const (
	// HistoryFile is the chat history, the transcript.
	HistoryFile = ".aider.chat.history.md"
	// InputHistoryFile holds the prompts typed, with their times.
	InputHistoryFile = ".aider.input.history"
)

// EnvHistoryFile is aider's setting of the chat history's path
// (--chat-history-file).
const EnvHistoryFile = "AIDER_CHAT_HISTORY_FILE"

// EnvPWD is the shell's working folder: the repository it is in is the one
// aider run there writes to.
const EnvPWD = "PWD"

// Schema labels.
const (
	SchemaChat  = "aider/chat-history"
	SchemaInput = "aider/input-history"
)

// maxDepth and maxFolders bound the search of the home folder for chat
// histories: repositories rarely sit deeper (~/src/github.com/me/repo),
// and a home with more folders than that is not searched to the end.
const (
	maxDepth   = 4
	maxFolders = 20000
)

// skipFolders are folders never searched: caches, dependencies, toolchains.
var skipFolders = map[string]bool{
	"node_modules": true, "Library": true, "go": true, "vendor": true, "target": true, "venv": true,
	"AppData": true, "snap": true, "Applications": true, "Pictures": true, "Music": true, "Movies": true,
}

// Adapter reads aider's chat histories (.aider.chat.history.md): a
// markdown log, framed into records by the adapter (see Frame). The zero
// value is ready to use.
type Adapter struct{}

var (
	_ transcript.Adapter = (*Adapter)(nil)
	_ transcript.Framer  = (*Adapter)(nil)
)

// New returns the aider adapter.
func New() *Adapter { return &Adapter{} }

// Source is aider.
func (a *Adapter) Source() transcript.SourceKind { return transcript.Aider }

// ForFile returns the adapter of the file at path: InputHistory for an
// .aider.input.history, a itself for the chat history.
func (a *Adapter) ForFile(path string) transcript.Adapter {
	if strings.HasSuffix(filepath.ToSlash(path), "input.history") {
		return NewInputHistory()
	}
	return a
}

// Discover lists chat histories. Aider writes one per project, in the
// repository's root (or where --chat-history-file / AIDER_CHAT_HISTORY_FILE
// points), not in a folder of its own, so discovery looks: at
// $AIDER_CHAT_HISTORY_FILE when set (relative to $PWD when relative); in
// the root of the repository $PWD is in; and in the home folder's
// folders down to four levels (hidden folders, dependencies and caches
// left out, twenty thousand folders at most). The prompt histories beside
// them are skipped with the reason (they hold the prompts without the
// replies; name one to read it).
func (a *Adapter) Discover(env transcript.Env) transcript.Discovery {
	d := transcript.NewDiscovery(transcript.Aider)
	seen := map[string]bool{}
	add := func(path string) {
		if seen[path] {
			return
		}
		seen[path] = true
		d.AddFile(path, "", transcript.RoleSession)
		in := filepath.Join(filepath.Dir(path), InputHistoryFile)
		if _, err := os.Lstat(in); err == nil && !seen[in] {
			seen[in] = true
			d.Skip(in, "the prompts typed, without the replies "+HistoryFile+" beside it holds; name it to read it")
		}
	}
	pwd := env.Lookup(EnvPWD)
	if f := env.Lookup(EnvHistoryFile); f != "" {
		if !filepath.IsAbs(f) && pwd != "" {
			f = filepath.Join(pwd, f)
		}
		d.AddRoot(transcript.Root{Path: filepath.Dir(f), From: EnvHistoryFile}, func(string) {
			if _, err := os.Lstat(f); errors.Is(err, fs.ErrNotExist) {
				d.Skip(f, "no such file")
				return
			}
			add(f)
		})
	}
	if pwd != "" {
		if root := repoRoot(pwd); root != "" {
			d.AddRoot(transcript.Root{Path: root, From: EnvPWD}, func(dir string) {
				if p := filepath.Join(dir, HistoryFile); exists(p) {
					add(p)
				}
			})
		}
	}
	if env.Home != "" {
		d.AddRoot(transcript.Root{Path: env.Home, From: "default"}, func(home string) {
			folders := 0
			var walk func(dir string, depth int)
			walk = func(dir string, depth int) {
				entries, err := os.ReadDir(dir)
				if err != nil {
					return // a folder of the home the walk cannot read is not aider's
				}
				for _, e := range entries {
					if e.Name() == HistoryFile && e.Type().IsRegular() {
						add(filepath.Join(dir, e.Name()))
					}
				}
				if depth == maxDepth {
					return
				}
				for _, e := range entries {
					name := e.Name()
					if !e.IsDir() || strings.HasPrefix(name, ".") || skipFolders[name] {
						continue
					}
					if folders++; folders > maxFolders {
						return
					}
					walk(filepath.Join(dir, name), depth+1)
				}
			}
			walk(home, 0)
			if folders > maxFolders {
				d.Skip(home, "searched the first 20000 folders only: set "+EnvHistoryFile+", or run from the project's folder")
			}
		})
	} else if pwd == "" && env.Lookup(EnvHistoryFile) == "" {
		d.Skip("~", "no home folder, no "+EnvPWD+" and no "+EnvHistoryFile)
	}
	d.Sort()
	return d
}

// repoRoot is the root of the git repository dir is in (the nearest folder
// up with a .git), "" when it is in none.
func repoRoot(dir string) string {
	for {
		if exists(filepath.Join(dir, ".git")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// Fingerprint names a chat history record's schema: a session header, or
// aider's own output naming its version (which gives the tool version);
// empty for other records (a reply or a prompt could be anyone's markdown).
func (a *Adapter) Fingerprint(rec transcript.Record) transcript.Variant {
	v := transcript.Variant{Source: transcript.Aider}
	first, _, _ := lineAt(rec.Data, 0)
	switch {
	case isHeader(first):
		v.Schema = SchemaChat
	case bytes.HasPrefix(rec.Data, []byte("> Aider v")) || bytes.Contains(rec.Data, []byte("\n> Aider v")):
		v.Schema = SchemaChat
		i := bytes.Index(rec.Data, []byte("> Aider v")) + len("> Aider v")
		rest := rec.Data[i:]
		if j := bytes.IndexAny(rest, " \r\n"); j >= 0 {
			rest = rest[:j]
		}
		v.ToolVersion = string(rest)
	}
	return v
}
