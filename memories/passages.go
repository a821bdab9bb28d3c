package memories

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"sort"
)

// TermCounter is a Snapshot that analyses text as its index does and counts
// the memories that have a term: recall needs both to score a long memory's
// passages (FeaturePassages). A snapshot that is not one scores none.
type TermCounter interface {
	// Terms is text's terms as the index analyses a body, in order, each as
	// often as it occurs.
	Terms(text string) ([]string, error)
	// DocFreqs is how many memories the index holds and how many of them
	// have each term in their body.
	DocFreqs(ctx context.Context, terms []string) (total uint64, dfs []uint64, err error)
}

// Passages (FeaturePassages). BM25 scores a memory as a whole: a long one —
// a conversation imported as one note, thirty turns — scores as high for
// the query's words scattered over unrelated turns as for the same words
// said together in the turn that answers. A long memory's score is therefore
// averaged with its best passage's: the best window of passageTerms terms
// (windows overlapping by half), scored by the query's words in it as BM25
// would score a document that short, each relative to the best among the
// candidates. A memory no longer than one window is its own only passage:
// its score is left as it is, so that notes of a few lines rank exactly as
// without the feature. (Measured on the development sets, windows of 50 to
// 200 terms gave the same gains on the session file; 100 terms, about 200
// words, is the middle. Passage-level evidence combined with the whole
// document's is Callan's, SIGIR 1994.)
const (
	passageTerms = 100
	// passageK1 saturates a term's count in a passage as BM25's k1 does.
	passageK1 = 1.2
	// passageTitleWeight counts the title's words in every passage, as often
	// as the index's title boost counts them in the whole memory: a title
	// says what each part of the memory is about.
	passageTitleWeight = 2
	// passageCandidates is how many of the best candidates, as a multiple
	// of the limit, have their passages scored: reading and analysing every
	// candidate's text costs more than the blend, and one far down the
	// list does not reach the results.
	passageCandidates = 2
)

// scorePassages averages each long candidate's score with its best
// passage's (see passageTerms). hits are sorted best first; so is the
// result.
func scorePassages(ctx context.Context, snap Snapshot, text string, hits []Hit, limit int) ([]Hit, error) {
	tc, ok := snap.(TermCounter)
	if !ok || len(hits) == 0 || text == "" {
		return hits, nil
	}
	qterms, err := tc.Terms(text)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var terms []string
	for _, t := range qterms {
		if !containsString(terms, t) {
			terms = append(terms, t)
		}
	}
	if len(terms) == 0 {
		return hits, nil
	}
	total, dfs, err := tc.DocFreqs(ctx, terms)
	if err != nil {
		return nil, err
	}
	q := passageQuery{index: make(map[string]int, len(terms)), idf: make([]float64, len(terms))}
	for i, t := range terms {
		q.index[t] = i
		q.idf[i] = math.Log(1 + (float64(total)-float64(dfs[i])+0.5)/(float64(dfs[i])+0.5))
	}
	n := min(len(hits), max(passageCandidates*limit, 1))
	best, bestPassage := 0.0, 0.0
	passage := make([]float64, n)
	long := make([]bool, n)
	for i, h := range hits[:n] {
		best = max(best, h.Score)
		title, body, err := loadText(ctx, snap, h.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted since it was indexed: recall skips it
		}
		if err != nil {
			return nil, err
		}
		words, err := tc.Terms(body)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		// Every passage has the title (unless it is the body's first line,
		// which the index does not count as one) and the tags.
		var shared []string
		if title != TitleFrom(body) {
			tt, err := tc.Terms(title)
			if err != nil {
				return nil, fmt.Errorf("search: %w", err)
			}
			for range passageTitleWeight {
				shared = append(shared, tt...)
			}
		}
		for _, tag := range h.Tags {
			tt, err := tc.Terms(tag)
			if err != nil {
				return nil, fmt.Errorf("search: %w", err)
			}
			shared = append(shared, tt...)
		}
		passage[i] = q.best(words, shared)
		long[i] = len(words) > passageTerms
		bestPassage = max(bestPassage, passage[i])
	}
	if best <= 0 || bestPassage <= 0 {
		return hits, nil
	}
	out := make([]Hit, len(hits))
	copy(out, hits)
	for i := range n {
		if long[i] {
			out[i].Score = best * (out[i].Score/best + passage[i]/bestPassage) / 2
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out, nil
}

// passageQuery is the query's terms, each with its index and IDF.
type passageQuery struct {
	index map[string]int
	idf   []float64
}

// best is the best score of a window of passageTerms of words (or of all of
// them, when fewer), windows overlapping by half, shared counting in each. A
// window's score is BM25's without length normalisation (windows are all one
// length), scaled by the share of the query's terms it has, as the index's
// search scales a memory's.
func (q passageQuery) best(words, shared []string) float64 {
	tf := make([]int, len(q.idf))
	score := func(window []string) float64 {
		clear(tf)
		for _, ws := range [2][]string{shared, window} {
			for _, w := range ws {
				if i, ok := q.index[w]; ok {
					tf[i]++
				}
			}
		}
		s, found := 0.0, 0
		for i, n := range tf {
			if n > 0 {
				f := float64(n)
				s += q.idf[i] * f * (passageK1 + 1) / (f + passageK1)
				found++
			}
		}
		return s * float64(found) / float64(len(tf))
	}
	if len(words) <= passageTerms {
		return score(words)
	}
	best := 0.0
	for start := 0; ; start += passageTerms / 2 {
		end := min(start+passageTerms, len(words))
		best = max(best, score(words[start:end]))
		if end == len(words) {
			return best
		}
	}
}
