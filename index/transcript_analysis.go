package index

import (
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"
	bindex "github.com/blevesearch/bleve_index_api"
	"github.com/blevesearch/segment"
)

// The transcript index's prose analysis is Bleve's Unicode word tokenizer
// followed by the English possessive, lower-case, stop-word and Porter
// filters. Building the index spends about a sixth of its CPU there: the
// Unicode segmenter is a general state machine, and every token is
// lower-cased and stemmed again though a conversation repeats the same few
// thousand words. transcriptTextType gives the same tokens for less: runs of
// ASCII text are split by the word-boundary rules as they apply to ASCII
// (any other text goes to the segmenter of Bleve's tokenizer, without its
// allocations: unicodeWords), and what the filters make of a word is
// remembered. TestTranscriptTextAnalyzerMatchesBleve and
// FuzzTranscriptTextAnalyzer compare it with Bleve's chain.
const transcriptTextType = "cortex_transcript_text_v1"

func init() {
	if err := registry.RegisterAnalyzer(transcriptTextType, newTranscriptTextAnalyzer); err != nil {
		panic(err)
	}
}

// transcriptTextChain names the tokenizer and filters transcriptTextType
// reproduces, in order.
var transcriptTextChain = struct {
	tokenizer string
	filters   []string
}{unicodetok.Name, []string{en.PossessiveName, lowercase.Name, en.StopName, porter.Name}}

func newTranscriptTextAnalyzer(_ map[string]any, cache *registry.Cache) (analysis.Analyzer, error) {
	tok, err := cache.TokenizerNamed(transcriptTextChain.tokenizer)
	if err != nil {
		return nil, fmt.Errorf("transcript text analyzer: %w", err)
	}
	a := &transcriptText{tokenizer: tok}
	for _, name := range transcriptTextChain.filters {
		f, err := cache.TokenFilterNamed(name)
		if err != nil {
			return nil, fmt.Errorf("transcript text analyzer: %w", err)
		}
		a.filters = append(a.filters, f)
	}
	return a, nil
}

// transcriptText is the analyzer of type transcriptTextType.
type transcriptText struct {
	tokenizer analysis.Tokenizer
	filters   []analysis.TokenFilter
}

// Analyze returns the tokens Bleve's chain would, with the same terms,
// positions and offsets. The filters act on one token at a time, so what
// they make of a word is the same wherever it appears.
func (a *transcriptText) Analyze(input []byte) analysis.TokenStream {
	toks := a.tokenize(input)
	out := toks[:0]
	for _, t := range toks {
		term, keep := a.filter(t.Term)
		if !keep {
			continue
		}
		t.Term = term
		out = append(out, t)
	}
	return out
}

// filter is what the filters make of one word: its term, or false when
// they drop it (a stop word).
func (a *transcriptText) filter(word []byte) ([]byte, bool) {
	r := a.filterWord(word)
	return r.term, r.keep
}

// filterWord is filter's result, with the term as a string too.
func (a *transcriptText) filterWord(word []byte) filteredWord {
	shard := &filtered[shardOf(word)]
	shard.mu.RLock()
	r, ok := shard.m[string(word)]
	shard.mu.RUnlock()
	if ok {
		return r
	}
	// The filters change terms in place: they get a copy of the word.
	key := string(word)
	ts := analysis.TokenStream{{Term: []byte(key), Position: 1, Type: analysis.AlphaNumeric}}
	for _, f := range a.filters {
		ts = f.Filter(ts)
	}
	r = filteredWord{keep: len(ts) == 1, word: key}
	if r.keep {
		r.term, r.key = ts[0].Term, string(ts[0].Term)
	}
	shard.mu.Lock()
	if shard.m == nil {
		shard.m = make(map[string]filteredWord)
	}
	if len(shard.m) >= filteredPerShard {
		clear(shard.m)
	}
	shard.m[key] = r
	shard.mu.Unlock()
	return r
}

// filteredWord is what the filters made of a word. Its term is shared by
// every token of that word: nothing changes a term once analysed.
type filteredWord struct {
	term []byte
	key  string // term, for map keys
	word string // the word, for map keys
	keep bool
}

// filtered remembers what the filters made of words, in shards so that the
// analysis goroutines of a batch seldom wait for one another. A shard holds
// filteredPerShard words at most (65,536 in all, about 20 MB: at four times
// that it held 39 MB of a large rebuild's live heap, see builderWords);
// a full shard is emptied before it takes the next word, so that what it
// holds follows the text being analysed. It used to stop growing once
// full: at 100,000 real-shaped notes in many languages every shard was
// full early, with the words of the notes read first, and one lookup in
// seven (5.7 million) went through the filters; emptied when full, one in
// eighty-six (0.47 million).
var filtered [64]struct {
	mu sync.RWMutex
	m  map[string]filteredWord
}

const filteredPerShard = 1024

func shardOf(word []byte) int {
	if len(word) == 0 {
		return 0
	}
	return (int(word[0])*31 + int(word[len(word)-1])*7 + len(word)) & (len(filtered) - 1)
}

// tokenize splits input into words as Bleve's Unicode tokenizer does. Valid
// UTF-8 is cut at ASCII white space, where a word always ends; a piece that is all
// ASCII is split by asciiWords, any other by unicodeWords.
func (a *transcriptText) tokenize(input []byte) analysis.TokenStream {
	slab := make([]analysis.Token, 0, len(input)/6+1)
	return a.tokenizeAppend(input, make(analysis.TokenStream, 0, len(input)/6+1), &slab)
}

// tokenizeAppend is tokenize appending to out, its tokens taken from slab
// (a new slab of 256 once it is full), so that a caller may reuse both.
func (a *transcriptText) tokenizeAppend(input []byte, out analysis.TokenStream, slab *[]analysis.Token) analysis.TokenStream {
	// Bleve's segmenter can run a broken UTF-8 sequence on past white
	// space: such text is left to it whole.
	if !utf8.Valid(input) {
		return append(out, a.tokenizer.Tokenize(input)...)
	}
	pos := 1
	for i := 0; i < len(input); {
		if isASCIISpace(input[i]) {
			i++
			continue
		}
		j, ascii := i, true
		for j < len(input) && !isASCIISpace(input[j]) {
			if input[j] >= 0x80 {
				ascii = false
			}
			j++
		}
		if ascii {
			pos = asciiWords(input, i, j, pos, &out, slab)
		} else {
			pos = a.unicodeWords(input, i, j, pos, &out, slab)
		}
		i = j
	}
	return out
}

// unicodeWords appends the words of input[from:to], valid UTF-8, as Bleve's
// Unicode tokenizer makes them, numbered from pos, and returns the next
// position. It runs the tokenizer's segmenter over the piece in one call,
// with its outputs reused, where the tokenizer asks it for one segment at a
// time and allocates for each; should the segments not cover the piece
// exactly, the piece is left to the tokenizer. TestUnicodeWordsAsBleve and
// FuzzUnicodeWords compare the two.
func (a *transcriptText) unicodeWords(input []byte, from, to, pos int, out *analysis.TokenStream, slab *[]analysis.Token) int {
	sb := segmentBuffers.Get().(*segmentOutputs)
	defer segmentBuffers.Put(sb)
	vals, types, n, err := segment.SegmentWordsDirect(input[from:to], sb.vals[:0], sb.types[:0])
	sb.vals, sb.types = vals[:0], types[:0]
	defer clear(vals) // the pool keeps no text
	covered := 0
	for _, v := range vals {
		covered += len(v)
	}
	if err != nil || n != to-from || covered != n || len(types) != len(vals) {
		for _, t := range a.tokenizer.Tokenize(input[from:to]) {
			t.Start += from
			t.End += from
			t.Position = pos
			pos++
			*out = append(*out, t)
		}
		return pos
	}
	start := from
	for k, v := range vals {
		end := start + len(v)
		if types[k] != segment.None {
			if len(*slab) == cap(*slab) {
				*slab = make([]analysis.Token, 0, 256)
			}
			*slab = append(*slab, analysis.Token{Term: input[start:end], Start: start, End: end, Position: pos, Type: segmentType(types[k])})
			*out = append(*out, &(*slab)[len(*slab)-1])
			pos++
		}
		start = end
	}
	return pos
}

// segmentOutputs are the segmenter's outputs, kept for the next call.
type segmentOutputs struct {
	vals  [][]byte
	types []int
}

var segmentBuffers = sync.Pool{New: func() any { return new(segmentOutputs) }}

// segmentType is the token type Bleve's Unicode tokenizer gives a segment of
// type t (its convertType).
func segmentType(t int) analysis.TokenType {
	switch t {
	case segment.Ideo, segment.Kana:
		return analysis.Ideographic
	case segment.Number:
		return analysis.Numeric
	}
	return analysis.AlphaNumeric
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// Word-break classes of ASCII characters (Unicode Standard Annex 29).
const (
	wbOther byte = iota
	wbLetter
	wbDigit
	wbExtendNumLet // _
	wbMidLetter    // :
	wbMidNumLet    // . and '
	wbMidNum       // , and ;
)

var wbClass = func() (c [128]byte) {
	for b := 'a'; b <= 'z'; b++ {
		c[b], c[b-'a'+'A'] = wbLetter, wbLetter
	}
	for b := '0'; b <= '9'; b++ {
		c[b] = wbDigit
	}
	c['_'], c[':'], c['.'], c['\''], c[','], c[';'] = wbExtendNumLet, wbMidLetter, wbMidNumLet, wbMidNumLet, wbMidNum, wbMidNum
	return c
}()

// asciiWords appends the words of input[from:to], ASCII without white
// space, numbered from pos (the tokens taken from slab), and returns the
// next position. A word is a run
// of letters, digits and underscores; a colon, full stop or apostrophe
// between two letters, or a comma, semicolon, full stop or apostrophe
// between two digits, joins the two (rules WB5–WB13b). A word with a letter
// is alphanumeric, one with digits and no letter numeric.
func asciiWords(input []byte, from, to, pos int, out *analysis.TokenStream, slab *[]analysis.Token) int {
	for i := from; i < to; {
		c := wbClass[input[i]]
		if c != wbLetter && c != wbDigit && c != wbExtendNumLet {
			i++
			continue
		}
		start, letter, digit := i, c == wbLetter, c == wbDigit
		prev := c
		i++
		for i < to {
			c = wbClass[input[i]]
			if c == wbLetter || c == wbDigit || c == wbExtendNumLet {
				letter = letter || c == wbLetter
				digit = digit || c == wbDigit
				prev = c
				i++
				continue
			}
			if i+1 >= to {
				break
			}
			next := wbClass[input[i+1]]
			joins := (prev == wbLetter && next == wbLetter && (c == wbMidLetter || c == wbMidNumLet)) ||
				(prev == wbDigit && next == wbDigit && (c == wbMidNum || c == wbMidNumLet))
			if !joins {
				break
			}
			prev = next
			i += 2
		}
		typ := analysis.AlphaNumeric
		if digit && !letter {
			typ = analysis.Numeric
		}
		if len(*slab) == cap(*slab) {
			*slab = make([]analysis.Token, 0, 256)
		}
		*slab = append(*slab, analysis.Token{Term: input[start:i], Start: start, End: i, Position: pos, Type: typ})
		*out = append(*out, &(*slab)[len(*slab)-1])
		pos++
	}
	return pos
}

// frequencies is what Bleve keeps of input analysed by a, its field's
// length (the number of tokens) and each term's frequency, as
// analysis.TokenFrequency counts them without term vectors — with less
// work: no token list is kept, and the map keys are the remembered terms'
// strings rather than a new one for each. When head ≥ 0 it also gives
// those of the tokens that end within the first head bytes, for a field
// that is input's head.
func (a *transcriptText) frequencies(input []byte, head int) (n int, freqs bindex.TokenFrequencies, headN int, headFreqs bindex.TokenFrequencies) {
	toks := a.tokenize(input)
	// About two thirds of a text's tokens are distinct terms.
	freqs = make(bindex.TokenFrequencies, len(toks)*3/4+1)
	// The frequencies are allocated in chunks: one object for many terms,
	// and a chunk, once full, is never moved (the map points into it).
	const chunk = 128
	count := func(m bindex.TokenFrequencies, slab *[]bindex.TokenFreq, w filteredWord) {
		key := w.key
		if key == "" {
			key = string(w.term)
		}
		if tf, ok := m[key]; ok {
			tf.SetFrequency(tf.Frequency() + 1)
			return
		}
		if len(*slab) == cap(*slab) {
			*slab = make([]bindex.TokenFreq, 0, min(chunk, len(toks)))
		}
		*slab = append(*slab, bindex.TokenFreq{Term: w.term})
		tf := &(*slab)[len(*slab)-1]
		tf.SetFrequency(1)
		m[key] = tf
	}
	var slab, headSlab []bindex.TokenFreq
	if head >= 0 {
		k := 0 // the head's tokens come first
		for k < len(toks) && toks[k].End <= head {
			k++
		}
		headFreqs = make(bindex.TokenFrequencies, k*3/4+1)
	}
	for _, t := range toks {
		w := a.filterWord(t.Term)
		if !w.keep {
			continue
		}
		n++
		count(freqs, &slab, w)
		if head >= 0 && t.End <= head {
			headN++
			count(headFreqs, &headSlab, w)
		}
	}
	return n, freqs, headN, headFreqs
}
