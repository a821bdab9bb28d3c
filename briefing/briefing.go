package briefing

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cortexmem/cortex/memories"
)

// Budget limits, in tokens (characters/4).
const (
	DefaultBudget = 1500
	MinBudget     = 100
	MaxBudget     = 20000
)

// How much each section gathers at most: more than any budget shows, so
// that the budget, not the gathering, decides.
const (
	playbookNotes  = 12
	topMemories    = 10
	queryDecisions = 5
	maxEdits       = 4
	maxExcerpts    = 3
)

// Section names, in the order a briefing gives them.
const (
	SectionPlaybook    = "playbook"
	SectionMemories    = "memories"
	SectionDecisions   = "decisions"
	SectionTranscripts = "transcripts"
)

// Memories is what the briefing recalls with: memories.Service.
type Memories interface {
	// RecallIn recalls from a snapshot of Notes the briefing holds: its
	// four recalls share one look at the store.
	RecallIn(ctx context.Context, snap memories.Snapshot, req memories.RecallRequest) (*memories.RecallResult, error)
	RecordAccess(ctx context.Context, ids []string, source string) error
	Screen(ctx context.Context, title, content string) error
}

// Notes reads the store, to follow a decision's links to its edits: the
// store (memories.Backend).
type Notes interface {
	View(ctx context.Context, fn func(memories.Snapshot) error) error
}

// Playbooks reads a project's playbook note; found is false when it has
// none.
type Playbooks interface {
	Playbook(project string) (pb Playbook, found bool, err error)
}

// Playbook is a project's playbook note.
type Playbook struct {
	// Path is the note's path inside the vault, to open it.
	Path string
	Text string
}

// Excerpts searches the agents' transcripts: the port transcript search
// plugs into.
type Excerpts interface {
	Excerpts(ctx context.Context, query, project string, limit int) ([]Excerpt, error)
}

// Excerpt is one exchange of a transcript, with where it is.
type Excerpt struct {
	ID      string
	Tool    string
	Session string
	Project string
	Time    time.Time
	User    string
	Reply   string
	// File and Line point at the exchange's first record.
	File string
	Line int
}

// Synthesizer rewrites a briefing's material into a briefing.
type Synthesizer interface {
	// Name says which synthesizer it is (the command), for the briefing's
	// note.
	Name() string
	Synthesize(ctx context.Context, prompt string) (string, error)
}

// Request asks for a briefing.
type Request struct {
	Query   string
	Project string
	// Budget is the most tokens (characters/4) the briefing may take; 0 is
	// DefaultBudget.
	Budget int
	// Synthesize asks the Synthesizer for the briefing.
	Synthesize bool
}

// Item is one thing a briefing shows.
type Item struct {
	// ID is the memory's id (or the excerpt's); ShortID what to cite.
	ID      string
	ShortID string
	Title   string
	Type    string
	// Path is where to open it: a note's path in the vault, a transcript's
	// file and line.
	Path string
	Text string
	Ban  bool
	// Edits are the code edits a decision produced.
	Edits []Item
	// accessed marks a memory (recorded as accessed when shown), not a
	// playbook line or an excerpt.
	accessed bool
}

// Section is one section of a briefing.
type Section struct {
	Name  string
	Title string
	Items []Item
	// Note says why the section is empty or short (no playbook, no
	// transcript search).
	Note string
}

// Material is what Gather found, before the budget chooses.
type Material struct {
	Query, Project string
	Sections       []Section
}

// Briefing is an assembled briefing.
type Briefing struct {
	Query   string
	Project string
	Budget  int
	// Tokens is Markdown's size in tokens (characters/4, rounded up).
	Tokens   int
	Markdown string
	// Sections are what Markdown shows, section by section.
	Sections []Section
	// Synthesized says the Markdown is the synthesizer's; Fallback, when
	// synthesis was asked for and not used, says why.
	Synthesized bool
	Fallback    string
	// Omitted counts the items gathered that the budget left out.
	Omitted int
}

// Service assembles briefings.
type Service struct {
	Memories  Memories
	Notes     Notes
	Playbooks Playbooks
	// Excerpts is nil when transcript search is not available: the
	// section says so.
	Excerpts Excerpts
	// Synthesizer is nil when no command is configured or found.
	Synthesizer Synthesizer
	// Link turns a note path relative to cortex's folder into the path
	// shown (relative to the vault); nil shows it as is.
	Link func(rel string) string
	// Warn reports what does not fail a briefing (an access log that cannot
	// be written, a transcript search that failed).
	Warn func(string)
}

// Tokens estimates s's size in tokens: characters/4, rounded up.
func Tokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }

// CheckBudget validates a budget; 0 is the default.
func CheckBudget(b int) (int, error) {
	if b == 0 {
		return DefaultBudget, nil
	}
	if err := memories.CheckRange("budget", b, MinBudget, MaxBudget); err != nil {
		return 0, err
	}
	return b, nil
}

// Assemble gathers, renders within the budget, synthesizes when asked and
// records what the briefing shows as accessed.
func (s *Service) Assemble(ctx context.Context, req Request) (*Briefing, error) {
	budget, err := CheckBudget(req.Budget)
	if err != nil {
		return nil, err
	}
	req.Budget = budget
	mat, err := s.Gather(ctx, req)
	if err != nil {
		return nil, err
	}
	b := Render(mat, budget, "")
	if req.Synthesize {
		b = s.synthesize(ctx, mat, b)
	}
	if ids := accessedIDs(b.Sections); len(ids) > 0 {
		if err := s.Memories.RecordAccess(ctx, ids, memories.AccessContext); err != nil {
			s.warn(err.Error())
		}
	}
	return b, nil
}

func (s *Service) warn(msg string) {
	if s.Warn != nil {
		s.Warn(msg)
	}
}

func (s *Service) link(rel string) string {
	if s.Link == nil {
		return rel
	}
	return s.Link(rel)
}

// Gather reads everything a briefing may show, each section best first,
// every item once.
func (s *Service) Gather(ctx context.Context, req Request) (*Material, error) {
	query := strings.TrimSpace(req.Query)
	if query == "" {
		return nil, &memories.ArgError{Arg: "query", Rule: "give what the briefing is for: a task, a question, keywords"}
	}
	project, err := memories.NormalizeScope("project", req.Project)
	if err != nil {
		return nil, err
	}
	if project == "" {
		return nil, &memories.ArgError{Arg: "project", Rule: "give the project the briefing is for"}
	}
	m := &Material{Query: query, Project: project}
	seen := map[string]bool{}

	// The transcripts are searched meanwhile: their index is another
	// store, and what the other sections show only takes excerpts out.
	var found foundExcerpts
	var wg sync.WaitGroup
	if s.Excerpts != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found.ex, found.err = s.Excerpts.Excerpts(ctx, query, project, maxExcerpts)
		}()
	}
	err = s.Notes.View(ctx, func(snap memories.Snapshot) error {
		snap = withLoadCache(snap)
		pb, err := s.playbook(ctx, snap, project, seen)
		if err != nil {
			return err
		}
		m.Sections = append(m.Sections, pb)

		top, err := s.Memories.RecallIn(ctx, snap, memories.RecallRequest{Query: query, Project: project, Limit: topMemories,
			Source: memories.AccessContext, NoAccess: true})
		if err != nil {
			return err
		}
		mem := Section{Name: SectionMemories, Title: "Memories for the query"}
		var decisions []memories.Recalled
		var related []string
		for _, r := range top.Results {
			if r.Memory.Type == memories.TypeDecision {
				decisions = append(decisions, r)
				continue
			}
			related = append(related, r.Memory.Related...)
			if seen[r.Memory.ID] || r.Memory.Type == memories.TypeEpisode || r.Memory.Type == memories.TypeSession {
				continue
			}
			seen[r.Memory.ID] = true
			mem.Items = append(mem.Items, s.itemOf(r))
		}
		if len(top.Results) == 0 {
			mem.Note = top.EmptyMessage()
		}
		m.Sections = append(m.Sections, mem)

		dec, err := s.decisions(ctx, snap, query, project, decisions, related, seen)
		if err != nil {
			return err
		}
		m.Sections = append(m.Sections, dec)
		return nil
	})
	wg.Wait()
	if err != nil {
		return nil, err
	}
	m.Sections = append(m.Sections, s.excerpts(found, seen))
	return m, nil
}

// foundExcerpts is what the transcript search gave.
type foundExcerpts struct {
	ex  []Excerpt
	err error
}

// banRE finds a ban in a title or a playbook line: what must not be done.
var banRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(never|don't|do not|must not|mustn't|shall not|won't|no new|avoid|forbidden|banned)\b`)
})

// IsBan reports whether a memory or a line states a ban.
func IsBan(title string, tags []string) bool {
	for _, t := range tags {
		if strings.EqualFold(t, "ban") {
			return true
		}
	}
	return banRE().MatchString(title)
}

// playbook is the project's playbook note, line by line, and its
// conventions and standing decisions, bans first.
func (s *Service) playbook(ctx context.Context, snap memories.Snapshot, project string, seen map[string]bool) (Section, error) {
	sec := Section{Name: SectionPlaybook, Title: "Playbook of " + project}
	var bans, rest []Item
	if s.Playbooks != nil {
		pb, found, err := s.Playbooks.Playbook(project)
		switch {
		case err != nil:
			return sec, err
		case found:
			if err := s.Memories.Screen(ctx, "playbook "+project, pb.Text); err != nil {
				sec.Note = fmt.Sprintf("the playbook %s was left out: %v", pb.Path, err)
				break
			}
			for i, line := range playbookLines(pb.Text) {
				it := Item{ID: fmt.Sprintf("%s#%d", pb.Path, i+1), Title: line, Type: "playbook", Path: pb.Path, Ban: banRE().MatchString(line)}
				if it.Ban {
					bans = append(bans, it)
				} else {
					rest = append(rest, it)
				}
			}
		}
	}
	for _, t := range []memories.Type{memories.TypeConvention, memories.TypeDecision} {
		res, err := s.Memories.RecallIn(ctx, snap, memories.RecallRequest{Project: project, Type: string(t), Limit: playbookNotes, NoAccess: true})
		if err != nil {
			return sec, err
		}
		for _, r := range res.Results {
			if r.Related || seen[r.Memory.ID] || r.Memory.Project != project && r.Memory.Project != memories.DefaultProject {
				continue
			}
			// A standing decision is one a person keeps: mined decisions
			// are history until a recall finds them for the query.
			if t == memories.TypeDecision && r.Memory.Source == memories.SourceMined && !IsBan(r.Memory.Title, r.Memory.Tags) {
				continue
			}
			seen[r.Memory.ID] = true
			it := s.itemOf(r)
			if it.Ban {
				bans = append(bans, it)
			} else {
				rest = append(rest, it)
			}
		}
	}
	sec.Items = append(bans, rest...)
	if len(sec.Items) == 0 && sec.Note == "" {
		sec.Note = "no playbook, conventions or standing decisions for " + project
	}
	return sec, nil
}

// playbookLines are the playbook's list items, or its paragraphs when it has
// none, each on one line.
func playbookLines(text string) []string {
	var items, paras []string
	var para []string
	flush := func() {
		if len(para) > 0 {
			paras = append(paras, strings.Join(para, " "))
			para = nil
		}
	}
	inFence := false
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			flush()
			continue
		}
		switch {
		case inFence:
		case t == "" || strings.HasPrefix(t, "#") || t == "---":
			flush()
		case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "+ "):
			flush()
			item := strings.TrimSpace(t[2:])
			item = strings.TrimPrefix(strings.TrimPrefix(item, "[ ] "), "[x] ")
			if item != "" {
				items = append(items, item)
			}
		default:
			para = append(para, t)
		}
	}
	flush()
	if len(items) > 0 {
		return items
	}
	return paras
}

func (s *Service) itemOf(r memories.Recalled) Item {
	m := r.Memory
	text := m.Content()
	if oneLine(text) == oneLine(m.Title) {
		text = "" // the title says it all
	}
	return Item{ID: m.ID, ShortID: r.ShortID, Title: m.Title, Type: string(m.Type), Path: s.link(m.Path),
		Text: text, Ban: IsBan(m.Title, m.Tags), accessed: true}
}

// decisions are the decisions the query found, then those its memories link
// to, then the best decisions for the query, each with the edits it
// produced.
func (s *Service) decisions(ctx context.Context, snap memories.Snapshot, query, project string, found []memories.Recalled, links []string, seen map[string]bool) (Section, error) {
	sec := Section{Name: SectionDecisions, Title: "Related decisions and the edits they produced"}
	more, err := s.Memories.RecallIn(ctx, snap, memories.RecallRequest{Query: query, Project: project, Type: string(memories.TypeDecision),
		Limit: queryDecisions, NoAccess: true})
	if err != nil {
		return sec, err
	}
	for _, r := range more.Results {
		if !r.Related {
			found = append(found, r)
		}
	}
	err = func() error {
		want := map[string]bool{}
		for _, l := range links {
			want[linkName(l)] = true
		}
		names, err := noteNames(snap, want)
		if err != nil {
			return err
		}
		for _, l := range links {
			e, ok := names[linkName(l)]
			if !ok || e.Type != memories.TypeDecision || !e.Live() {
				continue
			}
			m, err := load(ctx, snap, e)
			if err != nil || m == nil {
				return err
			}
			found = append(found, memories.Recalled{Memory: m, ShortID: snap.ShortID(m.ID)})
		}
		// The notes the decisions' edits name, looked up at once.
		produced := make([][]string, len(found))
		want = map[string]bool{}
		for i, r := range found {
			produced[i] = producedLinks(r.Memory.Content())
			for _, l := range produced[i] {
				want[linkName(l)] = true
			}
		}
		if names, err = noteNames(snap, want); err != nil {
			return err
		}
		for i, r := range found {
			if seen[r.Memory.ID] {
				continue
			}
			seen[r.Memory.ID] = true
			it := s.itemOf(r)
			it.Text = decisionText(r.Memory.Content())
			for _, l := range produced[i] {
				if len(it.Edits) == maxEdits {
					break
				}
				e, ok := names[linkName(l)]
				if !ok || seen[e.ID] {
					continue
				}
				seen[e.ID] = true
				it.Edits = append(it.Edits, Item{ID: e.ID, ShortID: snap.ShortID(e.ID), Title: e.Title, Type: string(e.Type),
					Path: s.link(e.Path), accessed: true})
			}
			sec.Items = append(sec.Items, it)
		}
		return nil
	}()
	if len(sec.Items) == 0 {
		sec.Note = "no decisions found for the query"
	}
	return sec, err
}

// noteNames maps each of the names in want that a note has (its file name
// without .md, lower case) to its entry, as Obsidian resolves a link: of
// notes of one name, the first by path. Only those entries are decoded.
func noteNames(snap memories.Snapshot, want map[string]bool) (map[string]memories.Entry, error) {
	if len(want) == 0 {
		return nil, nil
	}
	// Most file names are ruled out by their length and their first and
	// last letters, before the name is folded to lower case: folding an
	// ASCII name keeps its length and folds those letters as nameKey does.
	// (Cortex's file names share a few lengths, so the length alone let
	// most through.)
	keys := make(map[uint32]bool, len(want))
	for n := range want {
		if n != "" {
			keys[nameKey(n)] = true
		}
	}
	es, err := entriesNamed(snap, func(name string) bool {
		if base := strings.TrimSuffix(name, ".md"); base != "" && !keys[nameKey(base)] && isASCII(base) {
			return false
		}
		return want[noteName(name)]
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]memories.Entry, len(es))
	for _, e := range es {
		n := noteName(path.Base(e.Path))
		if old, ok := out[n]; !ok || e.Path < old.Path {
			out[n] = e
		}
	}
	return out, nil
}

// nameKey is a non-empty name's length and its first and last bytes, ASCII
// letters folded to lower case.
func nameKey(s string) uint32 {
	return uint32(len(s))<<16 | uint32(lowerASCII(s[0]))<<8 | uint32(lowerASCII(s[len(s)-1]))
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// noteName is the name a link resolves to a note by: its file name without
// .md, lower case.
func noteName(file string) string { return strings.ToLower(strings.TrimSuffix(file, ".md")) }

func load(ctx context.Context, snap memories.Snapshot, e memories.Entry) (*memories.Memory, error) {
	m, err := snap.Load(ctx, e.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m.ID = e.ID
	return m, nil
}

// linkName is the note name a link or related value names: "[[name|alias]]"
// or "name" → "name", lower case.
func linkName(l string) string {
	l = strings.TrimSpace(l)
	l = strings.TrimSuffix(strings.TrimPrefix(l, "[["), "]]")
	l, _, _ = strings.Cut(l, "|")
	l, _, _ = strings.Cut(l, "#")
	return strings.ToLower(strings.TrimSuffix(path.Base(l), ".md"))
}

var wikiRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[\[([^\]|#]+)(?:[#|][^\]]*)?\]\]`) })

// producedLinks are the links under a mined decision's "## Produced"
// heading: the edits it produced.
func producedLinks(body string) []string {
	_, rest, ok := strings.Cut(body, "\n## Produced\n")
	if !ok {
		return nil
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	var out []string
	for _, m := range wikiRE().FindAllStringSubmatch(rest, -1) {
		out = append(out, m[1])
	}
	return out
}

// decisionText is a decision's text without its lineage section, the
// heading that repeats its title and the gate's markers, its links shown as
// their titles.
func decisionText(body string) string {
	body, _, _ = strings.Cut(body, "\n## Produced\n")
	if strings.HasPrefix(body, "# ") {
		_, body, _ = strings.Cut(body, "\n")
	}
	var keep []string
	for _, l := range strings.Split(body, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "- Markers:") {
			continue
		}
		keep = append(keep, strings.TrimPrefix(t, "- "))
	}
	return aliasRE().ReplaceAllString(strings.Join(keep, "; "), "$2")
}

// aliasRE matches a link with an alias: [[name|alias]].
var aliasRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[\[([^\]|]+)\|([^\]]*)\]\]`) })

// excerpts are the best exchanges of the transcripts, as found, not
// already shown.
func (s *Service) excerpts(found foundExcerpts, seen map[string]bool) Section {
	sec := Section{Name: SectionTranscripts, Title: "From the transcripts"}
	if s.Excerpts == nil {
		sec.Note = "no transcript excerpts: transcript search is not available"
		return sec
	}
	ex, err := found.ex, found.err
	if err != nil {
		s.warn(fmt.Sprintf("transcript search: %v", err))
		sec.Note = "no transcript excerpts: the search failed"
		return sec
	}
	for _, e := range ex {
		if seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		where := e.File
		if e.Line > 0 {
			where = fmt.Sprintf("%s:%d", e.File, e.Line)
		}
		title := e.Tool
		if e.Session != "" {
			title += " session " + short(e.Session)
		}
		if !e.Time.IsZero() {
			title += ", " + e.Time.UTC().Format(time.DateOnly)
		}
		text := "user: " + oneLine(e.User)
		if e.Reply != "" {
			text += "\nreply: " + oneLine(e.Reply)
		}
		sec.Items = append(sec.Items, Item{ID: e.ID, Title: title, Type: "exchange", Path: where, Text: text})
	}
	if len(sec.Items) == 0 {
		sec.Note = "no matching transcript excerpts"
	}
	return sec
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// oneLine is s's words joined by single spaces (strings.Fields, then
// strings.Join), built in one pass: a note's body is put on one line for
// each item a briefing considers, and the list of its words cost more than
// the line.
func oneLine(s string) string {
	if isOneLine(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if unicode.IsSpace(r) {
			space = true
		} else {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isOneLine reports whether s is printable ASCII words separated by single
// spaces, which oneLine returns as it is.
func isOneLine(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == ' ' && s[i+1] == ' ' {
			return false
		}
	}
	return true
}

func accessedIDs(secs []Section) []string {
	var ids []string
	for _, s := range secs {
		for _, it := range s.Items {
			if it.accessed {
				ids = append(ids, it.ID)
			}
			for _, e := range it.Edits {
				if e.accessed {
					ids = append(ids, e.ID)
				}
			}
		}
	}
	return ids
}
