package index

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/dedup"
)

// pathOnlyByAnalysis is the pathOnly field as it was first written: the
// texts analysed with their paths blanked (dedup.OutsidePaths), then again
// whole. pathOnlyIn must give the same without the second analysis.
func pathOnlyByAnalysis(b *Bleve, texts ...string) string {
	words := map[string]bool{}
	hasPath := false
	for _, text := range texts {
		if strings.ContainsAny(text, "/\\") {
			hasPath = true
		}
	}
	if !hasPath {
		return ""
	}
	for _, text := range texts {
		for _, t := range b.analyzer(dedup.OutsidePaths(text)) {
			words[t] = true
		}
	}
	var sb strings.Builder
	for _, text := range texts {
		for _, t := range b.analyzer(text) {
			if !words[t] {
				words[t] = true
				sb.WriteString(t)
				sb.WriteByte(' ')
			}
		}
	}
	return sb.String()
}

// pathOnlyTexts are title and body pairs with paths, URLs and the characters
// around them that word breaking looks at.
var pathOnlyTexts = [][2]string{
	{"", ""},
	{"No path here", "Just words, the library and the lib."},
	{"Moved /var/lib/postgres", "The library is in /var/lib/ and lib/ too; see lib."},
	{"", "C:\\Users\\me\\lib\\util.dll beside util and users"},
	{"https://example.com/docs?q=1#top", "read https://example.com/docs/api.html, then the docs"},
	{"cmd/server/main.go", "internal/store/db.go: store db go\ninternal/store/db.go\r\nstore"},
	{"", "tabs\tsrc/auth/login.ts\tlogin\vvertical/tab\fform/feed feed"},
	{"", "non-breaking\u00a0space/inside a\u00a0path/here here"},
	{"", "combining x\u0301/y accent \u0301/z z y"},
	{"", "zero\u200bwidth/joiner zero width"},
	{"", "the user's /home/user's folder and users' /srv/users'/x"},
	{"", "numbers 1.2/3 and 4,5/6 and v1.2.3/x 1.2 v1.2.3"},
	{"", "日本語/パス 日本語 and 中文/路径 words"},
	{"", "a/b"},
	{"", "/"},
	{"", "\\"},
	{"", "word/"},
	{"", "/word word"},
	{"", "don't/can't won't can't"},
	{"", "e.g./i.e. e.g. i.e."},
	{"", "emoji 🙂/🙃 smile 🙂"},
	{"", "quote\"/\"quoted\" quoted"},
	{"", "end of line/\npath\n/start start"},
}

func TestPathOnlyIn(t *testing.T) {
	b := newTestBleve(t)
	texts := pathOnlyTexts
	// The evaluation fixtures too, cut at their JSON strings' escaped line
	// breaks (the escapes left in give backslashes, which count as paths).
	files, _ := filepath.Glob(filepath.Join("..", "fixtures", "eval", "*.json"))
	more, _ := filepath.Glob(filepath.Join("..", "fixtures", "eval", "conversations", "*.json"))
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\\n") {
			texts = append(texts, [2]string{"", line})
		}
	}
	if len(texts) < 100 {
		t.Fatalf("setup: %d texts, want the evaluation fixtures' too", len(texts))
	}
	for _, tt := range texts {
		want := pathOnlyByAnalysis(b, tt[0], tt[1])
		got := b.pathOnlyIn(tt[:], []analysis.TokenStream{b.tokens(tt[0]), b.tokens(tt[1])})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("pathOnlyIn(%q, %q) (-analysis +tokens):\n%s", tt[0], tt[1], diff)
		}
		if got := b.pathOnly(tt[0], tt[1]); got != want {
			t.Errorf("pathOnly(%q, %q) = %q, want %q", tt[0], tt[1], got, want)
		}
	}
}

func FuzzPathOnlyIn(f *testing.F) {
	for _, tt := range pathOnlyTexts {
		f.Add(tt[0], tt[1])
	}
	b, err := createBleve(filepath.Join(f.TempDir(), "bleve"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = b.Close() })
	f.Fuzz(func(t *testing.T, title, body string) {
		want := pathOnlyByAnalysis(b, title, body)
		got := b.pathOnlyIn([]string{title, body}, []analysis.TokenStream{b.tokens(title), b.tokens(body)})
		if got != want {
			t.Errorf("pathOnlyIn(%q, %q) = %q, want %q", title, body, got, want)
		}
	})
}

// pathRunsByWalk is pathRuns as it was written first: every byte walked.
func pathRunsByWalk(text string) [][2]int {
	var runs [][2]int
	for i := 0; i < len(text); {
		if isSpaceByte(text[i]) {
			i++
			continue
		}
		j, path := i, false
		for ; j < len(text) && !isSpaceByte(text[j]); j++ {
			path = path || text[j] == '/' || text[j] == '\\'
		}
		if path {
			runs = append(runs, [2]int{i, j})
		}
		i = j
	}
	return runs
}

// TestPathRunsAsByWalk compares pathRuns, which searches for the slashes,
// with the walk of every byte, over random texts of slashes, backslashes,
// white space of each kind and other bytes.
func TestPathRunsAsByWalk(t *testing.T) {
	pieces := []string{"/", "\\", " ", "\t", "\n", "\r", "\f", "\v", "a", "bc", "é", "\xff", ".", "//", "\\\\", "http://x"}
	r := rand.New(rand.NewPCG(5, 9))
	withRuns := 0
	for trial := range 20000 {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := b.String()
		got, want := pathRuns(text), pathRunsByWalk(text)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: pathRuns(%q) = %v; want %v", trial, text, got, want)
		}
		if len(want) > 1 {
			withRuns++
		}
	}
	if withRuns < 5000 {
		t.Errorf("only %d texts had several runs: the draw tests too little", withRuns)
	}
}
