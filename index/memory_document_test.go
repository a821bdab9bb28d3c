package index

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	bindex "github.com/blevesearch/bleve_index_api"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// memoryFields is the document memoryDocument replaces, as a map for the
// mapping to walk: what Apply indexed before it built documents itself,
// with the mapping analysing every field (the hyphenated words found by
// the expression they were first found by).
func memoryFields(b *Bleve, m *memories.Memory) map[string]any {
	title := m.Title
	if title == memories.TitleFrom(m.Body) {
		title = ""
	}
	titleTokens, bodyTokens := b.tokens(title), b.tokens(m.Body)
	var joined strings.Builder
	seen := map[string]bool{}
	for _, text := range []string{title, m.Body} {
		for _, w := range hyphenatedByRegexp.FindAllString(text, -1) {
			w = strings.ReplaceAll(w, "-", "")
			if !seen[w] {
				seen[w] = true
				joined.WriteString(w + " ")
			}
		}
	}
	d := map[string]any{
		fieldPairs:   pairsOf(pairsIn(title, titleTokens), pairsIn(m.Body, bodyTokens)),
		fieldJoined:  joined.String(),
		fieldTitle:   title,
		fieldBody:    m.Body,
		fieldProject: m.Project,
		fieldType:    string(m.Type),
		fieldStatus:  string(m.Status),
		fieldHour:    hourOf(m.Created),
		// The update time's four terms, as a time.Time's stamp (its
		// own formatting, with the width a time outside years 0 to 9999
		// is given).
		fieldUpdated:      updatedStamp(m.Updated),
		fieldUpdatedDay:   updatedStamp(m.Updated)[:8],
		fieldUpdatedMonth: updatedStamp(m.Updated)[:6],
		fieldUpdatedYear:  updatedStamp(m.Updated)[:4],
	}
	if p := pathOnlyByAnalysis(b, title, m.Body); p != "" {
		d[fieldPathOnly] = p
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

// hyphenatedByRegexp is what hyphenatedWords finds, as an expression.
var hyphenatedByRegexp = regexp.MustCompile(`\pL+(?:-\pL+)+`)

// compareMemoryDocument fails t unless the document memoryDocument builds
// of m is what the mapping im makes of it, field by field: options,
// values, lengths and term frequencies.
func compareMemoryDocument(t *testing.T, im mapping.IndexMapping, b *Bleve, db *docBuilder, m *memories.Memory) {
	t.Helper()
	want := document.NewDocument(m.ID)
	if err := im.MapDocument(want, memoryFields(b, m)); err != nil {
		t.Fatal(err)
	}
	addLengths(want, scoredFields)
	got := db.memoryDocument(b, m.ID, m)
	if diff := cmp.Diff(analysedDoc(want), analysedDoc(got), cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("document %s (%q / %q / %q) (-mapping +built):\n%s", m.ID, m.Title, m.Body, m.Tags, diff)
	}
	if got.Indexed() != want.Indexed() {
		t.Fatalf("document %s: indexed %v, want %v", m.ID, got.Indexed(), want.Indexed())
	}
}

// memoryDocumentCases are memories made of texts that matter to the
// analysis: the test corpus, paths, hyphens, pairs across line breaks,
// white space a word may hold (U+202F joins words), broken UTF-8, U+FFFD,
// the pairs' separator, no title, a title made from the body, tags, times
// the index cannot hold.
func memoryDocumentCases() []*memories.Memory {
	ms := corpus()
	ms = append(ms, mem("m13", "Check-up of the state-of-the-art config file", "The config file's check-up: config-file, config/file.\nThe second line; the  config  file again.", "alpha", "note", 13, "a-b", "c"))
	for i, tt := range pathOnlyTexts {
		ms = append(ms, mem(fmt.Sprintf("p%02d", i), tt[0], tt[1], "paths", memories.TypeNote, i, "x/y", tt[0]))
	}
	texts := []string{
		"", " ", "-", "a-", "-a", "a-b", "a--b", "a-b-", "a-b-c d-e", "1-2 a-1 a-b1 é-ü ab-cd-ef-", "x-\xe6-y", "a-\u0301b",
		"narrow\u202fno-break\u202fspace pairs", "nbsp\u00a0between words", "ogham\u1680mark",
		"broken \xff bytes \xc3 in words", "replacement \ufffd char and its pair", "unit\x1fseparator word",
		"line one\nline two\n\nline three", "tab\tseparated\twords", "Speaker: words of a turn",
		"The user's cache isn't warm: self.cache.get(key) returned None at src/auth/jwt.go:42",
		"日本語のテキスト and a naïve résumé — “quoted” über-fast 東京-テスト",
		"the the the repeated repeated words words", "a b c d e f g",
	}
	for i, text := range texts {
		m := mem(fmt.Sprintf("t%02d", i), "Title "+text, text, "texts", memories.TypeFact, i, text, "tag")
		m.Area = text
		ms = append(ms, m)
		derived := mem(fmt.Sprintf("d%02d", i), "", text+"\nmore words", "", memories.TypeNote, i)
		derived.Title = memories.TitleFrom(derived.Body)
		ms = append(ms, derived)
	}
	zero := mem("z01", "No time", "A memory without an update time.", "alpha", memories.TypeNote, 0)
	zero.Updated, zero.Created = time.Time{}, time.Time{}
	late := mem("z02", "Far future", "A memory from the far future.", "", "", 0)
	late.Updated = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	late.Status = ""
	return append(ms, zero, late)
}

// TestMemoryDocumentIsTheMappings: the documents Apply builds itself hold
// the same fields, values, options, lengths and term frequencies as those
// the mapping makes — on the cases above, on the notes of the fixtures and
// on random text (broken UTF-8 included).
func TestMemoryDocumentIsTheMappings(t *testing.T) {
	b := newTestBleve(t)
	im, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	ms := memoryDocumentCases()
	err = filepath.WalkDir(filepath.Join("..", "fixtures"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 || filepath.Ext(p) != ".md" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		m := &memories.Memory{ID: p, Title: filepath.Base(p), Body: string(data)}
		if n, err := vault.ParseNote(data); err == nil {
			m = n.Memory(p, day0)
			m.ID = p
		}
		ms = append(ms, m)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 400 {
		t.Fatalf("%d memories, want at least 400 with the fixtures' notes", len(ms))
	}
	r := rand.New(rand.NewPCG(5, 6))
	const alphabet = "aZ09_:.',;-/\\ \t\n\"é’\xe6\x80\u202f\u00a0\ufffd\x1f"
	random := func() string {
		b := make([]byte, r.IntN(60))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for i := range 2000 {
		m := mem(fmt.Sprintf("r%04d", i), random(), random(), random(), memories.TypeNote, i%40, random())
		if i%3 == 0 {
			m.Title = memories.TitleFrom(m.Body)
		}
		ms = append(ms, m)
	}
	db, err := newDocBuilder()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		compareMemoryDocument(t, im, b, db, m)
	}
}

func FuzzMemoryDocument(f *testing.F) {
	f.Add("Check-up of the config file", "The config file's check-up: config-file, config/file.\nsrc/a_b.go:12 café", "a-b")
	f.Add("", "\xe6\x80 a-b\u202fc /x\ufffd/y \x1f", "")
	f.Add("x", "x", "x")
	b := newTestBleve(f)
	im, err := newMapping()
	if err != nil {
		f.Fatal(err)
	}
	db, err := newDocBuilder()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, title, body, tag string) {
		m := mem("f1", title, body, "p", memories.TypeNote, 1, tag)
		compareMemoryDocument(t, im, b, db, m)
	})
}

func TestHyphenatedWords(t *testing.T) {
	texts := []string{
		"", "-", "--", "a-", "-a", "a-b", "a--b", "a-b-", "a-b-c", "ab-cd-ef-", "ab-1cd-ef", "1-2 a-1 a-b1 é-ü",
		"x-\xe6-y", "a-\u0301b", "state-of-the-art check-up", "\xff-a-b\xff", "a-b-\xc3", "日本-語", "a_b-c",
		"Check-up of the state-of-the-art config file: config-file, config/file.",
	}
	r := rand.New(rand.NewPCG(7, 8))
	const alphabet = "ab-- 1é\xe6\u0301"
	for range 3000 {
		b := make([]byte, r.IntN(30))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, text := range texts {
		compareHyphenated(t, text)
	}
}

func FuzzHyphenatedWords(f *testing.F) {
	f.Add("state-of-the-art check-up")
	f.Add("ab-1cd-ef \xff-a-b")
	f.Fuzz(compareHyphenated)
}

func compareHyphenated(t *testing.T, text string) {
	t.Helper()
	var got []string
	hyphenatedWords(text, func(w string) { got = append(got, w) })
	if diff := cmp.Diff(hyphenatedByRegexp.FindAllString(text, -1), got, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("hyphenated words of %q (-expression +scan):\n%s", text, diff)
	}
}

// TestApplyAllocations: indexing a memory makes few objects, Bleve's
// segment building included — about 270 for a memory of 80 words, two
// tags and a path, where the mapping's walk and analysis made about 700
// (a rebuild's collector spent a fifth of its CPU on them).
func TestApplyAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what is allocated")
	}
	words := strings.Fields("the config file rotates tokens every hour and the login handler checks src/auth/login.go " +
		"before deploying state-of-the-art retries with backoff jitter kafka partitions rebalance")
	var ms []*memories.Memory
	for i := range 500 {
		var sb strings.Builder
		for j := range 80 {
			sb.WriteString(words[(i*7+j*j)%len(words)])
			sb.WriteByte(' ')
		}
		ms = append(ms, mem(fmt.Sprintf("a%03d", i), "Title "+words[i%len(words)], sb.String(), "alpha", memories.TypeNote, i%30, "x", "y"))
	}
	const limit = 400 // per memory
	b, err := createBleve(filepath.Join(t.TempDir(), "bleve"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := b.Apply(docs(ms)); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := (after.Mallocs - before.Mallocs) / uint64(len(ms)); got > limit {
		t.Errorf("indexing made %d objects per memory, want at most %d", got, limit)
	}
}

// BenchmarkMemoryDocument makes the documents of real-shaped memories (long
// notes in many languages, with paths and links), as a rebuild's batch does.
func BenchmarkMemoryDocument(b *testing.B) {
	corpus, err := bench.LoadCorpus(filepath.Join("..", "fixtures"))
	if err != nil {
		b.Fatal(err)
	}
	gen := bench.NewRealGenerator(corpus, 41, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	ms := make([]*memories.Memory, 500)
	for i := range ms {
		ms[i] = gen.Memory()
	}
	idx := newTestBleve(b)
	db, err := newDocBuilder()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		m := ms[i%len(ms)]
		db.memoryDocument(idx, m.ID, m)
	}
}

// TestBuilderRemembersWordsBounded: a builder's own memory of what the
// filters make of words gives the analyzer's answer for each word, stop
// words and possessives among them; it never holds more than builderWords,
// and once full it is emptied for the words that come next, which it then
// remembers.
func TestBuilderRemembersWordsBounded(t *testing.T) {
	db, err := newDocBuilder()
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"The", "running", "Dog's", "and", "Ran", "café", "x"}
	for i := range builderWords + 100 {
		words = append(words, fmt.Sprintf("w%dings", i))
	}
	for round := range 2 {
		for _, w := range words {
			got := db.filterWord([]byte(w))
			want := db.defs.text.filterWord([]byte(w))
			if got.keep != want.keep || string(got.term) != string(want.term) || got.key != want.key {
				t.Fatalf("round %d: builder's %q = %q %v, analyzer's %q %v", round, w, got.term, got.keep, want.term, want.keep)
			}
		}
	}
	// builderWords+107 words, twice: the memory was emptied at the first
	// round's word builderWords+1 and at the second's word 2*builderWords-106.
	if want := 2*len(words) - 2*builderWords; len(db.words) != want {
		t.Errorf("builder remembers %d words, want %d", len(db.words), want)
	}
	if _, ok := db.words[words[len(words)-1]]; !ok {
		t.Errorf("builder does not remember the last word it met, %q", words[len(words)-1])
	}
}

// TestSharedWordsFollowTheText: a shard of the analyzer's memory of words
// never holds more than filteredPerShard words, and once full it takes the
// words met next, emptied first.
func TestSharedWordsFollowTheText(t *testing.T) {
	an, err := newTranscriptTextAnalyzer(nil, registry.NewCache())
	if err != nil {
		t.Fatal(err)
	}
	a := an.(*transcriptText)
	// Words of one shard (the same first and last letters and length),
	// none met before by any test.
	var words []string
	for i := range filteredPerShard + 10 {
		words = append(words, fmt.Sprintf("zq%05dsharded", i))
	}
	s := shardOf([]byte(words[0]))
	for _, w := range words {
		if shardOf([]byte(w)) != s {
			t.Fatalf("%q is not in shard %d", w, s)
		}
	}
	held := func(w string) (bool, int) {
		shard := &filtered[s]
		shard.mu.RLock()
		defer shard.mu.RUnlock()
		_, ok := shard.m[w]
		return ok, len(shard.m)
	}
	for i, w := range words {
		r := a.filterWord([]byte(w))
		if !r.keep || string(r.term) != strings.TrimSuffix(w, "ed") {
			t.Fatalf("filterWord(%q) = %q %v", w, r.term, r.keep)
		}
		ok, n := held(w)
		if !ok {
			t.Fatalf("word %d, %q, is not remembered", i, w)
		}
		if n > filteredPerShard {
			t.Fatalf("after word %d the shard holds %d words, more than %d", i, n, filteredPerShard)
		}
	}
	if ok, _ := held(words[len(words)-1]); !ok {
		t.Errorf("the shard does not hold the last word")
	}
}

// TestPathOnlyFieldAllocations: the pathonly field of a memory whose
// path-only words are plain is built with its terms counted, as the pairs
// field is, not left to Bleve's analysis, which took a token slab, a map
// entry and a term frequency of its own for each term. Building and
// analysing (as a batch does) the documents of memories of 82 path-only
// words each (all of them new words) makes about 12 objects a path-only
// word, where it made about 15.
func TestPathOnlyFieldAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what is allocated")
	}
	var ms []*memories.Memory
	for i := range 300 {
		var sb strings.Builder
		sb.WriteString("Words outside the paths, then the paths:")
		for j := range 40 {
			fmt.Fprintf(&sb, " src/mod%dx%d/file%dy%d.go", i, j, j, i)
		}
		ms = append(ms, mem(fmt.Sprintf("p%03d", i), "Paths", sb.String(), "alpha", memories.TypeNote, i%30))
	}
	b := newTestBleve(t)
	p := b.pathOnly(ms[0].Title, ms[0].Body)
	words := strings.Count(p, " ")
	if words < 80 {
		t.Fatalf("%d path-only words in the first memory (%q), want at least 80", words, p)
	}
	db, err := newDocBuilder()
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, m := range ms {
		doc := db.memoryDocument(b, m.ID, m)
		doc.VisitFields(func(f bindex.Field) { f.Analyze() })
	}
	runtime.ReadMemStats(&after)
	if got := float64(after.Mallocs-before.Mallocs) / float64(len(ms)*words); got > 13 {
		t.Errorf("building the documents made %.2f objects per path-only word, want at most 13", got)
	}
}

// TestBuildersKeptBetweenBatches: the builders of one batch's documents are
// kept by the index and build the next batch's, with the words they
// remember, and make the same documents as new builders do.
func TestBuildersKeptBetweenBatches(t *testing.T) {
	corpus, err := bench.LoadCorpus(filepath.Join("..", "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	gen := bench.NewRealGenerator(corpus, 43, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	ms := make([]*memories.Memory, 4*docChunk)
	for i := range ms {
		ms[i] = gen.Memory()
	}
	b := newTestBleve(t)
	b.builders = docBuilders{}
	if _, err := b.memoryDocuments(docs(ms)); err != nil {
		t.Fatal(err)
	}
	kept := slices.Clone(b.builders.idle)
	if len(kept) == 0 || len(kept) > maxIdleBuilders() {
		t.Fatalf("%d builders kept after a batch, want 1 to %d", len(kept), maxIdleBuilders())
	}
	for _, db := range kept {
		if len(db.words) == 0 {
			t.Fatal("a kept builder remembers no words")
		}
	}
	got, err := b.memoryDocuments(docs(ms))
	if err != nil {
		t.Fatal(err)
	}
	if !sameSet(b.builders.idle, kept) {
		t.Fatalf("the second batch's builders are not the first's")
	}
	fresh, err := newDocBuilder()
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		want := fresh.memoryDocument(b, m.ID, m)
		if diff := cmp.Diff(analysedDoc(want), analysedDoc(got[i]), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("document %s from a kept builder (-new builder +kept):\n%s", m.ID, diff)
		}
	}
}

// sameSet reports whether a and b hold the same builders in any order.
func sameSet(a, b []*docBuilder) bool {
	if len(a) != len(b) {
		return false
	}
	for _, db := range a {
		if !slices.Contains(b, db) {
			return false
		}
	}
	return true
}
