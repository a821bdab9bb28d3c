package normalize

import (
	"bytes"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"go.yaml.in/yaml/v3"
)

// Meeting is what meeting notes say, as normalize reads them: a title and
// date, and the action items and decisions they hold.
type Meeting struct {
	Title string `json:"title"`
	// Date is the meeting's day (YYYY-MM-DD) when the notes give it: a
	// date property, else a date in the title.
	Date string `json:"date,omitempty"`
	// Tags are the notes' own tags (a tags property).
	Tags []string `json:"tags,omitempty"`
	// Body is the notes without their frontmatter.
	Body      string     `json:"-"`
	Actions   []Action   `json:"actions"`
	Decisions []Decision `json:"decisions"`
}

// Action is one action item.
type Action struct {
	// Text is the item as written (markdown, its lines kept), without the
	// list marker and checkbox.
	Text string `json:"text"`
	// Title is Text on one line, its due date taken out.
	Title string `json:"title"`
	// Due is the due date (YYYY-MM-DD) the item gives, if any.
	Due string `json:"due,omitempty"`
	// Done says the item was ticked ("- [x] …").
	Done bool `json:"done,omitempty"`
	// Line is the item's first line in the notes (1-based).
	Line int `json:"line"`
}

// Decision is one decision.
type Decision struct {
	Text  string `json:"text"`
	Title string `json:"title"`
	Line  int    `json:"line"`
}

// maxItemTitle bounds an action's or decision's title, in characters.
const maxItemTitle = 120

// The kinds of section a heading opens.
type section int

const (
	sectionOther section = iota
	sectionActions
	sectionDecisions
)

// meetingMD parses CommonMark with task list items ("- [ ] …"). It is
// built on first use, not when the program starts: most commands never read
// a meeting.
var meetingMD = sync.OnceValue(func() parser.Parser {
	// goldmark.DefaultParser, built from the parser package: the goldmark
	// package itself links and initialises an HTML renderer at every start.
	p := parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
	p.AddOptions(parser.WithInlineParsers(util.Prioritized(taskCheckBoxParser{}, 0)))
	return p
})

// taskCheckBoxParser reads the checkbox that opens a task list item ("[ ]",
// "[x]") into an extast.TaskCheckBox, as goldmark's TaskList extension does.
// normalize has its own so that the program does not link goldmark's
// extension package, whose variables (the linkify expressions above all)
// cost every command about a millisecond to build when it starts.
type taskCheckBoxParser struct{}

// Trigger implements parser.InlineParser.
func (taskCheckBoxParser) Trigger() []byte { return []byte{'['} }

// Parse implements parser.InlineParser: a checkbox is "[", one of a space
// (any of RE2's \s), x or X, then "]" and the spaces after it, at the very
// start of the first block of a list item.
func (taskCheckBoxParser) Parse(parent ast.Node, block text.Reader, _ parser.Context) ast.Node {
	item := parent.Parent()
	if item == nil || item.FirstChild() != parent || parent.HasChildren() {
		return nil
	}
	if _, ok := item.(*ast.ListItem); !ok {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 3 || line[0] != '[' || line[2] != ']' {
		return nil
	}
	mark := line[1]
	if mark != 'x' && mark != 'X' && !isRE2Space(mark) {
		return nil
	}
	n := 3
	for n < len(line) && isRE2Space(line[n]) {
		n++
	}
	block.Advance(n)
	return extast.NewTaskCheckBox(mark == 'x' || mark == 'X')
}

// CloseBlock implements parser.InlineParser.
func (taskCheckBoxParser) CloseBlock(ast.Node, parser.Context) {}

// isRE2Space reports whether b is in RE2's \s: tab, newline, form feed,
// carriage return or space.
func isRE2Space(b byte) bool {
	return b == '\t' || b == '\n' || b == '\f' || b == '\r' || b == ' '
}

// ParseMeeting reads meeting notes (markdown, with or without frontmatter)
// with goldmark's parser. The title is the title property, else the first
// level-1 heading, else the first line; the date the date property, else a
// date in the title. Then:
//
//   - a task list item ("- [ ] …", "- [x] …") anywhere is an action item;
//   - under a heading such as "Action items", "Actions", "To do", "Next
//     steps" or "Follow-ups", every list item is an action item;
//   - under a heading such as "Decisions", "Decided" or "Agreed", every list
//     item and paragraph is a decision;
//   - elsewhere, a list item or a line starting "Decision:" ("Decided:") is a
//     decision, and one starting "Action:" ("TODO:") an action item.
//
// A heading's section lasts until the next heading of its level or above.
// An action item's due date is read in the common forms — "due 2026-12-01",
// "(due: 1 Dec 2026)", "due by Dec 1, 2026", Obsidian Tasks' "📅 2026-12-01",
// "@due(2026-12-01)", "[due:: 2026-12-01]" — and taken out of its title. Code
// blocks hold nothing. ParseMeeting never fails: notes without items give
// none.
func ParseMeeting(notes string) Meeting {
	notes = strings.ReplaceAll(notes, "\r\n", "\n")
	var mt Meeting
	body, fm, skipped := splitFrontmatter(notes)
	mt.Body = body
	if fm != nil {
		mt.Title = oneLine(fm.Title, maxItemTitle)
		mt.Date = dateOf(fm.Date)
		mt.Tags = fm.Tags
	}
	src := []byte(body)
	p := &meetingParser{src: src, lineBase: skipped}
	doc := meetingMD().Parse(text.NewReader(src))
	p.walk(doc)
	if mt.Title == "" {
		mt.Title = p.firstHeading
	}
	if mt.Title == "" {
		mt.Title = firstLine(body)
	}
	if mt.Title == "" {
		mt.Title = "Meeting"
	}
	if mt.Date == "" {
		if m := isoDate().FindString(mt.Title); m != "" {
			mt.Date = dateOf(m)
		}
	}
	mt.Actions, mt.Decisions = p.actions, p.decisions
	if mt.Actions == nil {
		mt.Actions = []Action{}
	}
	if mt.Decisions == nil {
		mt.Decisions = []Decision{}
	}
	return mt
}

type meetingParser struct {
	src []byte
	// lineBase is how many lines of the notes come before src (the
	// frontmatter's).
	lineBase int
	// lineStarts are the offsets in src where lines start, made on first
	// use.
	lineStarts []int
	// firstHeading is the first level-1 heading's text.
	firstHeading string
	// headings are the open headings' levels and sections, outermost first.
	headings  []heading
	actions   []Action
	decisions []Decision
}

type heading struct {
	level int
	kind  section
}

// current is the section the innermost open heading set; a heading of no
// known kind inside an action or decision section keeps its kind.
func (p *meetingParser) current() section {
	for i := len(p.headings) - 1; i >= 0; i-- {
		if k := p.headings[i].kind; k != sectionOther {
			return k
		}
	}
	return sectionOther
}

// walk visits the blocks of n in order.
func (p *meetingParser) walk(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch b := c.(type) {
		case *ast.Heading:
			t := p.blockText(b)
			if p.firstHeading == "" && b.Level == 1 {
				p.firstHeading = oneLine(t, maxItemTitle)
			}
			for len(p.headings) > 0 && p.headings[len(p.headings)-1].level >= b.Level {
				p.headings = p.headings[:len(p.headings)-1]
			}
			p.headings = append(p.headings, heading{level: b.Level, kind: sectionOf(t)})
		case *ast.List:
			p.list(b)
		case *ast.Paragraph:
			p.paragraph(b)
		case *ast.Blockquote:
			p.walk(b)
		}
	}
}

// list visits the items of a list, and the lists inside them.
func (p *meetingParser) list(l *ast.List) {
	for c := l.FirstChild(); c != nil; c = c.NextSibling() {
		item, ok := c.(*ast.ListItem)
		if !ok {
			continue
		}
		first := item.FirstChild()
		if first != nil && (first.Kind() == ast.KindParagraph || first.Kind() == ast.KindTextBlock) {
			p.item(first)
		}
		for b := item.FirstChild(); b != nil; b = b.NextSibling() {
			switch b := b.(type) {
			case *ast.List:
				p.list(b)
			case *ast.Paragraph:
				if ast.Node(b) != first {
					p.paragraph(b)
				}
			case *ast.Blockquote:
				p.walk(b)
			}
		}
	}
}

// item reads a list item's first block.
func (p *meetingParser) item(block ast.Node) {
	raw := p.blockText(block)
	line := p.lineOf(block)
	if box, ok := block.FirstChild().(*extast.TaskCheckBox); ok {
		p.addAction(taskBox().ReplaceAllString(raw, ""), box.IsChecked, line)
		return
	}
	if rest, ok := cutLabel(raw, actionLabels); ok {
		p.addAction(rest, false, line)
		return
	}
	if rest, ok := cutLabel(raw, decisionLabels); ok {
		p.addDecision(rest, line)
		return
	}
	switch p.current() {
	case sectionActions:
		p.addAction(raw, false, line)
	case sectionDecisions:
		p.addDecision(raw, line)
	}
}

// paragraph reads a paragraph outside a list item's first line: in a
// decision section it is a decision; elsewhere each of its lines that starts
// with a label is an item.
func (p *meetingParser) paragraph(b *ast.Paragraph) {
	raw := p.blockText(b)
	line := p.lineOf(b)
	if p.current() == sectionDecisions {
		if rest, ok := cutLabel(raw, decisionLabels); ok {
			raw = rest
		}
		p.addDecision(raw, line)
		return
	}
	for i, l := range strings.Split(raw, "\n") {
		if rest, ok := cutLabel(l, decisionLabels); ok {
			p.addDecision(rest, line+i)
		} else if rest, ok := cutLabel(l, actionLabels); ok {
			p.addAction(rest, false, line+i)
		}
	}
}

func (p *meetingParser) addAction(raw string, done bool, line int) {
	raw = strings.TrimSpace(raw)
	due, rest := findDue(raw)
	title := oneLine(tasksDates().ReplaceAllString(rest, " "), maxItemTitle)
	if title == "" {
		return
	}
	p.actions = append(p.actions, Action{Text: raw, Title: title, Due: due, Done: done, Line: line})
}

func (p *meetingParser) addDecision(raw string, line int) {
	raw = strings.TrimSpace(raw)
	title := oneLine(raw, maxItemTitle)
	if title == "" {
		return
	}
	p.decisions = append(p.decisions, Decision{Text: raw, Title: title, Line: line})
}

// blockText is the source of a block's lines, as written.
func (p *meetingParser) blockText(n ast.Node) string {
	lines := n.Lines()
	var b bytes.Buffer
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(p.src))
	}
	return strings.TrimSpace(b.String())
}

// lineOf is the 1-based line of the notes a block starts on.
func (p *meetingParser) lineOf(n ast.Node) int {
	lines := n.Lines()
	if lines.Len() == 0 {
		return 0
	}
	if p.lineStarts == nil {
		p.lineStarts = []int{0}
		for i, c := range p.src {
			if c == '\n' {
				p.lineStarts = append(p.lineStarts, i+1)
			}
		}
	}
	start := lines.At(0).Start
	// The last line that starts at or before start.
	i := sort.SearchInts(p.lineStarts, start+1)
	return p.lineBase + i
}

// taskBox is the checkbox at the start of a task list item's text.
var taskBox = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[[ xX]\]\s*`) })

// tasksDates are the Obsidian Tasks dates that are not the due date — done
// ✅, created ➕, scheduled ⏳, start 🛫 — which an action's title leaves out.
var tasksDates = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*[✅➕⏳🛫]\x{FE0F}?\s*\d{4}-\d{2}-\d{2}`) })

// The labels that make a line an item wherever it is.
var (
	decisionLabels = []string{"decision", "decided", "we decided", "agreed"}
	actionLabels   = []string{"action", "action item", "todo", "to do", "to-do"}
)

// cutLabel reports whether line starts with one of labels followed by a
// colon ("Decision: …", "**Decision:** …") and returns what follows.
func cutLabel(line string, labels []string) (string, bool) {
	s := strings.TrimSpace(line)
	s = strings.TrimLeft(s, "*_")
	lower := strings.ToLower(s)
	for _, l := range labels {
		if !strings.HasPrefix(lower, l) {
			continue
		}
		rest := strings.TrimLeft(s[len(l):], "*_ ")
		if after, ok := strings.CutPrefix(rest, ":"); ok {
			after = strings.TrimLeft(after, "*_ ")
			if strings.TrimSpace(after) != "" {
				return after, true
			}
		}
	}
	return "", false
}

// sectionOf tells what a heading's section holds from its words.
func sectionOf(title string) section {
	words := strings.FieldsFunc(strings.ToLower(title), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	s := " " + strings.Join(words, " ") + " "
	for _, k := range []string{" decision ", " decisions ", " decided ", " agreed ", " agreements ", " resolutions "} {
		if strings.Contains(s, k) {
			return sectionDecisions
		}
	}
	for _, k := range []string{" action ", " actions ", " todo ", " todos ", " to do ", " to dos ", " next steps ", " follow up ",
		" follow ups ", " followups ", " tasks ", " action items ", " action points "} {
		if strings.Contains(s, k) {
			return sectionActions
		}
	}
	return sectionOther
}

// Due dates, in the forms people and Obsidian plugins write them.
const (
	datePattern = `(\d{4}-\d{2}-\d{2}|\d{1,2}(?:st|nd|rd|th)?\s+[A-Za-z]{3,9}\.?,?\s+\d{4}|[A-Za-z]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4})`
)

var (
	duePatterns = sync.OnceValue(func() []*regexp.Regexp {
		return []*regexp.Regexp{
			regexp.MustCompile(`📅\s*(\d{4}-\d{2}-\d{2})`),
			regexp.MustCompile(`(?i)@due\(\s*` + datePattern + `\s*\)`),
			regexp.MustCompile(`(?i)\[due::\s*` + datePattern + `\s*\]`),
			regexp.MustCompile(`(?i)\(\s*due(?:\s+(?:date|by|on))?\s*[:=]?\s*` + datePattern + `\s*\)`),
			regexp.MustCompile(`(?i)(?:^|[\s,;—–-])due(?:\s+(?:date|by|on))?\s*[:=]?\s*` + datePattern + `\b`),
		}
	})
	isoDate = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`) })
)

// findDue finds an item's due date, and returns it (YYYY-MM-DD) with the item
// the phrase that gave it taken out; a phrase whose date does not exist is
// left as it is.
func findDue(item string) (due, rest string) {
	for _, re := range duePatterns() {
		for _, m := range re.FindAllStringSubmatchIndex(item, -1) {
			d := dateOf(item[m[2]:m[3]])
			if d == "" {
				continue
			}
			before := strings.TrimRight(item[:m[0]], " \t,;—–-")
			after := strings.TrimLeft(item[m[1]:], " \t")
			rest := before
			if before != "" && after != "" {
				rest += " "
			}
			return d, strings.TrimSpace(rest + after)
		}
	}
	return "", item
}

// dateLayouts are the date forms dateOf reads.
var dateLayouts = []string{"2006-01-02", "2 January 2006", "2 Jan 2006", "January 2 2006", "Jan 2 2006"}

// dateOf reads a date in one of the common forms as YYYY-MM-DD; "" when s
// holds none, or one that does not exist.
func dateOf(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 10 {
		if t, err := time.Parse("2006-01-02", s[:10]); err == nil {
			return t.Format("2006-01-02")
		}
	}
	// "1st Dec., 2026" → "1 Dec 2026"
	s = ordinal().ReplaceAllString(s, "$1")
	s = strings.NewReplacer(",", " ", ".", " ").Replace(s)
	s = strings.Join(strings.Fields(s), " ")
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.Format("2006-01-02")
		}
	}
	// "Sept" is not Go's: three letters are.
	if f := strings.Fields(s); len(f) == 3 {
		for i, w := range f {
			if len(w) > 3 && unicode.IsLetter(rune(w[0])) {
				f[i] = w[:3]
			}
		}
		for _, l := range dateLayouts[2:] {
			if l == "January 2 2006" {
				continue
			}
			if t, err := time.Parse(l, strings.Join(f, " ")); err == nil {
				return t.Format("2006-01-02")
			}
		}
	}
	return ""
}

var ordinal = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)\b`) })

// frontmatter is what normalize reads of meeting notes' properties.
type frontmatter struct {
	Title string
	Date  string
	Tags  []string
}

// splitFrontmatter cuts YAML frontmatter off the start of notes: the body,
// what the frontmatter says (nil when there is none, or it does not parse:
// its keys are then ignored, and it is still cut off), and how many lines it
// took.
func splitFrontmatter(notes string) (string, *frontmatter, int) {
	rest, ok := strings.CutPrefix(notes, "---\n")
	if !ok {
		return notes, nil, 0
	}
	end := -1
	at := 0
	for at <= len(rest) {
		i := strings.IndexByte(rest[at:], '\n')
		line := rest[at:]
		if i >= 0 {
			line = rest[at : at+i]
		}
		if line == "---" || line == "..." {
			end = at
			break
		}
		if i < 0 {
			break
		}
		at += i + 1
	}
	if end < 0 {
		return notes, nil, 0
	}
	yml := rest[:end]
	body := rest[end:]
	if i := strings.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:]
	} else {
		body = ""
	}
	lines := strings.Count(notes[:len(notes)-len(body)], "\n")
	var raw struct {
		Title yaml.Node `yaml:"title"`
		Date  yaml.Node `yaml:"date"`
		Tags  yaml.Node `yaml:"tags"`
	}
	if err := yaml.Unmarshal([]byte(yml), &raw); err != nil {
		return body, nil, lines
	}
	fm := &frontmatter{}
	if raw.Title.Kind == yaml.ScalarNode {
		fm.Title = raw.Title.Value
	}
	if raw.Date.Kind == yaml.ScalarNode {
		fm.Date = raw.Date.Value
	}
	switch raw.Tags.Kind {
	case yaml.ScalarNode:
		fm.Tags = strings.FieldsFunc(raw.Tags.Value, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	case yaml.SequenceNode:
		for _, t := range raw.Tags.Content {
			if t.Kind == yaml.ScalarNode && strings.TrimSpace(t.Value) != "" {
				fm.Tags = append(fm.Tags, strings.TrimSpace(t.Value))
			}
		}
	}
	return body, fm, lines
}

// firstLine is the first line of text with something in it, markdown
// markers at its start taken off.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = taskBox().ReplaceAllString(strings.TrimLeft(strings.TrimSpace(l), "#>*-+ \t"), "")
		if t := oneLine(l, maxItemTitle); t != "" {
			return t
		}
	}
	return ""
}

// oneLine is s on one line — its whitespace runs made single spaces, control
// characters dropped — cut to at most n characters at a word where it can.
func oneLine(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) && !unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:—–-") + "…"
}
