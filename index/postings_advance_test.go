package index

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/cortexmem/cortex/memories"
)

// posting is what a postings iterator says of one document.
type posting struct {
	doc  uint64
	freq uint64
	norm float64
}

// peekable is roaring's IntPeekable, the iterator of a zap postings list's
// documents (PostingsIterator.Actual).
type peekable interface {
	HasNext() bool
	Next() uint32
	PeekNext() uint32
	AdvanceIfNeeded(minval uint32)
}

// countingPeekable counts the documents an iterator hands out one by one.
type countingPeekable struct {
	peekable
	nexts int
}

func (c *countingPeekable) Next() uint32 {
	c.nexts++
	return c.peekable.Next()
}

// advanceCorpus is an index whose body term "common" is in 3,000 of 4,000
// memories (three chunks of its postings), each time 1 to 4 times and in
// bodies of differing lengths: a frequency or norm read from the wrong
// entry shows.
func advanceCorpus(t *testing.T) *Bleve {
	t.Helper()
	var ms []*memories.Memory
	for i := range 4000 {
		words := []string{fmt.Sprintf("filler%d", i%97)}
		if i%4 != 0 {
			for range 1 + i%4 {
				words = append(words, "common")
			}
		}
		for range i % 13 {
			words = append(words, fmt.Sprintf("pad%d", i%11))
		}
		ms = append(ms, mem(fmt.Sprintf("d%05d", i), fmt.Sprintf("Note %d", i), strings.Join(words, " "), "alpha", memories.TypeNote, 1))
	}
	b, err := createBleve(t.TempDir() + "/bleve")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	if err := b.Apply(docs(ms)); err != nil {
		t.Fatal(err)
	}
	return b
}

// commonPostings opens a postings iterator of "common" in the body of each
// of b's segments.
func commonPostings(t *testing.T, b *Bleve, locations bool) []segment.PostingsIterator {
	t.Helper()
	snap, ok := indexReaderOf(t, b).(*scorch.IndexSnapshot)
	if !ok {
		t.Fatal("the reader is not a scorch snapshot")
	}
	var out []segment.PostingsIterator
	for _, seg := range snap.Segments() {
		d, err := seg.Segment().Dictionary(fieldBody)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := d.PostingsList([]byte("common"), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, pl.Iterator(true, true, locations, nil))
	}
	return out
}

func postingOf(p segment.Posting) posting {
	return posting{doc: p.Number(), freq: p.Frequency(), norm: p.Norm()}
}

// TestPostingsAdvanceReadsTheRightEntry covers zapx patch 0006: a postings
// iterator advanced to a document jumps there in the bitmap and passes the
// frequency entries of the documents it jumped over. Every advance, to
// documents that have the term and to documents between them, near and far,
// within a chunk and across chunks, must find what walking the list finds,
// with that document's frequency and norm, with and without locations asked
// for.
func TestPostingsAdvanceReadsTheRightEntry(t *testing.T) {
	b := advanceCorpus(t)
	for _, locations := range []bool{false, true} {
		var all []posting
		for _, it := range commonPostings(t, b, locations) {
			for {
				p, err := it.Next()
				if err != nil {
					t.Fatal(err)
				}
				if p == nil {
					break
				}
				all = append(all, postingOf(p))
			}
		}
		if len(all) != 3000 {
			t.Fatalf("walked %d postings of common, want 3000", len(all))
		}
		last := all[len(all)-1].doc
		rng := rand.New(rand.NewPCG(7, uint64(len(all))))
		for trial := range 200 {
			its := commonPostings(t, b, locations)
			if len(its) != 1 {
				t.Fatalf("%d segments, want one", len(its))
			}
			it := its[0]
			// Mostly short steps, now and then a long one, and
			// sometimes a Next between advances.
			at, k := uint64(0), 0
			for {
				switch step := rng.IntN(10); {
				case step == 0:
					at += uint64(rng.IntN(1500))
				case step == 1 && trial%2 == 0:
					p, err := it.Next()
					if err != nil {
						t.Fatal(err)
					}
					if p == nil {
						if k != len(all) {
							t.Fatalf("trial %d: Next ended at posting %d of %d", trial, k, len(all))
						}
						goto next
					}
					if got := postingOf(p); got != all[k] {
						t.Fatalf("trial %d: Next gave %+v, want %+v", trial, got, all[k])
					}
					at, k = all[k].doc+1, k+1
					continue
				default:
					at += uint64(rng.IntN(6))
				}
				for k < len(all) && all[k].doc < at {
					k++
				}
				p, err := it.Advance(at)
				if err != nil {
					t.Fatal(err)
				}
				if k == len(all) {
					if p != nil {
						t.Fatalf("trial %d: Advance(%d) past the last posting (%d) gave %+v", trial, at, last, postingOf(p))
					}
					goto next
				}
				if p == nil {
					t.Fatalf("trial %d: Advance(%d) found nothing, want %+v", trial, at, all[k])
				}
				if got := postingOf(p); got != all[k] {
					t.Fatalf("trial %d: Advance(%d) gave %+v, want %+v", trial, at, got, all[k])
				}
				at, k = all[k].doc+1, k+1
			}
		next:
		}
	}
}

// TestPostingsAdvanceJumps covers zapx patch 0006's point: advancing a
// postings iterator far takes no more documents one by one from its bitmap
// than a near advance does (it steps over up to eight, then jumps), not
// each document it passes (a conjunction advancing a term of 3,000
// documents to a few hundred took each of the 3,000).
func TestPostingsAdvanceJumps(t *testing.T) {
	b := advanceCorpus(t)
	its := commonPostings(t, b, false)
	if len(its) != 1 {
		t.Fatalf("%d segments, want one", len(its))
	}
	it := reflect.ValueOf(its[0]).Elem()
	actual := it.FieldByName("Actual")
	inner, ok := actual.Interface().(peekable)
	if !ok {
		t.Fatalf("PostingsIterator.Actual is a %s, not a peekable iterator", actual.Type())
	}
	c := &countingPeekable{peekable: inner}
	actual.Set(reflect.ValueOf(c))
	var got []uint64
	for _, at := range []uint64{1000, 2000, 3990} {
		p, err := its[0].Advance(at)
		if err != nil {
			t.Fatal(err)
		}
		if p == nil {
			t.Fatalf("Advance(%d) found nothing", at)
		}
		got = append(got, p.Number())
	}
	if most := len(got) * (8 + 1); c.nexts > most {
		t.Errorf("three advances (to documents %v) took %d documents from the bitmap one by one, want at most %d", got, c.nexts, most)
	}
}
