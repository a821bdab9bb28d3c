package store

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	bleveindex "github.com/blevesearch/bleve_index_api"
	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/vault"
)

// TestRebuildIndexesEveryNoteWhole checks what a rebuild puts in the index
// against an index of the same notes read whole and indexed in one batch:
// every field's terms, and for each the documents holding it with their
// frequency and norm (the field's length). The rebuild reads the notes
// without their bodies first, keeping some of them (rebuildKeptBodies), and
// the others again batch by batch, in many batches
// merged while it builds; none of that may change a posting. The notes are
// real-shaped (long, many languages, paths and links).
func TestRebuildIndexesEveryNoteWhole(t *testing.T) {
	e := newOwedEnv(t)
	corpus, err := bench.LoadCorpus(filepath.Join("..", "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	if _, err := bench.Write(e.root, bench.NewRealGenerator(corpus, 31, end), 400, 31); err != nil {
		t.Fatal(err)
	}
	old := rebuildBatch
	rebuildBatch = 10
	defer func() { rebuildBatch = old }()
	// The first half of the notes' bytes keep their bodies from the first
	// read; the others are read again, batch by batch.
	var total int64
	err = filepath.WalkDir(filepath.Join(e.root, "cortex"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			total += info.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	oldKept := rebuildKeptBodies
	rebuildKeptBodies = total / 2
	defer func() { rebuildKeptBodies = oldKept }()
	st, _ := e.open()
	ctx := context.Background()
	if _, err := st.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	gen, err := st.idx.Current()
	if err != nil {
		t.Fatal(err)
	}
	_, cat, err := st.load()
	if err != nil {
		t.Fatal(err)
	}
	var docs []index.Doc
	err = cat.Records(func(r *index.Record) error {
		data, err := os.ReadFile(filepath.Join(e.root, "cortex", filepath.FromSlash(r.Path)))
		if err != nil {
			return err
		}
		n, err := vault.ParseNote(data)
		if err != nil {
			return fmt.Errorf("%s: %w", r.Path, err)
		}
		m := n.Memory(r.Path, time.Unix(0, r.MTime))
		m.ID = r.ID
		docs = append(docs, index.Doc{ID: r.ID, Memory: m})
		return nil
	})
	_ = cat.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 400 {
		t.Fatalf("%d notes in the catalog, want 400", len(docs))
	}
	want, b, err := st.idx.NewGeneration(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Apply(docs); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	got := indexPostings(t, gen)
	if len(got["body"]) < 1000 || len(got["pairs"]) < 1000 || len(got["pathonly"]) == 0 {
		t.Fatalf("rebuilt index has %d body terms, %d pairs, %d path-only terms: not the notes",
			len(got["body"]), len(got["pairs"]), len(got["pathonly"]))
	}
	if diff := cmp.Diff(indexPostings(t, want), got); diff != "" {
		t.Errorf("rebuilt index (-notes read whole +rebuilt):\n%s", diff)
	}
	// The one field with doc values, the time of the last update that
	// listings sort by: each note's, as read whole. A segment writes a
	// field's doc values apart from its postings, and merges copy them.
	updated := map[string]string{}
	for _, d := range docs {
		updated[d.ID] = d.Memory.Updated.UTC().Format("20060102150405")
	}
	if diff := cmp.Diff(updated, indexUpdated(t, gen)); diff != "" {
		t.Errorf("rebuilt index's update times (-notes read whole +rebuilt):\n%s", diff)
	}
}

// indexReader opens the Bleve index of generation gen read-only and returns
// its reader, both closed when the test ends.
func indexReader(t *testing.T, gen string) bleveindex.IndexReader {
	t.Helper()
	idx, err := bleve.OpenUsing(filepath.Join(gen, "bleve"), map[string]any{"read_only": true, "bolt_timeout": "5s"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	adv, err := idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// indexUpdated is each document's update stamp ("20061102150405", UTC) as the doc
// values of the Bleve index of generation gen hold it, by document id.
func indexUpdated(t *testing.T, gen string) map[string]string {
	t.Helper()
	r := indexReader(t, gen)
	dvr, err := r.DocValueReader([]string{"updated"})
	if err != nil {
		t.Fatal(err)
	}
	all, err := r.DocIDReaderAll()
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	out := map[string]string{}
	for {
		in, err := all.Next()
		if err != nil {
			t.Fatal(err)
		}
		if in == nil {
			return out
		}
		id, err := r.ExternalID(in)
		if err != nil {
			t.Fatal(err)
		}
		err = dvr.VisitDocValues(in, func(field string, term []byte) {
			if _, dup := out[id]; dup {
				t.Errorf("%s: a second %s term %q", id, field, term)
			}
			out[id] = string(term)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// indexPostings is every posting of the Bleve index of generation gen:
// field → term → "id frequency norm" of each document holding the term.
func indexPostings(t *testing.T, gen string) map[string]map[string][]string {
	t.Helper()
	r := indexReader(t, gen)
	fields, err := r.Fields()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	out := map[string]map[string][]string{}
	for _, field := range fields {
		fd, err := r.FieldDict(field)
		if err != nil {
			t.Fatal(err)
		}
		terms := map[string][]string{}
		for {
			de, err := fd.Next()
			if err != nil {
				t.Fatal(err)
			}
			if de == nil {
				break
			}
			tfr, err := r.TermFieldReader(ctx, []byte(de.Term), field, true, true, false)
			if err != nil {
				t.Fatal(err)
			}
			var list []string
			for {
				d, err := tfr.Next(nil)
				if err != nil {
					t.Fatal(err)
				}
				if d == nil {
					break
				}
				id, err := r.ExternalID(d.ID)
				if err != nil {
					t.Fatal(err)
				}
				list = append(list, fmt.Sprintf("%s %d %v", id, d.Freq, d.Norm))
			}
			_ = tfr.Close()
			slices.Sort(list)
			terms[de.Term] = list
		}
		_ = fd.Close()
		out[field] = terms
	}
	return out
}

// BenchmarkRebuildRealShape is a full rebuild of 2,000 real-shaped notes (long,
// many languages): reading, analysis, segment building and the merges, for
// comparing the write side's CPU and allocations between versions.
func BenchmarkRebuildRealShape(b *testing.B) {
	dir := b.TempDir()
	root := filepath.Join(dir, "vault")
	corpus, err := bench.LoadCorpus(filepath.Join("..", "fixtures"))
	if err != nil {
		b.Fatal(err)
	}
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	if _, err := bench.Write(root, bench.NewRealGenerator(corpus, 31, end), 2000, 31); err != nil {
		b.Fatal(err)
	}
	v, err := vault.New(root, "cortex")
	if err != nil {
		b.Fatal(err)
	}
	st, err := Open(Options{Vault: v, State: config.State{Home: filepath.Join(dir, "state")}, LockTimeout: 30 * time.Second, Freshness: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.Rebuild(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
