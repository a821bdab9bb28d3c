// Package importer reads what people already have — markdown folders and
// Obsidian vaults, CLAUDE.md and AGENTS.md, Claude Code's auto memory, the
// official MCP memory server's knowledge graph, JSON, plain text, Claude.ai and
// ChatGPT exports — and turns it into candidate memories for memories.Import.
//
// It does the I/O the memories package does not: it resolves and guards the
// path (symlinks followed, inside the home folder or an allowed root; secret
// stores such as ~/.ssh, ~/.docker or a shell history never read in a folder;
// for an agent's import, hidden paths and secret stores refused: guard.go), walks
// folders (skipping hidden files and folders — .obsidian/, .trash/, .git/ —
// but for the instructions and auto memory inside .claude/, and attachments;
// following symlinked folders without looping), refuses binary, oversized and
// undecodable files with a reason, detects each file's kind by its content as
// well as its name, and parses files in parallel. In a folder it reads notes
// and the formats it knows by their content; other data files (JSON of any
// other shape, text, tables) are read only when named on their own. The output is in a stable
// order: the same tree gives the same items.
//
// One parser a source kind, each a pure function of a file's path and bytes
// (markdown.go, claude.go, mcp.go, json.go, chat.go, text.go); every one has a
// fuzz target. links.go resolves the wikilinks of the items to each other,
// for memories.Import to point them at the notes the memories get.
package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/cortexmem/cortex/memories"
)

// Kind is what a file was read as.
type Kind string

// The source kinds.
const (
	KindMarkdown      Kind = "markdown"
	KindClaudeMD      Kind = "claude_md"     // CLAUDE.md: project instructions
	KindAgentsMD      Kind = "agents_md"     // AGENTS.md: project instructions
	KindClaudeMemory  Kind = "claude_memory" // ~/.claude/projects/<p>/memory/*.md
	KindMCPMemory     Kind = "mcp_memory"    // the MCP memory server's JSONL graph
	KindJSON          Kind = "json"
	KindText          Kind = "text"
	KindClaudeExport  Kind = "claude_export"  // Claude.ai conversations.json
	KindChatGPTExport Kind = "chatgpt_export" // ChatGPT conversations.json
)

// Item is one candidate memory read from a source.
type Item struct {
	Title   string
	Content string
	Tags    []string
	Aliases []string
	// Project is the project the source names (a CLAUDE.md's folder, an
	// auto-memory folder, a note's project property); "" leaves it to the
	// caller.
	Project string
	Type    memories.Type // "" is a note
	// Created is the source's own date, zero when it has none.
	Created time.Time
	// Source says where the item came from, for people: a path, with
	// "#Heading › Sub" for a markdown section, "#entity" for a graph entity,
	// "#conversation title" for a chat.
	Source string
	Kind   Kind
	// LinkName is the name the wikilinks of other items use for the note the
	// item is a part of: a markdown file's path (a link names it by its
	// file name, or by the end of its path), an MCP graph entity's title. It
	// is "" for an item no link points at.
	LinkName string
	// Anchors are what a link's "#…" can name in the item: its heading and
	// the deeper headings it holds, its block ids ("^id").
	Anchors []string
}

// aside is what Source.Read works out of an item as it is parsed: its hash
// and links, and where its text went (a scratch file, Content left empty)
// when it has no link to render.
type aside struct {
	hash    string
	links   []wikiLink
	scanned bool
	text    int // 1 + its index in the texts' scratch; 0 when Content holds it
}

// Hash is the item's source fingerprint: what it says, not where it was, so
// that a source imported again (or moved) adds nothing. It is recorded in the
// memory's provenance as source_hash.
func (it *Item) Hash() string {
	h := sha256.New()
	for _, s := range [...]string{string(it.Kind), it.Title, it.Content} {
		// The string's own bytes: the hash only reads them, and a
		// conversion copied each content (a real-shaped import's 18 MB).
		h.Write(unsafe.Slice(unsafe.StringData(s), len(s)))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// Skip is a file, or a part of one, that was not read, and why.
type Skip struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// Kinds of skip (Result.Kinds): what a summary counts skips together as. A
// plural adds an "s".
const (
	KindHiddenFolder     = "hidden folder"
	KindHiddenFile       = "hidden file"
	KindDependencyFolder = "dependency folder"
	KindClaudeFile       = "Claude Code file"
	KindClaudeFolder     = "Claude Code folder"
	KindTranscript       = "session transcript"
	KindDataFile         = "data file"
	KindAttachment       = "attachment"
	KindSecretStore      = "secret store"
)

// MinSectionChars is how many letters and digits a markdown section, a text or
// a chat message needs to become a memory.
const MinSectionChars = 20

// meaningful counts the letters and digits of s.
func meaningful(s string) int {
	n := 0
	for _, r := range s {
		if isLetterOrDigit(r) {
			n++
		}
	}
	return n
}

// meaningfulUpTo is meaningful(s) when that is below limit, else limit: it
// stops counting there, for callers that only compare the count with
// limit (and report it when below).
func meaningfulUpTo(s string, limit int) int {
	n := 0
	for _, r := range s {
		if isLetterOrDigit(r) {
			if n++; n >= limit {
				return limit
			}
		}
	}
	return n
}

func isLetterOrDigit(r rune) bool {
	if r < utf8.RuneSelf { // ASCII, most of what is counted, without the tables
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// Pieces cuts content longer than max characters into pieces of at most max,
// at paragraph breaks where it can, else at line breaks, else at spaces, else
// anywhere (never inside a character). A piece of a fenced code block is not
// closed or reopened: the cut is a best effort for text too long to be one
// memory.
func Pieces(content string, max int) []string {
	var out []string
	for utf8.RuneCountInString(content) > max {
		cut := byteIndexOfRune(content, max)
		at := -1
		for _, sep := range []string{"\n\n", "\n", " "} {
			if i := strings.LastIndex(content[:cut], sep); i > cut/2 {
				at = i + len(sep)
				break
			}
		}
		if at < 0 {
			at = cut
		}
		if p := strings.TrimSpace(content[:at]); p != "" {
			out = append(out, p)
		}
		content = content[at:]
	}
	if p := strings.TrimSpace(content); p != "" {
		out = append(out, p)
	}
	return out
}

// byteIndexOfRune is the byte offset of the n-th rune of s (len(s) past the end).
func byteIndexOfRune(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// itemsOf makes the items of one text: one, or one per piece when it is too
// long, titled "title (2/3)".
func itemsOf(base Item, content string) []Item {
	ps := Pieces(content, memories.MaxContentChars)
	out := make([]Item, 0, len(ps))
	for i, p := range ps {
		it := base
		it.Content = p
		if len(ps) > 1 {
			it.Title = fmt.Sprintf("%s (%d/%d)", base.Title, i+1, len(ps))
			it.Source = fmt.Sprintf("%s (%d/%d)", base.Source, i+1, len(ps))
		}
		out = append(out, it)
	}
	return out
}
