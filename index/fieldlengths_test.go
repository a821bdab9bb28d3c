package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	bsearch "github.com/blevesearch/bleve/v2/search"

	"github.com/cortexmem/cortex/memories"
)

// layoutText is n words, of many frequencies for notes whose fields' distinct
// terms differ from segment to segment.
func layoutText(r *rand.Rand, n int) string {
	words := make([]string, n)
	for i := range words {
		// About Zipf: a few words in most notes, most words in a few.
		k := int(float64(600) * r.Float64() * r.Float64() * r.Float64())
		words[i] = fmt.Sprintf("w%c%c%c", 'a'+k/100, 'a'+k/10%10, 'a'+k%10)
	}
	return strings.Join(words, " ")
}

// layoutNotes are n notes of layoutText with titles, bodies and tags of
// many lengths.
func layoutNotes(seed uint64, prefix string, n int) []*memories.Memory {
	r := rand.New(rand.NewPCG(seed, 7))
	ms := make([]*memories.Memory, n)
	for i := range ms {
		var tags []string
		for range r.IntN(3) {
			tags = append(tags, layoutText(r, 1+r.IntN(2)))
		}
		title := layoutText(r, 1+r.IntN(6))
		if r.IntN(4) == 0 {
			title = ""
		}
		body := layoutText(r, 3+r.IntN(120))
		if r.IntN(3) == 0 { // a hyphenated word, for the joined field
			body += " " + strings.ReplaceAll(layoutText(r, 2+r.IntN(2)), " ", "-")
		}
		ms[i] = mem(fmt.Sprintf("%s%03d", prefix, i), title, body, "alpha", memories.TypeNote, i%30, tags...)
	}
	return ms
}

// TestScoresOverLayouts: recall's searches give the same notes with the same
// scores, to the bit, however the index's segments are laid out — one
// batch, many reverse batches, notes deleted and notes indexed again (their
// old documents deleted in the older segment). Bleve's own average length
// (distinct terms summed over the segments) scored every layout
// differently; cortex gives the searches the average of the live documents'
// lengths (fieldLengths, bleve patch 0009).
func TestScoresOverLayouts(t *testing.T) {
	ms := layoutNotes(11, "n", 300)
	extra := layoutNotes(12, "x", 40)
	layouts := []struct {
		name  string
		apply func(b *Bleve) error
	}{
		{"one batch", func(b *Bleve) error { return b.Apply(docs(ms)) }},
		{"reverse batches of 40", func(b *Bleve) error {
			for end := len(ms); end > 0; end -= 40 {
				if err := b.Apply(docs(ms[max(0, end-40):end])); err != nil {
					return err
				}
			}
			return nil
		}},
		{"extra notes deleted", func(b *Bleve) error {
			if err := b.Apply(docs(append(append([]*memories.Memory{}, extra...), ms...))); err != nil {
				return err
			}
			del := make([]Doc, len(extra))
			for i, m := range extra {
				del[i] = Doc{ID: m.ID, Deleted: true}
			}
			return b.Apply(del)
		}},
		{"notes indexed again", func(b *Bleve) error {
			if err := b.Apply(docs(ms)); err != nil {
				return err
			}
			if err := b.Apply(docs(ms[100:180])); err != nil {
				return err
			}
			return b.Apply(docs(ms[150:160]))
		}},
	}
	queries := []memories.SearchRequest{
		{Text: "waaa wabc", AnyTerm: true},
		{Text: "waab waac wbaa", AnyTerm: true, Phrases: true, Compounds: true},
		{Text: "waaa waab", Phrases: true},
		{Text: "wacd", AnyTerm: true},
		{Text: "waad wadf wfaa", AnyTerm: true, K1: memories.ShortNotesK1, B: memories.ShortNotesB, Phrases: true, Compounds: true},
	}
	db, err := newDocBuilder()
	if err != nil {
		t.Fatal(err)
	}
	results := make([][]string, len(layouts))
	for li, l := range layouts {
		b, err := createBleve(filepath.Join(t.TempDir(), "bleve"))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.apply(b); err != nil {
			t.Fatal(err)
		}
		for _, q := range queries {
			q.Size = len(ms)
			got, err := b.Search(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 {
				t.Fatalf("%s: %q found nothing", l.name, q.Text)
			}
			var out []string
			for _, m := range got {
				out = append(out, fmt.Sprintf("%s %v", m.ID, m.Score))
			}
			results[li] = append(results[li], strings.Join(out, "\n"))
		}
		var want []*document.Document
		for _, m := range ms {
			want = append(want, db.memoryDocument(b, m.ID, m))
		}
		checkAverages(t, l.name, snapshotAverages(t, b.idx), want, scoredFields)
		if err := b.idx.Close(); err != nil { // without Close's merge
			t.Fatal(err)
		}
	}
	for li := 1; li < len(layouts); li++ {
		for qi, q := range queries {
			if results[li][qi] != results[0][qi] {
				t.Errorf("%q: %s and %s differ:\n%s", q.Text, layouts[0].name, layouts[li].name, firstDiff(results[0][qi], results[li][qi]))
			}
		}
	}
}

// firstDiff is the first line a and b differ in.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d: %s / %s", i, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines / %d lines", len(la), len(lb))
}

// snapshotAverages is the averages idx's searches are given now.
func snapshotAverages(t *testing.T, idx bleve.Index) bsearch.BM25FieldLengths {
	t.Helper()
	var c lengthsCache
	ctx, err := c.withLengths(context.Background(), idx)
	if err != nil {
		t.Fatal(err)
	}
	avgs, ok := ctx.Value(bsearch.BM25FieldLengthsKey).(bsearch.BM25FieldLengths)
	if !ok {
		t.Fatal("no field lengths in the search's context")
	}
	return avgs
}

// checkAverages fails t unless avgs are each field's length in docs (as
// Bleve analyses them), summed and divided by their number.
func checkAverages(t *testing.T, layout string, avgs bsearch.BM25FieldLengths, docs []*document.Document, fields []string) {
	t.Helper()
	sums := map[string]int{}
	for _, d := range docs {
		for _, f := range analysedDoc(d) {
			if slices.Contains(fields, f.Name) {
				sums[f.Name] += f.Length
			}
		}
	}
	for _, name := range fields {
		want := float64(sums[name]) / float64(len(docs))
		if avgs[name] != want || want == 0 {
			t.Errorf("%s: average length of %s %v, want %v", layout, name, avgs[name], want)
		}
	}
}

// layoutExchanges are n exchanges of layoutText with paths, identifiers
// and tools, for every scored field of the transcript index.
func layoutExchanges(seed uint64, prefix string, n int) []TranscriptDoc {
	r := rand.New(rand.NewPCG(seed, 9))
	out := make([]TranscriptDoc, n)
	for i := range out {
		d := TranscriptDoc{ID: fmt.Sprintf("%s/x%03d", prefix, i), Kind: KindExchange, Tool: "claude-code", Session: "s",
			User: layoutText(r, 1+r.IntN(30)), Reply: layoutText(r, r.IntN(200)), FileKey: prefix}
		if r.IntN(2) == 0 {
			d.Reply += " self." + layoutText(r, 1) + ".get()"
		}
		for range r.IntN(3) {
			d.Paths = append(d.Paths, "src/"+strings.ReplaceAll(layoutText(r, 2), " ", "/")+".go")
		}
		for range r.IntN(3) {
			d.Tools = append(d.Tools, []string{"Bash", "Read", "Edit", "Grep"}[r.IntN(4)])
		}
		out[i] = d
	}
	return out
}

// TestTranscriptScoresOverLayouts is TestScoresOverLayouts for the
// transcript index: the same exchanges in one batch, in reverse batches,
// with exchanges deleted and exchanges indexed again score the same to the
// bit (a watcher killed and restarted left another layout than a rebuild,
// and a hit scored 0.9621 against 0.962).
func TestTranscriptScoresOverLayouts(t *testing.T) {
	ds := layoutExchanges(21, "f", 240)
	extra := layoutExchanges(22, "g", 40)
	var extraIDs []string
	for _, d := range extra {
		extraIDs = append(extraIDs, d.ID)
	}
	layouts := []struct {
		name  string
		apply func(ti *TranscriptIndex) error
	}{
		{"one batch", func(ti *TranscriptIndex) error { return ti.Apply(ds, nil) }},
		{"reverse batches of 30", func(ti *TranscriptIndex) error {
			for end := len(ds); end > 0; end -= 30 {
				if err := ti.Apply(ds[max(0, end-30):end], nil); err != nil {
					return err
				}
			}
			return nil
		}},
		{"extra exchanges deleted", func(ti *TranscriptIndex) error {
			if err := ti.Apply(append(append([]TranscriptDoc{}, extra...), ds...), nil); err != nil {
				return err
			}
			return ti.Apply(nil, extraIDs)
		}},
		{"exchanges indexed again", func(ti *TranscriptIndex) error {
			if err := ti.Apply(ds, nil); err != nil {
				return err
			}
			return ti.Apply(ds[60:130], nil)
		}},
	}
	boosts := TranscriptBoosts{User: 1.5, Paths: 1, Tools: 0.5, Exact: 2}
	queries := []TranscriptQuery{
		{Text: "waaa wabc", AnyTerm: true, Boosts: boosts},
		{Text: "waab waac self.waaa.get", AnyTerm: true, Boosts: boosts},
		{Text: "waaa waab"},
		{Text: "wacd bash src/waab", AnyTerm: true, Boosts: boosts},
		{Text: "waad wadf", AnyTerm: true, Baseline: true},
	}
	results := make([][]string, len(layouts))
	for li, l := range layouts {
		ti, err := CreateTranscriptIndex(filepath.Join(t.TempDir(), "transcripts"))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.apply(ti); err != nil {
			t.Fatal(err)
		}
		for _, q := range queries {
			q.Size = len(ds)
			q.MetaOnly = true
			got, err := ti.Search(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 {
				t.Fatalf("%s: %q found nothing", l.name, q.Text)
			}
			var out []string
			for _, h := range got {
				out = append(out, fmt.Sprintf("%s %v", h.Doc.ID, h.Score))
			}
			results[li] = append(results[li], strings.Join(out, "\n"))
		}
		// Documents analyse once: each check makes its own.
		var want []*document.Document
		for i := range ds {
			d, err := transcriptDocument(&ds[i])
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, d)
		}
		checkAverages(t, l.name, snapshotAverages(t, ti.idx), want, transcriptScored)
		if err := ti.idx.Close(); err != nil { // without Close's merge
			t.Fatal(err)
		}
	}
	for li := 1; li < len(layouts); li++ {
		for qi, q := range queries {
			if results[li][qi] != results[0][qi] {
				t.Errorf("%q: %s and %s differ:\n%s", q.Text, layouts[0].name, layouts[li].name, firstDiff(results[0][qi], results[li][qi]))
			}
		}
	}
}
