package index

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// mappedFields is the document transcriptDocument replaces, as a map for
// the mapping to walk: what Apply indexed before it built documents itself.
func mappedFields(t *testing.T, d *TranscriptDoc) map[string]any {
	t.Helper()
	tx, err := textsOf(d)
	if err != nil {
		t.Fatal(err)
	}
	f := map[string]any{
		tfAll: tx.all, tfUser: d.User, tfReply: d.Reply, tfExact: strings.Join(tx.exact, " "), tfMeta: string(tx.meta),
		tfKind: d.Kind, tfTool: d.Tool, tfSession: d.Session, tfFileKey: d.FileKey,
	}
	if tx.tools != "" {
		f[tfTools] = tx.tools
	}
	if tx.paths != "" {
		f[tfPaths] = tx.paths
	}
	if len(d.Projects) > 0 {
		f[tfProject] = d.Projects
	}
	if len(d.Dirs) > 0 {
		f[tfDir] = d.Dirs
	}
	if !d.Time.IsZero() {
		stamp := nanoStamp(d.Time)
		f[tfTime], f[tfTimeDay], f[tfTimeMonth], f[tfTimeYear] = stamp, stamp[:8], stamp[:6], stamp[:4]
	}
	return f
}

// analysedField is what Bleve's segment takes of a field once analysed.
type analysedField struct {
	Name      string
	ArrayPos  []uint64
	Options   bindex.FieldIndexingOptions
	Value     string
	Length    int
	Freqs     map[string]int
	TextBytes uint64
}

// analysedDoc analyses doc's fields as scorch does before building a
// segment, and lists what the segment takes of them.
func analysedDoc(doc *document.Document) []analysedField {
	var out []analysedField
	doc.VisitFields(func(f bindex.Field) {
		a := analysedField{Name: f.Name(), ArrayPos: f.ArrayPositions(), Options: f.Options(), Value: string(f.Value()), TextBytes: f.NumPlainTextBytes()}
		if f.Options().IsIndexed() {
			f.Analyze()
			a.Length = f.AnalyzedLength()
			a.Freqs = map[string]int{}
			for term, tf := range f.AnalyzedTokenFrequencies() {
				a.Freqs[term] = tf.Frequency()
				if string(tf.Term) != term {
					a.Freqs["bad term "+string(tf.Term)]++
				}
			}
		}
		out = append(out, a)
	})
	doc.VisitComposite(func(f bindex.CompositeField) {
		out = append(out, analysedField{Name: "composite " + f.Name()})
	})
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return fmt.Sprint(out[i].ArrayPos) < fmt.Sprint(out[j].ArrayPos)
	})
	return out
}

// compareTranscriptDocument fails t unless transcriptDocument(d) is what
// the mapping m makes of d; it returns the document built.
func compareTranscriptDocument(t *testing.T, m mapping.IndexMapping, d *TranscriptDoc) *document.Document {
	t.Helper()
	want := document.NewDocument(d.ID)
	if err := m.MapDocument(want, mappedFields(t, d)); err != nil {
		t.Fatal(err)
	}
	addLengths(want, transcriptScored)
	got, err := transcriptDocument(d)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(analysedDoc(want), analysedDoc(got), cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("document %s (%q / %q) (-mapping +built):\n%s", d.ID, d.User, d.Reply, diff)
	}
	return got
}

func FuzzTranscriptDocument(f *testing.F) {
	f.Add("It's Bob's src/a_b.go:12 café", "see self.cache.get() ERR_X", "Bash", "/tmp/x.go", "go test ./...")
	f.Add("\xe6\x80 a", "é’ b", "", "", "")
	f.Add("", "", "a b", "c:d", "e\nf")
	m, err := newTranscriptMapping()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, user, reply, tool, path, command string) {
		d := TranscriptDoc{ID: "f/x0", Kind: KindExchange, Tool: "codex", Session: "s", User: user, Reply: reply, FileKey: "f"}
		if tool != "" {
			d.Tools = []string{tool}
		}
		if path != "" {
			d.Paths = []string{path}
		}
		if command != "" {
			d.Commands = []string{command}
		}
		compareTranscriptDocument(t, m, &d)
	})
}

// TestTranscriptDocumentIsTheMappings: the documents Apply builds itself
// hold the same fields, values, options, lengths and term frequencies as
// those the mapping makes — on the test exchanges, on exchanges made of
// the lines of the fixtures' transcripts, and on random text (broken UTF-8 included).
func TestTranscriptDocumentIsTheMappings(t *testing.T) {
	m, err := newTranscriptMapping()
	if err != nil {
		t.Fatal(err)
	}
	docs := tdocs()
	docs = append(docs,
		TranscriptDoc{ID: "e/x1", Kind: KindExchange, Tool: "codex", Session: "s", User: "", Reply: "", FileKey: "e"},
		TranscriptDoc{ID: "e/x2", Kind: KindExchange, Tool: "codex", Session: "s", User: "It's Bob's src/a_b.go:12 café\xe6 and ERR_X", Reply: "see self.cache.get()",
			Commands: []string{"go test ./... -run TestX"}, Paths: []string{"/tmp/ÉTÉ/x.go"}, Tools: []string{"Bash", "Read"}, FileKey: "e",
			Projects: []string{"a", "b"}, Dirs: []string{"/x", "/y"}, Time: time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)},
		TranscriptDoc{ID: "e/x3", Kind: KindExchange, Tool: "codex", Session: "s", User: "only the person\n", Reply: "x", FileKey: "e", Time: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)},
	)
	var lines []string
	err = filepath.WalkDir(filepath.Join("..", "fixtures"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		if filepath.Ext(p) != ".jsonl" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines = append(lines, strings.Split(string(data), "\n")...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) < 1000 {
		t.Fatalf("%d lines of fixtures, want at least 1000", len(lines))
	}
	// At most 3,000 exchanges of them, spread over all the lines.
	step := max(3, len(lines)/3000)
	for i := 0; i+3 < len(lines); i += step {
		docs = append(docs, TranscriptDoc{ID: fmt.Sprintf("f/x%d", i), Kind: KindExchange, Tool: "claude-code", Session: "s",
			User: lines[i], Reply: lines[i+1] + "\n\n" + lines[i+2], Paths: ExactTerms(lines[i+2]), Commands: []string{lines[i+3]}, FileKey: "f"})
	}
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "aZ09_:.',;-/ \t\n\"é’\xe6\x80"
	random := func() string {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for i := range 1500 {
		docs = append(docs, TranscriptDoc{ID: fmt.Sprintf("r/x%d", i), Kind: KindExchange, Tool: "gemini", Session: "s",
			User: random(), Reply: random(), Tools: []string{random()}, Paths: []string{random()}, Commands: []string{random()}, FileKey: "r"})
	}

	for i := range docs {
		d := &docs[i]
		got := compareTranscriptDocument(t, m, d)
		// The person's words are counted in the all field's pass unless
		// its text is broken UTF-8.
		tx, err := textsOf(d)
		if err != nil {
			t.Fatal(err)
		}
		if user, ok := got.Fields[1].(*countedField); !ok || !user.head {
			t.Fatalf("document %s: the second field is %#v, want the user field", d.ID, got.Fields[1])
		} else if shared := user.of.headLen >= 0; shared != utf8.ValidString(tx.all) {
			t.Errorf("document %s: the user field shares the all field's pass: %v", d.ID, shared)
		}
	}
}

// TestExactTokensPastBrokenBytes: the identifiers of an exchange after a byte
// that is not UTF-8, or after U+FFFD, are exact terms of its document; they
// were dropped while the whitespace tokenizer stopped there (schema
// transcripts-4 kept that to stay identical).
func TestExactTokensPastBrokenBytes(t *testing.T) {
	for _, text := range []string{
		"caf\xe6_x then ERR_PIPE_77 in src/a_b.go",
		"bad \uFFFD_id then ERR_PIPE_77 in src/a_b.go",
	} {
		tx, err := textsOf(&TranscriptDoc{ID: "e/x1", Kind: KindExchange, Reply: text})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tk := range exactTokens(strings.Join(tx.exact, " "), len(tx.exact), lowercase.NewLowerCaseFilter()) {
			got = append(got, string(tk.Term))
		}
		for _, want := range []string{"err_pipe_77", "src/a_b.go", "a_b.go"} {
			if !slices.Contains(got, want) {
				t.Errorf("exact tokens of %q: %q, want %q among them", text, got, want)
			}
		}
	}
}
