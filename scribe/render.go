package scribe

import (
	"crypto/sha256"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/vault"
)

// The folders of mined notes inside the cortex folder (SPEC §2).
const (
	SessionsDir  = "sessions"
	DecisionsDir = "decisions"
	EpisodesDir  = "episodes"
)

// maxTitle bounds a note title, in characters.
const maxTitle = 100

// Render turns the nodes of a pipeline run, and what the events said about
// each session, into vault notes: one per decision, per episode and per
// session that has either, in that order. Nodes whose events no longer stand
// (a rewind, a message rewritten) make no note; nothing links to them.
// Everything — ids, names, dates, bodies — is a function of the arguments,
// so rendering the same transcript again gives the same notes, which is what
// makes writing them idempotent.
func Render(nodes []pipeline.Node, sessions []Session) []memories.MinedNote {
	r := newRenderer(nodes, sessions)
	var out []memories.MinedNote
	for _, d := range r.decisions {
		out = append(out, memories.MinedNote{Memory: r.decisionNote(d), Compare: r.decisionText(d)})
	}
	for _, e := range r.episodes {
		out = append(out, memories.MinedNote{Memory: r.episodeNote(e)})
	}
	for _, k := range r.sessionOrder {
		out = append(out, memories.MinedNote{Memory: r.sessionNote(k)})
	}
	return out
}

// decisionText is what a decision says, without the rendering around it:
// the person's words, and the options.
func (r *renderer) decisionText(d *pipeline.Node) string {
	dec := d.Decision
	parts := []string{dec.Epitome}
	if c := r.conversations[dec.Conversation]; c != nil && len(c.Conversation.Turns) > 0 {
		parts = append(parts, c.Conversation.Turns[0].Text)
	}
	parts = append(parts, dec.Chosen...)
	parts = append(parts, dec.Rejected...)
	return strings.Join(parts, "\n")
}

type sessionKey struct {
	source transcript.SourceKind
	id     string
}

// renderer holds the nodes by what links them, and each note's name.
type renderer struct {
	decisions     []*pipeline.Node
	episodes      []*pipeline.Node
	episodeByID   map[string]*pipeline.Node
	conversations map[string]*pipeline.Node   // by id
	produced      map[string][]*pipeline.Node // decision id → its bindings, in order
	producedBy    map[string]*pipeline.Node   // episode id → its binding
	sessions      map[sessionKey]*Session
	sessionOrder  []sessionKey
	bySession     map[sessionKey][]*pipeline.Node // decisions and episodes, in node order
	ids, names    map[string]string               // node id (or session key) → note id, note name
	taken         map[string]bool                 // names given, in lower case
	titles        map[string]string
}

func newRenderer(nodes []pipeline.Node, sessions []Session) *renderer {
	r := &renderer{
		episodeByID: map[string]*pipeline.Node{}, conversations: map[string]*pipeline.Node{}, produced: map[string][]*pipeline.Node{},
		producedBy: map[string]*pipeline.Node{}, sessions: map[sessionKey]*Session{},
		bySession: map[sessionKey][]*pipeline.Node{}, ids: map[string]string{}, names: map[string]string{},
		titles: map[string]string{}, taken: map[string]bool{},
	}
	for i := range sessions {
		s := &sessions[i]
		r.sessions[sessionKey{s.Source, s.ID}] = s
	}
	for i := range nodes {
		n := &nodes[i]
		if n.Superseded != "" {
			continue
		}
		k := sessionKey{n.Source, n.SessionID}
		switch n.Kind {
		case pipeline.KindConversation:
			r.conversations[n.ID] = n
		case pipeline.KindDecision:
			r.decisions = append(r.decisions, n)
			r.bySession[k] = append(r.bySession[k], n)
		case pipeline.KindEpisode:
			r.episodes = append(r.episodes, n)
			r.episodeByID[n.ID] = n
			r.bySession[k] = append(r.bySession[k], n)
		case pipeline.KindBinding:
			r.produced[n.Binding.Decision] = append(r.produced[n.Binding.Decision], n)
			r.producedBy[n.Binding.Episode] = n
		}
		if (n.Kind == pipeline.KindDecision || n.Kind == pipeline.KindEpisode) && len(r.bySession[k]) == 1 {
			r.sessionOrder = append(r.sessionOrder, k)
			if r.sessions[k] == nil {
				r.sessions[k] = &Session{Source: n.Source, ID: n.SessionID}
			}
		}
	}
	// Names first: notes link to each other both ways.
	for _, d := range r.decisions {
		t := nodeTime(d)
		title := oneLine(d.Decision.Epitome, maxTitle)
		r.name(d.ID, noteID(t, "decision/"+d.ID), path.Join(DecisionsDir, projectOf(d.Decision.Project), vault.Slug(title)), title)
	}
	for _, e := range r.episodes {
		ep := e.Episode
		title := oneLine(opWord(ep.Op)+" "+relPath(ep.Path, ep.Project), maxTitle)
		stem := dateOf(nodeTime(e)) + "-" + vault.Slug(relPath(ep.Path, ep.Project))
		r.name(e.ID, noteID(nodeTime(e), "episode/"+e.ID), path.Join(EpisodesDir, projectOf(ep.Project), stem), title)
	}
	for _, k := range r.sessionOrder {
		s := r.sessions[k]
		subject := r.sessionSubject(k)
		title := oneLine(k.source.Name()+" session: "+subject, maxTitle)
		start := r.sessionStart(k)
		stem := dateOf(start) + "-" + vault.Slug(subject)
		r.name(sessionRef(k), noteID(start, "session/"+string(k.source)+"/"+k.id), path.Join(SessionsDir, string(s.Source), stem), title)
	}
	return r
}

// name records a note's id, and its name: stem and the id's first eight
// characters, as the vault names notes.
// A name another note of the batch has takes more of the id.
func (r *renderer) name(ref, id, stem, title string) {
	r.ids[ref] = id
	r.titles[ref] = title
	for _, k := range []int{memories.MinPrefix, 12, len(id)} {
		name := stem + "-" + id[:k]
		if !r.taken[strings.ToLower(name)] || k == len(id) {
			r.names[ref] = name
			r.taken[strings.ToLower(name)] = true
			return
		}
	}
}

func sessionRef(k sessionKey) string { return "session:" + string(k.source) + "/" + k.id }

// link is an Obsidian link to the note of ref, shown as its title.
func (r *renderer) link(ref string) string {
	return "[[" + path.Base(r.names[ref]) + "|" + vault.LinkAlias(r.titles[ref]) + "]]"
}

// prop is a link for a frontmatter property.
func (r *renderer) prop(ref string) string { return "[[" + path.Base(r.names[ref]) + "]]" }

func (r *renderer) decisionNote(d *pipeline.Node) *memories.Memory {
	dec := d.Decision
	k := sessionKey{d.Source, d.SessionID}
	t := nodeTime(d)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", literal(r.titles[d.ID]))
	if c := r.conversations[dec.Conversation]; c != nil && len(c.Conversation.Turns) > 0 {
		if text := c.Conversation.Turns[0].Text; strings.TrimSpace(text) != strings.TrimSpace(dec.Epitome) {
			b.WriteString(quote(text))
			b.WriteString("\n")
		}
	}
	if len(dec.Chosen) > 0 {
		fmt.Fprintf(&b, "- Chosen: %s\n", literal(strings.Join(dec.Chosen, "; ")))
	}
	if len(dec.Rejected) > 0 {
		fmt.Fprintf(&b, "- Rejected: %s\n", literal(strings.Join(dec.Rejected, "; ")))
	}
	if dec.IsBan {
		b.WriteString("- A ban: what it names is not to be used.\n")
	}
	cats := make([]string, len(dec.Categories))
	for i, c := range dec.Categories {
		cats[i] = string(c)
	}
	fmt.Fprintf(&b, "- Markers: %s\n", strings.Join(cats, ", "))
	fmt.Fprintf(&b, "\nSaid in %s, %s.\n", r.link(sessionRef(k)), stamp(t))
	var produced []string
	if bs := r.produced[d.ID]; len(bs) > 0 {
		b.WriteString("\n## Produced\n\n")
		for _, bn := range bs {
			ep := bn.Binding.Episode
			fmt.Fprintf(&b, "- %s (%s, %s later)\n", r.link(ep), r.counts(ep), gap(bn.Binding.Prov.GapSeconds))
			produced = append(produced, r.prop(ep))
		}
		if c := bs[0].Binding.Correlation; c != nil {
			fmt.Fprintf(&b, "\nOf the session's %d actions, %d were this decision's edits and %d its other tool calls: "+
				"support %.6f, confidence %.6f, lift %.6f, phi %.6f, p %.6f.\n",
				c.A+c.B+c.C+c.D, c.A, c.B, c.Support, c.Confidence, c.Lift, c.Phi, c.P)
		}
	}
	var tags []string
	if dec.IsBan {
		tags = []string{"ban"}
	}
	return &memories.Memory{
		ID: r.ids[d.ID], Title: r.titles[d.ID], Type: memories.TypeDecision, Project: projectOf(dec.Project),
		Tags: tags, Source: memories.SourceMined, Status: memories.StatusActive, Importance: memories.DefaultImportance,
		Created: t, Updated: t,
		Fields: []memories.Field{
			{Key: "session", Value: r.prop(sessionRef(k))},
			{Key: "chosen", List: nonNil(dec.Chosen)},
			{Key: "rejected", List: nonNil(dec.Rejected)},
			{Key: "produced", List: nonNil(produced)},
		},
		Provenance: memories.Provenance{
			EventIDs: []string{dec.EventID}, SourceSession: d.SessionID, SourceTool: string(d.Source),
			SourcePath: dec.Provenance.File, DerivedFrom: d.ID,
		},
		Body: b.String(),
		Path: r.names[d.ID] + ".md",
	}
}

func (r *renderer) episodeNote(e *pipeline.Node) *memories.Memory {
	ep := e.Episode
	k := sessionKey{e.Source, e.SessionID}
	t := nodeTime(e)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", literal(r.titles[e.ID]))
	facts := []string{"`" + ep.Path + "`"}
	if ep.MovePath != "" {
		facts = append(facts, "moved to `"+ep.MovePath+"`")
	}
	facts = append(facts, r.counts(e.ID), stamp(t))
	if ep.GitRef != "" {
		facts = append(facts, "git "+ep.GitRef)
	}
	if ep.AgentID != "" {
		facts = append(facts, "by subagent "+ep.AgentID)
	}
	b.WriteString(strings.Join(facts, " · "))
	b.WriteString("\n\n")
	by := ""
	if bn := r.producedBy[e.ID]; bn != nil {
		by = r.prop(bn.Binding.Decision)
		fmt.Fprintf(&b, "Produced by %s, %s after it was said, in %s.\n", r.link(bn.Binding.Decision),
			gap(bn.Binding.Prov.GapSeconds), r.link(sessionRef(k)))
	} else {
		fmt.Fprintf(&b, "Made in %s; no decision of the session led to it.\n", r.link(sessionRef(k)))
	}
	if ep.Fragment {
		b.WriteString("\nThe diff shows the replaced text alone: the transcript did not hold the whole file.\n")
	}
	fence := fenceFor(ep.Unified)
	fmt.Fprintf(&b, "\n%sdiff\n%s", fence, ep.Unified)
	if !strings.HasSuffix(ep.Unified, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(fence + "\n")
	return &memories.Memory{
		ID: r.ids[e.ID], Title: r.titles[e.ID], Type: memories.TypeEpisode, Project: projectOf(ep.Project),
		Source: memories.SourceMined, Status: memories.StatusActive, Importance: memories.DefaultImportance,
		Created: t, Updated: t,
		Fields: []memories.Field{
			{Key: "file", Value: ep.Path},
			{Key: "op", Value: ep.Op},
			{Key: "git_ref", Value: ep.GitRef},
			{Key: "session", Value: r.prop(sessionRef(k))},
			{Key: "produced_by", Value: by},
		},
		Provenance: memories.Provenance{
			EventIDs: []string{ep.EventID}, SourceSession: e.SessionID, SourceTool: string(e.Source),
			SourcePath: ep.Provenance.File, DerivedFrom: e.ID,
		},
		Body: b.String(),
		Path: r.names[e.ID] + ".md",
	}
}

func (r *renderer) sessionNote(k sessionKey) *memories.Memory {
	s := r.sessions[k]
	ref := sessionRef(k)
	start, end := r.sessionStart(k), r.sessionEnd(k)
	project := s.Project
	var decisions, episodes []string
	var convs []*pipeline.Node
	for _, n := range r.bySession[k] {
		switch n.Kind {
		case pipeline.KindDecision:
			decisions = append(decisions, n.ID)
			if c := r.conversations[n.Decision.Conversation]; c != nil {
				convs = append(convs, c)
			}
			if project.IsZero() {
				project = n.Decision.Project
			}
		case pipeline.KindEpisode:
			episodes = append(episodes, n.ID)
			if project.IsZero() {
				project = n.Episode.Project
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", literal(r.titles[ref]))
	tool := k.source.Name()
	if s.ToolVersion != "" {
		tool += " " + s.ToolVersion
	}
	fmt.Fprintf(&b, "- Tool: %s\n", tool)
	fmt.Fprintf(&b, "- Session: `%s`\n", k.id)
	if p := projectLine(project); p != "" {
		fmt.Fprintf(&b, "- Project: %s\n", p)
	}
	if s.Model != "" {
		fmt.Fprintf(&b, "- Model: %s\n", s.Model)
	}
	if !start.IsZero() {
		fmt.Fprintf(&b, "- From %s to %s\n", stamp(start), stamp(end))
	}
	if s.File != "" {
		fmt.Fprintf(&b, "- Transcript: `%s`\n", s.File)
	}
	var decisionLinks, episodeLinks []string
	if len(decisions) > 0 {
		b.WriteString("\n## Decisions\n\n")
		for _, id := range decisions {
			fmt.Fprintf(&b, "- %s\n", r.link(id))
			decisionLinks = append(decisionLinks, r.prop(id))
		}
	}
	if len(episodes) > 0 {
		b.WriteString("\n## Edits\n\n")
		for _, id := range episodes {
			fmt.Fprintf(&b, "- %s (%s)\n", r.link(id), r.counts(id))
			episodeLinks = append(episodeLinks, r.prop(id))
		}
	}
	if len(convs) > 0 {
		b.WriteString("\n## Conversation\n")
		for _, c := range convs {
			for _, t := range c.Conversation.Turns {
				who := "person"
				if t.Role == "assistant" {
					who = "assistant"
				}
				when := ""
				if tt, ok := pipeline.ParseTime(t.Timestamp); ok {
					when = tt.UTC().Format("15:04:05") + " · "
				}
				fmt.Fprintf(&b, "\n### %s%s\n\n%s", when, who, quote(t.Text))
			}
		}
	}
	return &memories.Memory{
		ID: r.ids[ref], Title: r.titles[ref], Type: memories.TypeSession, Project: projectOf(project),
		Source: memories.SourceMined, Status: memories.StatusActive, Importance: memories.DefaultImportance,
		Created: start, Updated: end,
		Fields: []memories.Field{
			{Key: "tool", Value: string(k.source)},
			{Key: "session_id", Value: k.id},
			{Key: "model", Value: s.Model},
			{Key: "decisions", List: nonNil(decisionLinks)},
			{Key: "episodes", List: nonNil(episodeLinks)},
		},
		Provenance: memories.Provenance{
			SourceSession: k.id, SourceTool: string(k.source), SourcePath: s.File, DerivedFrom: ref,
		},
		Body: b.String(),
		Path: r.names[ref] + ".md",
	}
}

// sessionSubject names a session in its title: its first decision, else
// what it edited.
func (r *renderer) sessionSubject(k sessionKey) string {
	var files []string
	for _, n := range r.bySession[k] {
		switch n.Kind {
		case pipeline.KindDecision:
			return n.Decision.Epitome
		case pipeline.KindEpisode:
			if f := path.Base(strings.ReplaceAll(n.Episode.Path, "\\", "/")); !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
	}
	switch len(files) {
	case 1:
		return "edits to " + files[0]
	case 2:
		return "edits to " + files[0] + " and " + files[1]
	}
	return fmt.Sprintf("edits to %s and %d more files", files[0], len(files)-1)
}

// sessionStart is when the session began: as its events say, else its first
// node.
func (r *renderer) sessionStart(k sessionKey) time.Time {
	if s := r.sessions[k]; !s.Start.IsZero() {
		return s.Start
	}
	return nodeTime(r.bySession[k][0])
}

func (r *renderer) sessionEnd(k sessionKey) time.Time {
	if s := r.sessions[k]; !s.End.IsZero() {
		return s.End
	}
	ns := r.bySession[k]
	return nodeTime(ns[len(ns)-1])
}

// counts is an episode's "+added −removed".
func (r *renderer) counts(episodeID string) string {
	e := r.episodeByID[episodeID]
	if e == nil {
		return ""
	}
	return fmt.Sprintf("+%d −%d", e.Episode.Added, e.Episode.Removed)
}

// noteID is a mined note's id: a ULID of the time of what it records, whose
// random part is a hash of key — the same note, the same id, on every run
// and every machine.
func noteID(t time.Time, key string) string {
	sum := sha256.Sum256([]byte("cortex-mined:" + key))
	var u ulid.ULID
	ms := uint64(0)
	if t.After(time.Unix(0, 0)) && t.Before(ulid.Time(ulid.MaxTime())) {
		ms = ulid.Timestamp(t)
	}
	_ = u.SetTime(ms)
	_ = u.SetEntropy(sum[:10])
	return strings.ToLower(u.String())
}

// nodeTime is the time of a node's event, to the second (as note dates are).
func nodeTime(n *pipeline.Node) time.Time {
	ts := ""
	switch n.Kind {
	case pipeline.KindDecision:
		ts = n.Decision.Timestamp
	case pipeline.KindEpisode:
		ts = n.Episode.Timestamp
	case pipeline.KindConversation:
		ts = n.Conversation.Timestamp
	}
	t, _ := pipeline.ParseTime(ts)
	return t.UTC().Truncate(time.Second)
}

// projectOf is the memory project of a transcript's project: the name of its
// repository's folder, else of its working folder; "general" when neither
// makes a valid project name.
func projectOf(p transcript.Project) string {
	for _, dir := range []string{p.RepoRoot, p.Cwd} {
		dir = strings.TrimRight(strings.ReplaceAll(dir, "\\", "/"), "/")
		if dir == "" {
			continue
		}
		if v, err := memories.NormalizeScope("project", path.Base(dir)); err == nil && v != "" {
			return v
		}
	}
	return memories.DefaultProject
}

func projectLine(p transcript.Project) string {
	if p.IsZero() {
		return ""
	}
	s := projectOf(p)
	if dir := firstNonEmpty(p.RepoRoot, p.Cwd); dir != "" {
		s += " — `" + dir + "`"
	}
	if p.GitBranch != "" {
		s += ", branch " + p.GitBranch
	}
	if p.GitSHA != "" {
		s += " @ " + p.GitSHA[:min(12, len(p.GitSHA))]
	}
	return s
}

// relPath is an edited file's path inside its project, when it is inside.
func relPath(p string, proj transcript.Project) string {
	for _, dir := range []string{proj.RepoRoot, proj.Cwd} {
		if dir == "" {
			continue
		}
		dir = strings.TrimRight(dir, "/\\")
		if rest, ok := strings.CutPrefix(p, dir); ok && rest != "" && (rest[0] == '/' || rest[0] == '\\') {
			return rest[1:]
		}
	}
	return p
}

func opWord(op string) string {
	switch op {
	case transcript.OpCreate:
		return "Create"
	case transcript.OpDelete:
		return "Delete"
	case transcript.OpMove:
		return "Move"
	}
	return "Edit"
}

// quote renders text a person or an agent wrote as a markdown block quote,
// line by line, its [[…]] kept literal.
func quote(text string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(literal(text), "\n"), "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l == "" {
			b.WriteString(">\n")
			continue
		}
		b.WriteString("> " + l + "\n")
	}
	return b.String()
}

// fenceFor is a code fence longer than any run of backticks the text starts
// a line with.
func fenceFor(text string) string {
	longest := 0
	for _, l := range strings.Split(text, "\n") {
		n := len(l) - len(strings.TrimLeft(l, "`"))
		longest = max(longest, n)
	}
	return strings.Repeat("`", max(3, longest+1))
}

// oneLine makes a title: one line, at most n characters, cut at a word.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:.") + "…"
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "at an unknown time"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func dateOf(t time.Time) string {
	if t.IsZero() {
		return "undated"
	}
	return t.UTC().Format("2006-01-02")
}

func gap(seconds float64) string {
	if seconds < 1 {
		return "under a second"
	}
	d := time.Duration(seconds * float64(time.Second)).Round(time.Second)
	return d.String()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// literal makes the [[…]] and ![[…]] of text a person or an agent wrote
// show as written. In Obsidian they would be links and embeds of notes the
// vault does not have (a person's "[[S:turn1]]", a model quoting wiki
// syntax): each goes into an inline code span, which Obsidian shows
// verbatim and takes no link from. The links cortex makes are written
// around the text, never through literal. Brackets already inside code —
// a code span or a fenced block — are left as they are.
func literal(text string) string {
	if !strings.Contains(text, "[[") {
		return text
	}
	var b strings.Builder
	fence := ""
	for _, line := range strings.SplitAfter(text, "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			b.WriteString(line)
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
			b.WriteString(line)
		default:
			b.WriteString(literalLine(line))
		}
	}
	return b.String()
}

// literalLine puts each [[…]] of a line outside code spans into a code span.
func literalLine(line string) string {
	var b strings.Builder
	// loose holds the lengths of the backtick runs left literal so far (no
	// run closes them): a code span opened with one of these would close
	// it instead.
	loose := map[int]bool{}
	for i := 0; i < len(line); {
		switch {
		case line[i] == '`':
			// A code span runs to the next run of as many backticks; a
			// run with no match is literal backticks.
			n := runOf(line, i, '`')
			if end := closingRun(line, i+n, n); end >= 0 {
				b.WriteString(line[i : end+n])
				i = end + n
				continue
			}
			b.WriteString(line[i : i+n])
			loose[n] = true
			i += n
		case strings.HasPrefix(line[i:], "[[") || strings.HasPrefix(line[i:], "![["):
			open := i + strings.Index(line[i:], "[[")
			if end := strings.Index(line[open+2:], "]]"); end >= 0 {
				stop := open + 2 + end + 2
				// A backtick next to the span would join its fence.
				if strings.HasSuffix(b.String(), "`") {
					b.WriteByte(' ')
				}
				b.WriteString(codeSpan(line[i:stop], loose))
				if stop < len(line) && line[stop] == '`' {
					b.WriteByte(' ')
				}
				i = stop
				continue
			}
			b.WriteString(line[i : open+2])
			i = open + 2
		default:
			b.WriteByte(line[i])
			i++
		}
	}
	return b.String()
}

// runOf is the length of the run of c at line[i:].
func runOf(line string, i int, c byte) int {
	n := 0
	for i+n < len(line) && line[i+n] == c {
		n++
	}
	return n
}

// closingRun finds, from line[from:], a run of exactly n backticks; -1 when
// there is none.
func closingRun(line string, from, n int) int {
	for j := from; j < len(line); {
		if line[j] != '`' {
			j++
			continue
		}
		m := runOf(line, j, '`')
		if m == n {
			return j
		}
		j += m
	}
	return -1
}

// codeSpan is s (which starts with "[[" or "![[" and ends with "]]") as an
// inline code span: fenced by a run of backticks longer than any in it and
// of none of the lengths in avoid.
func codeSpan(s string, avoid map[int]bool) string {
	longest := 0
	for i := 0; i < len(s); {
		if s[i] == '`' {
			n := runOf(s, i, '`')
			longest = max(longest, n)
			i += n
			continue
		}
		i++
	}
	k := longest + 1
	for avoid[k] {
		k++
	}
	fence := strings.Repeat("`", k)
	return fence + s + fence
}
