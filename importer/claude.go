package importer

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/cortexmem/cortex/memories"
)

// parseInstructions reads CLAUDE.md or AGENTS.md, a project's instructions to
// its agents: each section a convention of the project, the project named
// after the file's folder (the folder above .claude/ for .claude/CLAUDE.md).
// The user's own ~/.claude/CLAUDE.md holds instructions for every project:
// those go to general. Sections are titled under the file's name
// ("CLAUDE.md › Testing") unless the file has a top heading of its own.
func parseInstructions(path string, data []byte, home string) ([]Item, []Skip) {
	n, skip := readNote(path, data)
	if skip != nil {
		return nil, []Skip{*skip}
	}
	project := n.project
	if project == "" {
		project = instructionsProject(path, home)
	}
	title := n.title
	if cleanTitle(n.raw.String("title")) == "" {
		title = filepath.Base(path)
	}
	kind := KindClaudeMD
	if strings.EqualFold(filepath.Base(path), "AGENTS.md") {
		kind = KindAgentsMD
	}
	base := Item{Project: project, Type: memories.TypeConvention, Tags: n.tags, Aliases: n.aliases, Created: n.created, Kind: kind}
	return sectionItems(path, title, n.body, base)
}

// instructionsProject is the project of an instructions file at path.
func instructionsProject(path, home string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) == ".claude" {
		if home != "" && sameDir(filepath.Dir(dir), home) {
			return memories.DefaultProject
		}
		dir = filepath.Dir(dir)
	}
	p, err := memories.NormalizeScope("project", filepath.Base(dir))
	if err != nil || p == "" {
		return memories.DefaultProject
	}
	return p
}

func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// isClaudeMemory reports whether path is a file of Claude Code's auto memory:
// .claude/projects/<project>/memory/*.md.
func isClaudeMemory(path string) bool {
	dir := filepath.Dir(path)
	if filepath.Base(dir) != "memory" || !strings.EqualFold(filepath.Ext(path), ".md") {
		return false
	}
	projects := filepath.Dir(filepath.Dir(dir))
	return filepath.Base(projects) == "projects" && filepath.Base(filepath.Dir(projects)) == ".claude"
}

// memoryTypes maps the types of Claude Code's memory files to cortex's.
var memoryTypes = map[string]memories.Type{
	"user":      memories.TypePreference, // who the user is and how they like to work
	"feedback":  memories.TypeConvention, // corrections to how the agent works
	"project":   memories.TypeFact,
	"reference": memories.TypeFact,
}

// indexLink is a line of MEMORY.md that only points at a topic file.
var indexLink = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t]*[-*+][ \t]+\[[^\]\n]*\]\((?:\./)?[^/)\n]+\.md\)[^\n]*$\n?`)
})

// parseClaudeMemory reads a file of Claude Code's auto memory. A topic file is
// one memory (or one per section), titled by its name property, typed by its
// type property. MEMORY.md is the index of the topic files: its lines that
// only point at one are left out, as the topic files hold what they say.
func parseClaudeMemory(path string, data []byte, exists func(string) bool) ([]Item, []Skip) {
	n, skip := readNote(path, data)
	if skip != nil {
		return nil, []Skip{*skip}
	}
	project := autoMemoryProject(path, exists)
	body := n.body
	dropped := false // index lines of MEMORY.md
	if strings.EqualFold(filepath.Base(path), "MEMORY.md") {
		body = normalizeNewlines(body)
		kept := indexLink().ReplaceAll(body, nil)
		dropped, body = len(kept) < len(body), kept
	}
	title := n.title
	if name := cleanTitle(n.raw.String("name")); name != "" {
		title = name
	}
	typ := n.typ
	if t, ok := memoryTypes[strings.ToLower(strings.TrimSpace(n.raw.String("type")))]; ok {
		typ = t
	}
	base := Item{Project: project, Type: typ, Tags: n.tags, Aliases: n.aliases, Created: n.created, Kind: KindClaudeMemory}
	items, skips := sectionItems(path, title, body, base)
	if dropped && len(items) == 0 && len(skips) == 1 && skips[0].Source == path {
		skips[0].Reason = "only links to the topic files, which are read on their own"
	}
	return items, skips
}

// autoMemoryProject names the project of an auto-memory file from its folder,
// .claude/projects/<encoded>/memory: Claude Code names that folder after the
// project's path with every character but letters and digits made "-"
// (/home/ada/src/my-app gives -home-ada-src-my-app). The dashes that were
// slashes are found by looking for the folders on disk; when the project is
// not on this machine, the part after the last dash is taken.
func autoMemoryProject(path string, exists func(string) bool) string {
	encoded := filepath.Base(filepath.Dir(filepath.Dir(path)))
	name := decodeProjectPath(encoded, exists)
	p, err := memories.NormalizeScope("project", name)
	if err != nil || p == "" {
		return memories.DefaultProject
	}
	return p
}

// nameSeps are the characters a dash inside a folder name may stand for, the
// dash itself first. A name is tried with one of them throughout: trying
// every mix would take a number of look-ups exponential in its length.
var nameSeps = []string{"-", "_", ".", " "}

// decodeProjectPath finds the folder an encoded project path names and returns
// its name.
func decodeProjectPath(encoded string, exists func(string) bool) string {
	parts := strings.Split(strings.Trim(encoded, "-"), "-")
	if len(parts) == 0 || parts[0] == "" {
		return ""
	}
	if exists != nil {
		// Depth-first over the ways to join the parts into folder names,
		// fewest dashes inside names first. An empty part is a "." that
		// starts a name ("/home/ada/.config" gives -home-ada--config).
		var find func(dir string, rest []string) string
		find = func(dir string, rest []string) string {
			if len(rest) == 0 {
				return dir
			}
			dot := ""
			if rest[0] == "" {
				dot, rest = ".", rest[1:]
				if len(rest) == 0 || rest[0] == "" {
					return ""
				}
			}
			for k := 1; k <= len(rest); k++ {
				for _, sep := range nameSeps {
					if k == 1 && sep != nameSeps[0] {
						break // a one-part name has no separator to vary
					}
					next := filepath.Join(dir, dot+strings.Join(rest[:k], sep))
					if !exists(next) {
						continue
					}
					if found := find(next, rest[k:]); found != "" {
						return found
					}
				}
			}
			return ""
		}
		if found := find(string(filepath.Separator), parts); found != "" {
			return filepath.Base(found)
		}
	}
	return parts[len(parts)-1]
}

// dirExists is the exists of a real file system.
func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
