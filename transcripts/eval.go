package transcripts

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/scribe"
)

// EvalDataset is a transcript retrieval dataset: transcripts, and questions
// a person would ask about them, each with the exchanges that answer it.
type EvalDataset struct {
	// Sources are the transcript files, relative to the dataset's folder;
	// each one's tool is recognised from its content.
	Sources []string    `json:"sources"`
	Queries []EvalQuery `json:"queries"`
	// dir is the dataset's folder.
	dir string
}

// EvalQuery is one question and where its answer is.
type EvalQuery struct {
	ID    string `json:"id"`
	Query string `json:"query"`
	// Relevant are the exchanges that answer it, each "source:line": a
	// source as Sources names it and the line its exchange starts at.
	Relevant []string `json:"relevant"`
	// Tool, when set, is passed as the search's tool filter.
	Tool string `json:"tool,omitempty"`
}

// LoadEval reads and checks a dataset: sources that exist, unique query ids,
// a query text and at least one relevant exchange of a listed source each.
func LoadEval(path string) (*EvalDataset, error) {
	bad := func(format string, a ...any) error {
		return &memories.ArgError{Arg: "dataset", Rule: path + ": " + fmt.Sprintf(format, a...)}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &memories.ArgError{Arg: "dataset", Rule: err.Error()}
	}
	var d EvalDataset
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, bad("%v", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, bad("%v", err)
	}
	d.dir = filepath.Dir(abs)
	if len(d.Sources) == 0 || len(d.Queries) == 0 {
		return nil, bad("needs sources and queries")
	}
	sources := map[string]bool{}
	for _, s := range d.Sources {
		if sources[s] {
			return nil, bad("source %s is listed twice", s)
		}
		sources[s] = true
		if _, err := os.Stat(filepath.Join(d.dir, s)); err != nil {
			return nil, bad("source %s: %v", s, err)
		}
	}
	ids := map[string]bool{}
	for i, q := range d.Queries {
		switch {
		case q.ID == "":
			return nil, bad("query %d has no id", i+1)
		case ids[q.ID]:
			return nil, bad("query id %q is used twice", q.ID)
		case strings.TrimSpace(q.Query) == "":
			return nil, bad("query %s has no text", q.ID)
		case len(q.Relevant) == 0:
			return nil, bad("query %s has no relevant exchange", q.ID)
		}
		ids[q.ID] = true
		for _, r := range q.Relevant {
			src, _, ok := splitRef(r)
			if !ok || !sources[src] {
				return nil, bad("query %s: relevant %q is not source:line of a listed source", q.ID, r)
			}
		}
	}
	return &d, nil
}

func splitRef(r string) (string, int, bool) {
	i := strings.LastIndexByte(r, ':')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(r[i+1:])
	return r[:i], n, err == nil && n > 0
}

// EvalMetrics are one system's scores over the queries.
type EvalMetrics struct {
	RecallAt1  float64 `json:"recall_at_1"`
	RecallAt5  float64 `json:"recall_at_5"`
	RecallAt10 float64 `json:"recall_at_10"`
	MRR        float64 `json:"mrr"`
}

// EvalQueryResult is where each system ranked a query's first relevant
// exchange (0: not in its top 10).
type EvalQueryResult struct {
	ID       string `json:"id"`
	Query    string `json:"query"`
	Cortex   int    `json:"cortex_rank"`
	Baseline int    `json:"baseline_rank"`
	Ripgrep  int    `json:"ripgrep_rank"`
}

// EvalReport is the scores of cortex's search, of plain BM25 over the same
// index, and of ripgrep's hits in file order.
type EvalReport struct {
	Sources   int         `json:"sources"`
	Exchanges int         `json:"exchanges"`
	Queries   int         `json:"queries"`
	Cortex    EvalMetrics `json:"cortex"`
	Baseline  EvalMetrics `json:"baseline"`
	// Ripgrep is nil when rg is not installed (RipgrepMissing says so).
	Ripgrep        *EvalMetrics      `json:"ripgrep,omitempty"`
	RipgrepMissing string            `json:"ripgrep_missing,omitempty"`
	PerQuery       []EvalQueryResult `json:"per_query,omitempty"`
}

// evalDepth is how deep the scores look.
const evalDepth = 10

// RunEval indexes the dataset's transcripts in a fresh temporary index, then
// runs every query three ways: cortex's search (its ranking, one exchange
// per session), plain BM25 over the same exchanges (any query word, no
// boosts, no recency, no grouping), and ripgrep — the query's words
// searched literally, case-insensitively, in the files in path order, each
// hit's line mapped to the exchange holding it — as a person would grep.
// The clock is the newest exchange plus a day, so the scores do not depend
// on when the evaluation runs.
func RunEval(ctx context.Context, d *EvalDataset, rk Ranking, ripgrep string) (*EvalReport, error) {
	tmp, err := os.MkdirTemp("", "cortex-transcripts-eval-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var files []string
	for _, s := range d.Sources {
		files = append(files, filepath.Join(d.dir, s))
	}
	sel := scribe.Selection{Paths: files}
	s := New(Options{Dir: tmp, Selection: sel})
	rep, err := s.Sync(ctx)
	if err != nil {
		return nil, err
	}
	if len(rep.Unreadable) > 0 {
		return nil, fmt.Errorf("evaluation: %s: %s", rep.Unreadable[0].Path, rep.Unreadable[0].Reason)
	}
	var docs []index.TranscriptDoc
	err = s.readIndex(ctx, func(idx *index.TranscriptIndex) error {
		hits, err := idx.Search(ctx, index.TranscriptQuery{Size: 1 << 20})
		for _, h := range hits {
			docs = append(docs, h.Doc)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var newest time.Time
	byStart := map[string]string{} // file:line → document id
	for _, doc := range docs {
		newest = maxTime(newest, doc.Time)
		byStart[doc.File+":"+strconv.Itoa(doc.Line)] = doc.ID
	}
	s.o.Now = func() time.Time { return newest.Add(24 * time.Hour) }

	out := &EvalReport{Sources: len(files), Exchanges: len(docs), Queries: len(d.Queries)}
	var cortex, baseline, rg []int
	if ripgrep == "" {
		out.RipgrepMissing = "rg (ripgrep) is not installed"
	}
	for _, q := range d.Queries {
		relevant := map[string]bool{}
		for _, r := range q.Relevant {
			src, line, _ := splitRef(r)
			id, ok := byStart[filepath.Join(d.dir, src)+":"+strconv.Itoa(line)]
			if !ok {
				return nil, &memories.ArgError{Arg: "dataset", Rule: fmt.Sprintf("query %s: %s is not the first line of an exchange", q.ID, r)}
			}
			relevant[id] = true
		}
		res, err := s.SearchRanked(ctx, Request{Query: q.Query, Tool: q.Tool, Limit: evalDepth, NoSync: true}, rk)
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", q.ID, err)
		}
		var ids []string
		for _, h := range res.Hits {
			ids = append(ids, h.ID)
		}
		cortex = append(cortex, firstRelevant(ids, relevant))

		bq, _, err := s.query(&Request{Query: q.Query, Tool: q.Tool})
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", q.ID, err)
		}
		bq.AnyTerm, bq.Baseline, bq.Size = true, true, evalDepth
		ids = nil
		err = s.readIndex(ctx, func(idx *index.TranscriptIndex) error {
			hits, err := idx.Search(ctx, bq)
			for _, h := range hits {
				ids = append(ids, h.Doc.ID)
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", q.ID, err)
		}
		baseline = append(baseline, firstRelevant(ids, relevant))

		pq := EvalQueryResult{ID: q.ID, Query: q.Query, Cortex: cortex[len(cortex)-1], Baseline: baseline[len(baseline)-1]}
		if ripgrep != "" {
			ids, err := ripgrepHits(ctx, ripgrep, q.Query, files, docs)
			if err != nil {
				return nil, fmt.Errorf("query %s: %w", q.ID, err)
			}
			rg = append(rg, firstRelevant(ids, relevant))
			pq.Ripgrep = rg[len(rg)-1]
		}
		out.PerQuery = append(out.PerQuery, pq)
	}
	out.Cortex, out.Baseline = metrics(cortex), metrics(baseline)
	if ripgrep != "" {
		m := metrics(rg)
		out.Ripgrep = &m
	}
	return out, nil
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// firstRelevant is the 1-based rank of the first relevant id in the top
// evalDepth, 0 when there is none.
func firstRelevant(ids []string, relevant map[string]bool) int {
	for i, id := range ids[:min(len(ids), evalDepth)] {
		if relevant[id] {
			return i + 1
		}
	}
	return 0
}

func metrics(ranks []int) EvalMetrics {
	var m EvalMetrics
	if len(ranks) == 0 {
		return m
	}
	for _, r := range ranks {
		if r == 0 {
			continue
		}
		if r == 1 {
			m.RecallAt1++
		}
		if r <= 5 {
			m.RecallAt5++
		}
		m.RecallAt10++
		m.MRR += 1 / float64(r)
	}
	n := float64(len(ranks))
	round := func(f float64) float64 { return math.Round(f/n*1e4) / 1e4 }
	return EvalMetrics{RecallAt1: round(m.RecallAt1), RecallAt5: round(m.RecallAt5), RecallAt10: round(m.RecallAt10), MRR: round(m.MRR)}
}

// Ripgrep is the path of rg, "" when it is not installed.
func Ripgrep() string {
	p, err := exec.LookPath("rg")
	if err != nil {
		return ""
	}
	return p
}

// ripgrepHits are the exchanges ripgrep's hits fall in, in the order rg
// prints them: the query's words (common words left out, as a person would)
// searched literally and case-insensitively, any of them, in the files in
// path order.
func ripgrepHits(ctx context.Context, rg, query string, files []string, docs []index.TranscriptDoc) ([]string, error) {
	args := []string{"--no-heading", "--line-number", "--with-filename", "--ignore-case", "--fixed-strings", "--sort", "path", "--no-config"}
	words := 0
	for _, w := range strings.Fields(query) {
		w = strings.Trim(w, `.,;:!?"'()[]`)
		if len(index.TranscriptQueryTerms(w)) == 0 {
			continue // a common word: nobody greps for it
		}
		args = append(args, "-e", w)
		words++
	}
	if words == 0 {
		return nil, nil
	}
	args = append(args, "--")
	args = append(args, files...)
	cmd := exec.CommandContext(ctx, rg, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return nil, nil // no match
	}
	if err != nil {
		return nil, fmt.Errorf("rg: %v: %s", err, stderr.String())
	}
	type span struct {
		id       string
		from, to int
	}
	spans := map[string][]span{}
	for _, d := range docs {
		spans[d.File] = append(spans[d.File], span{d.ID, d.Line, max(d.Line, d.EndLine)})
	}
	var ids []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() && len(ids) < evalDepth {
		// file:line:text; the file has no ':' in the datasets'
		// folders, but rg's output is parsed from the end of the
		// known file names to be safe.
		l := sc.Text()
		var file string
		for _, f := range files {
			if strings.HasPrefix(l, f+":") && len(f) > len(file) {
				file = f
			}
		}
		if file == "" {
			continue
		}
		rest := l[len(file)+1:]
		n, err := strconv.Atoi(rest[:max(0, strings.IndexByte(rest, ':'))])
		if err != nil {
			continue
		}
		for _, sp := range spans[file] {
			if n >= sp.from && n <= sp.to && !seen[sp.id] {
				seen[sp.id] = true
				ids = append(ids, sp.id)
			}
		}
	}
	return slices.Clip(ids), nil
}
