package memories

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cortexmem/cortex/dedup"
)

// Recall limits.
const (
	DefaultRecallLimit = 10
	MaxRecallLimit     = 50
	MaxQueryChars      = 500
	// candidateFactor × limit candidates (at least minCandidates) are taken from
	// the index before the blend re-ranks them.
	candidateFactor = 5
	minCandidates   = 50
	// activeCandidates is how many of the most activated memories join the
	// candidates of a recall without a query, which otherwise are the most
	// recently updated.
	activeCandidates = 20
	// DefaultRecentDays is the window of the "recent" scope without --since.
	DefaultRecentDays = 7
)

// Neighbours: the memory of a project created just before another, within
// neighbourGap of it, is its neighbour: the turn a reply answers in an imported
// conversation, the note before it in one working session. A reply such as
// "Yes, we reassured them, they were scared" says what it is about only in the
// turn before it, so a memory that matches the query less than the one before
// it is lent neighbourShare of the difference: context lifts it towards its
// neighbour, never past it. Memories saved days apart lend nothing. (Lending
// from the memory after it as well was measured: it lifts the turns that
// follow every good match, and costs more than it gives.)
const (
	neighbourGap   = time.Hour
	neighbourShare = 0.35
	// neighbourSeeds is how many of the best candidates (those scoring at
	// least half the best) lend to the memory after them, and neighbourScan
	// how many memories around them are read at most.
	neighbourSeeds = 5
	neighbourScan  = 200
)

// Scopes that are not project or area names.
const (
	ScopeAll      = "all"
	ScopeRecent   = "recent"
	ScopeOpen     = "open"
	ScopeMeetings = "meetings"
	// ScopeMeeting prefixes a meeting's id: "meeting:01jn…".
	ScopeMeeting = "meeting:"
)

// RecallRequest asks for the memories that best answer a query, or, without
// one, the most useful memories of a scope.
type RecallRequest struct {
	Query string
	// Project keeps the memories of this project and of "general".
	Project string
	// Scope is a project name (L0), an area name (L1), "recent", "open",
	// "meetings", "meeting:<id>" or "all".
	Scope string
	// Since keeps memories updated within a duration ("7d", "12h", "2w") or
	// since a date ("2026-11-01").
	Since string
	Type  string
	// Tags keeps memories that have every one of them.
	Tags              []string
	Limit             int
	IncludeSuperseded bool
	// Source is the access source recorded for what is returned: recall
	// unless a hook or context assembly says otherwise.
	Source string
	// NoAccess records nothing: for a caller that shows only some of what
	// it recalls and records those itself (RecordAccess), as context
	// assembly does once its budget has chosen.
	NoAccess bool
}

// Recalled is one recalled memory with its score and the signals behind it.
type Recalled struct {
	Memory  *Memory
	ShortID string
	Score   float64
	Signals Signals
	// Weights are the effective weights of the blend (see Ranking.Effective).
	Weights Weights
	// Related marks a memory appended because a result links to it; Via is
	// the id of that result.
	Related bool
	Via     string
}

// RecallResult is the answer to a RecallRequest, best first, then the related
// memories.
type RecallResult struct {
	Query   string
	Project string
	Scope   string
	// Tags are the tags asked for, normalised.
	Tags    []string
	Results []Recalled
}

// EmptyMessage is what recall says when nothing matched.
func (r *RecallResult) EmptyMessage() string {
	switch {
	case r.Query != "":
		return "No memories found for: " + r.Query
	case r.Scope != "":
		return "No memories in scope: " + r.Scope
	case r.Project != "":
		return "No memories found in project: " + r.Project
	case len(r.Tags) > 0:
		return "No memories found with tags: " + strings.Join(r.Tags, ", ")
	}
	return "No memories found for the filters given"
}

// recallPlan is a validated request.
type recallPlan struct {
	search SearchRequest
	limit  int
	// scopeName is a scope that may name a project or an area.
	scopeName string
	// meeting is the id (or prefix) of a meeting scope.
	meeting string
	source  string
}

// Recall finds the memories that best answer req: candidates from the full-text
// index, re-ranked by the blend of relevance, recency, activation and
// importance, then the memories the results link to as related. Every memory
// returned is recorded in the access log.
func (s *Service) Recall(ctx context.Context, req RecallRequest) (*RecallResult, error) {
	p, res, err := s.startRecall(&req)
	if err != nil {
		return nil, err
	}
	err = s.backend.View(ctx, func(snap Snapshot) error {
		return s.recall(ctx, snap, p, res)
	})
	if err != nil {
		return nil, err
	}
	if !req.NoAccess {
		s.recordAccess(ctx, res.Results, p.source)
	}
	return res, nil
}

// startRecall plans req and makes the result its answer fills in: what
// Recall and RecallIn do before they look at the store.
func (s *Service) startRecall(req *RecallRequest) (*recallPlan, *RecallResult, error) {
	p, err := s.planRecall(req)
	if err != nil {
		return nil, nil, err
	}
	res := &RecallResult{Query: p.search.Text, Project: p.search.Project, Scope: req.Scope, Tags: p.search.Tags}
	if len(p.search.Projects) > 0 && res.Project == "" {
		res.Project = p.search.Projects[0]
	}
	return p, res, nil
}

func (s *Service) recall(ctx context.Context, snap Snapshot, p *recallPlan, res *RecallResult) error {
	var hits []Hit
	var err error
	listedAll := false // hits are every memory that passes the filters
	switch {
	case p.meeting != "":
		hits, err = meetingHits(ctx, snap, p)
	case p.scopeName != "":
		if err := resolveScopeName(ctx, snap, p); err != nil {
			return err
		}
		fallthrough
	default:
		hits, listedAll, err = s.candidates(ctx, snap, p.search)
	}
	if err != nil {
		return err
	}
	hasQuery := p.search.Text != ""
	if hasQuery && p.meeting == "" && s.ranking.On(FeaturePassages) {
		if hits, err = scorePassages(ctx, snap, p.search.Text, hits, p.limit); err != nil {
			return err
		}
	}
	if hasQuery && p.meeting == "" && s.ranking.On(FeatureNeighbours) {
		if hits, err = lendNeighbours(ctx, snap, p.search, hits); err != nil {
			return err
		}
	}
	// Every memory that passes the filters is a candidate already when
	// the catalog listed them all: none the access log activates is left
	// to add.
	if !hasQuery && s.access != nil && p.meeting == "" && !listedAll {
		if hits, err = s.addActivated(ctx, snap, p.search, hits); err != nil {
			return err
		}
	}
	stats := s.accessStats(ctx, hits)
	ranked := s.rank(hits, stats, hasQuery)
	shown := make(map[string]bool, p.limit)
	for _, r := range ranked {
		if len(res.Results) == p.limit {
			break
		}
		m, err := snap.Load(ctx, r.hit.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted since it was indexed; the next sync drops it
		}
		if err != nil {
			return err
		}
		// The index's id is the memory's identity: a copied note carries its
		// original's id in its file but is known by another.
		m.ID = r.hit.ID
		shown[m.ID] = true
		res.Results = append(res.Results, Recalled{Memory: m, ShortID: snap.ShortID(m.ID), Score: r.score,
			Signals: r.signals, Weights: s.ranking.Effective(hasQuery)})
	}
	return s.appendRelated(ctx, snap, p, res, shown, hasQuery)
}

// planRecall validates req and builds the search it asks for.
func (s *Service) planRecall(req *RecallRequest) (*recallPlan, error) {
	p := &recallPlan{}
	q := &p.search
	text := strings.TrimSpace(req.Query)
	if !utf8.ValidString(text) {
		return nil, invalid("query", "must be valid UTF-8 text")
	}
	if n := utf8.RuneCountInString(text); n > MaxQueryChars {
		return nil, invalid("query", "is %d characters; the maximum is %d", n, MaxQueryChars)
	}
	project, err := NormalizeScope("project", req.Project)
	if err != nil {
		return nil, err
	}
	scope := strings.TrimSpace(req.Scope)
	if project != "" {
		q.Projects = withGeneral(project)
	}
	now := s.now()
	switch low := strings.ToLower(scope); {
	case scope == "", low == ScopeAll:
	case low == ScopeRecent:
		q.UpdatedSince = now.AddDate(0, 0, -DefaultRecentDays)
	case low == ScopeOpen:
		q.Status = StatusOpen
	case low == ScopeMeetings:
		q.Type = TypeMeeting
	case strings.HasPrefix(low, ScopeMeeting):
		id := NormalizeID(scope[len(ScopeMeeting):])
		if len(id) < MinPrefix {
			return nil, invalid("scope", "%q: a meeting scope is meeting:<id>, with at least %d characters of the id", scope, MinPrefix)
		}
		p.meeting = id
	default:
		name, err := NormalizeScope("scope", scope)
		if err != nil {
			return nil, invalid("scope", "%q is not a project or area name, nor one of all, recent, open, meetings, meeting:<id>", scope)
		}
		p.scopeName = name
	}
	if req.Since != "" {
		t, err := ParseSince(req.Since, now)
		if err != nil {
			return nil, err
		}
		q.UpdatedSince = t
	}
	if req.Type != "" {
		t, err := ParseType(req.Type)
		if err != nil {
			return nil, err
		}
		if q.Type != "" && q.Type != t {
			return nil, invalid("type", "%s contradicts the scope %s, which keeps %s memories", t, scope, q.Type)
		}
		q.Type = t
	}
	if q.Tags, err = NormalizeTags(req.Tags); err != nil {
		return nil, err
	}
	if len(q.Tags) == 0 {
		q.Tags = nil
	}
	// Without a query, a filter says what to recall: a scope, or tags, a
	// type or a window over every project.
	if text == "" && project == "" && scope == "" && q.Tags == nil && req.Type == "" && req.Since == "" {
		return nil, invalid("query", "give a query, or a project, scope, tags, type or since to recall from")
	}
	switch {
	case req.Limit == 0:
		p.limit = DefaultRecallLimit
	default:
		if err := CheckRange("limit", req.Limit, 1, MaxRecallLimit); err != nil {
			return nil, err
		}
		p.limit = req.Limit
	}
	p.source = req.Source
	if p.source == "" {
		p.source = AccessRecall
	}
	q.Text = text
	if s.ranking.On(FeatureSynonyms) {
		q.Synonyms = dedup.Synonyms(text)
	}
	q.Phrases = text != "" && s.ranking.On(FeaturePhrases)
	q.Compounds = text != "" && s.ranking.On(FeatureCompounds)
	if text != "" && s.ranking.On(FeatureLengthNorm) {
		q.K1, q.B = ShortNotesK1, ShortNotesB
	}
	q.IncludeSuperseded = req.IncludeSuperseded
	q.Size = max(p.limit*candidateFactor, minCandidates)
	return p, nil
}

// withGeneral is a project and general, whose memories hold for every project.
func withGeneral(project string) []string {
	if project == DefaultProject {
		return []string{project}
	}
	return []string{project, DefaultProject}
}

// ParseSince reads a --since value: a duration back from now in minutes,
// hours, days or weeks ("90m", "12h", "7d", "2w"), or a date or time ("2026-11-01",
// RFC 3339).
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	bad := invalid("since", "%q is not a duration such as 7d, 12h, 2w or 90m, nor a date such as 2026-11-01", s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, time.Local); err == nil {
		return t, nil
	}
	if len(s) < 2 {
		return time.Time{}, bad
	}
	n := 0
	for _, c := range s[:len(s)-1] {
		if c < '0' || c > '9' || n > 1e6 {
			return time.Time{}, bad
		}
		n = n*10 + int(c-'0')
	}
	var unit time.Duration
	switch s[len(s)-1] {
	case 'm':
		unit = time.Minute
	case 'h':
		unit = time.Hour
	case 'd':
		unit = 24 * time.Hour
	case 'w':
		unit = 7 * 24 * time.Hour
	default:
		return time.Time{}, bad
	}
	if n == 0 {
		return time.Time{}, invalid("since", "%q is zero; give how far back to look, such as 7d", s)
	}
	return now.Add(-time.Duration(n) * unit), nil
}

// resolveScopeName makes a scope name a project filter (with general) when some
// memory has that project, and an area filter otherwise.
func resolveScopeName(ctx context.Context, snap Snapshot, p *recallPlan) error {
	name := p.scopeName
	probe := SearchRequest{Projects: []string{name}, IncludeSuperseded: true, Size: 1}
	hits, err := snap.Search(ctx, probe)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if len(hits) > 0 {
		p.search.Projects = intersectProjects(p.search.Projects, withGeneral(name))
		return nil
	}
	p.search.Area = name
	return nil
}

// intersectProjects combines a project filter with a scope's: both must hold.
func intersectProjects(have, scope []string) []string {
	if len(have) == 0 {
		return scope
	}
	var out []string
	for _, p := range have {
		for _, q := range scope {
			if p == q {
				out = append(out, p)
			}
		}
	}
	if len(out) == 0 {
		return []string{"\x00none"} // no project can pass both
	}
	return out
}

// candidates asks the index for the memories that have every word of the
// query and, unless they fill the whole candidate list, for those that have
// any word, those with more of the words scoring higher. A search for any word
// costs more; when a full list of memories has every word, a memory missing
// one would rank below them anyway. (Without FeatureAnyTerm the any-word
// search is made only when every word finds fewer than a page of results,
// which leaves out a memory missing one word as soon as ten have them all.)
func (s *Service) candidates(ctx context.Context, snap Snapshot, q SearchRequest) (_ []Hit, listedAll bool, _ error) {
	if _, ok := snap.(EntrySelector); ok && catalogAnswers(q) {
		// Without text the index orders by date alone: the catalog's
		// entries of the projects or area asked for answer the same, without
		// opening the index (the score of a hit is not used without text).
		// Through an EntrySearcher, only the entries kept are decoded:
		// the playbook's recalls of a project's conventions and decisions
		// keep a few dozen of its thousands of memories.
		hits, err := SearchEntriesWhere(snap, func(p, a, _ string) bool {
			return (q.Project == "" || p == q.Project) && (len(q.Projects) == 0 || containsString(q.Projects, p)) &&
				(q.Area == "" || a == q.Area)
		}, []SearchRequest{q})
		if err != nil {
			return nil, false, fmt.Errorf("search: %w", err)
		}
		// Fewer than asked for: every entry that passes the filters.
		return hits[0], len(hits[0]) < q.Size, nil
	}
	enough := q.Size
	if !s.ranking.On(FeatureAnyTerm) {
		enough = DefaultRecallLimit
	}
	retry := q.Text != "" && len(strings.Fields(q.Text)) >= 2
	every := q
	if retry {
		// Fewer than enough hits are not used: the search may stop as
		// soon as it knows there are too few.
		every.AtLeast = enough
	}
	hits, err := snap.Search(ctx, every)
	if err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	if !retry || len(hits) >= enough {
		return hits, false, nil
	}
	q.AnyTerm = true
	if s.ranking.On(FeatureRarest) && q.Rarest == 0 {
		long, err := longQuery(snap, q.Text)
		if err != nil {
			return nil, false, fmt.Errorf("search: %w", err)
		}
		if long {
			q.Rarest = anyTermRarest
		}
	}
	relaxed, err := snap.Search(ctx, q)
	if err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	return relaxed, false, nil
}

// A long query — a sentence pasted from a note or an error, a question in
// a script written without spaces, whose characters are words — had its
// search for any word score most of the vault: every note with one of
// thirty words, the commonest of them in most notes, and the search could
// not be pruned (a search of longWords words or more is not). Its search for
// any word now looks for its anyTermRarest rarest words (FeatureRarest): they
// find the notes its common ones would rank first. The query's pairs of
// neighbouring words, which say more of a sentence than its words, all
// still count. Measured as a known-item search over the real-shaped 10,000
// notes (300 sentences of twelve words or more from the notes; a hit is a
// result holding the sentence): hit@1 0.833 → 0.840, hit@5 0.887 → 0.890,
// 7.7 → 4.9 ms a recall; narrowed to 11 words 0.837 and 0.887 at 5.9 ms;
// keeping only the pairs of the words kept, 5 points of hit@5 lost. No query
// of the evaluation sets has that many words. (Narrowing every query of more
// than 8 words, which the development sets left as they were, lost one
// held-out question of 137, from first to second.)
const (
	longWords     = 12
	anyTermRarest = 8
)

// longQuery says whether text has longWords distinct terms or more, as the
// index analyses it; a snapshot that cannot say has none.
func longQuery(snap Snapshot, text string) (bool, error) {
	tc, ok := snap.(TermCounter)
	if !ok {
		return false, nil
	}
	ts, err := tc.Terms(text)
	if err != nil {
		return false, err
	}
	slices.Sort(ts)
	return len(slices.Compact(ts)) >= longWords, nil
}

// catalogAnswers says the catalog's entries answer q as the index does: no
// text, and only filters the catalog holds as the index matches them. The
// update time is one: both hold it to the second (a scope of recent, a
// --since).
func catalogAnswers(q SearchRequest) bool {
	return q.Text == "" && len(q.CreatedIn) == 0 && len(q.SourceHashes) == 0 && len(q.Tags) == 0
}

// lendNeighbours adds to a candidate's score neighbourShare of what the memory
// before it (see neighbourGap) scores more, when that memory is one of the
// best candidates. Memories the search did not find are not added: lending them
// relevance brought up notes that share no word with the query and were merely
// saved after a match (and, measured, found no more answers). hits are sorted
// best first; so is the result.
func lendNeighbours(ctx context.Context, snap Snapshot, q SearchRequest, hits []Hit) ([]Hit, error) {
	if len(hits) == 0 {
		return hits, nil
	}
	// Only a strong candidate lends: a weak match lends noise.
	best := hits[0].Score
	spans := make([]TimeSpan, 0, neighbourSeeds)
	for _, h := range hits[:min(len(hits), neighbourSeeds)] {
		if h.Score > 0 && h.Score >= best/2 {
			spans = append(spans, TimeSpan{From: h.Created.Add(-neighbourGap), To: h.Created.Add(neighbourGap)})
		}
	}
	spans = mergeSpans(spans)
	if len(spans) == 0 {
		return hits, nil
	}
	if !mayLend(hits) {
		// No two candidates could be neighbours: the search around the
		// seeds would lend nothing (at 100,000 notes it is a sixth of a
		// recall's work, and finds a pair in few of them).
		return lend(hits, nil), nil
	}
	return lendAround(ctx, snap, q, hits, spans)
}

// lendAround lends to hits what the memories created in spans say they are
// owed (see lendNeighbours).
func lendAround(ctx context.Context, snap Snapshot, q SearchRequest, hits []Hit, spans []TimeSpan) ([]Hit, error) {
	around := q
	around.Text, around.Synonyms, around.Phrases, around.Compounds, around.AnyTerm = "", nil, false, false, false
	around.CreatedIn, around.Size = spans, neighbourScan
	near, err := snap.Search(ctx, around)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	own := make(map[string]float64, len(hits))
	for _, h := range hits {
		own[h.ID] = h.Score
	}
	// A memory's neighbour is the one before it of the same project in
	// creation order; ids break ties in that order, since memories saved in
	// one batch share their time to the second and ids grow as they are minted.
	sort.Slice(near, func(i, j int) bool {
		a, b := near[i], near[j]
		if a.Project != b.Project {
			return a.Project < b.Project
		}
		if !a.Created.Equal(b.Created) {
			return a.Created.Before(b.Created)
		}
		return a.ID < b.ID
	})
	lent := make(map[string]float64)
	for i := 1; i < len(near); i++ {
		prev, e := near[i-1], near[i]
		if prev.Project == e.Project && e.Created.Sub(prev.Created) <= neighbourGap && own[prev.ID] > own[e.ID] {
			lent[e.ID] = neighbourShare * (own[prev.ID] - own[e.ID])
		}
	}
	return lend(hits, lent), nil
}

// lend adds to each hit what it is lent, best first.
func lend(hits []Hit, lent map[string]float64) []Hit {
	if len(lent) == 0 && inScoreOrder(hits) {
		return hits
	}
	out := slices.Clone(hits)
	for i := range out {
		out[i].Score += lent[out[i].ID]
	}
	sortByScore(out)
	return out
}

// inScoreOrder reports whether no hit scores more than the one before it.
func inScoreOrder(hits []Hit) bool {
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			return false
		}
	}
	return true
}

// sortByScore sorts hits best first, equal scores in their order, in
// place: what sort.SliceStable makes of them by score, with each hit moved
// once rather than swapped over and over (a Hit is a whole catalog entry).
func sortByScore(hits []Hit) {
	if inScoreOrder(hits) {
		return
	}
	order := make([]int, len(hits))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return hits[order[i]].Score > hits[order[j]].Score })
	permute(hits, order)
}

// permute puts s[order[i]] at i for every i, in place, moving each element
// once (along the cycles of order, which it uses up).
func permute[T any](s []T, order []int) {
	for i := range order {
		if order[i] < 0 {
			continue
		}
		held, j := s[i], i
		for {
			k := order[j]
			order[j] = -1
			if k == i {
				s[j] = held
				break
			}
			s[j], j = s[k], k
		}
	}
}

// mayLend reports whether lendNeighbours could lend anything to hits: a
// memory is lent only by the one before it, and only when both are
// candidates (a memory the search did not find scores 0 and lends nothing,
// and what it would be lent is not used), so some two candidates of one
// project must have been created within neighbourGap of each other. A
// candidate scoring below 0, which a memory not found would outscore, says
// yes.
func mayLend(hits []Hit) bool {
	// Only the project and time of each are sorted, not whole hits.
	type when struct {
		Project string
		Created time.Time
	}
	byTime := make([]when, 0, len(hits))
	for _, h := range hits {
		if h.Score < 0 {
			return true
		}
		byTime = append(byTime, when{h.Project, h.Created})
	}
	sort.Slice(byTime, func(i, j int) bool {
		a, b := byTime[i], byTime[j]
		if a.Project != b.Project {
			return a.Project < b.Project
		}
		return a.Created.Before(b.Created)
	})
	for i := 1; i < len(byTime); i++ {
		a, b := byTime[i-1], byTime[i]
		if a.Project == b.Project && b.Created.Sub(a.Created) <= neighbourGap {
			return true
		}
	}
	return false
}

// mergeSpans sorts spans and joins those that overlap.
func mergeSpans(spans []TimeSpan) []TimeSpan {
	sort.Slice(spans, func(i, j int) bool { return spans[i].From.Before(spans[j].From) })
	var out []TimeSpan
	for _, sp := range spans {
		if n := len(out); n > 0 && !sp.From.After(out[n-1].To) {
			if sp.To.After(out[n-1].To) {
				out[n-1].To = sp.To
			}
			continue
		}
		out = append(out, sp)
	}
	return out
}

// meetingHits are a meeting and the memories made from it (its action items and
// decisions, whose provenance names it).
func meetingHits(ctx context.Context, snap Snapshot, p *recallPlan) ([]Hit, error) {
	ids, err := snap.IDsWithPrefix(p.meeting, 2)
	if err != nil {
		return nil, err
	}
	switch {
	case len(ids) == 0:
		return nil, &NotFoundError{Ref: p.meeting}
	case len(ids) > 1:
		return nil, invalid("scope", "meeting:%s names more than one memory; give more of the id", p.meeting)
	}
	meeting, err := snap.Get(ids[0])
	if err != nil {
		return nil, err
	}
	if meeting.Type != TypeMeeting {
		return nil, invalid("scope", "meeting:%s is a %s, not a meeting", p.meeting, meeting.Type)
	}
	out := []Hit{{Entry: meeting}}
	q := p.search
	q.Text, q.Size = "", 1000
	hits, err := snap.Search(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	name := strings.TrimSuffix(path.Base(meeting.Path), ".md")
	for _, h := range hits {
		if h.ID == meeting.ID || h.Created.Before(meeting.Created) {
			continue
		}
		m, err := snap.Load(ctx, h.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if m.Provenance.DerivedFrom == meeting.ID || containsString(m.Related, name) {
			out = append(out, h)
		}
	}
	return out, nil
}

func containsString(ss []string, s string) bool {
	for _, v := range ss {
		if v == s {
			return true
		}
	}
	return false
}

// addActivated adds to the candidates of a recall without a query the most
// activated memories that pass its filters: without a query the index orders
// by date alone, and an old memory used every day must still be found.
func (s *Service) addActivated(ctx context.Context, snap Snapshot, q SearchRequest, hits []Hit) ([]Hit, error) {
	now := s.now()
	have := make(map[string]bool, len(hits))
	for _, h := range hits {
		have[h.ID] = true
	}
	// The activations are made as a briefing makes them (eachActivation:
	// from the log's tallies when it has them, with no map for each
	// memory), and a recall failing to read the log warns as it does.
	b := &briefStats{s: s}
	var acts []activeAct
	b.eachActivation(ctx, now, func(id string, a float64) {
		if a > 0 && !have[id] {
			acts = append(acts, activeAct{id, a})
		}
	})
	if b.failed {
		return hits, nil
	}
	// The filters are tested on entries looked at in place, most activated
	// first, until enough pass: with a selective filter every activated
	// memory may be looked at to add a few, and decoding each was half of
	// a briefing's time. The first activatedLooks are picked by a bounded
	// heap; the others are sorted only when too few of those pass.
	var pass []string
	look := func(acts []activeAct) error {
		return PeekByIDs(snap, idsOf(acts), func(id string, e *Entry) bool {
			if passes(*e, q) {
				pass = append(pass, id)
			}
			return len(pass) < activeCandidates
		})
	}
	top := activeTop{k: activatedLooks}
	for _, a := range acts {
		top.offer(a)
	}
	first := top.sorted()
	if err := look(first); err != nil {
		return nil, err
	}
	if len(pass) < activeCandidates && len(acts) > len(first) {
		// The heap's are the first of the whole order (before is strict:
		// ties go by id), so the rest follow them.
		slices.SortFunc(acts, compareActs)
		if err := look(acts[len(first):]); err != nil {
			return nil, err
		}
	}
	return appendHits(snap, hits, pass)
}

// activatedLooks is how many of the most activated memories a recall without
// a query picks before it sorts them all.
const activatedLooks = 256

// passes reports whether e passes the filters of q (all but the text).
func passes(e Entry, q SearchRequest) bool {
	switch {
	case q.Project != "" && e.Project != q.Project,
		len(q.Projects) > 0 && !containsString(q.Projects, e.Project),
		q.Area != "" && e.Area != q.Area,
		q.Type != "" && e.Type != q.Type,
		q.Status != "" && e.Status != q.Status,
		!q.UpdatedSince.IsZero() && e.Updated.Before(q.UpdatedSince),
		!q.IncludeSuperseded && !e.Live():
		return false
	}
	for _, t := range q.Tags {
		if !containsString(e.Tags, t) {
			return false
		}
	}
	return true
}

// accessStats reads the accesses of the candidates; without an access log, or
// when it cannot be read, every activation is 0.
func (s *Service) accessStats(ctx context.Context, hits []Hit) map[string]AccessStat {
	if s.access == nil || len(hits) == 0 {
		return nil
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	stats, err := s.access.Stats(ctx, ids)
	if err != nil {
		s.warn(fmt.Sprintf("access log: %v", err))
		return nil
	}
	return stats
}

// recordAccess notes that the results were shown. Failing to note it does not
// fail the recall: the answer is right, only a hint for later ones is lost.
func (s *Service) recordAccess(ctx context.Context, results []Recalled, source string) {
	if s.access == nil || len(results) == 0 {
		return
	}
	now := s.now().UTC()
	as := make([]Access, len(results))
	for i, r := range results {
		as[i] = Access{ID: r.Memory.ID, Time: now, Source: source}
	}
	if err := s.access.Record(ctx, as); err != nil {
		s.warn(fmt.Sprintf("access log: %v", err))
	}
}

// appendRelated appends, after the results, the memories they link to in their
// related property, until there are twice the limit.
func (s *Service) appendRelated(ctx context.Context, snap Snapshot, p *recallPlan, res *RecallResult, shown map[string]bool, hasQuery bool) error {
	limit := 2 * p.limit
	n := len(res.Results)
	var related []Recalled
	var entries []Entry
	for _, r := range res.Results[:n] {
		for _, name := range r.Memory.Related {
			if n+len(related) == limit {
				break
			}
			e, ok, err := resolveLink(snap, r.Memory, name)
			if err != nil {
				return err
			}
			if !ok || shown[e.ID] || !p.search.IncludeSuperseded && !e.Live() {
				continue
			}
			m, err := snap.Load(ctx, e.Path)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			m.ID = e.ID
			shown[e.ID] = true
			entries = append(entries, e)
			related = append(related, Recalled{Memory: m, ShortID: snap.ShortID(e.ID), Related: true, Via: r.Memory.ID})
		}
	}
	if len(related) == 0 {
		return nil
	}
	// Related memories are scored like the others, with no relevance: they
	// were not found by the query.
	hits := make([]Hit, len(entries))
	for i, e := range entries {
		hits[i] = Hit{Entry: e}
	}
	stats := s.accessStats(ctx, hits)
	now := s.now()
	for i := range related {
		sig := s.signals(entries[i], stats, now)
		related[i].Signals, related[i].Weights = sig, s.ranking.Effective(hasQuery)
		related[i].Score = s.ranking.Score(sig, hasQuery)
	}
	res.Results = append(res.Results, related...)
	return nil
}

// resolveLink finds the note a related link names: a note of the same folder,
// else of general's, as Obsidian would for the links cortex writes.
func resolveLink(snap Snapshot, from *Memory, name string) (Entry, bool, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, "/\\") {
		return Entry{}, false, nil
	}
	for _, dir := range []string{path.Dir(from.Path), "memories/" + DefaultProject} {
		e, ok, err := snap.ByPath(dir + "/" + name + ".md")
		if err != nil || ok {
			return e, ok, err
		}
	}
	return Entry{}, false, nil
}

type ranked struct {
	hit     Hit
	signals Signals
	score   float64
}

// signals are the signals of e apart from relevance. Recency counts from the
// last update or the last access, whichever is later.
func (s *Service) signals(e Entry, stats map[string]AccessStat, now time.Time) Signals {
	last := e.Updated
	sig := Signals{Importance: float64(e.Importance) / MaxImportance}
	if st, ok := stats[e.ID]; ok {
		sig.Activation = s.ranking.Activation.Of(st, now)
		if st.Last.After(last) {
			last = st.Last
		}
	}
	sig.Recency = s.ranking.Recency(last, now)
	return sig
}

func (s *Service) rank(hits []Hit, stats map[string]AccessStat, hasQuery bool) []ranked {
	now := s.now()
	best := 0.0
	for _, h := range hits {
		best = max(best, h.Score)
	}
	all := make([]ranked, len(hits))
	order := make([]int, len(hits))
	for i, h := range hits {
		sig := s.signals(h.Entry, stats, now)
		if hasQuery && best > 0 {
			sig.Relevance = h.Score / best
		}
		all[i] = ranked{hit: h, signals: sig, score: s.ranking.Score(sig, hasQuery)}
		order[i] = i
	}
	// The order is sorted and each ranked hit then moved once: sorting
	// them in place swaps whole catalog entries over and over.
	sort.SliceStable(order, func(i, j int) bool {
		a, b := &all[order[i]], &all[order[j]]
		if a.score != b.score {
			return a.score > b.score
		}
		if !a.hit.Updated.Equal(b.hit.Updated) {
			return a.hit.Updated.After(b.hit.Updated)
		}
		return a.hit.ID < b.hit.ID
	})
	permute(all, order)
	return all
}

// Search is plain full-text search, the baseline recall is measured against:
// the memories that match any word of the query, best BM25 score first, with
// recall's filters but none of its blend, relaxation or related memories, and
// no access recorded.
func (s *Service) Search(ctx context.Context, req RecallRequest) (*RecallResult, error) {
	p, err := s.planRecall(&req)
	if err != nil {
		return nil, err
	}
	if p.search.Text == "" {
		return nil, invalid("query", "plain search needs a query")
	}
	res := &RecallResult{Query: p.search.Text, Scope: req.Scope}
	err = s.backend.View(ctx, func(snap Snapshot) error {
		if p.scopeName != "" {
			if err := resolveScopeName(ctx, snap, p); err != nil {
				return err
			}
		}
		q := p.search
		q.AnyTerm, q.Size, q.Synonyms, q.Phrases, q.Compounds, q.K1, q.B = true, p.limit, nil, false, false, 0, 0
		hits, err := snap.Search(ctx, q)
		if err != nil {
			return fmt.Errorf("search: %w", err)
		}
		for _, h := range hits {
			m, err := snap.Load(ctx, h.Path)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			m.ID = h.ID
			res.Results = append(res.Results, Recalled{Memory: m, ShortID: snap.ShortID(h.ID), Score: h.Score})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}
