package importer

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/memories"
)

// Defaults of Options.
const (
	DefaultMaxFileSize = 64 << 20
	// sniffLen is how much of a file the binary test reads.
	sniffLen = 8 << 10
)

// Options configure Collect.
type Options struct {
	// Home is the user's home folder: imports must come from inside it or
	// from one of AllowedRoots.
	Home         string
	AllowedRoots []string
	// Exclude lists folders never read (cortex's own folder in the vault).
	Exclude []string
	// AgentAllow lists paths and globs (import.agent_allow, absolute) that an
	// agent's import (ForAgent) reads as a person's would, although they
	// are hidden or secret stores (see guard.go).
	AgentAllow []string
	// Vault is the Obsidian vault cortex writes in: an imported note's link
	// to a file of it is kept as written, since it resolves there.
	Vault string
	// MaxFileSize is the largest file read; 0 means DefaultMaxFileSize.
	MaxFileSize int64
	// Workers parse files at once; 0 means one per core.
	Workers int
	// Progress, when set, is told how many of the files found are parsed.
	Progress func(done, total int)
	// ScratchDir is where an import keeps its working files (Source.Scratch);
	// "" is the system's temporary folder.
	ScratchDir string

	// parsed, when set, is given each item as soon as its file is parsed,
	// on the parsing goroutine (Source.Read sets its texts aside).
	parsed func(it *Item) aside
}

// Result is what a path holds.
type Result struct {
	Items []Item
	Skips []Skip
	// Kinds gives the kind of the skips of a Source that have one
	// (KindHiddenFolder…).
	Kinds map[string]string
	// Files is how many files were read.
	Files int
}

// file is one file to parse.
type file struct {
	path string // as shown to the user: under the path asked for
	real string // symlinks resolved
	size int64
	mod  time.Time
	// named says the user named the file itself, not a folder holding it.
	named bool
}

// Collect reads every source under path, a file or a folder. The path must
// resolve (symlinks followed, ".." resolved) to somewhere inside Home or an
// allowed root; otherwise, or when it does not exist, the error is an
// *memories.ArgError about "path". So is, for an agent's import (ForAgent),
// a path that is hidden or in a secret store (see guard.go). Problems with
// single files are Skips, secret stores in a folder among them.
func Collect(ctx context.Context, path string, o Options) (*Result, error) {
	res, _, err := collectAside(ctx, path, o)
	return res, err
}

// collectAside is Collect, with what o.parsed gave for each item.
func collectAside(ctx context.Context, path string, o Options) (*Result, []aside, error) {
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = DefaultMaxFileSize
	}
	g, err := newGuard(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, &memories.ArgError{Arg: "path", Rule: err.Error()}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, &memories.ArgError{Arg: "path", Rule: fmt.Sprintf("%s: no such file or folder", path)}
		}
		return nil, nil, &memories.ArgError{Arg: "path", Rule: err.Error()}
	}
	if !g.allowed(real) {
		return nil, nil, &memories.ArgError{Arg: "path", Rule: fmt.Sprintf(
			"%s is outside your home folder and the allowed roots; add its folder to import.allowed_roots in the config file to import from there", real)}
	}
	w := &walker{ctx: ctx, o: o, guard: g, root: abs, seen: map[string]string{}, seenFiles: map[string]string{}, kinds: map[string]string{}}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, nil, &memories.ArgError{Arg: "path", Rule: err.Error()}
	}
	if g.agent {
		if r := g.refuse(abs, real, fi.IsDir(), true); r != nil {
			return nil, nil, r.agentError()
		}
	}
	switch {
	case fi.IsDir():
		w.dir(abs, real)
	case fi.Mode().IsRegular():
		w.file(abs, real, fi, true)
	default: // a pipe would block the read for ever
		return nil, nil, &memories.ArgError{Arg: "path", Rule: fmt.Sprintf("%s is not a file or a folder", path)}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	res := &Result{Skips: w.skips, Kinds: w.kinds, Files: len(w.files)}
	items, asides, skips := parseAll(ctx, w.files, o, parseContext{home: o.Home, exists: dirExists})
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	res.Items = items
	res.Skips = append(res.Skips, skips...)
	for _, s := range skips {
		if strings.HasPrefix(s.Reason, dataFilePrefix) {
			res.Kinds[s.Source] = KindDataFile
		}
	}
	slices.SortStableFunc(res.Skips, func(a, b Skip) int { return strings.Compare(a.Source, b.Source) })
	return res, asides, nil
}

// walker finds the files to parse.
type walker struct {
	ctx       context.Context
	o         Options
	guard     *guard
	root      string            // the path the person named, absolute
	seen      map[string]string // real folders walked, against symlink loops, and the path they were walked as
	seenFiles map[string]string // real files queued, and the path they were queued as
	files     []file
	skips     []Skip
	kinds     map[string]string // Result.Kinds
}

func (w *walker) skip(path, format string, a ...any) {
	w.skipKind(path, "", format, a...)
}

func (w *walker) skipKind(path, kind, format string, a ...any) {
	w.skips = append(w.skips, Skip{Source: path, Reason: fmt.Sprintf(format, a...)})
	if kind != "" {
		w.kinds[path] = kind
	}
}

// skippedDirs are names never read in a folder: dependency folders and
// caches. Every file or folder whose name starts with a dot (tools' own
// state: .obsidian, .trash, .git) is left out too, but for Claude Code's
// .claude folder. Each is a skip with its reason (see byName); the folder
// the person names is read whatever its name or its parents'.
var skippedDirs = map[string]bool{"node_modules": true, "__pycache__": true, "venv": true, "vendor": true}

// claudeDir is the folder of Claude Code's own files, in a project and in the
// home folder. Of what it holds, only instructions and the auto memory are
// read: the rest is settings, commands and session transcripts.
const claudeDir = ".claude"

// readInClaudeDir says whether path is one to read as far as .claude folders
// go: anything outside one; in one, its CLAUDE.md and
// projects/<project>/memory/ (with the folders leading there).
func readInClaudeDir(path string, isDir bool) bool {
	parts := strings.Split(filepath.ToSlash(path), "/")
	i := slices.Index(parts, claudeDir)
	if i < 0 {
		return true
	}
	for j := len(parts) - 1; j > i; j-- { // the innermost .claude
		if parts[j] == claudeDir {
			i = j
			break
		}
	}
	rel := parts[i+1:]
	if isDir {
		return len(rel) == 0 || rel[0] == "projects" && (len(rel) <= 2 || rel[2] == "memory")
	}
	switch {
	case len(rel) == 1:
		return strings.EqualFold(rel[0], "CLAUDE.md") || strings.EqualFold(rel[0], "CLAUDE.local.md")
	case len(rel) >= 4:
		return rel[0] == "projects" && rel[2] == "memory"
	}
	return false
}

// dir walks the folder at path (real: symlinks resolved), in name order.
func (w *walker) dir(path, real string) {
	if w.ctx.Err() != nil {
		return
	}
	if prev, ok := w.seen[real]; ok {
		w.skip(path, "the same folder as %s, read already", prev)
		return
	}
	w.seen[real] = path
	if w.guard.excluded(real) {
		w.skip(path, "cortex's own folder: its notes are memories already")
		return
	}
	if r := w.guard.refuse(path, real, true, false); r != nil {
		w.skipKind(path, refusalKind(r, true), "%s", r.skipReason(w.guard.agent))
		return
	}
	entries, err := os.ReadDir(real)
	if err != nil {
		w.skip(path, "cannot read the folder: %v", err)
		return
	}
	for _, e := range entries {
		name := e.Name()
		p, r := filepath.Join(path, name), filepath.Join(real, name)
		// What the name says first: a link need not be followed to be
		// left out.
		link := e.Type()&fs.ModeSymlink != 0
		if kind, why := byName(name, e.IsDir(), link); kind != "" {
			w.unread(p, r, e.IsDir(), kind, why)
			continue
		}
		if !w.readClaude(p, true) && !w.readClaude(p, false) {
			kind, why := claudeSkip(p, e.IsDir(), link)
			w.unread(p, r, e.IsDir(), kind, why)
			continue
		}
		target, mode := r, e.Type()
		if mode&fs.ModeSymlink != 0 {
			t, err := filepath.EvalSymlinks(r)
			if err != nil {
				w.skip(p, "broken symbolic link")
				continue
			}
			if !w.guard.allowed(t) {
				w.skip(p, "symbolic link to %s, outside the allowed roots", t)
				continue
			}
			fi, err := os.Stat(t)
			if err != nil {
				w.skip(p, "cannot read: %v", err)
				continue
			}
			target, mode = t, fi.Mode().Type()
			if prev, ok := w.seen[t]; ok && mode.IsDir() {
				if within(real, t) {
					w.skip(p, "symbolic link loop: it points to %s, a folder that holds it", t)
				} else {
					w.skip(p, "symbolic link to %s, read already as %s", t, prev)
				}
				continue
			}
		}
		isDir := mode.IsDir()
		if name == claudeDir && !isDir {
			_, why := byName(name, false, false)
			w.skipKind(p, KindHiddenFile, "%s", why)
			continue
		}
		if !w.readClaude(p, isDir) {
			kind, why := claudeSkip(p, isDir, false)
			w.skipKind(p, kind, "%s", why)
			continue
		}
		if isDir {
			w.dir(p, target)
			continue
		}
		if !mode.IsRegular() {
			continue // sockets, devices, pipes
		}
		fi, err := os.Stat(target)
		if err != nil {
			w.skip(p, "cannot read: %v", err)
			continue
		}
		w.file(p, target, fi, false)
	}
}

// attachments are extensions of files a vault holds beside its notes (a
// table made on first use, not as every command starts).
var attachments = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".svg": true, ".bmp": true, ".ico": true,
		".heic": true, ".tif": true, ".tiff": true, ".pdf": true, ".mp3": true, ".mp4": true, ".m4a": true, ".wav": true,
		".ogg": true, ".mov": true, ".webm": true, ".zip": true, ".gz": true, ".tar": true, ".7z": true, ".docx": true,
		".xlsx": true, ".pptx": true, ".canvas": true, ".excalidraw": true, ".base": true,
	}
})

// noteExts are read when found in a folder: notes, and the JSON that may be
// one of the formats known by their content (the MCP memory server's graph,
// a conversations.json export). Any other file is data — a translation map,
// a site's settings, a table — and is read only when named on its own: in a
// folder of notes, such files made memories nobody asked for that crowded
// recall.
var noteExts = map[string]bool{
	".md": true, ".markdown": true, ".mdown": true, ".mkd": true,
	".json": true, ".jsonl": true, ".ndjson": true,
}

// dataFile is the reason a file found in a folder is not read.
func dataFile(ext string) string {
	return fmt.Sprintf(dataFilePrefix+" (%s), not a note; name it explicitly to import it", ext)
}

// dataFilePrefix starts the reason of a data file's skip, which the parse
// gives too (JSON that is no format of notes).
const dataFilePrefix = "a data file"

// unread reports a file or folder the walk leaves out by its name (hidden,
// a dependency folder, Claude Code's own files), with the kind and reason
// given — or, for a secret store, its rule — and the secret stores a hidden
// folder holds. Every one is a skip: an import that reads nothing says why.
func (w *walker) unread(path, real string, isDir bool, kind, why string) {
	switch r := w.guard.refuse(path, real, isDir, false); {
	case r != nil && r.rule != hiddenRule:
		w.skipKind(path, KindSecretStore, "%s", r.skipReason(w.guard.agent))
		return
	case r != nil && (kind == KindHiddenFolder || kind == KindHiddenFile):
		// An agent's import: naming a hidden path does not help.
		w.skipKind(path, kind, "%s", r.skipReason(true))
	default:
		w.skipKind(path, kind, "%s", why)
	}
	if isDir && strings.HasPrefix(filepath.Base(path), ".") {
		for _, r := range w.guard.nested(path, real) {
			w.skipKind(r.path, KindSecretStore, "%s", r.skipReason(w.guard.agent))
		}
	}
}

// refusalKind is the kind of skip of a path the guard refuses.
func refusalKind(r *refusal, isDir bool) string {
	switch {
	case r.rule != hiddenRule:
		return KindSecretStore
	case isDir:
		return KindHiddenFolder
	}
	return KindHiddenFile
}

// byName says why an entry found in a folder is left out by its name alone:
// a hidden file or folder (tools' state: .git, .obsidian, .trash; .claude is
// read as readInClaudeDir says), a dependency folder. kind is "" when it is
// not. A symbolic link is not followed to tell a file from a folder.
func byName(name string, isDir, link bool) (kind, why string) {
	switch {
	case strings.HasPrefix(name, ".") && name != claudeDir:
		if link {
			return KindHiddenFile, "a hidden symbolic link: a folder import leaves hidden files and folders out; name it to import it"
		}
		if isDir {
			return KindHiddenFolder, "a hidden folder: a folder import leaves hidden folders out (tools' state: .git, .obsidian, .trash); name it to import it"
		}
		return KindHiddenFile, "a hidden file: a folder import leaves hidden files out; name it to import it"
	case skippedDirs[name]:
		return KindDependencyFolder, fmt.Sprintf("a dependency folder (%s), not notes; name it to import it", name)
	}
	return "", ""
}

// readClaude says whether the walk reads path as far as .claude folders go.
// A .claude folder it comes across, or that the person named, gives only its
// instructions and auto memory (readInClaudeDir); a folder inside one that
// the person named is read as any folder, but for session transcripts.
func (w *walker) readClaude(path string, isDir bool) bool {
	if named := claudeRest(w.root); len(named) > 0 {
		rel, err := filepath.Rel(w.root, path)
		if err == nil && !slices.Contains(strings.Split(filepath.ToSlash(rel), "/"), claudeDir) {
			return isDir || !isTranscript(path)
		}
	}
	return readInClaudeDir(path, isDir)
}

// claudeRest is the part of path below its innermost .claude folder: nil
// when path is in none, or is the .claude folder itself.
func claudeRest(path string) []string {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for j := len(parts) - 1; j >= 0; j-- {
		if parts[j] == claudeDir {
			return parts[j+1:]
		}
	}
	return nil
}

// isTranscript reports whether path is a Claude Code session transcript: a
// .jsonl file under .claude/projects/, outside the auto memory.
func isTranscript(path string) bool {
	rel := claudeRest(path)
	return len(rel) >= 3 && rel[0] == "projects" && rel[2] != "memory" && strings.EqualFold(filepath.Ext(path), ".jsonl")
}

// claudeSkip is the kind and reason of an entry of a .claude folder the walk
// leaves out.
func claudeSkip(path string, isDir, link bool) (kind, why string) {
	switch {
	case !isDir && isTranscript(path):
		return KindTranscript, "a Claude Code session transcript, not notes: `cortex scribe run` turns transcripts into notes"
	case link:
		return KindClaudeFile, "a link among Claude Code's own files (settings, state): of a .claude folder an import reads CLAUDE.md and the auto memory (projects/*/memory); name it to import it"
	case isDir:
		return KindClaudeFolder, "Claude Code's own folder (settings, state): of a .claude folder an import reads CLAUDE.md and the auto memory (projects/*/memory); name it to import it"
	}
	return KindClaudeFile, "Claude Code's own file (settings, state): of a .claude folder an import reads CLAUDE.md and the auto memory (projects/*/memory); name it to import it"
}

// file queues the file at path (real: resolved) when it is one to read. named
// is true when the user named it: then any text file is read.
func (w *walker) file(path, real string, fi fs.FileInfo, named bool) {
	if w.guard.excluded(real) {
		w.skip(path, "in cortex's own folder: its notes are memories already")
		return
	}
	if r := w.guard.refuse(path, real, false, named); r != nil {
		w.skipKind(path, refusalKind(r, false), "%s", r.skipReason(w.guard.agent))
		return
	}
	ext := strings.ToLower(filepath.Ext(path))
	switch {
	case attachments()[ext]:
		w.skipKind(path, KindAttachment, "an attachment (%s), not a note", ext)
		return
	case !named && !noteExts[ext]:
		if ext == "" {
			ext = "no extension"
		}
		w.skipKind(path, KindDataFile, "%s", dataFile(ext))
		return
	case fi.Size() > w.o.MaxFileSize:
		w.skip(path, "%s, more than the %s a file may have (import.max_file_mb)", sizeString(fi.Size()), sizeString(w.o.MaxFileSize))
		return
	}
	if prev, ok := w.seenFiles[real]; ok {
		w.skip(path, "the same file as %s, read already", prev)
		return
	}
	w.seenFiles[real] = path
	w.files = append(w.files, file{path: path, real: real, size: fi.Size(), mod: fi.ModTime(), named: named})
}

// sizeString words a size in bytes for people.
func sizeString(n int64) string {
	const kb, mb = 1 << 10, 1 << 20
	one := func(f float64) string { return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0") }
	switch {
	case n < kb:
		return fmt.Sprintf("%d bytes", n)
	case n < mb:
		return one(float64(n)/kb) + " KB"
	}
	return one(float64(n)/mb) + " MB"
}

// parseAll parses the files on o.Workers goroutines; the output is in file
// order whatever the timing.
func parseAll(ctx context.Context, files []file, o Options, pc parseContext) ([]Item, []aside, []Skip) {
	outs := make([]parsedOut, len(files))
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
		next atomic.Int64
	)
	// Each worker takes the next file until none is left (or the context
	// ends): a goroutine per file would grow a new stack for each, deep in
	// the YAML and Markdown parsers. parseFile turns its errors into skips.
	for range min(workers, len(files)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(files) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				outs[i].items, outs[i].skips = parseFile(files[i], pc)
				if o.parsed != nil {
					outs[i].asides = make([]aside, len(outs[i].items))
					for k := range outs[i].items {
						outs[i].asides[k] = o.parsed(&outs[i].items[k])
					}
				}
				if o.Progress != nil {
					mu.Lock()
					done++
					o.Progress(done, len(files))
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return joinParsed(outs)
}

// parsedOut is what parseAll's workers give for one file.
type parsedOut struct {
	items  []Item
	asides []aside
	skips  []Skip
}

// joinParsed puts the files' items, asides and skips one after the other, in
// file order, each in a slice made once at its size: an Item is a large
// struct, and growing a slice of ten thousand of them by appending copied
// each several times, on one core, between the parsing and the checks. A
// kind none of the files has stays nil.
func joinParsed(outs []parsedOut) ([]Item, []aside, []Skip) {
	var ni, na, ns int
	for _, o := range outs {
		ni, na, ns = ni+len(o.items), na+len(o.asides), ns+len(o.skips)
	}
	var items []Item
	var asides []aside
	var skips []Skip
	if ni > 0 {
		items = make([]Item, 0, ni)
	}
	if na > 0 {
		asides = make([]aside, 0, na)
	}
	if ns > 0 {
		skips = make([]Skip, 0, ns)
	}
	for _, o := range outs {
		items, asides, skips = append(items, o.items...), append(asides, o.asides...), append(skips, o.skips...)
	}
	return items, asides, skips
}

// parseContext is what parsers need to know of the machine.
type parseContext struct {
	home   string
	exists func(dir string) bool
}

// parseFile reads one file and parses it as what it is.
func parseFile(f file, pc parseContext) ([]Item, []Skip) {
	data, err := readFile(f.real, f.size)
	if err != nil {
		return nil, []Skip{{Source: f.path, Reason: fmt.Sprintf("cannot read: %v", err)}}
	}
	data, reason := decodeText(data)
	if reason != "" {
		return nil, []Skip{{Source: f.path, Reason: reason}}
	}
	kind := detect(f.path, data)
	if !f.named && (kind == KindJSON || kind == KindText) {
		// JSON that is neither a memory graph nor an export, found in a
		// folder.
		ext := strings.ToLower(filepath.Ext(f.path))
		return nil, []Skip{{Source: f.path, Reason: dataFile(ext)}}
	}
	items, skips := parse(kind, f.path, data, pc)
	for i := range items {
		items[i].Kind = kind
		if items[i].Created.IsZero() {
			items[i].Created = f.mod.UTC().Truncate(time.Second)
		}
	}
	return items, skips
}

// readFile is os.ReadFile(path) for a file the walk found of size bytes,
// without two of its costs on each of thousands of notes: the stat, as the
// walk's size starts the buffer (the file is read to its end whatever its
// size now), and the runtime poller's round trip on opening a regular file
// (atomicfile.Open). Its errors are os.ReadFile's.
func readFile(path string, size int64) ([]byte, error) {
	f, err := atomicfile.Open(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return atomicfile.ReadSized(f, size, 0)
}

// decodeText makes data UTF-8 text without a byte order mark, or says why it
// is not text to import: binary (a NUL byte in its first 8 KB) or not UTF-8.
// UTF-16 with a byte order mark, as Windows editors save it, is decoded.
func decodeText(data []byte) ([]byte, string) {
	var order binary.ByteOrder
	switch {
	case bytes.HasPrefix(data, []byte{0xff, 0xfe}):
		order = binary.LittleEndian
	case bytes.HasPrefix(data, []byte{0xfe, 0xff}):
		order = binary.BigEndian
	}
	if order != nil {
		data = data[2:]
		if len(data)%2 != 0 {
			return nil, "not valid UTF-16 text: an odd number of bytes"
		}
		units := make([]uint16, len(data)/2)
		for i := range units {
			units[i] = order.Uint16(data[2*i:])
		}
		data = []byte(string(utf16.Decode(units)))
	}
	if bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0 {
		return nil, "a binary file (it holds a NUL byte)"
	}
	if !utf8.Valid(data) {
		return nil, invalidUTF8(data)
	}
	return bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), ""
}

// detect decides what a file holds: by its name and place for the files whose
// name says what they are, otherwise by its content.
func detect(path string, data []byte) Kind {
	base := filepath.Base(path)
	switch {
	case strings.EqualFold(base, "CLAUDE.md"), strings.EqualFold(base, "CLAUDE.local.md"):
		return KindClaudeMD
	case strings.EqualFold(base, "AGENTS.md"):
		return KindAgentsMD
	case isClaudeMemory(path):
		return KindClaudeMemory
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown", ".mdown", ".mkd":
		return KindMarkdown
	}
	if k := sniffJSON(data); k != "" {
		return k
	}
	return KindText
}

// parse runs the parser of kind.
func parse(kind Kind, path string, data []byte, pc parseContext) ([]Item, []Skip) {
	switch kind {
	case KindClaudeMD, KindAgentsMD:
		return parseInstructions(path, data, pc.home)
	case KindClaudeMemory:
		return parseClaudeMemory(path, data, pc.exists)
	case KindMCPMemory:
		return parseMCPMemory(path, data)
	case KindClaudeExport:
		return parseClaudeExport(path, data)
	case KindChatGPTExport:
		return parseChatGPTExport(path, data)
	case KindJSON:
		return parseJSON(path, data)
	case KindMarkdown:
		return parseMarkdown(path, data)
	}
	return parseText(path, data)
}
