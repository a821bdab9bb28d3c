package importer

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// maxSplitLevel is the deepest heading that starts a memory of its own; deeper
// ones stay inside their section.
const maxSplitLevel = 3

// titleSep joins a heading path.
const titleSep = " › "

// note is a markdown file's frontmatter, as far as import uses it.
type note struct {
	title   string // the title property, else the file name
	project string
	typ     memories.Type
	tags    []string
	aliases []string
	created time.Time
	body    []byte
	raw     *vault.Note
}

// readNote splits a markdown file into its frontmatter and body. A file whose
// frontmatter does not parse is a Skip naming the line: nothing of it is
// imported, as a note cortex cannot read is never rewritten. So is a file
// that is not UTF-8 text, or holds NUL bytes: the parsers are also called on
// bytes that did not come through Collect's checks.
func readNote(path string, data []byte) (*note, *Skip) {
	if !utf8.Valid(data) {
		return nil, &Skip{Source: path, Reason: invalidUTF8(data)}
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, &Skip{Source: path, Reason: "a binary file (it holds a NUL byte)"}
	}
	// The note is only read: one in the plain shape cortex writes is split
	// without the YAML decoder, to the same memory and properties
	// (vault.FuzzParseWritten).
	n, err := vault.ParseWritten(data)
	if err != nil {
		return nil, &Skip{Source: path, Reason: "the frontmatter does not parse: " + parseMessage(err)}
	}
	// Memory reads the properties; its copy of the body, a string of the
	// whole note, was thrown away: the sections cut their own.
	head := *n
	head.Body = nil
	m := head.Memory(path, time.Time{})
	out := &note{title: cleanTitle(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))), tags: m.Tags, aliases: m.Aliases, body: n.Body, raw: n}
	if t := cleanTitle(n.String("title")); t != "" {
		out.title = t
	}
	if out.title == "" {
		out.title = "Untitled" // a file named ".md"
	}
	// The project property as written: Memory gives a note without a usable
	// one the default project, but an import leaves that to its caller.
	if p, err := memories.NormalizeScope("project", n.String("project")); err == nil {
		out.project = p
	}
	if n.Has("type") {
		if t, err := memories.ParseType(string(m.Type)); err == nil {
			out.typ = t
		}
	}
	if n.Has("created") || n.Has("date") {
		out.created = m.Created
	}
	return out, nil
}

// parseMessage words a frontmatter error with its line, without the path
// (the Skip names the file).
func parseMessage(err error) string {
	if pe, ok := err.(*vault.ParseError); ok {
		if pe.Line > 0 {
			return fmt.Sprintf("line %d: %s", pe.Line, pe.Msg)
		}
		return pe.Msg
	}
	return err.Error()
}

// parseMarkdown reads a markdown note: one memory per section of at least
// MinSectionChars letters and digits, split at headings of levels 1 to 3 (with
// goldmark's parser, so a "#" in a code block is not a heading), titled by its
// heading path, its markdown kept as written. A note without headings is one
// memory.
func parseMarkdown(path string, data []byte) ([]Item, []Skip) {
	n, skip := readNote(path, data)
	if skip != nil {
		return nil, []Skip{*skip}
	}
	base := Item{Project: n.project, Type: n.typ, Tags: n.tags, Aliases: n.aliases, Created: n.created, Kind: KindMarkdown}
	return sectionItems(path, n.title, n.body, base)
}

// section is a part of a note between headings.
type section struct {
	path    []string // the heading path; empty for the text before the first heading
	content string
	// heading is the section's own heading, and deeper those of levels 4–6
	// inside it: what a link can name in it ("[[Note#Heading]]").
	heading string
	deeper  []string
}

// sectionItems makes the items of a note's body: one per long enough section,
// or one per piece of a section too long to be one memory. A note that gives
// nothing, and says nothing of why, is a Skip: it is empty, or holds only
// headings.
func sectionItems(path, title string, body []byte, base Item) ([]Item, []Skip) {
	body = normalizeNewlines(body)
	var items []Item
	var skips []Skip
	secs := sections(body, title)
	for _, s := range secs {
		it := base
		it.Title = joinTitle(s.path, title)
		it.LinkName = path
		it.Source = path
		if len(s.path) > 0 {
			it.Source = path + "#" + strings.Join(s.path, titleSep)
		}
		if n := meaningfulUpTo(s.content, MinSectionChars); n < MinSectionChars {
			// An empty section is a heading over its subsections, or no
			// preamble: nothing to report.
			if n > 0 {
				skips = append(skips, Skip{Source: it.Source, Reason: tooShort(n)})
			}
			continue
		}
		pieces := itemsOf(it, s.content)
		for i := range pieces {
			p := &pieces[i]
			if len(pieces) > 1 {
				// Room for the " (2/3)" that numbers the pieces.
				suffix := fmt.Sprintf(" (%d/%d)", i+1, len(pieces))
				p.Title = cut(it.Title, memories.MaxTitleChars-utf8.RuneCountInString(suffix)) + suffix
			}
			if n := meaningfulUpTo(p.Content, MinSectionChars); n < MinSectionChars {
				skips = append(skips, Skip{Source: p.Source, Reason: tooShort(n)})
				continue
			}
			if len(items) > 0 {
				p.Aliases = nil // a note's aliases name it once, on its first memory
			}
			p.Anchors = pieceAnchors(s, p.Content, i == 0)
			items = append(items, *p)
		}
	}
	if len(items) == 0 && len(skips) == 0 {
		reason := "empty"
		switch {
		case len(secs) > 1:
			reason = "only headings, no text under them"
		case len(bytes.TrimSpace(body)) > 0:
			reason = tooShort(0)
		}
		skips = append(skips, Skip{Source: path, Reason: reason})
	}
	return items, skips
}

// normalizeNewlines makes every line end "\n": markdown also ends lines with
// "\r\n" and "\r", and a memory's content has one kind of line end.
func normalizeNewlines(b []byte) []byte {
	if bytes.IndexByte(b, '\r') < 0 {
		return b
	}
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	return bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
}

// joinTitle is a section's title: its heading path under the note's title,
// unless the path starts with a top heading of its own, cut to the longest
// title a memory may have. A heading that repeats the one above it (a
// note's "# Setup" then "## Setup") is named once: "Setup › Setup" says
// nothing more.
func joinTitle(path []string, noteTitle string) string {
	parts := path
	if len(parts) == 0 {
		parts = []string{noteTitle}
	}
	parts = slices.CompactFunc(slices.Clone(parts), func(a, b string) bool { return cleanTitle(a) == cleanTitle(b) })
	t := cleanTitle(strings.Join(parts, titleSep))
	if t == "" {
		t = "Untitled"
	}
	return cut(t, memories.MaxTitleChars)
}

// cleanTitle makes s one line: runs of white space and control characters
// (which memories refuse in a title) become one space.
func cleanTitle(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
}

// cut shortens s to at most n characters, ending with "…" when it cuts.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	return strings.TrimRight(string(r), " ") + "…"
}

// md parses CommonMark. It is built on first use: most commands import
// nothing.
// It is goldmark.DefaultParser, built from the parser package: the goldmark
// package itself links and initialises an HTML renderer at every start.
var md = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
})

// mdBlocks parses CommonMark's blocks only: md without its inline parsers.
// Where the headings are is settled by the blocks alone (CommonMark reads
// the blocks of a document before anything inside them, and the link
// reference definitions that can turn a paragraph into nothing are read by
// a paragraph transformer, which it keeps), so sections needs no more; the
// inline parsing it skips was a third of a markdown import's parsing.
// FuzzSectionsOfBlocks checks it against md.
var mdBlocks = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
})

// atxHeading is how an ATX heading ("## Title") starts, once indented by up to
// three spaces; any other heading is a setext one, underlined.
var atxHeading = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#{1,6}(?:[ \t]|\n|$)`) })

// sections splits body at its headings of levels 1 to 3. Each section's path
// holds the headings above it: an H3's path is its H1 (or, in a note without
// one, the note's title), its H2 and itself. Each section's content is a part
// of body as written, blank lines around it left out.
func sections(body []byte, noteTitle string) []section {
	if !mayHaveHeading(body) {
		return []section{{content: trimBlank(string(body))}} // as sectionsBy finds it
	}
	return sectionsBy(mdBlocks(), body, noteTitle)
}

// mayHaveHeading reports whether a line of body could make a heading of the
// document, whose blocks then need parsing to know. An ATX heading's line
// starts, after up to three spaces, with "#"; a setext heading's underline is,
// after up to three spaces, a run of "=" or "-" and then only spaces and
// tabs. A tab before either makes an indent of four columns at least: code,
// or a paragraph's continuation. Lines start after "\n" and after "\r", and a
// body that starts with a byte order mark is parsed, whatever a parser
// makes of it. A note with none of these lines (many have no heading) is one
// section, found without parsing it.
func mayHaveHeading(body []byte) bool {
	if bytes.HasPrefix(body, []byte("\xef\xbb\xbf")) {
		return true
	}
	for i := 0; i < len(body); {
		j := i
		for j < len(body) && j-i < 3 && body[j] == ' ' {
			j++
		}
		if j < len(body) {
			switch c := body[j]; c {
			case '#':
				return true
			case '=', '-':
				k := j
				for k < len(body) && body[k] == c {
					k++
				}
				for k < len(body) && (body[k] == ' ' || body[k] == '\t') {
					k++
				}
				if k == len(body) || body[k] == '\n' || body[k] == '\r' {
					return true
				}
			}
		}
		next := bytes.IndexAny(body[j:], "\r\n")
		if next < 0 {
			return false
		}
		i = j + next + 1
	}
	return false
}

// sectionsBy is sections, its blocks parsed by md.
func sectionsBy(md parser.Parser, body []byte, noteTitle string) []section {
	doc := md.Parse(text.NewReader(body))
	type heading struct {
		level      int
		text       string
		start, end int // the heading's lines in body
	}
	var hs []heading
	type deep struct {
		text string
		pos  int
	}
	var deeper []deep // headings of levels 4–6
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Pos() < 0 || h.Pos() >= len(body) {
			continue
		}
		if h.Level > maxSplitLevel {
			if t := cleanTitle(string(h.Lines().Value(body))); t != "" {
				deeper = append(deeper, deep{t, h.Pos()})
			}
			continue
		}
		pos := h.Pos()
		start := lineStart(body, pos)
		end := lineEnd(body, pos)
		if lines := h.Lines(); !atxHeading().Match(body[pos:min(pos+8, len(body))]) && lines.Len() > 0 {
			// A setext heading: its text, then the underline.
			last := lines.At(lines.Len() - 1)
			end = lineEnd(body, lineEnd(body, max(last.Stop-1, pos)))
		}
		hs = append(hs, heading{level: h.Level, text: cleanTitle(string(h.Lines().Value(body))), start: start, end: end})
	}
	if len(hs) == 0 {
		return []section{{content: trimBlank(string(body))}}
	}
	out := []section{{content: trimBlank(string(body[:hs[0].start]))}}
	var stack [maxSplitLevel]string
	for i, h := range hs {
		stack[h.level-1] = h.text
		for l := h.level; l < maxSplitLevel; l++ {
			stack[l] = ""
		}
		var path []string
		if stack[0] == "" {
			path = append(path, noteTitle)
		}
		for _, s := range stack[:h.level] {
			if s != "" {
				path = append(path, s)
			}
		}
		end := len(body)
		if i+1 < len(hs) {
			end = hs[i+1].start
		}
		sec := section{path: path, content: trimBlank(string(body[min(h.end, end):end])), heading: h.text}
		for _, d := range deeper {
			if d.pos >= h.start && d.pos < end {
				sec.deeper = append(sec.deeper, d.text)
			}
		}
		out = append(out, sec)
	}
	return out
}

// blockID finds the block ids of a text: "^id" at the end of a line, which
// a link names as "[[Note#^id]]".
var blockID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)(?:^|[ \t])(\^[A-Za-z0-9-]+)[ \t]*$`) })

// pieceAnchors are the anchors of a piece of section s: the section's own
// heading on its first piece, the deeper headings the piece holds, and its
// block ids.
func pieceAnchors(s section, content string, first bool) []string {
	var out []string
	if first && s.heading != "" {
		out = append(out, s.heading)
	}
	for _, a := range s.deeper {
		if strings.Contains(content, a) {
			out = append(out, a)
		}
	}
	if !strings.Contains(content, "^") {
		return out // no block id: most sections, and the expression is costly
	}
	for _, m := range blockID().FindAllStringSubmatch(content, -1) {
		out = append(out, m[1])
	}
	return out
}

// trimBlank drops the blank lines at the start of s and the white space at its
// end, and keeps the indentation of its first line (an indented code block).
func trimBlank(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok || strings.TrimSpace(line) != "" {
			break
		}
		s = rest
	}
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return s
}

func lineStart(b []byte, i int) int { return bytes.LastIndexByte(b[:min(i, len(b))], '\n') + 1 }

// lineEnd is the start of the line after the one holding b[i].
func lineEnd(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(b)
}
