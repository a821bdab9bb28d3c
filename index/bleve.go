package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
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
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/memories"
)

// Schema names the mapping below. Changing the mapping or the analyzers must
// change it: an index built under another schema is rebuilt on first use.
const Schema = "memories-12"

// Field names.
const (
	fieldTitle   = "title"
	fieldBody    = "body"
	fieldTags    = "tags" // analysed, for search
	fieldTag     = "tag"  // exact, for filters
	fieldProject = "project"
	fieldArea    = "area"
	fieldType    = "type"
	fieldStatus  = "status"
	// fieldHour is the hour a memory was created in (UTC, "2006010215"): a
	// memory's neighbours are found by a few exact terms, where a date range
	// on created costs hundreds of dictionary look-ups.
	fieldHour = "hour"
	// A memory's update time is the four terms of its stamp (see
	// timeterms.go): the second, sorted on, its day, month and year.
	fieldUpdated      = "updated"
	fieldUpdatedDay   = "updated_day"
	fieldUpdatedMonth = "updated_month"
	fieldUpdatedYear  = "updated_year"
	fieldSourceHash   = "source_hash" // an imported memory's source fingerprint
	// fieldPairs holds each pair of neighbouring terms of title and body, so
	// that a query's phrases count: a note about the "config file" outranks
	// one that says "config" and "file" apart. Two terms are a pair only when
	// nothing stands between them but a space, a hyphen or a slash: no
	// punctuation ("Deborah: like" is no pair) and no stop word left out.
	fieldPairs = "pairs"
	// fieldJoined holds the hyphenated words of title and body written as one
	// ("check-up" as "checkup"), so that the one-word spelling finds them.
	fieldJoined = "joined"

	// fieldPathOnly holds the terms of title and body found there only
	// inside a path or URL ("lib" of "/var/lib/"): another spelling of a
	// query's word (synonyms) does not match them, since a folder's name
	// is not a word ("/var/lib/" is no library).
	fieldPathOnly = "pathonly"

	textAnalyzer  = "cortex_text"
	pairsAnalyzer = "cortex_pairs"
	// pairSep joins the two terms of a pair; it never occurs in a term.
	pairSep    = "\x1f"
	titleBoost = 2.0
	// phraseBoost weighs a pair of the query's words found side by side: at
	// full weight a long text that has a common phrase of the query ("web
	// framework") outranked the one that answers it.
	phraseBoost = 0.5
	// compoundBoost weighs a word written another way (joined, split,
	// hyphenated) against the word as the query writes it.
	compoundBoost = 0.5
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
	doc := bleve.NewDocumentStaticMapping()
	// No "_all" field: every query names its fields, and Bleve would
	// otherwise add an (empty, since no field is included in it) composite
	// field to every document.
	doc.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())
	doc.AddFieldMappingsAt(fieldTitle, text(fieldTitle))
	doc.AddFieldMappingsAt(fieldBody, text(fieldBody))
	doc.AddFieldMappingsAt(fieldTags, text(fieldTags), kw(fieldTag))
	pairs := text(fieldPairs)
	pairs.Analyzer = pairsAnalyzer
	doc.AddFieldMappingsAt(fieldPairs, pairs)
	doc.AddFieldMappingsAt(fieldJoined, text(fieldJoined))
	pathOnly := text(fieldPathOnly)
	pathOnly.Analyzer = pairsAnalyzer
	doc.AddFieldMappingsAt(fieldPathOnly, pathOnly)
	for _, k := range []string{fieldProject, fieldArea, fieldType, fieldStatus, fieldSourceHash, fieldHour, fieldUpdatedDay, fieldUpdatedMonth, fieldUpdatedYear} {
		doc.AddFieldMappingsAt(k, kw(k))
	}
	// No date or number field: each costs sixteen terms a memory, most of
	// them unique, in the rebuild's dictionaries. A memory's creation time
	// is searched by its hour (fieldHour), its update time by the prefixes
	// of its stamp, and its importance and source by no query. The
	// update's second is sorted on, so it keeps its values.
	updated := kw(fieldUpdated)
	updated.DocValues = true
	doc.AddFieldMappingsAt(fieldUpdated, updated)
	im.DefaultMapping = doc
	return im, nil
}

// Bleve is an open full-text index of one generation.
type Bleve struct {
	idx      bleve.Index
	dir      string // the index's folder; set for a new one
	readOnly bool
	// building marks a new generation's index, written by a rebuild: its
	// Close may merge any segments, where an update's merges only the small
	// ones (see Close).
	building bool
	// mergedWhileBuilding marks a rebuild whose segments a BuildMerger
	// merged in groups as they were built (see merge).
	mergedWhileBuilding bool
	// analyzer gives the distinct terms of a text; tokens all its tokens, in
	// order, with their positions and byte offsets.
	analyzer func(string) []string
	tokens   func(string) analysis.TokenStream
	// lengths is BM25's average length of each field (see fieldLengths).
	lengths lengthsCache
	// builders are the document builders idle between batches.
	builders docBuilders
	// life is held to read closed, and taken to set it (see DropResident).
	life   sync.RWMutex
	closed bool
}

// scoredFields are the fields whose lengths a memory's document keeps
// (fieldLengths): those a search scores.
var scoredFields = []string{fieldTitle, fieldBody, fieldTags, fieldPairs, fieldJoined}

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
	b, err := wrap(idx, false)
	if err != nil {
		return nil, err
	}
	b.building, b.dir = true, dir
	return b, nil
}

func wrap(idx bleve.Index, readOnly bool) (*Bleve, error) {
	a := idx.Mapping().AnalyzerNamed(textAnalyzer)
	if a == nil {
		_ = idx.Close()
		return nil, &CorruptError{File: "index", Msg: "mapping has no " + textAnalyzer + " analyzer"}
	}
	b := &Bleve{idx: idx, readOnly: readOnly}
	b.tokens = func(s string) analysis.TokenStream { return a.Analyze([]byte(s)) }
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
	opened(b)
	return b, nil
}

// Close closes the index. A writer first merges segments when there are
// many, so that recall stays fast after many single saves. A rebuild's
// writer may merge any of them. An update's writer (a save's batch, a
// catch-up, a sync) merges only the small segments updates make
// (mergeSmall): it holds the write lock, which the next save waits for, and
// merging a rebuild's segments rewrites most of the index — about a second
// at 10,000 notes, paid by whichever save came next (the first update to
// find more than mergeAbove segments after a rebuild of four did).
func (b *Bleve) Close() error {
	closing(b)
	var err error
	switch {
	case b.readOnly:
	case b.building:
		err = b.merge()
	default:
		err = mergeSmall(b.idx)
	}
	if err != nil {
		_ = b.idx.Close()
		return err
	}
	return b.idx.Close()
}

// merge is a rebuild's merge: every segment may take part. A rebuild of
// no more than mergeAbove batches (10,000 short notes on two cores: eight)
// is merged into one segment. Left as its batches' segments it was a
// quarter slower to search (every term is looked up in every segment).
// Scores do not depend on the layout (see fieldLengths). A rebuild whose
// segments were merged while it built (MergeWhileBuilding) is left as those
// merges left it.
func (b *Bleve) merge() error {
	if b.mergedWhileBuilding {
		return mergeBuilt(b.idx)
	}
	opts := mergeplan.DefaultMergePlanOptions
	opts.SegmentsPerMergeTask = mergeAbove
	opts.CalcBudget = func(int64, int64, *mergeplan.MergePlanOptions) int { return 1 }
	if err := forceMerge(b.idx, &opts, 1); err != nil {
		return err
	}
	// The merged batches' files are removed now, not left in the new
	// generation for its first writer.
	if adv, err := b.idx.Advanced(); err == nil && b.dir != "" {
		if s, ok := adv.(*scorch.Scorch); ok {
			return removeMerged(s, b.dir)
		}
	}
	return nil
}

// mergeBuilt merges a built index's segments, any of them, when it has more
// than mergeAbove.
func mergeBuilt(idx bleve.Index) error {
	opts := mergeplan.DefaultMergePlanOptions
	opts.MaxSegmentsPerTier = 4
	opts.SegmentsPerMergeTask = 16
	return forceMerge(idx, &opts, mergeAbove)
}

// BuildMerger merges a rebuild's segments while the rebuild builds more, so
// that the built index has at most mergeAbove segments without a merge of
// the whole at the end: that merge ran on one core after every batch was
// built (7–9 s at 100,000 notes), while merges made during the build share
// the cores with it. Its methods may be called on nil, which merges nothing.
type BuildMerger struct {
	b   *Bleve
	ctx context.Context
	// group is the documents of a merge: about that many built segments'
	// worth (buildMergeGroup), never more.
	group int64
	built chan struct{}
	done  chan error
}

// MergeWhileBuilding starts merging the segments of a rebuild that indexes
// batches batches of at most maxDocs documents each: as soon as
// buildMergeGroup of them are built they are merged into one, as the merge
// at Close used to merge them, and once all are built the ones left are
// merged into one when the index has more than mergeAbove segments. The
// index has the segments it had when Close merged them all (at 100,000
// notes in 40 batches, of 16, 16 and 8 batches). It is nil
// when the batches make no more than mergeAbove segments. Call Built after
// each batch and Finish after the last.
func (b *Bleve) MergeWhileBuilding(ctx context.Context, batches, maxDocs int) *BuildMerger {
	if batches <= mergeAbove || maxDocs < 1 {
		return nil
	}
	b.mergedWhileBuilding = true
	m := &BuildMerger{b: b, ctx: ctx, group: int64(buildMergeGroup) * int64(maxDocs),
		built: make(chan struct{}, batches), done: make(chan error, 1)}
	go m.run()
	return m
}

// buildMergeGroup is how many built segments a rebuild merges into one: the
// SegmentsPerMergeTask of the plan Close merges a rebuild by.
const buildMergeGroup = 16

// Built says a batch has been indexed (its segment is on disk).
func (m *BuildMerger) Built() {
	if m != nil {
		m.built <- struct{}{}
	}
}

// Finish waits for the merges to end, after the last batch (or a failed
// one), merges what is left when the index still has more than mergeAbove
// segments, and returns the first merge's error.
func (m *BuildMerger) Finish() error {
	if m == nil {
		return nil
	}
	close(m.built)
	return <-m.done
}

func (m *BuildMerger) run() {
	var err error
	for range m.built {
		if err == nil {
			err = m.merge(false)
		}
	}
	if err == nil {
		err = m.merge(true)
	}
	m.done <- err
}

// merge merges the built segments, a group's worth of documents into each
// new one, when they make a whole group; last, when the batches are all
// built, it merges them until the index has at most mergeAbove segments.
// Merged segments (half a group or more) are left alone.
func (m *BuildMerger) merge(last bool) error {
	if err := m.ctx.Err(); err != nil {
		return err
	}
	s, err := m.scorch()
	if err != nil || s == nil {
		return err
	}
	r, err := s.Reader()
	if err != nil {
		return fmt.Errorf("merge index segments: %w", err)
	}
	var sizes []int64
	merged := 0
	if snap, ok := r.(*scorch.IndexSnapshot); ok {
		for _, seg := range snap.Segments() {
			if _, onDisk := seg.Segment().(segment.PersistedSegment); !onDisk {
				continue
			}
			if n := seg.LiveSize(); n < (m.group+1)/2 { // the planner's rule
				sizes = append(sizes, n)
			} else {
				merged++
			}
		}
	}
	_ = r.Close()
	// The planner below takes the biggest built segments first, as many as
	// stay under a group's documents: the same roster is found here.
	slices.SortFunc(sizes, func(a, b int64) int { return cmp.Compare(b, a) })
	roster, docs := 0, int64(0)
	for _, n := range sizes {
		if docs+n < m.group+1 {
			roster++
			docs += n
		}
	}
	budget := 0
	switch {
	case last && merged+len(sizes) > mergeAbove:
		// The built segments left, fewer than a group, into one.
		budget = 1
	case !last && roster > 1 && docs+slices.Max(sizes) > m.group:
		// A whole group: merge it, and only it.
		budget = len(sizes) - roster + 1
	case last:
		return m.removeMerged(s)
	default:
		return nil
	}
	opts := mergeplan.DefaultMergePlanOptions
	// A built segment takes part, a merged one does not: only segments of
	// fewer documents than half MaxSegmentSize are merged, and a merge's
	// documents stay below it.
	opts.MaxSegmentSize = m.group + 1
	opts.SegmentsPerMergeTask = buildMergeGroup
	opts.FloorSegmentSize = 1
	// The planner merges while the segments that take part plus the merges
	// planned are more than the budget.
	opts.CalcBudget = func(int64, int64, *mergeplan.MergePlanOptions) int { return budget }
	// Of the planner's candidates, the merge of most documents.
	opts.ScoreSegments = func(segs []mergeplan.Segment, _ *mergeplan.MergePlanOptions) float64 {
		var n int64
		for _, seg := range segs {
			n += seg.LiveSize()
		}
		return -float64(n)
	}
	if err := s.ForceMerge(m.ctx, &opts); err != nil {
		return fmt.Errorf("merge index segments: %w", err)
	}
	if err := m.ctx.Err(); err != nil {
		return err
	}
	if last {
		return m.removeMerged(s)
	}
	return nil
}

// builtKey is an internal value of the index, set once its build's merges are
// done.
const builtKey = "cortex-built"

// removeMerged waits, a little, for the persister to remove the files of
// the segments merged: it does so after it has recorded a change, which a
// batch makes and waits for, but on its own time. Files left when
// the builder closes stay in the generation's folder until the next writer
// opens it.
func (m *BuildMerger) removeMerged(s *scorch.Scorch) error {
	return removeMerged(s, m.b.dir)
}

// removeMerged is BuildMerger.removeMerged for the index in dir.
func removeMerged(s *scorch.Scorch, dir string) error {
	for range 50 {
		files, err := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
		if err != nil {
			return fmt.Errorf("merge index segments: %w", err)
		}
		if n, _ := s.StatsMap()["TotFileSegmentsAtRoot"].(uint64); uint64(len(files)) <= n {
			return nil
		}
		// A batch of nothing records nothing; one internal value (which no
		// search reads) makes the persister record a change.
		batch := bindex.NewBatch()
		batch.SetInternal([]byte(builtKey), []byte("1"))
		if err := s.Batch(batch); err != nil {
			return fmt.Errorf("merge index segments: %w", err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	return nil
}

// scorch is the builder's scorch index, nil if it is another kind.
func (m *BuildMerger) scorch() (*scorch.Scorch, error) {
	adv, err := m.b.idx.Advanced()
	if err != nil {
		return nil, fmt.Errorf("merge index segments: %w", err)
	}
	s, _ := adv.(*scorch.Scorch)
	return s, nil
}

// forceMerge merges idx's segments by opts when it has more than above
// of them, and returns once the merged segments are on disk.
func forceMerge(idx bleve.Index, opts *mergeplan.MergePlanOptions, above uint64) error {
	adv, err := idx.Advanced()
	if err != nil {
		return nil
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil
	}
	if n, _ := s.StatsMap()["TotFileSegmentsAtRoot"].(uint64); n <= above {
		return nil
	}
	if err := s.ForceMerge(context.Background(), opts); err != nil {
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
	built, err := b.memoryDocuments(docs)
	if err != nil {
		return fmt.Errorf("index batch: %w", err)
	}
	e, events := b.idx.(bindex.EventIndex)
	batch := b.idx.NewBatch()
	for i, d := range docs {
		if d.Deleted {
			batch.Delete(d.ID)
			continue
		}
		if events {
			e.FireIndexEvent() // as Batch.Index does
		}
		if err := batch.IndexAdvanced(built[i]); err != nil {
			return fmt.Errorf("index %s: %w", d.Memory.Path, err)
		}
	}
	if err := b.idx.Batch(batch); err != nil {
		return fmt.Errorf("index batch: %w", err)
	}
	return nil
}

// analysed is an analyser that gives tokens already made, for one text, once:
// it lets go of them then, since the field holding it is kept until its
// whole batch is indexed.
type analysed struct{ tokens analysis.TokenStream }

func (a *analysed) Analyze([]byte) analysis.TokenStream {
	t := a.tokens
	a.tokens = nil
	return t
}

// pathOnly is the terms of the texts found only inside a path or URL, space
// separated, each once (see fieldPathOnly).
func (b *Bleve) pathOnly(texts ...string) string {
	if !anyPath(texts) {
		return ""
	}
	toks := make([]analysis.TokenStream, len(texts))
	for i, text := range texts {
		toks[i] = b.tokens(text)
	}
	return b.pathOnlyIn(texts, toks)
}

// anyPath reports whether any of the texts may hold a path or URL.
func anyPath(texts []string) bool {
	for _, text := range texts {
		if strings.ContainsAny(text, "/\\") {
			return true
		}
	}
	return false
}

// pathOnlyIn is pathOnly of texts given their tokens (toks[i] are texts[i]'s,
// as the text analyser makes them). A term is found outside paths when one
// of its tokens lies outside every path run (dedup.OutsidePaths): the text
// need not be analysed again with its paths blanked, since a run ends at
// white space on both sides, where words always break, so the words outside
// the runs are the same tokens either way and no token straddles a run's
// edge. TestPathOnlyIn checks this against the analysis of the blanked text.
func (b *Bleve) pathOnlyIn(texts []string, toks []analysis.TokenStream) string {
	if !anyPath(texts) {
		return ""
	}
	// Only a term with a token inside a path (or any term of a text that
	// does not decode, see below) can be path-only: those are the
	// candidates, in the order of their tokens, which is the order of the
	// terms' first tokens in the result. The other tokens are only looked
	// up among the candidates, which are few, rather than every term of a
	// long text being put in a set (a twentieth of a rebuild's analysis).
	var cand []*analysis.Token
	blanked := make([]bool, len(texts))
	runs := make([][][2]int, len(texts)) // each text's pathRuns
	for i, text := range texts {
		if !utf8.ValidString(text) {
			// A stray byte can take the white space after it into its
			// token, so the words near a path may break differently once
			// the path is blanked: analyse the blanked text itself.
			blanked[i] = true
			cand = append(cand, toks[i]...)
			continue
		}
		runs[i] = pathRuns(text)
		k := 0
		for _, t := range toks[i] {
			for k < len(runs[i]) && runs[i][k][1] <= t.Start {
				k++
			}
			if k < len(runs[i]) && t.Start >= runs[i][k][0] {
				cand = append(cand, t)
			}
		}
	}
	if len(cand) == 0 {
		return ""
	}
	// outside[term] is true once the term is found outside every path, and
	// again once it is written.
	outside := make(map[string]bool, len(cand))
	for _, t := range cand {
		outside[string(t.Term)] = false
	}
	for i, text := range texts {
		if blanked[i] {
			for _, t := range b.analyzer(dedup.OutsidePaths(text)) {
				if _, ok := outside[t]; ok {
					outside[t] = true
				}
			}
			continue
		}
		k := 0
		for _, t := range toks[i] {
			for k < len(runs[i]) && runs[i][k][1] <= t.Start {
				k++
			}
			if k < len(runs[i]) && t.Start >= runs[i][k][0] {
				continue // inside a path
			}
			if out, ok := outside[string(t.Term)]; ok && !out {
				outside[string(t.Term)] = true
			}
		}
	}
	var sb strings.Builder
	for _, t := range cand {
		if !outside[string(t.Term)] {
			outside[string(t.Term)] = true // once
			sb.Write(t.Term)
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}

// pathRuns is where text's paths and URLs are, as [start, end) byte offsets
// in order: the runs of characters other than ASCII white space that hold a
// slash or a backslash, which dedup.OutsidePaths blanks. The text is
// searched for its slashes (strings.IndexByte), not walked byte by byte: a
// long body has few, and the walk was 2% of a real-shaped rebuild's CPU.
// TestPathRunsAsByWalk compares it with the walk.
func pathRuns(text string) [][2]int {
	var runs [][2]int
	back := strings.IndexByte(text, '\\') // the next backslash, -1 when none
	for from := 0; from < len(text); {
		k := strings.IndexByte(text[from:], '/')
		if k >= 0 {
			k += from
		}
		if back >= 0 && back < from {
			if back = strings.IndexByte(text[from:], '\\'); back >= 0 {
				back += from
			}
		}
		if back >= 0 && (k < 0 || back < k) {
			k = back
		}
		if k < 0 {
			break
		}
		i, j := k, k+1
		for i > from && !isSpaceByte(text[i-1]) {
			i--
		}
		for j < len(text) && !isSpaceByte(text[j]) {
			j++
		}
		runs = append(runs, [2]int{i, j})
		from = j
	}
	return runs
}

// isSpaceByte reports whether c is ASCII white space (dedup's rule).
func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// pairsOf is the pairs of neighbouring terms of each text (see fieldPairs),
// given as pairsIn lists them, space-separated, each pair once.
func pairsOf(lists ...[]string) string {
	var sb strings.Builder
	seen := map[string]bool{}
	for _, ps := range lists {
		for _, p := range ps {
			if !seen[p] {
				seen[p] = true
				sb.WriteString(p)
				sb.WriteByte(' ')
			}
		}
	}
	return sb.String()
}

// pairs lists the pairs of neighbouring terms of text, in order: two terms
// next to each other (no stop word dropped between them) with only a space, a
// hyphen or a slash between them.
func (b *Bleve) pairs(text string) []string { return pairsIn(text, b.tokens(text)) }

// pairsIn is pairs of text given its tokens.
func pairsIn(text string, toks analysis.TokenStream) []string {
	var out []string
	for i := 1; i < len(toks); i++ {
		a, c := toks[i-1], toks[i]
		if isPair(text, a, c) {
			out = append(out, string(a.Term)+pairSep+string(c.Term))
		}
	}
	return out
}

// joins reports whether what stands between two words keeps them one phrase:
// spaces and at most one line break, or one hyphen or slash.
func joins(gap string) bool {
	if gap == " " {
		return true // most gaps
	}
	switch strings.TrimSpace(gap) {
	case "":
		return strings.Count(gap, "\n") <= 1
	case "-", "/":
		return len(gap) <= 3
	}
	return false
}

// hourOf is the fieldHour term of t.
func hourOf(t time.Time) string { return t.UTC().Format("2006010215") }

// hoursOf lists, sorted and once each, the hours the spans touch (at most
// maxHours in all: a longer span is cut).
func hoursOf(spans []memories.TimeSpan) []string {
	const maxHours = 1000
	seen := map[string]bool{}
	var out []string
	for _, sp := range spans {
		for t := sp.From.UTC().Truncate(time.Hour); !t.After(sp.To) && len(out) < maxHours; t = t.Add(time.Hour) {
			if h := hourOf(t); !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	sort.Strings(out)
	return out
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

// synonymBoosts weighs each other spelling of a query's word, per field
// (title, body, tags), so that it never counts for more than the word itself:
// a spelling rarer than the word has a higher IDF, and unscaled, a memory
// saying "application" outranked those saying "app" for a query about an app.
// The boost is the square of the word's IDF over the spelling's (Bleve's
// score counts the IDF twice: in the term's weight and in the query's) where
// both are in the field; 1 where the word is not (the spelling is then all the
// query has).
func (b *Bleve) synonymBoosts(ctx context.Context, alts map[string][]string) (map[[2]string][3]float64, error) {
	if len(alts) == 0 {
		return nil, nil
	}
	adv, err := b.idx.Advanced()
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer r.Close()
	total, err := r.DocCount()
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	fields := [3]string{fieldTitle, fieldBody, fieldTags}
	dfs := map[[2]string]uint64{} // field, term → documents
	df := func(field, term string) (uint64, error) {
		k := [2]string{field, term}
		if n, ok := dfs[k]; ok {
			return n, nil
		}
		tfr, err := r.TermFieldReader(ctx, []byte(term), field, false, false, false)
		if err != nil {
			return 0, fmt.Errorf("search: %w", err)
		}
		n := tfr.Count()
		if err := tfr.Close(); err != nil {
			return 0, fmt.Errorf("search: %w", err)
		}
		dfs[k] = n
		return n, nil
	}
	out := make(map[[2]string][3]float64)
	for t, ws := range alts {
		for _, w := range ws {
			var f [3]float64
			for i, field := range fields {
				f[i] = 1
				dt, err := df(field, t)
				if err != nil {
					return nil, err
				}
				dw, err := df(field, w)
				if err != nil {
					return nil, err
				}
				if dt > 0 && dw > 0 {
					r := bm25IDF(total, dt) / bm25IDF(total, dw)
					f[i] = min(1, r*r)
				}
			}
			out[[2]string{t, w}] = f
		}
	}
	return out, nil
}

// bm25IDF is the inverse document frequency of Bleve's BM25 scoring.
func bm25IDF(total, df uint64) float64 {
	return math.Log(1 + (float64(total)-float64(df)+0.5)/(float64(df)+0.5))
}

// compounds lists the other ways of writing the query's words: two
// neighbouring words written as one ("road trip", "road-trip": roadtrip) is
// another spelling of each of them (joined), and a word of seven letters or
// more may be two words side by side (split lists the pairs, see fieldPairs,
// it splits into: roadtrip, road␟trip).
func (b *Bleve) compounds(text string, terms []string) (joined, split map[string][]string) {
	joined = make(map[string][]string)
	words := rawWord().FindAllStringIndex(text, -1)
	for i := 1; i < len(words); i++ {
		a, c := words[i-1], words[i]
		if a[1]-a[0] < 3 || c[1]-c[0] < 2 || !joins(text[a[1]:c[0]]) {
			continue
		}
		one := b.analyzer(text[a[0]:a[1]] + text[c[0]:c[1]])
		if len(one) != 1 {
			continue
		}
		for _, w := range [2][]int{a, c} {
			for _, t := range b.analyzer(text[w[0]:w[1]]) {
				if t != one[0] && slices.Contains(terms, t) && !slices.Contains(joined[t], one[0]) {
					joined[t] = append(joined[t], one[0])
				}
			}
		}
	}
	split = make(map[string][]string)
	for _, t := range terms {
		if len(t) < 7 || strings.ContainsAny(t, "0123456789_") {
			continue
		}
		for k := 3; k <= len(t)-3; k++ {
			if !utf8.RuneStart(t[k]) {
				continue
			}
			x, y := b.analyzer(t[:k]), b.analyzer(t[k:])
			if len(x) == 1 && len(y) == 1 {
				split[t] = append(split[t], x[0]+pairSep+y[0])
			}
		}
	}
	return joined, split
}

// existing keeps, of the other spellings compounds found, those some memory
// has (a joined word in its title or body, a pair in its pairs), and says
// which terms some memory has as a hyphenated word (fieldJoined): most are
// words nobody writes, and each would cost the search a clause.
func (b *Bleve) existing(ctx context.Context, terms []string, joined, split map[string][]string) (map[string][]string, map[string][]string, map[string]bool, error) {
	adv, err := b.idx.Advanced()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("search: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("search: %w", err)
	}
	defer r.Close()
	// A field's dictionaries answer first, opened once: most of the
	// spellings are in none of them, and a term reader of each would cost
	// each segment's postings lookup. A term a dictionary has is counted
	// as before, for a term whose every note was deleted stays in its
	// segment's dictionary until a merge.
	dicts := map[string]bindex.FieldDictContains{}
	inDict := func(term []byte, field string) (bool, error) {
		d, ok := dicts[field]
		if !ok {
			var err error
			if d, err = fieldDictContains(r, field); err != nil {
				return false, fmt.Errorf("search: %w", err)
			}
			dicts[field] = d
		}
		if d == nil {
			return true, nil
		}
		return d.Contains(term)
	}
	has := func(term string, fields ...string) (bool, error) {
		for _, f := range fields {
			if in, err := inDict([]byte(term), f); err != nil || !in {
				if err != nil {
					return false, err
				}
				continue
			}
			tfr, err := r.TermFieldReader(ctx, []byte(term), f, false, false, false)
			if err != nil {
				return false, fmt.Errorf("search: %w", err)
			}
			n := tfr.Count()
			if err := tfr.Close(); err != nil {
				return false, fmt.Errorf("search: %w", err)
			}
			if n > 0 {
				return true, nil
			}
		}
		return false, nil
	}
	keep := func(m map[string][]string, fields ...string) (map[string][]string, error) {
		out := make(map[string][]string, len(m))
		for t, alts := range m {
			for _, a := range alts {
				ok, err := has(a, fields...)
				if err != nil {
					return nil, err
				}
				if ok {
					out[t] = append(out[t], a)
				}
			}
		}
		return out, nil
	}
	if joined, err = keep(joined, fieldBody, fieldTitle); err != nil {
		return nil, nil, nil, err
	}
	if split, err = keep(split, fieldPairs); err != nil {
		return nil, nil, nil, err
	}
	hyphened := make(map[string]bool)
	for _, t := range terms {
		ok, err := has(t, fieldJoined)
		if err != nil {
			return nil, nil, nil, err
		}
		hyphened[t] = ok
	}
	return joined, split, hyphened, nil
}

// fieldDictContains is field's dictionary of every segment of r, to ask
// whether any holds a term; nil when r cannot say (every term is then taken
// as held). Each segment's dictionary is opened on the calling goroutine:
// Bleve's own (FieldDictContains) starts a goroutine per segment, and
// handing each to another thread, and waiting for it, cost a recall more
// than the lookups when the server had been idle (the other thread asleep).
func fieldDictContains(r bindex.IndexReader, field string) (bindex.FieldDictContains, error) {
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		rc, ok := r.(bindex.IndexReaderContains)
		if !ok {
			return nil, nil
		}
		return rc.FieldDictContains(field)
	}
	segs := snap.Segments()
	d := make(segmentDicts, 0, len(segs))
	for _, s := range segs {
		dict, err := s.Segment().Dictionary(field)
		if err != nil {
			return nil, err
		}
		d = append(d, dict)
	}
	return d, nil
}

// segmentDicts holds a term when one of its dictionaries does, as Bleve's
// FieldDictContains over the same segments.
type segmentDicts []segment.TermDictionary

func (d segmentDicts) Contains(key []byte) (bool, error) {
	for _, dict := range d {
		if found, err := dict.Contains(key); err != nil || found {
			return found, err
		}
	}
	return false, nil
}

func (d segmentDicts) BytesRead() uint64 { return 0 }

// rawWord is a run of letters, as compounds reads the query.
var rawWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\pL+`) })

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

// sharedMapping is one mapping for the process's lookups of analyzers and
// field options without an open index (bodyAnalyzer, memoryDefs): making
// it costs about 60 µs, which a save paid once for each. An index being
// created gets a mapping of its own (createBleve).
var sharedMapping = sync.OnceValues(newMapping)

// bodyAnalyzer is the analyzer of title and body, without an open index.
var bodyAnalyzer = sync.OnceValues(func() (analysis.Analyzer, error) {
	im, err := sharedMapping()
	if err != nil {
		return nil, err
	}
	a := im.AnalyzerNamed(textAnalyzer)
	if a == nil {
		return nil, fmt.Errorf("mapping has no %s analyzer", textAnalyzer)
	}
	return a, nil
})

// Terms is text's terms as the index analyses a body, in order, each as
// often as it occurs (stop words are left out): recall scores a long
// memory's passages from them (memories.TermCounter). The terms of a text of
// up to termsCacheText bytes are kept (see termsCache): recall asks for those
// of each word of its candidates that starts like a word of the query, and a
// server answers many recalls over the same words. In a script written
// without spaces such a word is a whole phrase or sentence of a few hundred
// bytes, which is why the limit is not a word's length.
func Terms(text string) ([]string, error) {
	if len(text) <= termsCacheText {
		termsCache.Lock()
		ts, ok := termsCache.m[text]
		termsCache.Unlock()
		if ok {
			return slices.Clone(ts), nil
		}
	}
	a, err := bodyAnalyzer()
	if err != nil {
		return nil, err
	}
	toks := a.Analyze([]byte(text))
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = string(t.Term)
	}
	if len(text) <= termsCacheText {
		termsCache.keep(text, out)
	}
	return out, nil
}

// termsCache holds the terms of texts of at most termsCacheText bytes
// (words, titles, tags), up to termsCacheSize texts or termsCacheBytes
// bytes of them, emptied when full: the analysis is the same for every
// index, so what it held stays true.
var termsCache termsKept

type termsKept struct {
	sync.Mutex
	m map[string][]string
	// bytes is what m holds, counted by termsCost.
	bytes int
}

// keep keeps a copy of text's terms. The key is copied: text may be a slice
// of a whole note.
func (c *termsKept) keep(text string, terms []string) {
	cost := termsCost(text, terms)
	c.Lock()
	defer c.Unlock()
	if c.m == nil || len(c.m) >= termsCacheSize || c.bytes+cost > termsCacheBytes {
		c.m, c.bytes = make(map[string][]string), 0
	}
	c.m[strings.Clone(text)] = slices.Clone(terms)
	c.bytes += cost
}

// termsCost is about what keeping text's terms takes: the key, the terms
// and their headers, and the map's entry.
func termsCost(text string, terms []string) int {
	n := len(text) + 64
	for _, t := range terms {
		n += len(t) + 16
	}
	return n
}

const (
	termsCacheText  = 1024
	termsCacheSize  = 1 << 15
	termsCacheBytes = 4 << 20
)

// BodyDocFreqs is how many memories the index holds, and in how many of them
// each term is found in the body.
func (b *Bleve) BodyDocFreqs(ctx context.Context, terms []string) (uint64, []uint64, error) {
	adv, err := b.idx.Advanced()
	if err != nil {
		return 0, nil, fmt.Errorf("search: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return 0, nil, fmt.Errorf("search: %w", err)
	}
	defer r.Close()
	total, err := r.DocCount()
	if err != nil {
		return 0, nil, fmt.Errorf("search: %w", err)
	}
	dfs := make([]uint64, len(terms))
	for i, t := range terms {
		tfr, err := r.TermFieldReader(ctx, []byte(t), fieldBody, false, false, false)
		if err != nil {
			return 0, nil, fmt.Errorf("search: %w", err)
		}
		dfs[i] = tfr.Count()
		if err := tfr.Close(); err != nil {
			return 0, nil, fmt.Errorf("search: %w", err)
		}
	}
	return total, dfs, nil
}

// prefilter adds candidatesQuery to searches for every term; tests turn it
// off to compare.
var prefilter = true

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
	// text is the part of the query the text makes, first of the musts,
	// and should its pairs; pr, when set, is pruning's plan, with its
	// first pass's text and pairs (see pruning).
	var text, prText query.Query
	var should, prShould []query.Query
	var pr *pruning
	if req.K1 > 0 {
		ctx = context.WithValue(ctx, bsearch.BM25ParamsKey, bsearch.BM25Params{K1: req.K1, B: req.B})
	}
	ctx, err := b.lengths.withLengths(ctx, b.idx)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
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
		altBoost, err := b.synonymBoosts(ctx, alts)
		if err != nil {
			return nil, err
		}
		var joined, split map[string][]string
		hyphened := map[string]bool{}
		if req.Compounds {
			joined, split = b.compounds(req.Text, terms)
			var err error
			if joined, split, hyphened, err = b.existing(ctx, terms, joined, split); err != nil {
				return nil, err
			}
		}
		var textPairs []string
		if req.Phrases {
			textPairs = b.pairs(req.Text)
		}
		// build makes the text's query: the whole search's without pr, the
		// first passes' of pr with it.
		var plain []query.Query // see plainOf
		build := func(pr *pruning) (text query.Query, should []query.Query) {
			perTerm := make([]query.Query, len(terms))
			plain = make([]query.Query, len(terms))
			for i, t := range terms {
				var clauses []query.Query
				var boosted []*query.TermQuery
				clause := func(field, term string, boost float64) {
					q := bleve.NewTermQuery(term)
					q.SetField(field)
					q.SetBoost(boost)
					clauses = append(clauses, q)
					boosted = append(boosted, q)
				}
				// Another spelling matches a word, never a folder's name,
				// and only in a field that does not have the word itself: a
				// memory with both has the word once, not twice (a long one
				// has both far more often than a short one).
				altClause := func(field, term string, boost float64) {
					clause(field, term, boost)
					q := bleve.NewBooleanQuery()
					q.AddMust(clauses[len(clauses)-1])
					not := bleve.NewTermQuery(term)
					not.SetField(fieldPathOnly)
					own := bleve.NewTermQuery(t)
					own.SetField(field)
					q.AddMustNot(not, own)
					clauses[len(clauses)-1] = q
				}
				clause(fieldTitle, t, titleBoost)
				clause(fieldBody, t, 1)
				if pr != nil {
					// The body is bounded (see pruning).
					clauses[1] = pr.bound(i, boosted[1])
				}
				clause(fieldTags, t, 1)
				for _, w := range alts[t] {
					f := altBoost[[2]string{t, w}]
					altClause(fieldTitle, w, titleBoost*f[0])
					altClause(fieldBody, w, f[1])
					clause(fieldTags, w, f[2])
				}
				if req.Compounds {
					// Another way of writing the word counts for less than the
					// word as written.
					for _, w := range joined[t] {
						clause(fieldTitle, w, titleBoost*compoundBoost)
						clause(fieldBody, w, compoundBoost)
					}
					if hyphened[t] {
						clause(fieldJoined, t, compoundBoost)
					}
					for _, p := range split[t] {
						clause(fieldPairs, p, compoundBoost)
					}
				}
				// A disjunction scales its score by the share of its clauses
				// that match: every other spelling added would make the word
				// itself count for less. Scaling the boosts back keeps a word
				// found in the body worth the same with or without them.
				if n := len(clauses); n > 3 {
					for _, tq := range boosted {
						tq.SetBoost(tq.Boost() * float64(n) / 3)
					}
				}
				if pr != nil {
					pr.word(i, boosted, len(clauses))
				}
				perTerm[i] = bleve.NewDisjunctionQuery(clauses...)
				plain[i] = plainOf(boosted)
			}
			// ofWords is how many essential clauses are the words' own
			// (the rest are pairs).
			ofWords := 0
			if pr != nil {
				ofWords = len(pr.essential)
			}
			if req.Phrases {
				// The query's pairs of neighbouring terms add to the score of
				// the memories that have them too; they are not required.
				var pairs []query.Query
				var pairTerms []*query.TermQuery
				seen := map[string]bool{}
				for _, p := range textPairs {
					if seen[p] {
						continue
					}
					seen[p] = true
					q := bleve.NewTermQuery(p)
					q.SetField(fieldPairs)
					q.SetBoost(phraseBoost)
					pairs = append(pairs, q)
					pairTerms = append(pairTerms, q)
				}
				if len(pairs) > 0 {
					if pr != nil {
						pr.essential = append(pr.essential, pairs...)
						pairs = pr.boundPairs(pairTerms)
					}
					should = []query.Query{bleve.NewDisjunctionQuery(pairs...)}
				}
			}
			// essential is the first pass's filter; wordsPassed, when some
			// pairs are common, the filter of the pass before it.
			var essential, wordsPassed query.Query
			var wordsOnly bool
			if pr != nil {
				essential = bleve.NewDisjunctionQuery(pr.essential...)
				if len(pr.common) > 0 {
					kept := pr.wordsPassClauses(ofWords)
					wordsPassed, wordsOnly = bleve.NewDisjunctionQuery(kept...), len(kept) == ofWords
				}
			}
			if req.AnyTerm {
				text = bleve.NewDisjunctionQuery(perTerm...)
				if pr != nil {
					if wordsPassed != nil {
						pr.wordsPass = bleve.NewConjunctionQuery(&candidatesQuery{q: wordsPassed, atLeast: req.Size}, text)
					}
					return bleve.NewConjunctionQuery(&candidatesQuery{q: essential, atLeast: req.Size}, text), should
				}
			} else {
				text = bleve.NewConjunctionQuery(perTerm...)
				if len(perTerm) > 1 && len(perTerm) < maxPrefiltered && prefilter {
					// With AtLeast the search ends here when the notes
					// that may have every word are too few (errTooFew).
					cands := &candidatesQuery{q: bleve.NewConjunctionQuery(plain...), atLeast: req.AtLeast}
					text = bleve.NewConjunctionQuery(append([]query.Query{cands}, perTerm...)...)
				}
				if pr != nil {
					if wordsPassed != nil {
						cands := &candidatesQuery{q: firstPassFilter(plain, wordsPassed, wordsOnly), atLeast: req.Size}
						pr.wordsPass = bleve.NewConjunctionQuery(append([]query.Query{cands}, perTerm...)...)
					}
					cands := &candidatesQuery{q: firstPassFilter(plain, essential, len(pr.essential) == ofWords), atLeast: req.Size}
					return bleve.NewConjunctionQuery(append([]query.Query{cands}, perTerm...)...), should
				}
			}
			return text, should
		}
		text, should = build(nil)
		// A search for any of several words is pruned too: recall's
		// retry with any word (see memories.candidates) was a third of
		// its time on the synthetic 10,000 notes, and its first pass
		// cleared the bound there (the notes with a word in a title, tags
		// or a pair fill a page that scores above what a note with the
		// words in its body alone can).
		if prune && req.Size > 0 && len(terms) < maxPrefiltered {
			many, words, err := b.worthPruning(ctx, terms, req.AnyTerm)
			if err != nil {
				return nil, fmt.Errorf("search: %w", err)
			}
			if many {
				pr = newPruning(len(terms))
				if req.Phrases {
					if pr.common, err = b.commonPairs(ctx, words, textPairs); err != nil {
						return nil, fmt.Errorf("search: %w", err)
					}
				}
				prText, prShould = build(pr)
			}
		}
	} else {
		if len(req.CreatedIn) == 0 {
			text = bleve.NewMatchAllQuery()
			sr.SortByCustom(bsearch.SortOrder{
				&bsearch.SortField{Field: fieldUpdated, Desc: true, Type: bsearch.SortFieldAsString},
				&bsearch.SortDocID{},
			})
		}
		// With CreatedIn its hours select the memories, which the caller
		// puts in order: matching every memory and sorting would read each
		// one.
	}
	var filters []query.Query
	filter := func(field, value string) {
		q := bleve.NewTermQuery(value)
		q.SetField(field)
		q.SetBoost(0)
		filters = append(filters, q)
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
		filters = append(filters, bleve.NewDisjunctionQuery(anyOf...))
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
		filters = append(filters, bleve.NewDisjunctionQuery(anyOf...))
	}
	if req.Status != "" {
		filter(fieldStatus, string(req.Status))
	}
	for _, t := range req.Tags {
		filter(fieldTag, t)
	}
	if len(req.CreatedIn) > 0 {
		var anyOf []query.Query
		for _, h := range hoursOf(req.CreatedIn) {
			q := bleve.NewTermQuery(h)
			q.SetField(fieldHour)
			q.SetBoost(0)
			anyOf = append(anyOf, q)
		}
		filters = append(filters, bleve.NewDisjunctionQuery(anyOf...))
	}
	if !req.UpdatedSince.IsZero() {
		filters = append(filters, memoryUpdated.since(req.UpdatedSince))
	}
	var superseded query.Query
	if !req.IncludeSuperseded {
		q := bleve.NewTermQuery(string(memories.StatusSuperseded))
		q.SetField(fieldStatus)
		superseded = q
	}
	// whole is the search with textPart as its text; the filters and
	// pairs are the same query objects in both passes.
	whole := func(textPart query.Query, should []query.Query) query.Query {
		bq := bleve.NewBooleanQuery()
		if textPart != nil {
			bq.AddMust(textPart)
		}
		if len(filters) > 0 {
			bq.AddMust(filters...)
		}
		if len(should) > 0 {
			bq.AddShould(should...)
		}
		if superseded != nil {
			bq.AddMustNot(superseded)
		}
		return bq
	}
	if req.Text != "" || len(req.CreatedIn) > 0 {
		// Sorted by score alone: of the hits scoring the same at the cut,
		// those of least id, not those Bleve met first (the documents'
		// order in the segments).
		ctx = withTiesByID(ctx, req.Size)
	}
	var res *bleve.SearchResult
	// firstPass runs a first pass of pr over the notes its query's filter
	// keeps, and answers when it finds a full page above what any other note
	// can score (limit, read once the pass has made its searchers).
	// Otherwise it returns its page when it is full.
	firstPass := func(q query.Query, limit func() float64) (*bleve.SearchResult, error) {
		sr.Query = whole(q, prShould)
		first, err := b.idx.SearchInContext(ctx, sr)
		switch {
		case errors.Is(err, errTooFew):
			// Fewer notes than a page match an essential clause.
		case err != nil:
			return nil, fmt.Errorf("search: %w", err)
		case len(first.Hits) == req.Size && lowest(first.Hits) > limit():
			res = first
			prunedSearches.Add(1)
		case len(first.Hits) == req.Size:
			return first, nil
		}
		return nil, nil
	}
	extraFiltered := func(filter query.Query) query.Query {
		return whole(bleve.NewConjunctionQuery(filter, text), should)
	}
	if pr != nil && pr.wordsPass != nil {
		page, err := firstPass(pr.wordsPass, pr.limitWithPairs)
		if err != nil {
			return nil, err
		}
		if res != nil {
			prunedByWords.Add(1)
		}
		if page != nil && req.AnyTerm {
			// The notes the first pass would add are those of the common
			// pairs; with the notes of enough words (see below) they
			// complete this page, and the notes it scored are not scored
			// again.
			if res, err = b.extraPass(ctx, sr, pr, page, true, extraFiltered); err != nil {
				return nil, err
			}
		}
	}
	if pr != nil && res == nil {
		page, err := firstPass(prText, pr.limit)
		if err != nil {
			return nil, err
		}
		if page != nil && req.AnyTerm {
			// The notes of no essential clause that can score above the
			// page's lowest (fewestWords) are few: scored apart, with
			// the page they make the whole search's.
			if res, err = b.extraPass(ctx, sr, pr, page, false, extraFiltered); err != nil {
				return nil, err
			}
		}
	}
	if res == nil {
		sr.Query = whole(text, should)
		var err error
		res, err = b.idx.SearchInContext(ctx, sr)
		switch {
		case errors.Is(err, errTooFew):
			// Fewer than req.AtLeast notes may match: none is an answer.
			return nil, nil
		case err != nil:
			return nil, fmt.Errorf("search: %w", err)
		}
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

// extraPass completes the full page of a pruned search for any of the words
// whose first pass could not answer: it scores the notes that match no
// essential clause and have enough of the words in their bodies to score
// above the page's lowest (fewestWords), and keeps the best of them and the
// page. Every other note scores below the page's lowest, which is at most
// the whole search's. A hit scores the same in every pass (the filters
// score 0 and weigh 0), and ties at the cut are kept by least id in each
// pass as in the whole search (withTiesByID), so the page is the whole
// search's. Nil when it cannot be made (errNoBitmaps), for the whole
// search to run. filtered is the whole search's query with a filter of the
// notes to score. After the pass over the rarer essential clauses
// (afterWords, see wordsPass) the notes with a common pair are scored too,
// whatever their words: the first pass would have.
func (b *Bleve) extraPass(ctx context.Context, sr *bleve.SearchRequest, pr *pruning, page *bleve.SearchResult, afterWords bool, filtered func(query.Query) query.Query) (*bleve.SearchResult, error) {
	n := pr.fewestWords(lowest(page.Hits))
	if n < 1 {
		return nil, nil
	}
	q := pr.extraQuery(n, afterWords)
	if q == nil {
		return nil, nil
	}
	sr.Query = filtered(q)
	extra, err := b.idx.SearchInContext(ctx, sr)
	switch {
	case errors.Is(err, errNoBitmaps):
		return nil, nil
	case errors.Is(err, errNoneLeft):
		extraNone.Add(1)
	case err != nil:
		return nil, fmt.Errorf("search: %w", err)
	default:
		page.Hits = mergePages(page.Hits, extra.Hits, sr.Size)
	}
	extraPasses.Add(1)
	if afterWords {
		extraAfterWords.Add(1)
	}
	return page, nil
}

// mergePages is the best size of two pages' hits, by score and then by id.
// Each pass reads the index as it is then: a note changed between them may
// be in both, and is kept once, as the first page has it.
func mergePages(page, extra bsearch.DocumentMatchCollection, size int) bsearch.DocumentMatchCollection {
	hits := slices.Clip(page)
	for _, h := range extra {
		if !slices.ContainsFunc(page, func(p *bsearch.DocumentMatch) bool { return p.ID == h.ID }) {
			hits = append(hits, h)
		}
	}
	slices.SortStableFunc(hits, func(a, c *bsearch.DocumentMatch) int {
		if a.Score != c.Score {
			return cmp.Compare(c.Score, a.Score)
		}
		return strings.Compare(a.ID, c.ID)
	})
	return hits[:min(len(hits), size)]
}

// lowest is the lowest score of hits.
func lowest(hits bsearch.DocumentMatchCollection) float64 {
	low := math.Inf(1)
	for _, h := range hits {
		low = min(low, h.Score)
	}
	return low
}

// SearchDocs runs req over a few documents held in memory rather than in
// the index: the notes whose indexing a writer deferred (see Deferred), so
// that a search sees them before they reach the index. The filters are
// applied exactly; the text is analysed as the index analyses it, and a
// document matches when it has every term of the text (any, with AnyTerm,
// or when Rarest would narrow the text: a superset of what the index
// matches), a term's other spellings (Synonyms) counting as the term.
// Compounds and phrases are not looked for. A hit's score is the share of
// the terms the document has: it cannot be compared with the index's BM25
// scores, which weigh a term by how many documents hold it.
func (b *Bleve) SearchDocs(docs []Doc, req memories.SearchRequest) []Match {
	var terms []string
	var alts map[string][]string
	if req.Text != "" {
		if terms = b.analyzer(req.Text); len(terms) == 0 {
			return nil
		}
		alts = b.synonyms(req.Synonyms)
	}
	anyTerm := req.AnyTerm || req.Rarest > 0 && len(terms) > req.Rarest
	var out []Match
	var updated []time.Time
	for _, d := range docs {
		m := d.Memory
		if d.Deleted || m == nil || !matchesFilters(m, req) {
			continue
		}
		score := 0.0
		if len(terms) > 0 {
			has := map[string]bool{}
			for _, text := range append([]string{m.Title, m.Body}, m.Tags...) {
				for _, t := range b.analyzer(text) {
					has[t] = true
				}
			}
			var pathOnly map[string]bool
			if len(alts) > 0 {
				pathOnly = map[string]bool{}
				for _, t := range strings.Fields(b.pathOnly(m.Title, m.Body)) {
					pathOnly[t] = true
				}
			}
			n := 0
			for _, t := range terms {
				found := has[t]
				for _, a := range alts[t] {
					found = found || has[a] && !pathOnly[a]
				}
				if found {
					n++
				}
			}
			if n == 0 || !anyTerm && n < len(terms) {
				continue
			}
			score = float64(n) / float64(len(terms))
		}
		out = append(out, Match{ID: d.ID, Score: score})
		updated = append(updated, m.Updated)
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, c := idx[i], idx[j]
		switch {
		case out[a].Score != out[c].Score:
			return out[a].Score > out[c].Score
		case !updated[a].Equal(updated[c]):
			return updated[a].After(updated[c])
		}
		return out[a].ID < out[c].ID
	})
	sorted := make([]Match, 0, min(len(out), max(req.Size, 0)))
	for _, i := range idx {
		if len(sorted) == req.Size {
			break
		}
		sorted = append(sorted, out[i])
	}
	return sorted
}

// matchesFilters applies req's filters, as Search does, to m.
func matchesFilters(m *memories.Memory, req memories.SearchRequest) bool {
	hours := func() bool {
		h := hourOf(m.Created)
		for _, x := range hoursOf(req.CreatedIn) {
			if x == h {
				return true
			}
		}
		return false
	}
	for _, t := range req.Tags {
		if !slices.Contains(m.Tags, t) {
			return false
		}
	}
	switch {
	case req.Project != "" && m.Project != req.Project,
		len(req.Projects) > 0 && !slices.Contains(req.Projects, m.Project),
		req.Area != "" && m.Area != req.Area,
		req.Type != "" && m.Type != req.Type,
		req.Status != "" && m.Status != req.Status,
		len(req.SourceHashes) > 0 && (m.Provenance.SourceHash == "" || !slices.Contains(req.SourceHashes, m.Provenance.SourceHash)),
		!req.UpdatedSince.IsZero() && m.Updated.Before(req.UpdatedSince),
		!req.IncludeSuperseded && m.Status == memories.StatusSuperseded,
		len(req.CreatedIn) > 0 && !hours():
		return false
	}
	return true
}
