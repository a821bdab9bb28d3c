package index

import (
	"fmt"
	"hash/maphash"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/cortexmem/cortex/memories"
)

// A memory's Bleve document is built directly (memoryDocument) rather than
// by the mapping walking a map of its fields by reflection: a rebuild of
// 100,000 notes spent about a sixth of its CPU making documents and
// analysing them, and as much again collecting the garbage they left. The
// document holds what the mapping makes of the same memory — the same
// fields, options, values, lengths and term frequencies, so the segments
// and every score are the same — with the work done once: the text
// analysis is transcriptText's (Bleve's chain, with what its filters make
// of a word remembered), the terms are counted as they are found, and the
// pairs field's terms are written where its text is, not split from it
// again. TestMemoryDocumentIsTheMappings and FuzzMemoryDocument compare the
// two.

// memoryFieldDefs are the options the mapping gives each field, taken from
// the mapping itself so that the documents cannot drift from it, and the
// analyzers the documents are made with.
type memoryFieldDefs struct {
	options map[string]bindex.FieldIndexingOptions
	// text is the mapping's text analyzer (textAnalyzer, whose chain is
	// transcriptTextChain) as transcriptText reproduces it.
	text *transcriptText
	// pairs is the mapping's pairsAnalyzer, for the texts of the pairs and
	// pathonly fields that are not split here.
	pairs analysis.Analyzer
}

var memoryDefs = sync.OnceValues(func() (*memoryFieldDefs, error) {
	m, err := sharedMapping()
	if err != nil {
		return nil, err
	}
	im, ok := m.(*mapping.IndexMappingImpl)
	if !ok {
		return nil, fmt.Errorf("memory mapping: unexpected type %T", m)
	}
	a, err := registry.NewCache().AnalyzerNamed(transcriptTextType)
	if err != nil {
		return nil, fmt.Errorf("memory mapping: %w", err)
	}
	text, ok := a.(*transcriptText)
	if !ok {
		return nil, fmt.Errorf("memory mapping: unexpected text analyzer %T", a)
	}
	pairs := m.AnalyzerNamed(pairsAnalyzer)
	if pairs == nil {
		return nil, fmt.Errorf("memory mapping: no %s analyzer", pairsAnalyzer)
	}
	defs := &memoryFieldDefs{options: map[string]bindex.FieldIndexingOptions{}, text: text, pairs: pairs}
	for _, dm := range im.DefaultMapping.Properties {
		for _, f := range dm.Fields {
			defs.options[f.Name] = f.Options()
		}
	}
	return defs, nil
})

// docBuilder builds the documents of one batch. It reuses its token buffers
// from one document to the next, and gives out the term lists of the
// batch's documents from shared chunks: they are all kept until the
// batch's segment is built, and collected together after. It is used by one
// goroutine at a time.
type docBuilder struct {
	defs *memoryFieldDefs
	// slab holds the tokens of the document being built; title and body
	// are its title's and body's analysed tokens, other those of a tag or
	// the joined words.
	slab               []analysis.Token
	title, body, other analysis.TokenStream
	// terms and counts are the chunks the fields' term lists are taken
	// from (lists).
	terms  []string
	counts []int32
	// set finds a term already in the field being built.
	set termSet
	// ends is where each pair ends in the pairs field's text, pairRefs
	// the pairs found.
	ends     []int
	pairRefs []pairRef
	// words is what the filters made of the words this builder has
	// analysed (filterWord) since it was last emptied: it is emptied when
	// it holds builderWords and meets a word it does not hold.
	words map[string]filteredWord
}

// builderWords is how many words a docBuilder remembers: the commonest
// words of the texts it analyses now, which the builder then looks up
// without the shared memory's lock; the rarer ones it finds there. Once
// full, the memory is emptied and fills again from the texts that follow:
// a builder that kept the first words it met, as it did, had to look up a
// third of the words of a rebuild of 100,000 notes in many languages
// elsewhere (a twentieth since). The memories are live heap for the whole
// rebuild, and a rebuild runs under a heap limit (see
// store's rebuildHeapLimit), so what they hold is marked again at every
// collection: at 1 << 16 words, with the shared memory's 262,144, they held
// 81 MB of the 280 MB live in the middle of a 100,000-note real-shaped
// rebuild (42 MB the builders', the rest the shared memory's), which
// collected 99–104 times; at these bounds 28 MB, and 83–87 collections.
const builderWords = 1 << 13

// filterWord is the text analyzer's filterWord, remembered by the builder:
// the analyzer's memory is shared by every goroutine, behind a lock that
// each word took twice, from every core.
func (db *docBuilder) filterWord(word []byte) filteredWord {
	if r, ok := db.words[string(word)]; ok {
		return r
	}
	r := db.defs.text.filterWord(word)
	if db.words == nil {
		db.words = make(map[string]filteredWord, 1024)
	}
	if len(db.words) >= builderWords {
		clear(db.words)
	}
	db.words[r.word] = r
	return r
}

func newDocBuilder() (*docBuilder, error) {
	defs, err := memoryDefs()
	if err != nil {
		return nil, err
	}
	return &docBuilder{defs: defs}, nil
}

// termChunk is how many terms a chunk of term lists holds at least.
const termChunk = 4096

// lists is an empty term list and count list with room for n terms, cut
// from the builder's chunks; used gives out what the field filled of them.
// A field's terms were a map of its own (Bleve's TokenFrequencies), made
// for every field of every document and walked again by the segment: a
// tenth of a real-shaped rebuild's CPU went to making, filling and walking
// those maps.
func (db *docBuilder) lists(n int) ([]string, []int32) {
	if cap(db.terms)-len(db.terms) < n {
		db.terms = make([]string, 0, max(termChunk, n))
		db.counts = make([]int32, 0, max(termChunk, n))
	}
	l := len(db.terms)
	return db.terms[l : l : l+n], db.counts[l : l : l+n]
}

// used gives out the first n terms of the lists last taken.
func (db *docBuilder) used(n int) {
	db.terms = db.terms[:len(db.terms)+n]
	db.counts = db.counts[:len(db.counts)+n]
}

// analyse analyses input as the text analyzer does, appending its tokens to
// out, and counts its terms as Bleve does for a field without term vectors:
// the field's length (its number of tokens), and its distinct terms, in the
// order first found, with how often each occurs.
func (db *docBuilder) analyse(input []byte, out analysis.TokenStream) (analysis.TokenStream, int, []string, []int32) {
	text := db.defs.text
	from := len(out)
	out = text.tokenizeAppend(input, out, &db.slab)
	toks := out[from:]
	terms, counts := db.lists(len(toks))
	db.set.reset(len(toks))
	kept := toks[:0]
	for _, t := range toks {
		w := db.filterWord(t.Term)
		if !w.keep {
			continue
		}
		// The term is shared by every token of the word: nothing changes
		// it once analysed.
		t.Term = w.term
		kept = append(kept, t)
		key := w.key
		if key == "" { // not remembered
			key = string(w.term)
		}
		if at, found := db.set.index(key, int32(len(terms))); found {
			counts[at]++
			continue
		}
		terms = append(terms, key)
		counts = append(counts, 1)
	}
	db.used(len(terms))
	return out[:from+len(kept)], len(kept), terms, counts
}

// termSet gives each term of a field its place in the field's term list,
// one field at a time. It is a hash table whose slots are stamped with the
// field they were filled for, so that starting the next field (reset)
// costs nothing however large the table has grown: a map cleared for each
// field costs its whole size, and a map made for each field an allocation.
type termSet struct {
	seed  maphash.Seed
	slots []termSlot
	mask  int
	field uint32
}

type termSlot struct {
	field uint32
	at    int32
	key   string
}

// reset empties the set for a field of at most n terms.
func (s *termSet) reset(n int) {
	size := 16
	for size < 2*n {
		size *= 2
	}
	if size > len(s.slots) {
		if s.slots == nil {
			s.seed = maphash.MakeSeed()
		}
		s.slots = make([]termSlot, size)
		s.field = 0
	}
	s.mask = size - 1
	if s.field++; s.field == 0 { // wrapped: stamps of old fields could match
		clear(s.slots)
		s.field = 1
	}
}

// index is key's place in the field's list and true when it is there
// already; otherwise it puts it there at at and returns at, false. The
// set holds at most the n terms reset was given.
func (s *termSet) index(key string, at int32) (int32, bool) {
	for i := int(maphash.String(s.seed, key)) & s.mask; ; i = (i + 1) & s.mask {
		sl := &s.slots[i]
		if sl.field != s.field {
			*sl = termSlot{field: s.field, at: at, key: key}
			return at, false
		}
		if sl.key == key {
			return sl.at, true
		}
	}
}

// builtField is a field whose terms are counted when the document is built:
// its Analyze has nothing left to do.
type builtField struct {
	name     string
	arrayPos []uint64
	options  bindex.FieldIndexingOptions
	value    []byte
	length   int
	// terms are the field's distinct terms, counts how often each
	// occurs: what zapx reads (TermFrequencies, cortex's zapx patch 0007).
	terms  []string
	counts []int32
	// freqs is the same as Bleve's map, made when first asked for.
	freqs bindex.TokenFrequencies
}

var _ document.Field = (*builtField)(nil)

func (f *builtField) Name() string                         { return f.name }
func (f *builtField) ArrayPositions() []uint64             { return f.arrayPos }
func (f *builtField) Options() bindex.FieldIndexingOptions { return f.options }
func (f *builtField) Value() []byte                        { return f.value }
func (f *builtField) NumPlainTextBytes() uint64            { return uint64(len(f.value)) }
func (f *builtField) EncodedFieldType() byte               { return 't' }
func (f *builtField) AnalyzedLength() int                  { return f.length }
func (f *builtField) Analyze()                             {}

// TermFrequencies lists the field's distinct terms and how often each
// occurs; the field has no term locations. zapx reads a new segment's
// fields through it when they have it (cortex's zapx patch 0007).
func (f *builtField) TermFrequencies() ([]string, []int32) { return f.terms, f.counts }

// AnalyzedTokenFrequencies is the field's terms as Bleve's map, made from
// its term list when first asked for.
func (f *builtField) AnalyzedTokenFrequencies() bindex.TokenFrequencies {
	if f.freqs == nil {
		f.freqs = make(bindex.TokenFrequencies, len(f.terms))
		for i, term := range f.terms {
			tf := &bindex.TokenFreq{Term: []byte(term)}
			tf.SetFrequency(int(f.counts[i]))
			f.freqs[term] = tf
		}
	}
	return f.freqs
}

// Size is what Bleve counts of a batch's memory for the field, for its
// statistics only: estimated from the number of terms rather than summed
// over them (a text field walks its whole map for it).
func (f *builtField) Size() int {
	const perTerm = 96 // a map entry, a TokenFreq and a short term
	return 64 + len(f.name) + len(f.value) + perTerm*len(f.terms)
}

// text adds a text field of the text analyzer's.
func (db *docBuilder) text(doc *document.Document, name string, arrayPos []uint64, value []byte, out analysis.TokenStream) analysis.TokenStream {
	out, n, terms, counts := db.analyse(value, out)
	doc.AddField(&builtField{name: name, arrayPos: arrayPos, options: db.defs.options[name], value: value, length: n, terms: terms, counts: counts})
	return out
}

// keyword adds a keyword field: the value is its one term.
func (db *docBuilder) keyword(doc *document.Document, name string, arrayPos []uint64, value string) {
	terms, counts := db.lists(1)
	terms, counts = append(terms, value), append(counts, 1)
	db.used(1)
	doc.AddField(&builtField{name: name, arrayPos: arrayPos, options: db.defs.options[name], value: []byte(value), length: 1,
		terms: terms, counts: counts})
}

// memoryDocument is the Bleve document of memory m: the one the mapping
// makes of memoryFields (see the comment at the top of this file).
func (db *docBuilder) memoryDocument(b *Bleve, id string, m *memories.Memory) *document.Document {
	title := indexedTitle(m)
	doc := document.NewDocument(id)
	// The tokens of the title and the body are kept for the pairs and the
	// pathonly field; the slab they are taken from is big enough for most
	// documents, so that it is seldom replaced.
	if need := (len(title)+len(m.Body))/5 + 16; cap(db.slab) < need {
		db.slab = make([]analysis.Token, 0, need)
	}
	db.slab = db.slab[:0]
	db.title = db.text(doc, fieldTitle, nil, []byte(title), db.title[:0])
	db.body = db.text(doc, fieldBody, nil, []byte(m.Body), db.body[:0])
	db.pairsField(doc, [2]string{title, m.Body}, [2]analysis.TokenStream{db.title, db.body})
	db.other = db.text(doc, fieldJoined, nil, []byte(joinedOf(title, m.Body)), db.other[:0])
	if p := b.pathOnlyIn([]string{title, m.Body}, []analysis.TokenStream{db.title, db.body}); p != "" {
		db.pathOnlyField(doc, p)
	}
	db.keyword(doc, fieldProject, nil, m.Project)
	db.keyword(doc, fieldType, nil, string(m.Type))
	db.keyword(doc, fieldStatus, nil, string(m.Status))
	db.keyword(doc, fieldHour, nil, hourOf(m.Created))
	if m.Area != "" {
		db.keyword(doc, fieldArea, nil, m.Area)
	}
	if m.Provenance.SourceHash != "" {
		db.keyword(doc, fieldSourceHash, nil, m.Provenance.SourceHash)
	}
	for i, tag := range m.Tags {
		at := []uint64{uint64(i)}
		db.other = db.text(doc, fieldTags, at, []byte(tag), db.other[:0])
		db.keyword(doc, fieldTag, at, tag)
	}
	memoryUpdated.add(m.Updated, func(field, term string) { db.keyword(doc, field, nil, term) })
	addLengths(doc, scoredFields)
	doc.SetIndexed()
	return doc
}

// memoryDocuments is the Bleve document of each memory of docs, in order
// (nil for a deletion). A large batch's documents are built on every core,
// a run of docChunk documents at a time, each goroutine with a builder of
// its own: the documents are the same as one builder's, and Bleve is given
// them in the same order, so the segment is too. A rebuild runs a batch per
// core already, but its last batch ran alone, with one core idle while a
// fifth of its CPU went to making its documents.
func (b *Bleve) memoryDocuments(docs []Doc) ([]*document.Document, error) {
	out := make([]*document.Document, len(docs))
	workers := min(runtime.GOMAXPROCS(0), len(docs)/docChunk)
	if workers < 2 {
		db, err := b.builders.get()
		if err != nil {
			return nil, err
		}
		db.buildRun(b, docs, out)
		b.builders.put(db)
		return out, nil
	}
	builders := make([]*docBuilder, workers)
	for i := range builders {
		db, err := b.builders.get()
		if err != nil {
			return nil, err
		}
		builders[i] = db
	}
	var next atomic.Int64 // the next run to build
	var wg sync.WaitGroup
	for _, db := range builders {
		wg.Go(func() {
			for {
				start := int(next.Add(1)-1) * docChunk
				if start >= len(docs) {
					return
				}
				end := min(start+docChunk, len(docs))
				db.buildRun(b, docs[start:end], out[start:end])
			}
		})
	}
	wg.Wait()
	for _, db := range builders {
		b.builders.put(db)
	}
	return out, nil
}

// docBuilders keeps an index's idle document builders, so that the words
// a builder remembers (filterWord) serve every batch of a rebuild rather
// than one: made afresh for each batch, the builders of a 10,000-note
// real-shaped rebuild learned and remembered most of the vault's words
// again twenty times. At most maxIdleBuilders are kept; they go with the
// index.
type docBuilders struct {
	mu   sync.Mutex
	idle []*docBuilder
}

// maxIdleBuilders bounds the builders an index keeps idle: the batches a
// rebuild indexes at once (one a core) times the builders each uses (one a
// core).
func maxIdleBuilders() int {
	n := runtime.GOMAXPROCS(0)
	return n * n
}

// get is an idle builder, or a new one.
func (p *docBuilders) get() (*docBuilder, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		db := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return db, nil
	}
	p.mu.Unlock()
	return newDocBuilder()
}

// put keeps db for the next batch, when fewer than maxIdleBuilders are
// kept, with the words it remembers and nothing of the batch: its buffers
// point into the batch's documents (a token's term into a body, a term
// list into a document's pairs), which kept alive until the next batch
// would double what a batch holds.
func (p *docBuilders) put(db *docBuilder) {
	db.slab, db.title, db.body, db.other = nil, nil, nil, nil
	db.terms, db.counts, db.ends, db.pairRefs = nil, nil, nil, nil
	db.set = termSet{}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) < maxIdleBuilders() {
		p.idle = append(p.idle, db)
	}
}

// docChunk is how many documents a goroutine of memoryDocuments takes at a
// time.
const docChunk = 32

// buildRun sets out[i] to the document of docs[i], nil for a deletion.
func (db *docBuilder) buildRun(b *Bleve, docs []Doc, out []*document.Document) {
	for i, d := range docs {
		if !d.Deleted {
			out[i] = db.memoryDocument(b, d.ID, d.Memory)
		}
	}
}

// indexedTitle is the title of m the index holds. A title save made from
// the body's first line (memories.TitleFrom) is not indexed as a title: it
// would count those words three times over (twice as a title, and again
// because two fields match), and rank a turn of a conversation by how its
// first words, often the speaker's name, match the query.
func indexedTitle(m *memories.Memory) string {
	if memories.IsTitleFrom(m.Title, m.Body) {
		return ""
	}
	return m.Title
}

// pairsField adds the pairs field of the texts given their tokens: the
// text pairsOf makes, its terms the pairs themselves, each once. The
// mapping splits that text at white space (pairsAnalyzer); so do these
// terms when none of them holds white space or a character that does not
// decode, where that tokenizer stops (plainTerm). Otherwise the text is
// left to that analyzer.
func (db *docBuilder) pairsField(doc *document.Document, texts [2]string, toks [2]analysis.TokenStream) {
	options := db.defs.options[fieldPairs]
	// The pairs are found once (their texts and second tokens), and each
	// token's term judged by plainTerm once, though most tokens are in two
	// pairs.
	refs := db.pairRefs[:0]
	size, plain := 0, true
	for ti := range texts {
		text, ts := texts[ti], toks[ti]
		judged := -1 // the last token plainTerm judged, while plain holds
		for i := 1; i < len(ts); i++ {
			a, c := ts[i-1], ts[i]
			if !isPair(text, a, c) {
				continue
			}
			refs = append(refs, pairRef{text: int8(ti), at: int32(i)})
			size += len(a.Term) + len(pairSep) + len(c.Term) + 1
			if plain {
				if judged != i-1 {
					plain = plainTerm(a.Term)
				}
				plain = plain && plainTerm(c.Term)
				judged = i
			}
		}
	}
	db.pairRefs = refs
	if !plain {
		var lists [2][]string
		for i := range texts {
			lists[i] = pairsIn(texts[i], toks[i])
		}
		doc.AddField(document.NewTextFieldCustom(fieldPairs, nil, []byte(pairsOf(lists[0], lists[1])), options, db.defs.pairs))
		return
	}
	// Every pair, each followed by a space, in raw; the terms are slices of
	// it, and their map keys slices of one string of it.
	raw := make([]byte, 0, size)
	ends := db.ends[:0]
	for _, r := range refs {
		ts := toks[r.text]
		a, c := ts[r.at-1], ts[r.at]
		raw = append(raw, a.Term...)
		raw = append(raw, pairSep...)
		raw = append(raw, c.Term...)
		raw = append(raw, ' ')
		ends = append(ends, len(raw))
	}
	db.ends = ends
	keys := string(raw)
	terms, counts := db.lists(len(ends))
	db.set.reset(len(ends))
	value, start, dups := raw, 0, false
	for _, end := range ends {
		key := keys[start : end-1]
		if _, found := db.set.index(key, int32(len(terms))); found {
			if !dups {
				// The text holds each pair once: from here on it is
				// copied without the pairs seen before.
				dups = true
				value = append(make([]byte, 0, len(raw)), raw[:start]...)
			}
		} else {
			terms, counts = append(terms, key), append(counts, 1)
			if dups {
				value = append(value, raw[start:end]...)
			}
		}
		start = end
	}
	db.used(len(terms))
	doc.AddField(&builtField{name: fieldPairs, options: options, value: value, length: len(terms), terms: terms, counts: counts})
}

// pairRef is a pair of neighbouring tokens pairsField found: the text
// (title or body) and the index of its second token.
type pairRef struct {
	text int8
	at   int32
}

// pathOnlyField adds the pathonly field of p, the text pathOnlyIn makes:
// its terms, each once and each followed by a space. The mapping splits
// that text at white space (pairsAnalyzer); so do these terms when none of
// them holds white space or a character that does not decode (plainTerm),
// so the field's terms are the text's words, each once, and its length
// their number, counted here as pairsField counts its pairs. Otherwise the
// text is left to that analyzer. Left to it always, the field took a
// tokenizer's token slab, a map and a term frequency per term from Bleve's
// analysis of every document with a path (a tenth of a real-shaped
// rebuild's allocations went to the pathonly and pairs fields).
func (db *docBuilder) pathOnlyField(doc *document.Document, p string) {
	options := db.defs.options[fieldPathOnly]
	value := []byte(p)
	n := 0
	for start, i := 0, 0; i < len(value); i++ {
		if value[i] != ' ' {
			continue
		}
		if !plainTerm(value[start:i]) {
			doc.AddField(document.NewTextFieldCustom(fieldPathOnly, nil, value, options, db.defs.pairs))
			return
		}
		n++
		start = i + 1
	}
	terms, counts := db.lists(n)
	for start, i := 0, 0; i < len(value); i++ {
		if value[i] == ' ' {
			terms, counts = append(terms, p[start:i]), append(counts, 1)
			start = i + 1
		}
	}
	db.used(n)
	doc.AddField(&builtField{name: fieldPathOnly, options: options, value: value, length: n, terms: terms, counts: counts})
}

// isPair reports whether neighbouring tokens a and c of text make a pair
// pairsIn lists.
func isPair(text string, a, c *analysis.Token) bool {
	return c.Position == a.Position+1 && a.End <= c.Start && c.Start <= len(text) && joins(text[a.End:c.Start])
}

// plainTerm reports whether Bleve's whitespace tokenizer reads term as one
// word: it is not empty and has no white space, no byte that does not
// decode and no U+FFFD.
func plainTerm(term []byte) bool {
	if len(term) == 0 {
		return false
	}
	for i := 0; i < len(term); {
		if c := term[i]; c < utf8.RuneSelf {
			if isASCIISpace(c) {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(term[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) {
			return false
		}
		i += size
	}
	return true
}

// joinedOf is the hyphenated words of the texts written as one word, space
// separated, each once (see fieldJoined).
func joinedOf(texts ...string) string {
	var sb strings.Builder
	var seen map[string]bool
	for _, text := range texts {
		hyphenatedWords(text, func(w string) {
			w = strings.ReplaceAll(w, "-", "")
			if seen == nil {
				seen = map[string]bool{}
			}
			if !seen[w] {
				seen[w] = true
				sb.WriteString(w)
				sb.WriteByte(' ')
			}
		})
	}
	return sb.String()
}

// hyphenatedWords calls fn with each word of text joined by hyphens
// ("check-up", "state-of-the-art"), in order: each match of the expression
// \pL+(?:-\pL+)+, without the cost of the expression engine (a tenth of
// the work of making a document went to it). The text is searched for its
// hyphens rather than walked rune by rune (which was still 3% of a real-
// shaped rebuild): a match holds a hyphen with a letter on each side, and
// starts where the run of letters before that hyphen does, that run
// beginning no earlier than where the search is (the expression being
// greedy, the match before ended at a rune that is not a letter). From
// there it takes every hyphen and run of letters that follow. UTF-8 that
// does not decode is read one byte at a time either way (utf8's decoders,
// forwards and backwards, agree on where a valid rune is).
// TestHyphenatedWords and FuzzHyphenatedWords compare the two.
func hyphenatedWords(text string, fn func(string)) {
	letterAt := func(i int) int { // the letter's size, 0 when none
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) {
			return 0
		}
		return size
	}
	for from := 0; from < len(text); {
		lo := from // where the search is: no match starts before it
		k := strings.IndexByte(text[lo:], '-')
		if k < 0 {
			return
		}
		h := lo + k
		from = h + 1
		if h+1 >= len(text) || letterAt(h+1) == 0 {
			continue
		}
		start := h
		for start > lo {
			r, size := utf8.DecodeLastRuneInString(text[lo:start])
			if !unicode.IsLetter(r) {
				break
			}
			start -= size
		}
		if start == h {
			continue // no letter before the hyphen
		}
		end := h
		for end < len(text) && text[end] == '-' && end+1 < len(text) {
			j := end + 1
			n := letterAt(j)
			if n == 0 {
				break
			}
			for j += n; j < len(text); j += n {
				if n = letterAt(j); n == 0 {
					break
				}
			}
			end = j
		}
		fn(text[start:end])
		from = end
	}
}
