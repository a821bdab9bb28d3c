package index

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	regexptok "github.com/blevesearch/bleve/v2/analysis/tokenizer/regexp"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
)

// The transcript index is a second Bleve index, of agents' conversations
// rather than of notes: one document per exchange (a person's turn and the
// agent's reply up to the next turn) or compaction summary. Its mapping, its
// queries and its analysis live here, beside the memory index's, because this
// is the only package that imports Bleve; what an exchange is, how the index
// is kept up to date and how results are ranked belong to package
// transcripts.

// TranscriptSchema names the transcript mapping. Changing the mapping, the
// analyzers or what the fields hold must change it: an index built under
// another schema is rebuilt on first use.
const TranscriptSchema = "transcripts-7"

// Transcript field names.
const (
	// tfAll is every text of the exchange — the person's words, the reply,
	// tool names, paths and commands, and the parts of its identifiers —
	// analysed as prose: BM25 over it is the base of the ranking, and alone
	// it is the plain BM25 baseline.
	tfAll = "all"
	// tfUser, tfTools and tfPaths repeat parts of tfAll so that a query can
	// weigh a match in them more: the person's own words, the tools used,
	// the files read or edited.
	tfUser  = "user"
	tfTools = "tools"
	tfPaths = "paths"
	// tfExact holds the identifiers, paths and error codes of the exchange
	// whole and lower-cased (ExactTerms), for exact matches.
	tfExact = "exact"
	// tfReply is stored only, and tfMeta holds the rest of the document,
	// as JSON: what results show, in one stored field (each field costs
	// time in every document indexed).
	tfReply = "reply"
	tfMeta  = "meta"

	// Keyword fields, for filters.
	tfTool    = "tool"
	tfSession = "session"
	tfProject = "project" // lower-case names of the project (folder and repository names)
	tfDir     = "dir"     // the working folder and repository root, for path filters
	tfKind    = "kind"
	tfFileKey = "filekey"
	// tfTime is when the exchange began, for the since filter: the four
	// terms of its stamp to the nanosecond (see timeterms.go).
	tfTime      = "time"
	tfTimeDay   = "time_day"
	tfTimeMonth = "time_month"
	tfTimeYear  = "time_year"

	transcriptTextAnalyzer  = "cortex_transcript_text"
	transcriptWordsAnalyzer = "cortex_transcript_words"
	transcriptExactAnalyzer = "cortex_transcript_exact"
	// transcriptPartsTokenizer splits at every character that is not a
	// letter or a digit: src/auth/jwt.go is src, auth, jwt, go.
	transcriptPartsTokenizer = "cortex_transcript_parts"
)

// Kinds of transcript documents.
const (
	KindExchange   = "exchange"
	KindCompaction = "compaction"
)

// TranscriptDoc is one exchange (or compaction summary) as the transcript
// index holds it. Every text in it has been redacted by the caller.
type TranscriptDoc struct {
	ID string `json:"id"`
	// Kind is KindExchange or KindCompaction; Rewound marks an exchange on
	// a branch the person rewound away from.
	Kind    string `json:"kind"`
	Rewound bool   `json:"rewound,omitempty"`
	// Tool is the tool's slug; Session its session id; Agent the subagent
	// whose transcript it is, Sidechain when it is a side conversation.
	Tool      string `json:"tool"`
	Session   string `json:"session"`
	Agent     string `json:"agent,omitempty"`
	Sidechain bool   `json:"sidechain,omitempty"`
	// User is what the person typed; Reply the agent's answer (and what
	// failed tools said), both trimmed.
	User  string `json:"user"`
	Reply string `json:"reply"`
	// Tools, Paths and Commands are the tools called, the files read or
	// edited and the shell commands run, each once, in order.
	Tools    []string `json:"tools,omitempty"`
	Paths    []string `json:"paths,omitempty"`
	Commands []string `json:"commands,omitempty"`
	// Cwd, RepoRoot and Branch say where the session worked.
	Cwd      string `json:"cwd,omitempty"`
	RepoRoot string `json:"repo_root,omitempty"`
	Branch   string `json:"branch,omitempty"`
	// Projects are the names a project filter matches (lower case); Dirs
	// the folders a path filter matches by prefix.
	Projects []string `json:"projects,omitempty"`
	Dirs     []string `json:"dirs,omitempty"`
	// File, Offset, Line and Pointer point at the exchange's first record;
	// EndLine is the line of its last. FileKey names the file in the index.
	File    string `json:"file"`
	FileKey string `json:"file_key"`
	Offset  int64  `json:"offset"`
	Line    int    `json:"line,omitempty"`
	EndLine int    `json:"end_line,omitempty"`
	Pointer string `json:"pointer,omitempty"`
	// Time is when the exchange began, End when its last record was
	// written; zero when the transcript does not say.
	Time time.Time `json:"time,omitzero"`
	End  time.Time `json:"end,omitzero"`
	// Dup identifies the exchange across files that copy it (a resumed
	// session replaying its parent): the tool and the turn's event id.
	Dup string `json:"dup,omitempty"`
}

// newTranscriptMapping is the transcript index's mapping: texts analysed as
// prose (stemmed, stop words out) in the all and user fields, words as they
// are in the tools and paths fields, identifiers whole in the exact field,
// keyword fields for filters, and stored fields for what results show.
func newTranscriptMapping() (mapping.IndexMapping, error) {
	im := bleve.NewIndexMapping()
	if err := im.AddCustomTokenizer(transcriptPartsTokenizer, map[string]any{"type": regexptok.Name, "regexp": `[\p{L}\p{N}]+`}); err != nil {
		return nil, err
	}
	for name, def := range map[string]map[string]any{
		// Bleve's Unicode tokenizer and English possessive, lower-case,
		// stop-word and Porter filters, done faster (transcript_analysis.go).
		transcriptTextAnalyzer:  {"type": transcriptTextType},
		transcriptWordsAnalyzer: {"type": custom.Name, "tokenizer": transcriptPartsTokenizer, "token_filters": []any{lowercase.Name}},
		transcriptExactAnalyzer: {"type": custom.Name, "tokenizer": whitespace.Name, "token_filters": []any{lowercase.Name}},
	} {
		if err := im.AddCustomAnalyzer(name, def); err != nil {
			return nil, err
		}
	}
	im.ScoringModel = bindex.BM25Scoring
	im.DefaultAnalyzer = transcriptTextAnalyzer
	im.IndexDynamic = false
	im.StoreDynamic = false
	im.DocValuesDynamic = false

	text := func(name, analyzer string, store bool) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Name, f.Analyzer, f.Store = name, analyzer, store
		f.IncludeInAll, f.IncludeTermVectors, f.DocValues = false, false, false
		return f
	}
	stored := func(name string) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Name, f.Index, f.Store = name, false, true
		f.IncludeInAll, f.IncludeTermVectors, f.DocValues = false, false, false
		return f
	}
	kw := func(name string, store bool) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Name, f.Analyzer, f.Store = name, keyword.Name, store
		f.IncludeInAll, f.IncludeTermVectors, f.DocValues = false, false, false
		return f
	}
	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(tfAll, text(tfAll, transcriptTextAnalyzer, false))
	doc.AddFieldMappingsAt(tfUser, text(tfUser, transcriptTextAnalyzer, true))
	doc.AddFieldMappingsAt(tfTools, text(tfTools, transcriptWordsAnalyzer, false))
	doc.AddFieldMappingsAt(tfPaths, text(tfPaths, transcriptWordsAnalyzer, false))
	doc.AddFieldMappingsAt(tfExact, text(tfExact, transcriptExactAnalyzer, false))
	doc.AddFieldMappingsAt(tfReply, stored(tfReply))
	doc.AddFieldMappingsAt(tfMeta, stored(tfMeta))
	for _, k := range []string{tfTool, tfSession, tfKind, tfFileKey, tfProject, tfDir, tfTime, tfTimeDay, tfTimeMonth, tfTimeYear} {
		doc.AddFieldMappingsAt(k, kw(k, false))
	}
	// No "_all" field: every query names its fields (and documents are
	// built without it, transcriptDocument).
	doc.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())
	im.DefaultMapping = doc
	return im, nil
}

// TranscriptIndex is an open transcript index.
type TranscriptIndex struct {
	idx      bleve.Index
	readOnly bool
	// building marks an index being built whole: it is merged fully when
	// closed. An index updated in place merges only its small segments,
	// so that an update never rewrites the whole index.
	building bool
	// lengths is BM25's average length of each field (see fieldLengths).
	lengths lengthsCache
}

// transcriptScored are the fields whose lengths a document keeps
// (fieldLengths): those a search scores.
var transcriptScored = []string{tfAll, tfUser, tfTools, tfPaths, tfExact}

// CreateTranscriptIndex makes a new, empty transcript index in dir.
func CreateTranscriptIndex(dir string) (*TranscriptIndex, error) {
	m, err := newTranscriptMapping()
	if err != nil {
		return nil, err
	}
	idx, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, writerConfig())
	if err != nil {
		return nil, fmt.Errorf("create transcript index: %w", err)
	}
	return &TranscriptIndex{idx: idx, building: true}, nil
}

// OpenTranscriptIndex opens the transcript index in dir; a missing or
// damaged one is a CorruptError (the caller rebuilds it). The caller holds
// the index lock: shared for read-only, exclusive otherwise.
func OpenTranscriptIndex(dir string, readOnly bool) (*TranscriptIndex, error) {
	if _, err := os.Stat(filepath.Join(dir, "index_meta.json")); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &CorruptError{File: filepath.Join(dir, "index_meta.json"), Msg: "missing"}
		}
		return nil, fmt.Errorf("open transcript index: %w", err)
	}
	cfg := writerConfig()
	if readOnly {
		cfg = map[string]any{"bolt_timeout": boltTimeout, "read_only": true}
	}
	idx, err := bleve.OpenUsing(dir, cfg)
	if err != nil {
		return nil, &CorruptError{File: dir, Msg: err.Error()}
	}
	if idx.Mapping().AnalyzerNamed(transcriptExactAnalyzer) == nil {
		_ = idx.Close()
		return nil, &CorruptError{File: dir, Msg: "not a transcript index"}
	}
	return &TranscriptIndex{idx: idx, readOnly: readOnly}, nil
}

// Close closes the index; a writer first merges its segments when there are
// many, so that searches stay fast after many small updates.
func (t *TranscriptIndex) Close() error {
	var err error
	switch {
	case t.readOnly:
	case t.building:
		err = mergeBuilt(t.idx)
	default:
		err = mergeSmall(t.idx)
	}
	if err != nil {
		_ = t.idx.Close()
		return err
	}
	return t.idx.Close()
}

// smallSegment is the most documents a merge of an index updated in place
// makes one segment of; it merges segments of fewer than half that. The
// segments of whole builds are bigger (package transcripts builds batches
// of at least about a thousand documents but the last, a memory index's
// rebuild batches of 2,500 notes unless they are long) and are never
// rewritten by it: an update must not cost a rewrite of the index.
const smallSegment = 1000

// smallMergePlan is how mergeSmall merges: in tiers of 4, 16, 64 and 256
// documents, one segment a tier, so that the updates' segments are merged
// as a binary counter carries — each document is rewritten a few times in
// all, not once per update (merging whenever there were two small segments
// rewrote all the updates' documents at every update: 13 ms of CPU each
// after a few dozen), and no more than four small segments wait.
func smallMergePlan() *mergeplan.MergePlanOptions {
	opts := mergeplan.DefaultMergePlanOptions
	opts.FloorSegmentSize = 4
	opts.TierGrowth = 4
	opts.MaxSegmentsPerTier = 1
	opts.SegmentsPerMergeTask = 16
	opts.MaxSegmentSize = smallSegment
	return &opts
}

// mergeSmall merges the small segments an index updated in place piles up
// (each update adds one), when there are many, into segments of at most
// smallSegment documents.
func mergeSmall(idx bleve.Index) error {
	return forceMerge(idx, smallMergePlan(), mergeAbove)
}

// DocCount is the number of documents in the index.
func (t *TranscriptIndex) DocCount() (uint64, error) { return t.idx.DocCount() }

// Apply deletes the documents named in del, then indexes docs (replacing
// documents of the same id), in one batch.
func (t *TranscriptIndex) Apply(docs []TranscriptDoc, del []string) error {
	if len(docs) == 0 && len(del) == 0 {
		return nil
	}
	if t.readOnly {
		return errors.New("transcript index batch: index opened read-only")
	}
	b := t.idx.NewBatch()
	for _, id := range del {
		b.Delete(id)
	}
	ev, _ := t.idx.(bindex.EventIndex)
	for i := range docs {
		if ev != nil {
			ev.FireIndexEvent() // as Batch.Index does
		}
		doc, err := transcriptDocument(&docs[i])
		if err == nil {
			err = b.IndexAdvanced(doc)
		}
		if err != nil {
			return fmt.Errorf("index %s: %w", docs[i].ID, err)
		}
	}
	if err := t.idx.Batch(b); err != nil {
		return fmt.Errorf("transcript index batch: %w", err)
	}
	return nil
}

// transcriptMeta is what a document stores besides its texts.
type transcriptMeta struct {
	Kind      string    `json:"k"`
	Rewound   bool      `json:"rw,omitempty"`
	Tool      string    `json:"t"`
	Session   string    `json:"s"`
	Agent     string    `json:"a,omitempty"`
	Sidechain bool      `json:"sc,omitempty"`
	Tools     []string  `json:"tl,omitempty"`
	Paths     []string  `json:"p,omitempty"`
	Commands  []string  `json:"c,omitempty"`
	Cwd       string    `json:"cwd,omitempty"`
	RepoRoot  string    `json:"repo,omitempty"`
	Branch    string    `json:"br,omitempty"`
	File      string    `json:"f"`
	FileKey   string    `json:"fk"`
	Offset    int64     `json:"o"`
	Line      int       `json:"l,omitempty"`
	EndLine   int       `json:"el,omitempty"`
	Pointer   string    `json:"ptr,omitempty"`
	Time      time.Time `json:"ts,omitzero"`
	End       time.Time `json:"te,omitzero"`
	Dup       string    `json:"d,omitempty"`
}

// transcriptTexts are the texts of an exchange the index's fields are made
// of, besides its own.
type transcriptTexts struct {
	// all is tfAll's text: the person's words, the reply, the tools and
	// the commands, each ended by a line break (so that the person's words
	// are its head, userLen bytes long, when they are not empty), then the
	// parts of identifiers.
	all     string
	userLen int
	tools   string
	paths   string
	exact   []string
	meta    []byte
}

// textsOf is what the fields of d are made of.
func textsOf(d *TranscriptDoc) (transcriptTexts, error) {
	tools := strings.Join(d.Tools, " ")
	paths := strings.Join(d.Paths, "\n")
	commands := strings.Join(d.Commands, "\n")
	var all strings.Builder
	for _, s := range []string{d.User, d.Reply, tools, commands} {
		if s != "" {
			all.WriteString(s)
			all.WriteByte('\n')
		}
	}
	var exact []string
	for _, s := range []string{d.User, d.Reply, paths, commands} {
		exact = append(exact, ExactTerms(s)...)
	}
	// The parts of identifiers the text's tokenizer keeps whole
	// (self.cache.get, snake_case, a:b), so that cache finds them, and of
	// every path, which the text holds by its parts alone: planner finds
	// src/planner.rs. Each part once: how often is the words' business.
	partsDone := map[string]bool{}
	for _, e := range exact {
		if !strings.ContainsAny(e, "._:/\\") {
			continue
		}
		for _, p := range strings.Fields(identifierParts(e)) {
			if !partsDone[p] {
				partsDone[p] = true
				all.WriteString(p)
				all.WriteByte(' ')
			}
		}
	}
	meta, err := json.Marshal(transcriptMeta{
		Kind: d.Kind, Rewound: d.Rewound, Tool: d.Tool, Session: d.Session, Agent: d.Agent, Sidechain: d.Sidechain,
		Tools: d.Tools, Paths: d.Paths, Commands: d.Commands, Cwd: d.Cwd, RepoRoot: d.RepoRoot, Branch: d.Branch,
		File: d.File, FileKey: d.FileKey, Offset: d.Offset, Line: d.Line, EndLine: d.EndLine, Pointer: d.Pointer,
		Time: d.Time, End: d.End, Dup: d.Dup,
	})
	if err != nil {
		return transcriptTexts{}, err
	}
	return transcriptTexts{all: all.String(), userLen: len(d.User), tools: tools, paths: paths, exact: exact, meta: meta}, nil
}

// transcriptFieldDefs are the options and analyzers the mapping gives each
// field, taken from the mapping itself so that transcriptDocument cannot
// drift from it.
type transcriptFieldDefs struct {
	options map[string]bindex.FieldIndexingOptions
	// text and words analyse prose and words; lower is the exact field's
	// lower-case filter (its tokens are ExactTerms' words, whole).
	text           *transcriptText
	words, keyword analysis.Analyzer
	lower          analysis.TokenFilter
}

var transcriptDefs = sync.OnceValues(func() (*transcriptFieldDefs, error) {
	m, err := newTranscriptMapping()
	if err != nil {
		return nil, err
	}
	im, ok := m.(*mapping.IndexMappingImpl)
	if !ok {
		return nil, fmt.Errorf("transcript mapping: unexpected type %T", m)
	}
	text, ok := m.AnalyzerNamed(transcriptTextAnalyzer).(*transcriptText)
	if !ok {
		return nil, fmt.Errorf("transcript mapping: unexpected text analyzer %T", m.AnalyzerNamed(transcriptTextAnalyzer))
	}
	defs := &transcriptFieldDefs{options: map[string]bindex.FieldIndexingOptions{},
		text: text, words: m.AnalyzerNamed(transcriptWordsAnalyzer),
		keyword: m.AnalyzerNamed(keyword.Name), lower: lowercase.NewLowerCaseFilter()}
	for name, dm := range im.DefaultMapping.Properties {
		if len(dm.Fields) == 1 {
			defs.options[name] = dm.Fields[0].Options()
		}
	}
	return defs, nil
})

// transcriptDocument is the Bleve document of d: the one the mapping makes
// of a map of its texts (Batch.Index's work), built directly rather than by
// walking the map by reflection, with analyses saved: the person's words are
// analysed once, as the head of the all field, the two fields' terms are
// counted without Bleve's token frequencies (countedField), and the exact
// field's tokens are ExactTerms' words rather than their join split again.
// TestTranscriptDocumentIsTheMappings and FuzzTranscriptDocument compare
// the two.
func transcriptDocument(d *TranscriptDoc) (*document.Document, error) {
	defs, err := transcriptDefs()
	if err != nil {
		return nil, err
	}
	tx, err := textsOf(d)
	if err != nil {
		return nil, err
	}
	doc := document.NewDocument(d.ID)
	text := func(name, value string, a analysis.Analyzer) {
		doc.AddField(document.NewTextFieldCustom(name, nil, []byte(value), defs.options[name], a))
	}
	// The all field comes first: its analysis gives the user field's
	// terms (see countedField.Analyze).
	counted := &countedText{text: defs.text, headLen: -1}
	if utf8.ValidString(tx.all) {
		// Valid text is cut into words at white space, which the line
		// break after the person's words is: the head's tokens are those
		// of the person's words alone.
		counted.headLen = tx.userLen
	}
	doc.AddField(&countedField{name: tfAll, options: defs.options[tfAll], value: []byte(tx.all), of: counted})
	doc.AddField(&countedField{name: tfUser, options: defs.options[tfUser], value: []byte(d.User), of: counted, head: true})
	text(tfReply, d.Reply, nil)
	exact := strings.Join(tx.exact, " ")
	doc.AddField(document.NewTextFieldCustom(tfExact, nil, []byte(exact), defs.options[tfExact], &analysed{exactTokens(exact, len(tx.exact), defs.lower)}))
	text(tfMeta, string(tx.meta), nil)
	text(tfKind, d.Kind, defs.keyword)
	text(tfTool, d.Tool, defs.keyword)
	text(tfSession, d.Session, defs.keyword)
	text(tfFileKey, d.FileKey, defs.keyword)
	if tx.tools != "" {
		text(tfTools, tx.tools, defs.words)
	}
	if tx.paths != "" {
		text(tfPaths, tx.paths, defs.words)
	}
	for i, p := range d.Projects {
		doc.AddField(document.NewTextFieldCustom(tfProject, []uint64{uint64(i)}, []byte(p), defs.options[tfProject], defs.keyword))
	}
	for i, p := range d.Dirs {
		doc.AddField(document.NewTextFieldCustom(tfDir, []uint64{uint64(i)}, []byte(p), defs.options[tfDir], defs.keyword))
	}
	if !d.Time.IsZero() {
		transcriptTime.add(d.Time, func(field, term string) { text(field, term, defs.keyword) })
	}
	addLengths(doc, transcriptScored)
	return doc, nil
}

// exactTokens are the whitespace tokenizer's tokens of the n words joined
// by single spaces in exact (none of them holds white space), lower-cased by
// lower as the exact analyzer does.
func exactTokens(exact string, n int, lower analysis.TokenFilter) analysis.TokenStream {
	if n == 0 {
		return nil
	}
	b := []byte(exact)
	slab := make([]analysis.Token, 0, n)
	toks := make(analysis.TokenStream, 0, n)
	for start := 0; start < len(b); {
		end := bytes.IndexByte(b[start:], ' ')
		if end < 0 {
			end = len(b)
		} else {
			end += start
		}
		if end > start {
			slab = append(slab, analysis.Token{Term: b[start:end], Start: start, End: end, Position: len(toks) + 1, Type: analysis.AlphaNumeric})
			toks = append(toks, &slab[len(slab)-1])
		}
		start = end + 1
	}
	return lower.Filter(toks)
}

// countedText is the all and user fields of an exchange: texts of the
// transcript text analyzer, whose terms it counts itself
// (transcriptText.frequencies), the user field's in the same pass as the
// all field's when it is the all field's head.
type countedText struct {
	text *transcriptText
	// headLen is the length of the user field when it is the head of the
	// all field, else -1.
	headLen int
	userN   int
	user    bindex.TokenFrequencies
	ready   bool
}

// countedField is a field of a countedText: the all field, or the user
// field (head).
type countedField struct {
	name    string
	options bindex.FieldIndexingOptions
	value   []byte
	of      *countedText
	head    bool
	length  int
	freqs   bindex.TokenFrequencies
}

var _ document.Field = (*countedField)(nil)

func (f *countedField) Name() string                                      { return f.name }
func (f *countedField) ArrayPositions() []uint64                          { return nil }
func (f *countedField) Options() bindex.FieldIndexingOptions              { return f.options }
func (f *countedField) Value() []byte                                     { return f.value }
func (f *countedField) NumPlainTextBytes() uint64                         { return uint64(len(f.value)) }
func (f *countedField) EncodedFieldType() byte                            { return 't' }
func (f *countedField) AnalyzedLength() int                               { return f.length }
func (f *countedField) AnalyzedTokenFrequencies() bindex.TokenFrequencies { return f.freqs }

// Size is what Bleve counts of a batch's memory for the field, for its
// statistics only: estimated from the number of terms rather than summed
// over them (a text field walks its whole map for it).
func (f *countedField) Size() int {
	const perTerm = 96 // a map entry, a TokenFreq and a short term
	return 64 + len(f.name) + len(f.value) + perTerm*len(f.freqs)
}

// Analyze counts the field's terms; the analyzer reads the value without
// changing it, so a stored value needs no copy. Scorch analyses a
// document's fields in order on one goroutine: the all field, first, also
// counts the user field's terms when it can.
func (f *countedField) Analyze() {
	c := f.of
	switch {
	case !f.head:
		f.length, f.freqs, c.userN, c.user = c.text.frequencies(f.value, c.headLen)
		c.ready = c.headLen >= 0
	case c.ready:
		f.length, f.freqs = c.userN, c.user
		c.ready, c.user = false, nil
	default:
		f.length, f.freqs, _, _ = c.text.frequencies(f.value, -1)
	}
}

// storedFields are the fields a hit carries back.
var storedFields = []string{tfUser, tfReply, tfMeta}

// docOf rebuilds a document from a hit's stored fields (the ones a filter
// needs only, Projects and Dirs, are not stored and stay empty).
func docOf(id string, f map[string]any) (TranscriptDoc, error) {
	str := func(k string) string { s, _ := f[k].(string); return s }
	var m transcriptMeta
	if err := json.Unmarshal([]byte(str(tfMeta)), &m); err != nil {
		return TranscriptDoc{}, &CorruptError{File: "transcript index", Msg: fmt.Sprintf("document %s: %v", id, err)}
	}
	return TranscriptDoc{
		ID: id, Kind: m.Kind, Rewound: m.Rewound, Tool: m.Tool, Session: m.Session, Agent: m.Agent, Sidechain: m.Sidechain,
		User: str(tfUser), Reply: str(tfReply), Tools: m.Tools, Paths: m.Paths, Commands: m.Commands,
		Cwd: m.Cwd, RepoRoot: m.RepoRoot, Branch: m.Branch, File: m.File, FileKey: m.FileKey, Offset: m.Offset,
		Line: m.Line, EndLine: m.EndLine, Pointer: m.Pointer, Time: m.Time, End: m.End, Dup: m.Dup,
	}, nil
}

// TranscriptBoosts weigh a match of a query term in one part of an exchange
// on top of its BM25 score over the whole exchange.
type TranscriptBoosts struct {
	User  float64 // the person's words
	Paths float64 // files read or edited
	Tools float64 // tool names
	Exact float64 // an identifier, path or error code of the query found whole
}

// TranscriptQuery is a search of the transcript index. Text is searched
// literally: it is analysed as the documents are, term by term, so no
// character of it is query syntax.
type TranscriptQuery struct {
	Text string
	// AnyTerm relaxes the match from every term of Text to any of them.
	AnyTerm bool
	// Baseline searches plain BM25 over the whole exchange: no boosts, no
	// exact matches.
	Baseline bool
	Boosts   TranscriptBoosts
	// Filters: the tool's slug; a session id or its prefix; project names
	// (any of them, lower case) or folders (any, by prefix); exchanges
	// begun at or after Since; kinds of document.
	Tool     string
	Session  string
	Projects []string
	Dirs     []string
	Since    time.Time
	Kind     string
	// FileKey keeps one file's documents.
	FileKey string
	Size    int
	// MetaOnly leaves the texts (User, Reply) out of the hits, for
	// ranking many candidates: Docs loads them for the few kept.
	MetaOnly bool
}

// TranscriptHit is a document found and its score.
type TranscriptHit struct {
	Doc   TranscriptDoc
	Score float64
}

// ErrEmptyQuery means a query's text has no term to search: only stop words
// or punctuation.
var ErrEmptyQuery = errors.New("the query has no word to search for")

// Search runs q: BM25 over the whole exchange, with the boosts of q on top
// unless it asks for the baseline, within its filters. Hits come best first,
// by id on equal scores; without text, in index order.
func (t *TranscriptIndex) Search(ctx context.Context, q TranscriptQuery) ([]TranscriptHit, error) {
	bq := bleve.NewBooleanQuery()
	if strings.TrimSpace(q.Text) != "" {
		terms := transcriptTerms(withParts(q.Text))
		if len(terms) == 0 {
			return nil, ErrEmptyQuery
		}
		perTerm := make([]query.Query, len(terms))
		for i, term := range terms {
			tq := bleve.NewTermQuery(term)
			tq.SetField(tfAll)
			perTerm[i] = tq
		}
		if q.AnyTerm || len(perTerm) == 1 {
			bq.AddMust(bleve.NewDisjunctionQuery(perTerm...))
		} else {
			bq.AddMust(bleve.NewConjunctionQuery(perTerm...))
		}
		if !q.Baseline {
			var should []query.Query
			add := func(field, term string, boost float64) {
				if boost <= 0 {
					return
				}
				tq := bleve.NewTermQuery(term)
				tq.SetField(field)
				tq.SetBoost(boost)
				should = append(should, tq)
			}
			for _, term := range terms {
				add(tfUser, term, q.Boosts.User)
			}
			for _, w := range transcriptWords(q.Text) {
				add(tfPaths, w, q.Boosts.Paths)
				add(tfTools, w, q.Boosts.Tools)
			}
			for _, e := range ExactTerms(q.Text) {
				add(tfExact, e, q.Boosts.Exact)
			}
			if len(should) > 0 {
				bq.AddShould(bleve.NewDisjunctionQuery(should...))
			}
		}
	} else {
		bq.AddMust(bleve.NewMatchAllQuery())
	}
	filter := func(field, value string) {
		tq := bleve.NewTermQuery(value)
		tq.SetField(field)
		tq.SetBoost(0)
		bq.AddMust(tq)
	}
	if q.Tool != "" {
		filter(tfTool, q.Tool)
	}
	if q.Kind != "" {
		filter(tfKind, q.Kind)
	}
	if q.FileKey != "" {
		filter(tfFileKey, q.FileKey)
	}
	if q.Session != "" {
		pq := bleve.NewPrefixQuery(q.Session)
		pq.SetField(tfSession)
		pq.SetBoost(0)
		bq.AddMust(pq)
	}
	if len(q.Projects)+len(q.Dirs) > 0 {
		var anyOf []query.Query
		for _, p := range q.Projects {
			tq := bleve.NewTermQuery(p)
			tq.SetField(tfProject)
			tq.SetBoost(0)
			anyOf = append(anyOf, tq)
		}
		for _, d := range q.Dirs {
			eq := bleve.NewTermQuery(d)
			eq.SetField(tfDir)
			eq.SetBoost(0)
			pq := bleve.NewPrefixQuery(strings.TrimSuffix(d, string(filepath.Separator)) + string(filepath.Separator))
			pq.SetField(tfDir)
			pq.SetBoost(0)
			anyOf = append(anyOf, eq, pq)
		}
		bq.AddMust(bleve.NewDisjunctionQuery(anyOf...))
	}
	if !q.Since.IsZero() {
		bq.AddMust(transcriptTime.since(q.Since))
	}
	size := q.Size
	if size <= 0 {
		size = 10
	}
	sr := bleve.NewSearchRequestOptions(bq, size, 0, false)
	sr.Fields = storedFields
	if q.MetaOnly {
		sr.Fields = []string{tfMeta}
	}
	ctx, err := t.lengths.withLengths(ctx, t.idx)
	if err != nil {
		return nil, fmt.Errorf("search transcripts: %w", err)
	}
	res, err := t.idx.SearchInContext(ctx, sr)
	if err != nil {
		return nil, fmt.Errorf("search transcripts: %w", err)
	}
	out := make([]TranscriptHit, 0, len(res.Hits))
	for _, h := range res.Hits {
		d, err := docOf(h.ID, h.Fields)
		if err != nil {
			return nil, err
		}
		out = append(out, TranscriptHit{Doc: d, Score: h.Score})
	}
	if q.Text != "" {
		sort.SliceStable(out, func(i, j int) bool {
			if out[i].Score != out[j].Score {
				return out[i].Score > out[j].Score
			}
			return out[i].Doc.ID < out[j].Doc.ID
		})
	}
	return out, nil
}

// Docs loads the documents of ids, in that order; an id of no document is
// left out.
func (t *TranscriptIndex) Docs(ctx context.Context, ids []string) ([]TranscriptDoc, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	sr := bleve.NewSearchRequestOptions(bleve.NewDocIDQuery(ids), len(ids), 0, false)
	sr.Fields = storedFields
	res, err := t.idx.SearchInContext(ctx, sr)
	if err != nil {
		return nil, fmt.Errorf("search transcripts: %w", err)
	}
	byID := make(map[string]TranscriptDoc, len(res.Hits))
	for _, h := range res.Hits {
		d, err := docOf(h.ID, h.Fields)
		if err != nil {
			return nil, err
		}
		byID[h.ID] = d
	}
	out := make([]TranscriptDoc, 0, len(ids))
	for _, id := range ids {
		if d, ok := byID[id]; ok {
			out = append(out, d)
		}
	}
	return out, nil
}

// IDsOfFile lists the ids of the documents of a file.
func (t *TranscriptIndex) IDsOfFile(ctx context.Context, fileKey string) ([]string, error) {
	tq := bleve.NewTermQuery(fileKey)
	tq.SetField(tfFileKey)
	var ids []string
	const page = 10000
	for from := 0; ; from += page {
		sr := bleve.NewSearchRequestOptions(tq, page, from, false)
		res, err := t.idx.SearchInContext(ctx, sr)
		if err != nil {
			return nil, fmt.Errorf("search transcripts: %w", err)
		}
		for _, h := range res.Hits {
			ids = append(ids, h.ID)
		}
		if len(res.Hits) < page {
			sort.Strings(ids)
			return ids, nil
		}
	}
}

// The analysis of queries and snippets, as the index does it.
var (
	analyzersOnce        sync.Once
	textAn, wordsAn      analysis.Analyzer
	errTranscriptMapping error
)

func transcriptAnalyzers() (text, words analysis.Analyzer) {
	analyzersOnce.Do(func() {
		m, err := newTranscriptMapping()
		if err != nil {
			errTranscriptMapping = err
			return
		}
		textAn, wordsAn = m.AnalyzerNamed(transcriptTextAnalyzer), m.AnalyzerNamed(transcriptWordsAnalyzer)
	})
	if errTranscriptMapping != nil {
		panic(fmt.Sprintf("index: the transcript mapping is invalid: %v", errTranscriptMapping))
	}
	return textAn, wordsAn
}

// transcriptTerms are the distinct terms of text as the all and user fields
// index them, in order.
func transcriptTerms(text string) []string {
	a, _ := transcriptAnalyzers()
	return distinct(a.Analyze([]byte(text)))
}

// transcriptWords are the distinct words of text as the tools and paths
// fields index them, in order.
func transcriptWords(text string) []string {
	_, a := transcriptAnalyzers()
	return distinct(a.Analyze([]byte(text)))
}

func distinct(toks analysis.TokenStream) []string {
	var out []string
	seen := make(map[string]bool, len(toks))
	for _, t := range toks {
		s := string(t.Term)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Token is a term of a text and where it is, in bytes.
type Token struct {
	Term       string
	Start, End int
}

// TranscriptTokens analyses text as the index analyses an exchange's words:
// for snippets, which mark the query's terms where they occur.
func TranscriptTokens(text string) []Token {
	a, _ := transcriptAnalyzers()
	toks := a.Analyze([]byte(text))
	out := make([]Token, len(toks))
	for i, t := range toks {
		out[i] = Token{Term: string(t.Term), Start: t.Start, End: t.End}
	}
	return out
}

// TranscriptQueryTerms are the terms of a query as Search looks for them in
// exchanges' texts, for marking them in snippets.
func TranscriptQueryTerms(text string) []string { return transcriptTerms(text) }

// maxExactTerm bounds the length of an exact term: longer runs are data
// (base64, minified code), not identifiers anyone types.
const maxExactTerm = 200

// ExactTerms are the identifiers, paths and error codes of text, whole and
// lower-cased, each once, in order: words that hold a character prose does
// not put inside a word (foo_bar, pkg.Func, src/auth/jwt.go, E0502,
// ERR_CONN-42, --dry-run), that mix letters and digits, that are camelCase,
// or that are written in capitals (ECONNREFUSED). A path also gives its file
// name, and a path:line its path. The query and the documents are taken
// apart the same way, so an identifier of the query matches only itself.
func ExactTerms(text string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if len(s) < 3 || len(s) > maxExactTerm || seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
	}
	for w := range exactWords(text) {
		w = strings.TrimRightFunc(strings.TrimLeftFunc(w, isEdgePunct), isEdgePunct)
		if !identifierLike(w) {
			continue
		}
		lw := strings.ToLower(w)
		add(lw)
		if strings.ContainsAny(lw, `/\`) {
			p := trimLineSuffix(lw)
			add(p)
			base := p[strings.LastIndexAny(p, `/\`)+1:]
			if identifierLike(base) {
				add(base)
			}
		}
	}
	return out
}

// exactWords are the words of text between isExactSeparator's runes, as
// strings.FieldsFunc gives them, without making a slice of them all (every
// exchange indexed is taken apart so).
func exactWords(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start := -1
		for i := 0; i < len(text); {
			r, size := rune(text[i]), 1
			sep := false
			if r < utf8.RuneSelf {
				sep = asciiExactSeparator(byte(r))
			} else {
				r, size = utf8.DecodeRuneInString(text[i:])
				sep = isExactSeparator(r)
			}
			switch {
			case sep && start >= 0:
				if !yield(text[start:i]) {
					return
				}
				start = -1
			case !sep && start < 0:
				start = i
			}
			i += size
		}
		if start >= 0 {
			yield(text[start:])
		}
	}
}

// asciiExactSeparator is isExactSeparator of an ASCII character.
func asciiExactSeparator(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r',
		'"', '\'', '`', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', '|', '=', '*', '!', '?', '&':
		return true
	}
	return false
}

func isExactSeparator(r rune) bool {
	if unicode.IsSpace(r) {
		return true
	}
	switch r {
	case '"', '\'', '`', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', '|', '=', '*', '!', '?', '&':
		return true
	}
	return false
}

// isEdgePunct is punctuation that ends a sentence or wraps a word rather
// than belonging to an identifier.
func isEdgePunct(r rune) bool {
	switch r {
	case '.', ':', '#', '@', '$', '%', '^', '~', '+':
		return true
	}
	return unicode.IsPunct(r) && r != '_' && r != '-' && r != '/' && r != '\\'
}

// identifierLike reports whether w reads as an identifier, a path or a code
// rather than a word of prose.
func identifierLike(w string) bool {
	if utf8.RuneCountInString(w) < 3 {
		return false
	}
	var letters, digits, uppers, lowers int
	inner := false
	camel := false
	prevLower := false
	for i, r := range w {
		switch {
		case unicode.IsLetter(r):
			letters++
			if unicode.IsUpper(r) {
				uppers++
				if prevLower {
					camel = true
				}
			} else {
				lowers++
			}
			prevLower = unicode.IsLower(r)
			continue
		case unicode.IsDigit(r):
			digits++
		case strings.ContainsRune("_./\\:#-", r):
			if i > 0 && i < len(w)-1 {
				inner = true
			}
		}
		prevLower = false
	}
	if letters+digits == 0 {
		return false
	}
	switch {
	case inner && letters > 0:
		return !plainHyphenated(w)
	case letters > 0 && digits > 0:
		return true
	case camel:
		return true
	case uppers >= 3 && lowers == 0:
		return true
	}
	return false
}

// plainHyphenated reports whether w is words joined by hyphens only, as
// prose writes them (well-known, follow-up): not an identifier.
func plainHyphenated(w string) bool {
	if strings.HasPrefix(w, "-") {
		return false // a command-line flag
	}
	for _, r := range w {
		if r != '-' && !unicode.IsLower(r) {
			return false
		}
	}
	return true
}

// withParts is text with each of its identifiers and paths replaced by its
// parts, which the all field holds of every identifier of a document:
// src/auth/jwt.go is src auth jwt go.
func withParts(text string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(text, isExactSeparator) {
		if t := strings.TrimRightFunc(strings.TrimLeftFunc(w, isEdgePunct), isEdgePunct); identifierLike(t) {
			w = identifierParts(t)
		}
		b.WriteString(w)
		b.WriteByte(' ')
	}
	return b.String()
}

// identifierParts is an identifier's words, space-separated: its runs of
// letters and digits.
func identifierParts(id string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return ' '
	}, id)
}

// trimLineSuffix drops a :line or :line:column suffix from a path.
func trimLineSuffix(p string) string {
	for range 2 {
		i := strings.LastIndexByte(p, ':')
		if i <= 0 || i == len(p)-1 {
			return p
		}
		if _, err := strconv.Atoi(p[i+1:]); err != nil {
			return p
		}
		p = p[:i]
	}
	return p
}
