package transcripts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cortexmem/cortex/adapters"
	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

// Limits of a search (SPEC §4.11).
const (
	DefaultLimit = 5
	MaxLimit     = 20
	// MaxQueryChars bounds a query, as recall's does.
	MaxQueryChars = 500
)

// EmptyMessage is what a search that finds nothing says.
const EmptyMessage = "No matching sessions"

// Request is a search of the transcripts.
type Request struct {
	Query string
	// Filters: the tool (any name transcript.ParseSource takes); the
	// project, by name (a folder or repository name) or by path (a folder
	// the session worked in or under: it holds a path separator or starts
	// with ~ or .); exchanges begun since then (7d, 12h, 2w, 90m, a date
	// or an RFC 3339 time); a session id or a prefix of one.
	Tool    string
	Project string
	Since   string
	Session string
	// Limit is how many results, 1 to MaxLimit; 0 is DefaultLimit.
	Limit int
	// AllExchanges returns every matching exchange rather than the best
	// one of each session.
	AllExchanges bool
	// NoSync searches the index as it stands, without bringing it up to
	// date first.
	NoSync bool
}

// Result is what a search found. It is also the answer's shape on both
// transports: what cortex transcripts search --json prints and what the MCP
// tool transcript_search returns as its structured content, so a script and
// an agent read the same fields; the jsonschema tags describe them to a
// model.
type Result struct {
	Query string `json:"query" jsonschema:"the query, as searched"`
	Count int    `json:"count" jsonschema:"how many exchanges were found"`
	Hits  []Hit  `json:"results" jsonschema:"the exchanges found, best first"`
	// Message is EmptyMessage and the query when nothing matched.
	Message string `json:"message,omitempty" jsonschema:"set when nothing matched: No matching sessions for: <query>"`
	// Sync is what bringing the index up to date did first.
	Sync *SyncReport `json:"-"`
	// Documents is how many documents the index searched holds: when it
	// holds none, no other search of it can find anything either.
	Documents uint64 `json:"-"`
}

// Hit is one exchange found.
type Hit struct {
	// ID is the exchange's id in the index (a key of its file's path and
	// the offset of its first record): not shown, since it differs from
	// one machine to the next; File and Offset say the same.
	ID        string    `json:"-"`
	Tool      string    `json:"tool" jsonschema:"the agent tool that wrote the session: claude-code, codex, gemini-cli, cursor, opencode or zed"`
	Session   string    `json:"session" jsonschema:"the session's id"`
	Agent     string    `json:"agent,omitempty" jsonschema:"the subagent whose conversation it is, when it is one"`
	Kind      string    `json:"kind" jsonschema:"exchange (a turn the person typed and the agent's reply up to the next one) or compaction (a summary the tool wrote when its context filled up)"`
	Rewound   bool      `json:"rewound,omitempty" jsonschema:"true when the person went back from this exchange (rewind, undo): it is not part of the conversation as it stands"`
	Sidechain bool      `json:"sidechain,omitempty" jsonschema:"true for a side conversation the tool ran beside the main one"`
	Time      time.Time `json:"time,omitzero" jsonschema:"when the exchange began"`
	// Project is the project's name (the repository's or the folder's);
	// Cwd and Branch where the session worked.
	Project string `json:"project,omitempty" jsonschema:"the project's name (repository or folder)"`
	Cwd     string `json:"cwd,omitempty" jsonschema:"the folder the session worked in"`
	Branch  string `json:"branch,omitempty" jsonschema:"the git branch the session worked on"`
	// User and Reply are the exchange, trimmed; Snippet the part of it that
	// matched, the query's terms marked **like this**.
	User    string   `json:"user" jsonschema:"what the person typed, trimmed"`
	Reply   string   `json:"reply" jsonschema:"what the agent answered (and what failed tools said), trimmed"`
	Snippet string   `json:"snippet,omitempty" jsonschema:"the part of the exchange that matched, the query's words marked **like this**"`
	Tools   []string `json:"tools,omitempty" jsonschema:"the tools the agent called"`
	Paths   []string `json:"paths,omitempty" jsonschema:"the files it read or edited"`
	// File and Line point at the exchange's first record (Offset in bytes;
	// Pointer inside a document a tool rewrites whole); EndLine at its
	// last.
	File    string  `json:"file" jsonschema:"the transcript file"`
	Line    int     `json:"line,omitempty" jsonschema:"the line of the transcript where the exchange starts (absent for a tool that rewrites one JSON document)"`
	EndLine int     `json:"end_line,omitempty" jsonschema:"the line where it ends"`
	Offset  int64   `json:"offset" jsonschema:"the byte offset of its first record in the file"`
	Pointer string  `json:"pointer,omitempty" jsonschema:"for a transcript that is one JSON document, the JSON pointer of the exchange's first message"`
	Score   float64 `json:"score" jsonschema:"relevance blended with recency, 0 to 1"`
}

// Ranking weighs the signals of a search.
type Ranking struct {
	Boosts index.TranscriptBoosts
	// Recency is the weight of recency in the blend (relevance has the
	// rest); HalfLife the age at which recency is one half.
	Recency  float64
	HalfLife time.Duration
	// Rewound and Compaction scale the relevance of an exchange on an
	// abandoned branch and of a compaction summary, so that on a tie the
	// conversation as it stands comes first.
	Rewound    float64
	Compaction float64
	// Candidates is how many hits per result the index is asked for, before
	// one per session is kept.
	Candidates int
}

// DefaultRanking is the ranking of searches.
func DefaultRanking() Ranking {
	return Ranking{
		Boosts:  index.TranscriptBoosts{User: 0.6, Paths: 1.0, Tools: 0.5, Exact: 1.5},
		Recency: 0.1, HalfLife: 14 * 24 * time.Hour,
		Rewound: 0.8, Compaction: 0.9, Candidates: 10,
	}
}

// QueryTerms are the words a search of query looks for in the exchanges'
// texts; none when the query holds only words too common to search for.
func QueryTerms(query string) []string { return index.TranscriptQueryTerms(query) }

// query checks a request and turns it into the index's filters.
func (s *Service) query(r *Request) (index.TranscriptQuery, int, error) {
	var q index.TranscriptQuery
	r.Query = strings.TrimSpace(r.Query)
	switch {
	case r.Query == "":
		return q, 0, &memories.ArgError{Arg: "query", Rule: "give the words to search for"}
	case utf8.RuneCountInString(r.Query) > MaxQueryChars:
		return q, 0, &memories.ArgError{Arg: "query", Rule: fmt.Sprintf("is %d characters; the maximum is %d", utf8.RuneCountInString(r.Query), MaxQueryChars)}
	case !utf8.ValidString(r.Query):
		return q, 0, &memories.ArgError{Arg: "query", Rule: "is not valid UTF-8"}
	}
	limit := r.Limit
	switch {
	case limit == 0:
		limit = DefaultLimit
	case limit < 1 || limit > MaxLimit:
		return q, 0, &memories.ArgError{Arg: "limit", Rule: fmt.Sprintf("is %d; it must be from 1 to %d", limit, MaxLimit)}
	}
	q.Text = r.Query
	if t := strings.TrimSpace(r.Tool); t != "" {
		k, ok := transcript.ParseSource(t)
		if !ok {
			return q, 0, &memories.ArgError{Arg: "tool", Rule: fmt.Sprintf("unknown tool %q (tools read: %s)", t, strings.Join(scribe.Tools(), ", "))}
		}
		if _, ok := adapters.For(k); !ok {
			return q, 0, &memories.ArgError{Arg: "tool", Rule: fmt.Sprintf("cortex does not read %s transcripts yet (tools read: %s)", k.Name(), strings.Join(scribe.Tools(), ", "))}
		}
		q.Tool = string(k)
	}
	if p := strings.TrimSpace(r.Project); p != "" {
		if strings.ContainsAny(p, `/\`) || strings.HasPrefix(p, "~") || strings.HasPrefix(p, ".") {
			dir, err := s.absPath(p)
			if err != nil {
				return q, 0, &memories.ArgError{Arg: "project", Rule: err.Error()}
			}
			q.Dirs = []string{dir}
		} else {
			q.Projects = []string{strings.ToLower(p)}
		}
	} else if r.Project != "" {
		return q, 0, &memories.ArgError{Arg: "project", Rule: "is blank"}
	}
	if sid := strings.TrimSpace(r.Session); sid != "" {
		q.Session = sid
	} else if r.Session != "" {
		return q, 0, &memories.ArgError{Arg: "session", Rule: "is blank"}
	}
	if since := strings.TrimSpace(r.Since); since != "" {
		t, err := memories.ParseSince(since, s.o.Now())
		if err != nil {
			return q, 0, err
		}
		q.Since = t
	}
	return q, limit, nil
}

// absPath is a path a person gave, "~" expanded, made absolute and clean.
func (s *Service) absPath(p string) (string, error) {
	home := s.o.Selection.Env.Home
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		if home == "" {
			return "", fmt.Errorf("%q starts with ~ but the home folder is unknown", p)
		}
		p = filepath.Join(home, p[1:])
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.Clean(abs), nil
}

// Search brings the index up to date (unless r.NoSync) and searches it.
func (s *Service) Search(ctx context.Context, r Request) (*Result, error) {
	return s.SearchRanked(ctx, r, DefaultRanking())
}

// SearchRanked is Search with another ranking (for evaluation).
func (s *Service) SearchRanked(ctx context.Context, r Request, rk Ranking) (*Result, error) {
	q, limit, err := s.query(&r)
	if err != nil {
		return nil, err
	}
	res := &Result{Query: r.Query, Hits: []Hit{}}
	if !r.NoSync {
		if res.Sync, err = s.Sync(ctx); err != nil {
			return nil, err
		}
	}
	q.Boosts = rk.Boosts
	q.Size = max(50, limit*rk.Candidates)
	q.MetaOnly = true
	terms := index.TranscriptQueryTerms(r.Query)
	err = s.withIndex(ctx, func(idx *index.TranscriptIndex) error {
		n, err := idx.DocCount()
		if err != nil {
			return err
		}
		res.Documents = n
		hits, err := idx.Search(ctx, q)
		if err == nil && len(terms) >= 2 && len(collapse(hits, docOfHit, limit, r.AllExchanges)) < limit {
			q.AnyTerm = true
			hits, err = idx.Search(ctx, q)
		}
		if err != nil {
			return err
		}
		// Rank the candidates by what their metadata says, then load the
		// texts of the few kept.
		kept := collapse(rank(hits, rk, s.o.Now()), docOfRanked, limit, r.AllExchanges)
		ids := make([]string, len(kept))
		for i, h := range kept {
			ids[i] = h.Doc.ID
		}
		docs, err := idx.Docs(ctx, ids)
		if err != nil {
			return err
		}
		byID := make(map[string]index.TranscriptDoc, len(docs))
		for _, d := range docs {
			byID[d.ID] = d
		}
		for _, h := range kept {
			if d, ok := byID[h.Doc.ID]; ok {
				h.Doc = d
			}
			res.Hits = append(res.Hits, hitOf(h.TranscriptHit, h.final, terms))
		}
		return nil
	})
	if errors.Is(err, index.ErrEmptyQuery) {
		return nil, &memories.ArgError{Arg: "query", Rule: fmt.Sprintf("%q has no word to search for (only common words or punctuation)", r.Query)}
	}
	if err != nil {
		return nil, err
	}
	res.Count = len(res.Hits)
	if res.Count == 0 {
		res.Message = EmptyMessage + " for: " + res.Query
	}
	return res, nil
}

// withIndex runs fn on the live index opened read-only, under the shared
// index lock; a damaged index is rebuilt once.
func (s *Service) withIndex(ctx context.Context, fn func(*index.TranscriptIndex) error) error {
	for attempt := 0; ; attempt++ {
		err := s.readIndex(ctx, fn)
		var ce *index.CorruptError
		var se *corruptError
		if attempt > 0 || !(errors.As(err, &ce) || errors.As(err, &se) || errors.Is(err, errNoIndex)) {
			return err
		}
		if _, err := s.Rebuild(ctx); err != nil {
			return err
		}
	}
}

func (s *Service) readIndex(ctx context.Context, fn func(*index.TranscriptIndex) error) (err error) {
	il, err := s.lock(ctx, indexLock, true)
	if err != nil {
		return err
	}
	defer func() {
		if rerr := il.Release(); err == nil {
			err = rerr
		}
	}()
	gen, err := current(s.o.Dir)
	if err != nil {
		return err
	}
	idx, err := index.OpenTranscriptIndex(filepath.Join(gen, bleveDir), true)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := idx.Close(); err == nil {
			err = cerr
		}
	}()
	return fn(idx)
}

// ranked is a hit and its blended score.
type ranked struct {
	index.TranscriptHit
	final float64
}

// rank blends each hit's relevance (its BM25 score over the best one's)
// with its recency, and sorts them best first.
func rank(hits []index.TranscriptHit, rk Ranking, now time.Time) []ranked {
	top := 0.0
	for _, h := range hits {
		top = max(top, h.Score)
	}
	out := make([]ranked, len(hits))
	for i, h := range hits {
		rel := 0.0
		if top > 0 {
			rel = h.Score / top
		}
		if h.Doc.Rewound && rk.Rewound > 0 {
			rel *= rk.Rewound
		}
		if h.Doc.Kind == index.KindCompaction && rk.Compaction > 0 {
			rel *= rk.Compaction
		}
		rec := 0.0
		if !h.Doc.Time.IsZero() && rk.HalfLife > 0 {
			age := max(0, now.Sub(h.Doc.Time))
			rec = math.Exp2(-float64(age) / float64(rk.HalfLife))
		}
		out[i] = ranked{TranscriptHit: h, final: (1-rk.Recency)*rel + rk.Recency*rec}
	}
	slices.SortStableFunc(out, func(a, b ranked) int {
		switch {
		case a.final != b.final:
			if a.final > b.final {
				return -1
			}
			return 1
		case !a.Doc.Time.Equal(b.Doc.Time):
			if a.Doc.Time.After(b.Doc.Time) {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Doc.ID, b.Doc.ID)
	})
	return out
}

// collapse keeps, in order, the first hit of each session (every hit with
// all) and drops copies of an exchange another file already gave (a resumed
// session replays its parent's records), up to limit. A session's best hit
// is taken from the conversation as it stands: an exchange on a rewound
// branch stands for its session only when no other of its exchanges
// matched.
func collapse[H any](hits []H, doc func(*H) *index.TranscriptDoc, limit int, all bool) []H {
	var out []H
	key := func(d *index.TranscriptDoc) string { return d.Tool + "\x00" + d.Session }
	standing := map[string]bool{}
	for i := range hits {
		if d := doc(&hits[i]); !d.Rewound {
			standing[key(d)] = true
		}
	}
	sessions := map[string]bool{}
	dups := map[string]bool{}
	for i := range hits {
		h := hits[i]
		d := doc(&h)
		if d.Dup != "" {
			if dups[d.Dup] {
				continue
			}
			dups[d.Dup] = true
		}
		if !all {
			k := key(d)
			if sessions[k] || d.Rewound && standing[k] {
				continue
			}
			sessions[k] = true
		}
		out = append(out, h)
		if len(out) == limit {
			break
		}
	}
	return out
}

func docOfHit(h *index.TranscriptHit) *index.TranscriptDoc { return &h.Doc }
func docOfRanked(r *ranked) *index.TranscriptDoc           { return &r.Doc }

// hitOf is the result a person reads.
func hitOf(h index.TranscriptHit, score float64, terms []string) Hit {
	d := h.Doc
	out := Hit{
		ID: d.ID, Tool: d.Tool, Session: d.Session, Agent: d.Agent, Kind: d.Kind, Rewound: d.Rewound,
		Sidechain: d.Sidechain, Time: d.Time, Project: projectName(d), Cwd: d.Cwd, Branch: d.Branch,
		User: excerpt(d.User, 400), Reply: excerpt(d.Reply, 600), Tools: d.Tools, Paths: d.Paths,
		File: d.File, Line: d.Line, EndLine: d.EndLine, Offset: d.Offset, Pointer: d.Pointer,
		Score: math.Round(score*1e4) / 1e4,
	}
	out.Snippet = snippet(d, terms)
	return out
}

// projectName is the name a person knows the project by: the repository
// root's folder, else the working folder's.
func projectName(d index.TranscriptDoc) string {
	for _, p := range []string{d.RepoRoot, d.Cwd} {
		if p != "" {
			return filepath.Base(filepath.Clean(p))
		}
	}
	return ""
}

// excerpt shortens text to about n bytes on a word boundary.
func excerpt(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexAny(s[:cut], " \n"); i > n/2 {
		cut = i
	}
	return strings.TrimRight(s[:cut], " \n,.;:") + " …"
}

// snippetBytes is about how long a snippet is.
const snippetBytes = 260

// snippet is the window of the agent's side of the exchange (its replies,
// else the files it touched) holding the most distinct query terms, the
// terms marked **like this**; "" when none is there (the person's words
// matched, which results show whole).
func snippet(d index.TranscriptDoc, terms []string) string {
	want := make(map[string]bool, len(terms))
	for _, t := range terms {
		want[t] = true
	}
	best, bestText := window{}, ""
	for _, text := range []string{d.Reply, strings.Join(d.Paths, "\n")} {
		if text == "" {
			continue
		}
		w := bestWindow(text, want)
		if w.distinct > best.distinct {
			best, bestText = w, text
		}
	}
	if best.distinct == 0 {
		return ""
	}
	return mark(bestText, best)
}

type window struct {
	start, end int   // bytes of the text
	hits       []int // indices into toks of the matches in it
	toks       []index.Token
	distinct   int
}

// bestWindow finds the snippet-long stretch of text with the most distinct
// wanted terms (the first such).
func bestWindow(text string, want map[string]bool) window {
	toks := index.TranscriptTokens(text)
	var match []int
	for i, t := range toks {
		if want[t.Term] {
			match = append(match, i)
		}
	}
	best := window{toks: toks}
	for i := range match {
		seen := map[string]bool{}
		var in []int
		for j := i; j < len(match) && toks[match[j]].End-toks[match[i]].Start <= snippetBytes; j++ {
			seen[toks[match[j]].Term] = true
			in = append(in, match[j])
		}
		if len(seen) > best.distinct {
			best.distinct, best.hits = len(seen), in
		}
	}
	if best.distinct == 0 {
		return best
	}
	first, last := toks[best.hits[0]], toks[best.hits[len(best.hits)-1]]
	pad := max(0, (snippetBytes-(last.End-first.Start))/2)
	best.start, best.end = max(0, first.Start-pad), min(len(text), last.End+pad)
	for best.start > 0 && !utf8.RuneStart(text[best.start]) {
		best.start--
	}
	for best.end < len(text) && !utf8.RuneStart(text[best.end]) {
		best.end++
	}
	// Start and end on word boundaries.
	if best.start > 0 {
		if i := strings.IndexAny(text[best.start:first.Start], " \n"); i >= 0 {
			best.start += i + 1
		}
	}
	if best.end < len(text) {
		if i := strings.LastIndexAny(text[last.End:best.end], " \n"); i >= 0 {
			best.end = last.End + i
		}
	}
	return best
}

// mark renders the window with its matches between ** and **; matches
// joined by punctuation alone (src/auth/jwt.go) are marked as one.
func mark(text string, w window) string {
	var b strings.Builder
	if w.start > 0 {
		b.WriteString("… ")
	}
	at := w.start
	for i := 0; i < len(w.hits); i++ {
		t := w.toks[w.hits[i]]
		end := t.End
		for i+1 < len(w.hits) {
			next := w.toks[w.hits[i+1]]
			gap := text[end:next.Start]
			if len(gap) > 2 || strings.ContainsAny(gap, " \t\n") {
				break
			}
			end = next.End
			i++
		}
		b.WriteString(text[at:t.Start])
		b.WriteString("**")
		b.WriteString(text[t.Start:end])
		b.WriteString("**")
		at = end
	}
	b.WriteString(text[at:w.end])
	if w.end < len(text) {
		b.WriteString(" …")
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
