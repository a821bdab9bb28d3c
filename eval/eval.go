// Package eval measures recall against a dataset of memories and the queries
// that should find them (SPEC §8): it loads the documents into a fresh vault
// through the normal save path, runs every query through recall and through a
// plain BM25 search of the same index, and scores both with Recall@1/5/10,
// MRR and nDCG@10.
//
// The run is deterministic: each document is saved at its own created time,
// ids come from a fixed seed, and recall runs at a fixed time one day after
// the newest document. No access is recorded, so one query cannot change the
// next one's ranking.
package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/wiring"
)

// Dataset is the file format of SPEC §8.
type Dataset struct {
	Documents []Document `json:"documents"`
	Queries   []Query    `json:"queries"`
}

// Document is one memory to load.
type Document struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	Content string    `json:"content"`
	Project string    `json:"project"`
	Tags    []string  `json:"tags"`
	Created time.Time `json:"created"`
}

// Query is one question and the documents that answer it.
type Query struct {
	ID       string   `json:"id"`
	Query    string   `json:"query"`
	Project  string   `json:"project"`
	Relevant []string `json:"relevant"`
}

// Load reads and checks a dataset: unique ids, every relevant id a document,
// a query text on every query. Keys the format does not have (a "category",
// a note) are ignored; a known key of the wrong type is an error. The message
// names the file and the entry.
func Load(path string) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &memories.ArgError{Arg: "dataset", Rule: err.Error()}
	}
	defer f.Close()
	return Read(f, path)
}

// Read is Load from r; name is used in messages.
func Read(r io.Reader, name string) (*Dataset, error) {
	bad := func(format string, a ...any) error {
		return &memories.ArgError{Arg: "dataset", Rule: name + ": " + fmt.Sprintf(format, a...)}
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, bad("%v", err)
	}
	var d Dataset
	if err := json.Unmarshal(data, &d); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, bad("line %d: %s must be %s, not a JSON %s", lineOf(data, te.Offset), te.Field, words(te.Type), te.Value)
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, bad("line %d: %v", lineOf(data, se.Offset), err)
		}
		if where := badDate(data); where != "" {
			return nil, bad("%s must be a date (RFC 3339): %v", where, err)
		}
		return nil, bad("%v", err)
	}
	if len(d.Documents) == 0 {
		return nil, bad("no documents")
	}
	if len(d.Queries) == 0 {
		return nil, bad("no queries")
	}
	docs := make(map[string]bool, len(d.Documents))
	for i, doc := range d.Documents {
		switch {
		case doc.ID == "":
			return nil, bad("document %d has no id", i+1)
		case docs[doc.ID]:
			return nil, bad("document id %q is used twice", doc.ID)
		}
		docs[doc.ID] = true
	}
	qs := make(map[string]bool, len(d.Queries))
	for i, q := range d.Queries {
		switch {
		case q.ID == "":
			return nil, bad("query %d has no id", i+1)
		case qs[q.ID]:
			return nil, bad("query id %q is used twice", q.ID)
		case q.Query == "":
			return nil, bad("query %s has no query text", q.ID)
		}
		qs[q.ID] = true
		for _, id := range q.Relevant {
			if !docs[id] {
				return nil, bad("query %s: relevant document %q is not in the dataset", q.ID, id)
			}
		}
	}
	return &d, nil
}

// badDate names the first document whose created is not a date, "" when
// none is: time.Time's own errors do not say where they are.
func badDate(data []byte) string {
	var d struct {
		Documents []struct {
			ID      json.RawMessage `json:"id"`
			Created json.RawMessage `json:"created"`
		} `json:"documents"`
	}
	if json.Unmarshal(data, &d) != nil {
		return ""
	}
	for i, doc := range d.Documents {
		var t time.Time
		if len(doc.Created) > 0 && json.Unmarshal(doc.Created, &t) != nil {
			return fmt.Sprintf("document %d (id %s): created", i+1, doc.ID)
		}
	}
	return ""
}

// lineOf is the line of data that offset is on.
func lineOf(data []byte, offset int64) int {
	offset = min(max(offset, 0), int64(len(data)))
	return bytes.Count(data[:offset], []byte("\n")) + 1
}

// words names a Go type of the format as a dataset's author knows it.
func words(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[time.Time]():
		return "a date (RFC 3339)"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		return "a list of strings"
	case t.Kind() == reflect.Slice:
		return "a list"
	case t.Kind() == reflect.Struct:
		return "an object"
	}
	return t.String()
}

// Metrics are the averages over the queries evaluated.
type Metrics struct {
	RecallAt1  float64 `json:"recall@1"`
	RecallAt5  float64 `json:"recall@5"`
	RecallAt10 float64 `json:"recall@10"`
	MRR        float64 `json:"mrr"`
	NDCGAt10   float64 `json:"ndcg@10"`
}

// Report is the outcome of a run.
type Report struct {
	// Documents is how many documents were loaded; DocumentsSkipped how
	// many could not be (too short, a title too long…), each in Skips.
	Documents        int `json:"documents"`
	DocumentsSkipped int `json:"documents_skipped"`
	// Queries is how many queries were evaluated; Skipped how many were left
	// out, each in Skips: no relevant document, every relevant document
	// skipped, or a query recall refuses.
	Queries  int     `json:"queries"`
	Skipped  int     `json:"skipped"`
	Cortex   Metrics `json:"cortex"`
	Baseline Metrics `json:"baseline"`
	// Skips are the documents and queries left out, and why, in dataset
	// order (documents first).
	Skips []Skip `json:"skips"`
	// PerQuery is each evaluated query's outcome, in dataset order.
	PerQuery []QueryResult `json:"per_query,omitempty"`
}

// Skip is a document or a query left out of a run.
type Skip struct {
	Kind   string `json:"kind"` // "document" or "query"
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// QueryResult is one query's outcome: the rank (1-based) of its first
// relevant document in each system's top 10, 0 when none is there, and the
// top 10 themselves.
type QueryResult struct {
	ID      string `json:"id"`
	Query   string `json:"query"`
	Project string `json:"project,omitempty"`
	// Relevant are the query's relevant documents that were loaded;
	// RelevantSkipped those that were not.
	Relevant        []string `json:"relevant"`
	RelevantSkipped []string `json:"relevant_skipped,omitempty"`
	CortexRank      int      `json:"cortex_rank"`
	BaselineRank    int      `json:"baseline_rank"`
	CortexTop       []string `json:"cortex_top"`
	BaselineTop     []string `json:"baseline_top"`
}

// Options tune a run.
type Options struct {
	// Dir is where the temporary vault and state go; a new temporary folder,
	// removed afterwards, when empty.
	Dir string
	// Ranking is cortex's ranking; the default when zero.
	Ranking *memories.Ranking
}

// k is the depth of every list the metrics read.
const k = 10

// saveBatch is how many documents are saved per commit.
const saveBatch = 200

// defaultCreated dates the first document that has no date; each next one is
// dated a second later, so that undated documents keep the file's order (recall
// reads the order of memories saved together to find neighbours).
var defaultCreated = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Run loads d into a fresh vault and scores cortex's recall and the baseline.
func Run(ctx context.Context, d *Dataset, o Options) (*Report, error) {
	dir := o.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "cortex-eval-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	// cortex as a person's would be, with nothing configured, and no access
	// log: a query's results must not change the next query's.
	s, err := config.Resolve(config.Flags{Vault: filepath.Join(dir, "vault"), Home: filepath.Join(dir, "state")},
		func(string) string { return "" }, "")
	if err != nil {
		return nil, err
	}
	s.LockTimeout = time.Minute
	if o.Ranking != nil {
		s.Ranking = *o.Ranking
	}
	c, err := wiring.Open(s, wiring.Options{NoAccessLog: true})
	if err != nil {
		return nil, err
	}
	// Each document is saved at its created time, with ids from a fixed seed,
	// in batches: one index commit per batch rather than per document.
	// Monotonic: the turns of a conversation saved at one time keep their
	// order in their ids, which recall reads to find a memory's neighbours
	// (as the system generator's ids do).
	ids := memories.NewULIDGen(ulid.Monotonic(rand.NewChaCha8([32]byte{}), 0))
	saver := c.NewService(memories.WithChecks(memories.Checks{}), memories.WithIDGen(ids))
	docOf := make(map[string]string, len(d.Documents)) // memory id → document id
	loaded := make(map[string]bool, len(d.Documents))  // document ids
	rep := &Report{Skips: []Skip{}}
	var newest time.Time
	undated := 0
	for start := 0; start < len(d.Documents); start += saveBatch {
		docs := d.Documents[start:min(start+saveBatch, len(d.Documents))]
		reqs := make([]memories.SaveRequest, len(docs))
		for i, doc := range docs {
			created := doc.Created
			if created.IsZero() {
				created = defaultCreated.Add(time.Duration(undated) * time.Second)
				undated++
			}
			newest = maxTime(newest, created)
			reqs[i] = memories.SaveRequest{Content: doc.Content, Title: doc.Title, Project: doc.Project, Tags: doc.Tags, Created: created}
		}
		items, err := saver.SaveBatch(ctx, reqs)
		if err != nil {
			return nil, err
		}
		for i, it := range items {
			switch {
			case errors.Is(it.Err, memories.ErrInvalid), errors.Is(it.Err, memories.ErrRejected):
				// A document the save path refuses is left out, not the run.
				rep.Skips = append(rep.Skips, Skip{Kind: "document", ID: docs[i].ID, Reason: it.Err.Error()})
				rep.DocumentsSkipped++
			case it.Err != nil:
				return nil, fmt.Errorf("document %s: %w", docs[i].ID, it.Err)
			default:
				docOf[it.Result.ID] = docs[i].ID
				loaded[docs[i].ID] = true
				rep.Documents++
			}
		}
	}
	if rep.Documents == 0 {
		rule := "no documents"
		if len(rep.Skips) > 0 {
			rule = fmt.Sprintf("no document could be loaded (%d skipped; the first: %s: %s)", rep.DocumentsSkipped, rep.Skips[0].ID, rep.Skips[0].Reason)
		}
		return nil, &memories.ArgError{Arg: "dataset", Rule: rule}
	}
	now := newest.Add(24 * time.Hour)
	cortex := c.NewService(memories.WithClock(func() time.Time { return now }))
	baseline := c.NewService(memories.WithRanking(BaselineRanking()), memories.WithClock(func() time.Time { return now }))

	var sumC, sumB Metrics
	skip := func(q Query, reason string) {
		rep.Skips = append(rep.Skips, Skip{Kind: "query", ID: q.ID, Reason: reason})
		rep.Skipped++
	}
	for _, q := range d.Queries {
		var rel, relSkipped []string
		for _, id := range q.Relevant {
			if loaded[id] {
				rel = append(rel, id)
			} else {
				relSkipped = append(relSkipped, id)
			}
		}
		switch {
		case len(q.Relevant) == 0:
			skip(q, "no relevant document")
			continue
		case len(rel) == 0:
			skip(q, "every relevant document was skipped")
			continue
		}
		got, err := ranked(ctx, cortex, q, docOf, false)
		if errors.Is(err, memories.ErrInvalid) {
			skip(q, err.Error())
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", q.ID, err)
		}
		base, err := ranked(ctx, baseline, q, docOf, true)
		if err != nil {
			return nil, fmt.Errorf("query %s (baseline): %w", q.ID, err)
		}
		mc, mb := score(got, rel), score(base, rel)
		add(&sumC, mc)
		add(&sumB, mb)
		rep.PerQuery = append(rep.PerQuery, QueryResult{
			ID: q.ID, Query: q.Query, Project: q.Project, Relevant: rel, RelevantSkipped: relSkipped,
			CortexRank: firstRank(got, rel), BaselineRank: firstRank(base, rel),
			CortexTop: nonNil(got), BaselineTop: nonNil(base),
		})
		rep.Queries++
	}
	if rep.Queries == 0 {
		return nil, &memories.ArgError{Arg: "dataset", Rule: fmt.Sprintf("no query could be evaluated (%d skipped)", rep.Skipped)}
	}
	rep.Cortex, rep.Baseline = average(sumC, rep.Queries), average(sumB, rep.Queries)
	return rep, nil
}

// BaselineRanking ranks by BM25 alone.
func BaselineRanking() memories.Ranking {
	r := memories.DefaultRanking()
	r.Weights = memories.Weights{Relevance: 1}
	return r
}

// ranked runs q and returns the document ids of its top k, related memories
// left out.
func ranked(ctx context.Context, svc *memories.Service, q Query, docOf map[string]string, baseline bool) ([]string, error) {
	req := memories.RecallRequest{Query: q.Query, Project: q.Project, Limit: k}
	var res *memories.RecallResult
	var err error
	if baseline {
		res, err = svc.Search(ctx, req)
	} else {
		res, err = svc.Recall(ctx, req)
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range res.Results {
		if r.Related || len(out) == k {
			continue
		}
		out = append(out, docOf[r.Memory.ID])
	}
	return out, nil
}

func score(got, relevant []string) Metrics {
	rel := make(map[string]bool, len(relevant))
	for _, id := range relevant {
		rel[id] = true
	}
	var m Metrics
	dcg := 0.0
	for i, id := range got {
		if !rel[id] {
			continue
		}
		rank := i + 1
		if m.MRR == 0 {
			m.MRR = 1 / float64(rank)
		}
		if rank <= 1 {
			m.RecallAt1 = 1
		}
		if rank <= 5 {
			m.RecallAt5 = 1
		}
		m.RecallAt10 = 1
		dcg += 1 / math.Log2(float64(rank)+1)
	}
	idcg := 0.0
	for i := 1; i <= min(len(relevant), k); i++ {
		idcg += 1 / math.Log2(float64(i)+1)
	}
	m.NDCGAt10 = dcg / idcg
	return m
}

func firstRank(got, relevant []string) int {
	for i, id := range got {
		for _, r := range relevant {
			if id == r {
				return i + 1
			}
		}
	}
	return 0
}

func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

func add(sum *Metrics, m Metrics) {
	sum.RecallAt1 += m.RecallAt1
	sum.RecallAt5 += m.RecallAt5
	sum.RecallAt10 += m.RecallAt10
	sum.MRR += m.MRR
	sum.NDCGAt10 += m.NDCGAt10
}

func average(sum Metrics, n int) Metrics {
	r := func(v float64) float64 { return math.Round(v/float64(n)*1e4) / 1e4 }
	return Metrics{RecallAt1: r(sum.RecallAt1), RecallAt5: r(sum.RecallAt5), RecallAt10: r(sum.RecallAt10), MRR: r(sum.MRR), NDCGAt10: r(sum.NDCGAt10)}
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
