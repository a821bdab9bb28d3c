package index

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cortexmem/cortex/memories"
)

// tiedNotes are 40 notes in three groups that score alike for "tied
// words" (both words in the body, "tied" alone, "words" alone), ids n00 to
// n39 dealt round the groups, all created in one hour.
func tiedNotes() []*memories.Memory {
	bodies := []string{"the tied words are here", "a tied note", "other words"}
	var ms []*memories.Memory
	for i := range 40 {
		ms = append(ms, mem(fmt.Sprintf("n%02d", i), "Same title", bodies[i%3], "alpha", memories.TypeNote, 1))
	}
	return ms
}

// tiedLayouts build the same notes into indexes whose documents lie in
// different orders and segments: one batch in id order, one note at a time
// in reverse order, and shuffled batches of seven.
var tiedLayouts = []struct {
	name  string
	apply func(b *Bleve, ms []*memories.Memory) error
}{
	{"one batch", func(b *Bleve, ms []*memories.Memory) error { return b.Apply(docs(ms)) }},
	{"reverse, one at a time", func(b *Bleve, ms []*memories.Memory) error {
		for i := len(ms) - 1; i >= 0; i-- {
			if err := b.Apply(docs(ms[i : i+1])); err != nil {
				return err
			}
		}
		return nil
	}},
	{"shuffled batches of 7", func(b *Bleve, ms []*memories.Memory) error {
		ms = slices.Clone(ms)
		rand.New(rand.NewPCG(1, 2)).Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
		for start := 0; start < len(ms); start += 7 {
			if err := b.Apply(docs(ms[start:min(start+7, len(ms))])); err != nil {
				return err
			}
		}
		return nil
	}},
}

// TestSearchTiesAtTheCutByID: which of equally scored notes a search keeps
// at its Size is the least ids, whatever order the index holds them in.
// For every Size from 1 to all, each search's hits must be the first Size
// of all its matches ordered by score and id, and the same in every layout
// (Bleve kept the ones it met first: recall's candidates, and so eval's
// per-query lists, changed from one build of the same notes to the next).
// A search without text in an hour (recall's search for neighbours) scores
// every match alike: it keeps the least ids.
func TestSearchTiesAtTheCutByID(t *testing.T) {
	ms := tiedNotes()
	hour := []memories.TimeSpan{{From: day0.Add(-time.Minute), To: day0.Add(time.Minute)}}
	reqs := map[string]memories.SearchRequest{
		"any word":   {Text: "tied words", AnyTerm: true},
		"every word": {Text: "tied words"},
		"one word":   {Text: "tied"},
		"no text":    {CreatedIn: hour},
	}
	first := map[string][]string{} // by request and size, the first layout's hits
	for _, layout := range tiedLayouts {
		b, err := createBleve(t.TempDir() + "/bleve")
		if err != nil {
			t.Fatal(err)
		}
		if err := layout.apply(b, ms); err != nil {
			t.Fatal(err)
		}
		for name, req := range reqs {
			req.Size = 1000
			all := search(t, b, req)
			if name == "no text" {
				slices.Sort(all)
			}
			for size := 1; size <= len(all); size++ {
				req.Size = size
				got := search(t, b, req)
				if name == "no text" {
					slices.Sort(got)
				}
				if want := all[:size]; !slices.Equal(got, want) {
					t.Errorf("%s, %s, Size %d: %v, want %v", layout.name, name, size, got, want)
				}
				key := fmt.Sprint(name, size)
				if f, ok := first[key]; !ok {
					first[key] = got
				} else if !slices.Equal(got, f) {
					t.Errorf("%s, %s, Size %d: %v, but %v in layout %q", layout.name, name, size, got, f, tiedLayouts[0].name)
				}
			}
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPrunedSearchTiesByID: when pruning's first pass answers a search
// (the notes with the word in their titles outscore any with it in the
// body alone), it keeps the same least ids of equally scored notes as the
// whole search, in either layout: 200 notes alike with "deploy" in the
// title and body, 300 with it in the body only.
func TestPrunedSearchTiesByID(t *testing.T) {
	minPostings := pruneMinPostings
	t.Cleanup(func() { prune, pruneMinPostings = true, minPostings })
	pruneMinPostings = 0
	var ms []*memories.Memory
	for i := range 500 {
		m := mem(fmt.Sprintf("d%03d", i), "Deploy", "deploy steps here", "alpha", memories.TypeNote, 1)
		if i%5 >= 2 {
			m.Title, m.Body = fmt.Sprintf("Other %d", i), "how to deploy it"
		}
		ms = append(ms, m)
	}
	var first []string
	for _, layout := range []string{"one batch", "reverse batches of 50"} {
		b, err := createBleve(t.TempDir() + "/bleve")
		if err != nil {
			t.Fatal(err)
		}
		if layout == "one batch" {
			err = b.Apply(docs(ms))
		}
		for end := len(ms); layout != "one batch" && end > 0 && err == nil; end -= 50 {
			err = b.Apply(docs(ms[end-50 : end]))
		}
		if err != nil {
			t.Fatal(err)
		}
		prune = false
		all := search(t, b, memories.SearchRequest{Text: "deploy", Size: 1000})
		prune = true
		before := prunedSearches.Load()
		for _, size := range []int{1, 10, 50, 199, 200, 201, 300} {
			got := search(t, b, memories.SearchRequest{Text: "deploy", Size: size})
			if want := all[:size]; !slices.Equal(got, want) {
				t.Errorf("%s, Size %d: %v, want %v", layout, size, got, want)
			}
		}
		if prunedSearches.Load() == before {
			t.Errorf("%s: no search was answered by pruning's first pass: the test no longer covers it", layout)
		}
		if first == nil {
			first = all
		} else if !slices.Equal(all, first) {
			t.Errorf("%s: %v, but %v in one batch", layout, all, first)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
