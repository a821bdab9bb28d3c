package importer

import (
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"unicode"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"golang.org/x/sync/errgroup"

	"github.com/cortexmem/cortex/memories"
)

// An imported note's wikilinks name notes of the vault it came from, which
// are not in cortex's folder: left as they are, they dangle. Each link is
// made to point at the memory that holds what it names when that was
// imported in the same run (or before: its fingerprint finds it), is kept as
// written when it names a file of the vault cortex writes in, and otherwise
// becomes the text it shows. Links in code spans, code blocks and HTML are
// text, not links, and stay as they are. The source fingerprint is taken of
// the text as written, so the rewriting never changes what a second import
// recognises.

// wikiLink is an Obsidian link found in an item's content: [[target]],
// [[target|alias]], [[target#heading]], [[#heading]], [[target#^block]], and
// the embeds ![[…]] of the same forms.
type wikiLink struct {
	start, end int // the link in the content, the "!" of an embed included
	embed      bool
	target     string // the note or file named, as written; "" for a heading of the same note
	anchor     string // what follows the first "#": headings ("H1#H2") or a block id ("^id")
	alias      string // what follows the "|", when hasAlias
	hasAlias   bool
	pipe       string // "|", or "\|" as written inside a table
}

// noteExt reports whether ext (with its dot, any case) is a markdown note's.
func noteExt(ext string) bool {
	switch strings.ToLower(ext) {
	case ".md", ".markdown", ".mdown", ".mkd":
		return true
	}
	return false
}

// trimNoteExt drops a markdown extension from a link target or a path.
func trimNoteExt(s string) string {
	if ext := path.Ext(s); noteExt(ext) {
		return s[:len(s)-len(ext)]
	}
	return s
}

// attachment reports whether the link names a file that is not a note (an
// image, a PDF): it has an extension other than a markdown one.
func (l *wikiLink) attachment() bool {
	ext := path.Ext(l.target)
	return ext != "" && !noteExt(ext) && !strings.ContainsAny(ext, " ")
}

// text is what the link shows in Obsidian: its alias, else the note's name
// and the heading ("Page > Heading"); an embedded attachment shows its file
// name (an image's alias is its size).
func (l *wikiLink) text() string {
	if l.embed && l.attachment() {
		return l.target
	}
	if l.hasAlias && strings.TrimSpace(l.alias) != "" {
		return strings.TrimSpace(l.alias)
	}
	name := trimNoteExt(l.target)
	anchor := strings.Join(strings.FieldsFunc(l.anchor, func(r rune) bool { return r == '#' }), " > ")
	switch {
	case anchor == "":
		return name
	case name == "":
		return anchor
	}
	return name + " > " + anchor
}

// codeRanges are the byte ranges of content that are code or HTML (code
// spans, fenced and indented code blocks, HTML blocks and inline HTML), in
// order: a [[…]] there is text.
func codeRanges(content []byte) [][2]int {
	doc := md().Parse(text.NewReader(content))
	var out [][2]int
	addLines := func(lines *text.Segments) {
		if lines.Len() > 0 {
			out = append(out, [2]int{lines.At(0).Start, lines.At(lines.Len() - 1).Stop})
		}
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			addLines(n.Lines())
			if n.Info != nil {
				out = append(out, [2]int{n.Info.Segment.Start, n.Info.Segment.Stop})
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeBlock, *ast.HTMLBlock:
			addLines(n.Lines())
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			first, last := n.FirstChild(), n.LastChild()
			if f, ok := first.(*ast.Text); ok {
				if l, ok := last.(*ast.Text); ok {
					// The backticks around the text too.
					out = append(out, [2]int{max(f.Segment.Start-1, 0), min(l.Segment.Stop+1, len(content))})
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			if n.Segments.Len() > 0 {
				out = append(out, [2]int{n.Segments.At(0).Start, n.Segments.At(n.Segments.Len() - 1).Stop})
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// inCode reports whether the link at [start, end) is in code: its "[[" or
// its "]]" is in one of ranges. A code span inside the link ([[Page|`x`]])
// leaves it a link.
func inCode(ranges [][2]int, start, end int) bool {
	for _, r := range ranges {
		if r[0] <= start && start < r[1] || r[0] < end && end-1 < r[1] {
			return true
		}
	}
	return false
}

// scanLinks finds the wikilinks of content, in order, leaving out those in
// code and HTML. anchors says whether "#" starts a heading: the links cortex
// writes between MCP graph entities name a title, which may hold one.
func scanLinks(content string, anchors bool) []wikiLink {
	if !strings.Contains(content, "[[") {
		return nil
	}
	var code [][2]int
	parsed := false
	var out []wikiLink
	for i := 0; i < len(content); {
		j := strings.Index(content[i:], "[[")
		if j < 0 {
			break
		}
		open := i + j
		k := strings.Index(content[open+2:], "]]")
		if k < 0 {
			break
		}
		closing := open + 2 + k
		inner := content[open+2 : closing]
		if strings.ContainsAny(inner, "\n[") || strings.TrimSpace(inner) == "" {
			i = open + 1 // "[[[x]]", or a "[[" that never closes on its line
			continue
		}
		l := wikiLink{start: open, end: closing + 2, pipe: "|"}
		if open > 0 && content[open-1] == '!' {
			l.embed, l.start = true, open-1
		}
		if !parsed {
			code, parsed = codeRanges([]byte(content)), true
		}
		if inCode(code, l.start, l.end) {
			i = l.end
			continue
		}
		target := inner
		if p := strings.IndexByte(inner, '|'); p >= 0 {
			target, l.alias, l.hasAlias = inner[:p], inner[p+1:], true
			if strings.HasSuffix(target, `\`) {
				target, l.pipe = strings.TrimSuffix(target, `\`), `\|`
			}
		}
		if anchors {
			if h := strings.IndexByte(target, '#'); h >= 0 {
				target, l.anchor = target[:h], strings.TrimSpace(target[h+1:])
			}
		}
		l.target = strings.TrimSpace(target)
		if l.target == "" && l.anchor == "" {
			i = l.end
			continue
		}
		out = append(out, l)
		i = l.end
	}
	return out
}

// linkKey is how a link target or a note's path is compared: slashes,
// lower case, no markdown extension, no "./" or "/" in front.
func linkKey(s string) string {
	s = strings.ToLower(filepath.ToSlash(strings.TrimSpace(s)))
	s = trimNoteExt(s)
	for strings.HasPrefix(s, "./") {
		s = s[2:]
	}
	return strings.TrimLeft(s, "/")
}

// baseOf is the last part of a key.
func baseOf(key string) string { return key[strings.LastIndexByte(key, '/')+1:] }

// headingKey compares headings as Obsidian's links name them: case and
// punctuation aside.
func headingKey(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '^' && r != '-'
	}), " ")
}

// names finds notes by what links call them: the last part of their key,
// then the whole key's end.
type names struct {
	byBase map[string][]string // base → keys, in the order added
}

func newNames() *names { return &names{byBase: map[string][]string{}} }

func (n *names) add(key string) {
	b := baseOf(key)
	if !containsString(n.byBase[b], key) {
		n.byBase[b] = append(n.byBase[b], key)
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// find is the key target names (a key itself), "" for none. Of several
// notes of that name, Obsidian's choice is followed as far as it can be: the
// one in the folder of the note that links (fromDir), else the shortest path.
func (n *names) find(target, fromDir string) string {
	var cands []string
	for _, k := range n.byBase[baseOf(target)] {
		if k == target || strings.HasSuffix(k, "/"+target) {
			cands = append(cands, k)
		}
	}
	if len(cands) == 0 {
		return ""
	}
	best := cands[0]
	for _, k := range cands[1:] {
		switch inFrom, bestInFrom := path.Dir(k) == fromDir, path.Dir(best) == fromDir; {
		case inFrom != bestInFrom:
			if inFrom {
				best = k
			}
		case len(k) < len(best):
			best = k
		}
	}
	return best
}

// linkIndex resolves the links of a set of items to items of the same set.
type linkIndex struct {
	items []Item
	notes map[string][]int // key of a LinkName → its items, in order
	names *names
}

func newLinkIndex(items []Item) *linkIndex {
	x := &linkIndex{items: items, notes: map[string][]int{}, names: newNames()}
	for i := range items {
		if items[i].LinkName == "" {
			continue
		}
		k := linkKey(items[i].LinkName)
		x.notes[k] = append(x.notes[k], i)
		x.names.add(k)
	}
	return x
}

// resolve is the item link l of item from points at, -1 for none: the
// first item of the note named, or its item whose anchors hold the last
// heading of the link (or its block id).
func (x *linkIndex) resolve(from int, l *wikiLink) int {
	self := linkKey(x.items[from].LinkName)
	note := self
	if l.target != "" {
		note = x.names.find(linkKey(l.target), path.Dir(self))
	}
	ids := x.notes[note]
	if note == "" || len(ids) == 0 {
		return -1
	}
	if l.anchor == "" {
		return ids[0]
	}
	parts := strings.Split(l.anchor, "#")
	want := headingKey(parts[len(parts)-1])
	for _, id := range ids {
		for _, a := range x.items[id].Anchors {
			if headingKey(a) == want {
				return id
			}
		}
	}
	return ids[0]
}

// maxVaultFiles bounds the walk of the vault: a vault set to a folder as
// large as a home folder must not hold an import up. Links to files past
// it show their text.
const maxVaultFiles = 1 << 20

// vaultFiles are the files of the vault cortex writes in, found by what a
// link calls them: notes without their extension, other files with it.
// Hidden folders (.obsidian, .trash) and dependency folders are left out, as
// Obsidian leaves them out; symbolic links are not followed.
func vaultFiles(root string) *names {
	n := newNames()
	if root == "" {
		return n
	}
	count := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p != root && (strings.HasPrefix(d.Name(), ".") || d.IsDir() && skippedDirs[d.Name()]) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if count++; count > maxVaultFiles {
			return fs.SkipAll
		}
		rel, err := filepath.Rel(root, p)
		if err == nil {
			n.add(linkKey(rel))
		}
		return nil
	})
	return n
}

// linksKinds are the kinds whose items' wikilinks are links: notes, and the
// graphs whose relations cortex writes as links. Elsewhere (JSON, text,
// chats) "[[" is what someone typed.
var linksKinds = map[Kind]bool{
	KindMarkdown: true, KindClaudeMD: true, KindAgentsMD: true, KindClaudeMemory: true, KindMCPMemory: true,
}

// itemLinks makes the memories.ImportLinks of each item that has wikilinks
// (nil for the others): their targets among items, and how to render the
// content once the memories' note names are known. vault is the root of the
// vault cortex writes in ("" for none).
//
// asides, when not nil, are what was worked out of each item as it was
// parsed: the links already found are not looked for again.
func itemLinks(items []Item, asides []aside, vault string) []*memories.ImportLinks {
	out := make([]*memories.ImportLinks, len(items))
	// Finding each item's links is pure and reads its whole text: on every
	// core. Resolving them reads an index of all items: in order.
	found := make([][]wikiLink, len(items))
	workers := min(runtime.GOMAXPROCS(0), len(items))
	var g errgroup.Group
	for w := range workers {
		g.Go(func() error {
			for i := w; i < len(items); i += workers {
				switch it := &items[i]; {
				case asides != nil && asides[i].scanned:
					found[i] = asides[i].links
				case linksKinds[it.Kind]:
					found[i] = scanLinks(it.Content, it.Kind != KindMCPMemory)
				}
			}
			return nil
		})
	}
	_ = g.Wait() // the workers return no error
	var x *linkIndex
	var files *names
	for i := range items {
		it := &items[i]
		links := found[i]
		if len(links) == 0 {
			continue
		}
		if x == nil {
			x, files = newLinkIndex(items), vaultFiles(vault)
		}
		targets := make([]int, len(links))
		inVault := make([]bool, len(links))
		var uniq []int
		for j := range links {
			l := &links[j]
			targets[j] = x.resolve(i, l)
			if t := targets[j]; t >= 0 && !containsInt(uniq, t) {
				uniq = append(uniq, t)
			}
			inVault[j] = l.target != "" && files.find(linkKey(l.target), "") != ""
		}
		content := it.Content
		out[i] = &memories.ImportLinks{
			Targets: uniq,
			Render: func(name func(target int) string) string {
				return renderLinks(content, links, targets, inVault, name)
			},
		}
	}
	return out
}

func containsInt(list []int, n int) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

// renderLinks writes content with each link pointing at the note of its
// target's memory ([[note|text]], an embed ![[note]]) when name gives one,
// kept as written when it names a file of the vault, and otherwise as the
// text it shows.
func renderLinks(content string, links []wikiLink, targets []int, inVault []bool, name func(int) string) string {
	var b strings.Builder
	b.Grow(len(content) + 16*len(links))
	at := 0
	for j := range links {
		l := &links[j]
		b.WriteString(content[at:l.start])
		at = l.end
		n := ""
		if targets[j] >= 0 {
			n = name(targets[j])
		}
		switch {
		case n != "" && l.embed:
			b.WriteString("![[" + n + "]]")
		case n != "":
			b.WriteString("[[" + n + l.pipe + l.text() + "]]")
		case inVault[j]:
			b.WriteString(content[l.start:l.end])
		default:
			b.WriteString(l.text())
		}
	}
	b.WriteString(content[at:])
	return b.String()
}

// LinkTargets lists what the wikilinks and embeds of a markdown text name
// (a note or a file, as written, without the heading or the alias), in
// order; links in code and HTML are text and are left out. A link to a
// heading of the same note names "".
func LinkTargets(content string) []string {
	var out []string
	for _, l := range scanLinks(content, true) {
		out = append(out, l.target)
	}
	return out
}
