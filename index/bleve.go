package index

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/cortexmem/cortex/memories"
)

// Schema names the mapping below. Changing the mapping or the analyzers must
// change it: an index built under another schema is rebuilt on first use.
const Schema = "memories-4"

// Field names.
const (
	fieldTitle      = "title"
	fieldBody       = "body"
	fieldTags       = "tags" // analysed, for search
	fieldTag        = "tag"  // exact, for filters
	fieldProject    = "project"
	fieldArea       = "area"
	fieldType       = "type"
	fieldStatus     = "status"
	fieldSource     = "source"
	fieldImportance = "importance"
	fieldCreated    = "created"
	fieldUpdated    = "updated"
	fieldSourceHash = "source_hash" // an imported memory's source fingerprint
	// fieldPairs holds each pair of neighbouring terms of title and body
	// (stop words left out), so that a query's phrases count: a note about
	// the "config file" outranks one that says "config" and "file" apart.
	fieldPairs = "pairs"

	textAnalyzer  = "cortex_text"
	pairsAnalyzer = "cortex_pairs"
	// pairSep joins the two terms of a pair; it never occurs in a term.
	pairSep    = "\x1f"
	titleBoost = 2.0
)

// boltTimeout bounds Bleve's own wait for its files. cortex's locks serialise
// access first, so it never waits in practice; it must never wait forever.
const boltTimeout = "5s"

// mergeAbove is the segment count above which a writer merges segments before it
// closes: every save adds a segment, and many small ones slow every search.
const mergeAbove = 8

// newMapping is the lean, explicit mapping: body indexed but not stored, title
// boosted at query time, keyword fields for filters, sortable dates, no _all
// field, and nothing stored at all: the catalog holds what results show.
func newMapping() (mapping.IndexMapping, error) {
	im := bleve.NewIndexMapping()
	if err := im.AddCustomAnalyzer(textAnalyzer, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []any{en.PossessiveName, lowercase.Name, en.StopName, porter.Name},
	}); err != nil {
		return nil, err
	}
	if err := im.AddCustomAnalyzer(pairsAnalyzer, map[string]any{
		"type":      custom.Name,
		"tokenizer": whitespace.Name,
	}); err != nil {
		return nil, err
	}
	im.ScoringModel = bindex.BM25Scoring
	im.DefaultAnalyzer = textAnalyzer
	im.IndexDynamic = false
	im.StoreDynamic = false
	im.DocValuesDynamic = false

	text := func(name string) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Name = name
		f.Analyzer = textAnalyzer
		f.Store = false
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		f.DocValues = false
		return f
	}
	kw := func(name string) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Name = name
		f.Analyzer = keyword.Name
		f.Store = false
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		f.DocValues = false
		return f
	}
	date := func(name string) *mapping.FieldMapping {
		f := bleve.NewDateTimeFieldMapping()
		f.Name = name
		f.Store = false
		f.IncludeInAll = false
		f.DocValues = true
		return f
	}
	imp := bleve.NewNumericFieldMapping()
	imp.Name = fieldImportance
	imp.Store = false
	imp.IncludeInAll = false
	imp.DocValues = true

	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(fieldTitle, text(fieldTitle))
	doc.AddFieldMappingsAt(fieldBody, text(fieldBody))
	doc.AddFieldMappingsAt(fieldTags, text(fieldTags), kw(fieldTag))
	pairs := text(fieldPairs)
	pairs.Analyzer = pairsAnalyzer
	doc.AddFieldMappingsAt(fieldPairs, pairs)
	for _, k := range []string{fieldProject, fieldArea, fieldType, fieldStatus, fieldSource, fieldSourceHash} {
		doc.AddFieldMappingsAt(k, kw(k))
	}
	doc.AddFieldMappingsAt(fieldImportance, imp)
	doc.AddFieldMappingsAt(fieldCreated, date(fieldCreated))
	doc.AddFieldMappingsAt(fieldUpdated, date(fieldUpdated))
	im.DefaultMapping = doc
	return im, nil
}

// Bleve is an open full-text index of one generation.
type Bleve struct {
	idx      bleve.Index
	readOnly bool
	// analyzer gives the distinct terms of a text, sequence all of them in
	// order.
	analyzer, sequence func(string) []string
}

// openBleve opens the Bleve index in dir. The caller holds the index lock: shared
// for read-only, exclusive otherwise.
func openBleve(dir string, readOnly bool) (*Bleve, error) {
	cfg := writerConfig()
	if readOnly {
		cfg = map[string]any{"bolt_timeout": boltTimeout, "read_only": true}
	}
	idx, err := bleve.OpenUsing(dir, cfg)
	if err != nil {
		return nil, &CorruptError{File: dir, Msg: err.Error()}
	}
	return wrap(idx, readOnly)
}

// writerConfig is the scorch configuration of a writer. A writer is open for one
// batch (or one rebuild): the background merger is kept idle and segments are
// merged on Close instead, only when they have piled up.
func writerConfig() map[string]any {
	return map[string]any{
		"bolt_timeout": boltTimeout,
		// A floor of one document keeps the planner's budget from collapsing
		// to a single segment on small indexes, which would merge every time.
		"scorchMergePlanOptions": map[string]any{"MaxSegmentsPerTier": 1000, "SegmentsPerMergeTask": 1000, "FloorSegmentSize": 1},
	}
}

// createBleve makes a new, empty index in dir.
func createBleve(dir string) (*Bleve, error) {
	m, err := newMapping()
	if err != nil {
		return nil, err
	}
	idx, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, writerConfig())
	if err != nil {
		return nil, fmt.Errorf("create index: %w", err)
	}
	return wrap(idx, false)
}

func wrap(idx bleve.Index, readOnly bool) (*Bleve, error) {
	a := idx.Mapping().AnalyzerNamed(textAnalyzer)
	if a == nil {
		_ = idx.Close()
		return nil, &CorruptError{File: "index", Msg: "mapping has no " + textAnalyzer + " analyzer"}
	}
	b := &Bleve{idx: idx, readOnly: readOnly}
	b.sequence = func(s string) []string {
		toks := a.Analyze([]byte(s))
		terms := make([]string, len(toks))
		for i, t := range toks {
			terms[i] = string(t.Term)
		}
		return terms
	}
	b.analyzer = func(s string) []string {
		var terms []string
		seen := map[string]bool{}
		for _, t := range a.Analyze([]byte(s)) {
			term := string(t.Term)
			if !seen[term] {
				seen[term] = true
				terms = append(terms, term)
			}
		}
		return terms
	}
	return b, nil
}

// Close closes the index. A writer first merges small segments when there are
// many, so that recall stays fast after many single saves.
func (b *Bleve) Close() error {
	if !b.readOnly {
		if err := b.merge(); err != nil {
			_ = b.idx.Close()
			return err
		}
	}
	return b.idx.Close()
}

func (b *Bleve) merge() error {
	adv, err := b.idx.Advanced()
	if err != nil {
		return nil
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil
	}
	n, _ := s.StatsMap()["TotFileSegmentsAtRoot"].(uint64)
	if n <= mergeAbove {
		return nil
	}
	opts := mergeplan.DefaultMergePlanOptions
	opts.MaxSegmentsPerTier = 4
	opts.SegmentsPerMergeTask = 16
	if err := s.ForceMerge(context.Background(), &opts); err != nil {
		return fmt.Errorf("merge index segments: %w", err)
	}
	// ForceMerge returns once the merged segment is in the in-memory root,
	// maybe before the persister has recorded it: closing then would leave
	// the old segments in place. An empty batch waits for the persister.
	if err := s.Batch(bindex.NewBatch()); err != nil {
		return fmt.Errorf("merge index segments: %w", err)
	}
	return nil
}

// Doc is one memory to index.
type Doc struct {
	ID      string
	Memory  *memories.Memory
	Deleted bool
}

// Apply indexes and deletes documents in one batch.
func (b *Bleve) Apply(docs []Doc) error {
	if len(docs) == 0 {
		return nil
	}
	if b.readOnly {
		// Scorch would wait forever for a persister a read-only index never runs.
		return fmt.Errorf("index batch: index opened read-only")
	}
	batch := b.idx.NewBatch()
	for _, d := range docs {
		if d.Deleted {
			batch.Delete(d.ID)
			continue
		}
		if err := batch.Index(d.ID, b.document(d.Memory)); err != nil {
			return fmt.Errorf("index %s: %w", d.Memory.Path, err)
		}
	}
	if err := b.idx.Batch(batch); err != nil {
		return fmt.Errorf("index batch: %w", err)
	}
	return nil
}

func (b *Bleve) document(m *memories.Memory) map[string]any {
	d := map[string]any{
		fieldPairs:      pairsOf(b.sequence(m.Title), b.sequence(m.Body)),
		fieldTitle:      m.Title,
		fieldBody:       m.Body,
		fieldProject:    m.Project,
		fieldType:       string(m.Type),
		fieldStatus:     string(m.Status),
		fieldSource:     string(m.Source),
		fieldImportance: float64(m.Importance),
		fieldCreated:    m.Created,
		fieldUpdated:    m.Updated,
	}
	if m.Area != "" {
		d[fieldArea] = m.Area
	}
	if m.Provenance.SourceHash != "" {
		d[fieldSourceHash] = m.Provenance.SourceHash
	}
	if len(m.Tags) > 0 {
		d[fieldTags] = m.Tags
	}
	return d
}

// pairsOf is the pairs of neighbouring terms of each text, space-separated,
// each pair once.
func pairsOf(texts ...[]string) string {
	var sb strings.Builder
	seen := map[string]bool{}
	for _, terms := range texts {
		for i := 1; i < len(terms); i++ {
			p := terms[i-1] + pairSep + terms[i]
			if !seen[p] {
				seen[p] = true
				sb.WriteString(p)
				sb.WriteByte(' ')
			}
		}
	}
	return sb.String()
}

// DocCount is the number of documents in the index.
func (b *Bleve) DocCount() (uint64, error) { return b.idx.DocCount() }

// synonyms analyses words and their other spellings as the index does, and maps
// each word's term to the terms of its other spellings.
func (b *Bleve) synonyms(syn map[string][]string) map[string][]string {
	if len(syn) == 0 {
		return nil
	}
	out := make(map[string][]string, len(syn))
	for w, others := range syn {
		ts := b.analyzer(w)
		if len(ts) != 1 {
			continue // a stop word, or not one term
		}
		for _, o := range others {
			for _, t := range b.analyzer(o) {
				if t != ts[0] && !slices.Contains(out[ts[0]], t) {
					out[ts[0]] = append(out[ts[0]], t)
				}
			}
		}
	}
	return out
}

// rarest keeps the n terms found in the fewest documents (counted per field
// searched, title, body and tags), dropping those found in none. A search for similar texts needs only the
// distinctive words: a term common to thousands of notes finds nothing a rare
// one does not, and scoring its postings is most of the cost of the search.
func (b *Bleve) rarest(ctx context.Context, terms []string, n int) ([]string, error) {
	adv, err := b.idx.Advanced()
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer r.Close()
	type term struct {
		t  string
		df uint64
	}
	seen := make(map[string]bool, len(terms))
	found := make([]term, 0, len(terms))
	for _, t := range terms {
		if seen[t] {
			continue
		}
		seen[t] = true
		var df uint64
		for _, field := range [...]string{fieldTitle, fieldBody, fieldTags} {
			tfr, err := r.TermFieldReader(ctx, []byte(t), field, false, false, false)
			if err != nil {
				return nil, fmt.Errorf("search: %w", err)
			}
			df += tfr.Count()
			if err := tfr.Close(); err != nil {
				return nil, fmt.Errorf("search: %w", err)
			}
		}
		if df > 0 {
			found = append(found, term{t, df})
		}
	}
	sort.Slice(found, func(i, j int) bool {
		if found[i].df != found[j].df {
			return found[i].df < found[j].df
		}
		return found[i].t < found[j].t
	})
	out := make([]string, 0, n)
	for _, f := range found[:min(n, len(found))] {
		out = append(out, f.t)
	}
	return out, nil
}

// Match is one search hit: the id and the BM25 score.
type Match struct {
	ID string
	// Score is the BM25 score, 0 when the request had no text.
	Score float64
}

// Search runs req. The text is analysed like the documents and searched term by
// term across title (boosted), body and tags, so no character of it is ever read
// as query syntax.
func (b *Bleve) Search(ctx context.Context, req memories.SearchRequest) ([]Match, error) {
	sr := bleve.NewSearchRequestOptions(nil, req.Size, 0, false)
	bq := bleve.NewBooleanQuery()
	if req.Text != "" {
		terms := b.analyzer(req.Text)
		if req.Rarest > 0 && len(terms) > req.Rarest {
			var err error
			if terms, err = b.rarest(ctx, terms, req.Rarest); err != nil {
				return nil, err
			}
		}
		if len(terms) == 0 {
			return nil, nil
		}
		alts := b.synonyms(req.Synonyms)
		perTerm := make([]query.Query, len(terms))
		for i, t := range terms {
			var fields []query.Query
			for _, w := range append([]string{t}, alts[t]...) {
				title := bleve.NewTermQuery(w)
				title.SetField(fieldTitle)
				title.SetBoost(titleBoost)
				body := bleve.NewTermQuery(w)
				body.SetField(fieldBody)
				tags := bleve.NewTermQuery(w)
				tags.SetField(fieldTags)
				fields = append(fields, title, body, tags)
			}
			perTerm[i] = bleve.NewDisjunctionQuery(fields...)
		}
		if req.AnyTerm {
			bq.AddMust(bleve.NewDisjunctionQuery(perTerm...))
		} else {
			bq.AddMust(bleve.NewConjunctionQuery(perTerm...))
		}
		if req.Phrases {
			// The query's pairs of neighbouring terms add to the score of
			// the memories that have them too; they are not required.
			seq := b.sequence(req.Text)
			var pairs []query.Query
			seen := map[string]bool{}
			for i := 1; i < len(seq); i++ {
				p := seq[i-1] + pairSep + seq[i]
				if seen[p] {
					continue
				}
				seen[p] = true
				q := bleve.NewTermQuery(p)
				q.SetField(fieldPairs)
				pairs = append(pairs, q)
			}
			if len(pairs) > 0 {
				bq.AddShould(bleve.NewDisjunctionQuery(pairs...))
			}
		}
	} else {
		bq.AddMust(bleve.NewMatchAllQuery())
		sr.SortBy([]string{"-" + fieldUpdated, "_id"})
	}
	filter := func(field, value string) {
		q := bleve.NewTermQuery(value)
		q.SetField(field)
		q.SetBoost(0)
		bq.AddMust(q)
	}
	if req.Project != "" {
		filter(fieldProject, req.Project)
	}
	if len(req.Projects) > 0 {
		anyOf := make([]query.Query, len(req.Projects))
		for i, p := range req.Projects {
			q := bleve.NewTermQuery(p)
			q.SetField(fieldProject)
			q.SetBoost(0)
			anyOf[i] = q
		}
		bq.AddMust(bleve.NewDisjunctionQuery(anyOf...))
	}
	if req.Area != "" {
		filter(fieldArea, req.Area)
	}
	if req.Type != "" {
		filter(fieldType, string(req.Type))
	}
	if len(req.SourceHashes) > 0 {
		anyOf := make([]query.Query, len(req.SourceHashes))
		for i, h := range req.SourceHashes {
			q := bleve.NewTermQuery(h)
			q.SetField(fieldSourceHash)
			q.SetBoost(0)
			anyOf[i] = q
		}
		bq.AddMust(bleve.NewDisjunctionQuery(anyOf...))
	}
	if req.Status != "" {
		filter(fieldStatus, string(req.Status))
	}
	for _, t := range req.Tags {
		filter(fieldTag, t)
	}
	if !req.UpdatedSince.IsZero() {
		inclusive := true
		q := bleve.NewDateRangeInclusiveQuery(req.UpdatedSince, time.Time{}, &inclusive, nil)
		q.SetField(fieldUpdated)
		q.SetBoost(0)
		bq.AddMust(q)
	}
	if !req.IncludeSuperseded {
		q := bleve.NewTermQuery(string(memories.StatusSuperseded))
		q.SetField(fieldStatus)
		bq.AddMustNot(q)
	}
	sr.Query = bq
	res, err := b.idx.SearchInContext(ctx, sr)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	out := make([]Match, 0, len(res.Hits))
	for _, h := range res.Hits {
		m := Match{ID: h.ID}
		if req.Text != "" {
			// Without text every memory matches alike: Bleve's constant
			// score of match-all is no relevance, and memories.Hit says 0.
			m.Score = h.Score
		}
		out = append(out, m)
	}
	if req.Text != "" {
		sort.SliceStable(out, func(i, j int) bool {
			if out[i].Score != out[j].Score {
				return out[i].Score > out[j].Score
			}
			return out[i].ID < out[j].ID
		})
	}
	return out, nil
}
