package index

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/google/go-cmp/cmp"
)

// bleveTextChain is the analysis transcriptTextType reproduces, built from
// Bleve's own tokenizer and filters.
func bleveTextChain(t testing.TB) analysis.Analyzer {
	t.Helper()
	im := bleve.NewIndexMapping()
	filters := make([]any, len(transcriptTextChain.filters))
	for i, f := range transcriptTextChain.filters {
		filters[i] = f
	}
	if err := im.AddCustomAnalyzer("chain", map[string]any{"type": custom.Name, "tokenizer": transcriptTextChain.tokenizer, "token_filters": filters}); err != nil {
		t.Fatal(err)
	}
	a := im.AnalyzerNamed("chain")
	if a == nil {
		t.Fatal("no chain analyzer")
	}
	return a
}

// token is what an analysed token says, for comparison.
type token struct {
	Term            string
	Start, End, Pos int
	Type            analysis.TokenType
}

func tokensOf(ts analysis.TokenStream) []token {
	out := make([]token, len(ts))
	for i, t := range ts {
		out[i] = token{string(t.Term), t.Start, t.End, t.Position, t.Type}
	}
	return out
}

// compareTextAnalysis fails when the transcript text analyzer and Bleve's
// chain disagree on text. Each gets its own copy: Bleve's filters change
// the input in place.
func compareTextAnalysis(t *testing.T, want analysis.Analyzer, text string) {
	t.Helper()
	got := tokensOf(cortexTextAnalyzer(t).Analyze([]byte(text)))
	exp := tokensOf(want.Analyze([]byte(text)))
	if diff := cmp.Diff(exp, got); diff != "" {
		t.Fatalf("analysis of %q (-bleve +cortex):\n%s", text, diff)
	}
}

func cortexTextAnalyzer(t testing.TB) analysis.Analyzer {
	t.Helper()
	a, _ := transcriptAnalyzers()
	if _, ok := a.(*transcriptText); !ok {
		t.Fatalf("the transcript text analyzer is %T, not transcriptText", a)
	}
	return a
}

var analysisCases = []string{
	"", " ", "a", "_", "__", "a_", "_a", "1_", "_1", "a1", "1a", "a.1", "1.a", "1.5", "a.b", "a:b", "1:2",
	"a'b", "1'2", "1,2", "a,b", "a;b", "1;2", "a..b", "a._b", "_._", "a\r\nb", "x__", "_x_", "1_a", "a_1",
	"1_2.3", "a.b.c", "a.", ".a", "a'", "'a", "don't", "3.14.15", "1.2.a", "a:1", "1:a", "x:", "\v", "a\tb",
	"The user's cache isn't warm: self.cache.get(key) returned None at src/auth/jwt.go:42",
	"ECONNREFUSED 127.0.0.1:5432, HTTP-503, E0499 and SQLSTATE-23505; retry_count=3",
	"Running's RUNNING runs ran Cats' cat’s ＇s it’s",
	"café naïve Ärger — “quoted” über-fast 東京 テスト ﬁle x\u0301y \u0301abc a\u200db",
	"mixed ascii.naïve:word 1,234.56€ 12:30 v1.2.3-rc.1 foo__bar__ __init__.py",
	"emoji 👍🏽 and 👨‍👩‍👧 then done\u0085next\u2028line",
	"\xe60 ", "ok \xff broken \xc3",
}

func TestTranscriptTextAnalyzerMatchesBleve(t *testing.T) {
	want := bleveTextChain(t)
	for _, text := range analysisCases {
		compareTextAnalysis(t, want, text)
	}
	// Random text over the characters the ASCII rules treat apart, and a
	// few others.
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "aZ09_:.',;- \t\n\r/\"é’"
	chars := []rune(alphabet)
	for range 20000 {
		var b strings.Builder
		for range r.IntN(24) {
			b.WriteRune(chars[r.IntN(len(chars))])
		}
		compareTextAnalysis(t, want, b.String())
	}
	// And bytes that are not always UTF-8.
	const bytesAlphabet = "a0_.: \n\xe6\x80\xc3\xa9"
	for range 5000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = bytesAlphabet[r.IntN(len(bytesAlphabet))]
		}
		compareTextAnalysis(t, want, string(b))
	}
	// Every line of the real transcripts, notes and documents of the
	// fixtures.
	eachFixtureLine(t, func(line string) { compareTextAnalysis(t, want, line) })
}

func FuzzTranscriptTextAnalyzer(f *testing.F) {
	for _, s := range analysisCases {
		f.Add(s)
	}
	want := bleveTextChain(f)
	f.Fuzz(func(t *testing.T, text string) {
		compareTextAnalysis(t, want, text)
	})
}

// BenchmarkTranscriptTextAnalysis analyses the lines of the Claude Code
// fixtures with Bleve's chain and with the transcript text analyzer.
func BenchmarkTranscriptTextAnalysis(b *testing.B) {
	var lines [][]byte
	err := filepath.WalkDir(filepath.Join("..", "fixtures", "claude-code"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".jsonl" {
			return err
		}
		data, err := os.ReadFile(p)
		for _, l := range strings.Split(string(data), "\n") {
			lines = append(lines, []byte(l))
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		a    analysis.Analyzer
	}{{"bleve", bleveTextChain(b)}, {"cortex", cortexTextAnalyzer(b)}} {
		b.Run(c.name, func(b *testing.B) {
			buf := make([]byte, 0, 1<<16)
			for b.Loop() {
				for _, l := range lines {
					buf = append(buf[:0], l...)
					c.a.Analyze(buf)
				}
			}
		})
	}
}

// compareUnicodeWords fails when unicodeWords and Bleve's Unicode tokenizer
// disagree on a piece of text: the same terms, offsets, positions and types.
func compareUnicodeWords(t *testing.T, a *transcriptText, text string) {
	t.Helper()
	in := []byte(text)
	var out analysis.TokenStream
	var slab []analysis.Token
	next := a.unicodeWords(in, 0, len(in), 1, &out, &slab)
	exp := tokensOf(unicodetok.NewUnicodeTokenizer().Tokenize([]byte(text)))
	if diff := cmp.Diff(exp, tokensOf(out)); diff != "" {
		t.Fatalf("words of %q (-bleve +cortex):\n%s", text, diff)
	}
	if next != len(exp)+1 {
		t.Fatalf("words of %q: next position %d, want %d", text, next, len(exp)+1)
	}
}

// unicodeAlphabet holds characters of every word-break class (UAX #29) and
// the scripts of the real-shaped notes: letters of several scripts,
// combining marks, joiners, digits of other scripts, the middle characters
// that join words or numbers, Hebrew quotes, kana, ideographs, regional
// indicators, emoji with modifiers, and white space of several kinds.
var unicodeAlphabet = []rune("aZ09_:.',;-\"/ \t\n\r\u0085\u2028\u00a0\u3000" +
	"éÄßжЖاسلام\u064b\u0651فارسی۱٢\u066cאבג\u05f3\u05f4" +
	"क\u093eि\u094d\u0f0bབོད\u0e01\u0e31ไทย한국어アイウ\u30fcｱﾞかな東京中文。、" +
	"\u0301\u0308\u200b\u200c\u200d\u2060\ufeff\u00b7\u2019\u2018\u201c\u201d\u2024\u2027\ufe13\ufe52\uff07\uff0e\uff1b\u203f\u2040\uff3f" +
	"\U0001f1e6\U0001f1ea\U0001f44d\U0001f3fd\U0001f468\U0001f469\u2764\ufe0f©®™€１２" + "\u00ad\u180e\u2064\U000e0020")

func TestUnicodeWordsAsBleve(t *testing.T) {
	a := cortexTextAnalyzer(t).(*transcriptText)
	for _, text := range analysisCases {
		compareUnicodeWords(t, a, text)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 30000 {
		var b strings.Builder
		for range r.IntN(24) {
			b.WriteRune(unicodeAlphabet[r.IntN(len(unicodeAlphabet))])
		}
		compareUnicodeWords(t, a, b.String())
	}
	// Any code point at all, and bytes that are not always UTF-8.
	for range 10000 {
		var b strings.Builder
		for range r.IntN(16) {
			switch r.IntN(3) {
			case 0:
				b.WriteRune(rune(r.IntN(0x3000)))
			case 1:
				b.WriteRune(rune(r.IntN(utf8.MaxRune + 1)))
			default:
				b.WriteByte(byte(r.IntN(256)))
			}
		}
		compareUnicodeWords(t, a, b.String())
	}
	eachFixtureLine(t, func(line string) { compareUnicodeWords(t, a, line) })
}

func FuzzUnicodeWords(f *testing.F) {
	for _, s := range analysisCases {
		f.Add(s)
	}
	f.Add(string(unicodeAlphabet))
	a := cortexTextAnalyzer(f).(*transcriptText)
	f.Fuzz(func(t *testing.T, text string) {
		compareUnicodeWords(t, a, text)
	})
}

// eachFixtureLine calls fn with every line of the real transcripts, notes
// and documents of the fixtures, and fails when they are fewer than 1,000.
func eachFixtureLine(t *testing.T, fn func(line string)) {
	t.Helper()
	lines := 0
	err := filepath.WalkDir(filepath.Join("..", "fixtures"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		switch filepath.Ext(p) {
		case ".jsonl", ".json", ".md", ".txt":
		default:
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(data), "\n") {
			fn(line)
			lines++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if lines < 1000 {
		t.Fatalf("compared %d lines of fixtures, want at least 1000", lines)
	}
}
