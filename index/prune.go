package index

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
)

// Exact top-k pruning of a search's common words.
//
// A word found in tens of thousands of notes is scored at every one of them,
// although a search keeps only its best Size. Most of those notes have the
// word only in their body, and a body match alone scores little: BM25 keeps a
// term's score below idf·k1·weight whatever its frequency (Bleve's
// ScoreBound, patch 0003), and the word's disjunction multiplies it by the
// share of its clauses that match, one of at least three. So the search
// first runs over the notes that match some other clause (a title, tags,
// another spelling, a compound, one of the query's pairs): the "essential"
// clauses of max-score pruning, whose notes are few. When that finds a full
// page whose lowest score is above the most any other note can score (the
// sum over the words of their body bounds, each times its coord), no other
// note can enter the page, and the page is the one the whole search would
// have found: the same notes, with the same scores to the bit (the filter
// scores 0 and weighs 0, see candidatesQuery) and in the same order (Bleve
// breaks ties of score by the order it visits notes, which the filter keeps).
// Otherwise the whole search runs as before.
//
// The query's pairs of words are essential clauses too: a pair adds to a
// score without being required, so a note with a pair can score above the
// bound. When some pairs are common (commonPairs) they bring most of the
// first pass's notes, and a pass that leaves them out goes first
// (wordsPass: the notes matching one of the words' own essential clauses
// or a rarer pair): it answers when its page's lowest score is above the
// bound with the common pairs' bounds added (limitWithPairs), and
// otherwise the first pass runs as above.
//
// A search for any of the words has one more way to answer. Its
// disjunction multiplies the sum of the words a note has by the share of
// them it has, so a note that matches no essential clause scores, with m of
// the k words in its body, at most the m highest of their body bounds times
// m/k. When the first pass finds a full page it cannot answer with, only
// such notes with enough of the words to reach the page's lowest score
// (fewestWords) can enter it: they are found in the segments' postings
// bitmaps (atLeastQuery), scored by a pass of their own, and kept with the
// page (extraPass). On the synthetic 10,000 notes a question's first pass
// scores 2,000–3,000 notes and cannot answer; the whole search after it
// scored 7,700–9,100, while the notes with enough words are few or none.
// When the pass over the rarer clauses (wordsPass) goes first and finds a
// full page it cannot answer with, the extra pass completes that page, in
// place of the first pass: the notes of the common pairs, which the first
// pass would add, are scored in it whatever their words, and the notes the
// pass over the rarer clauses scored are not scored again (at 100,000
// real-shaped notes, a Japanese question of 30 terms: 3,800 notes in that
// pass, 5,600 in the first pass).

// pruneMinPostings is how many body postings the rarest word of a search
// must have before pruning is tried: below it the whole search is cheap,
// and the first pass, which may not find a full page, would be work added.
var pruneMinPostings uint64 = 2000

// pruneMargin widens the bound for rounding: Bleve computes a score in a
// dozen floating-point steps, each within a relative 2⁻⁵³ of exact, and the
// bound is exact arithmetic. (A variable: a test makes it negative to see
// that a bound too low changes results.)
var pruneMargin = 1e-9

// prune turns pruning on; tests turn it off to compare.
var prune = true

// prunedSearches counts the searches the first pass answered, and
// prunedByWords those of them the pass over the words' own clauses
// answered (wordsPass).
var prunedSearches, prunedByWords atomic.Uint64

// extraPasses counts the pruned searches for any of the words that the
// first pass and a pass over the notes with enough of the words answered
// together (extraPass), and extraNone those of them where no note had
// enough.
var extraPasses, extraNone atomic.Uint64

// extraAfterWords counts those of extraPasses made after the pass over the
// rarer essential clauses (wordsPass), in place of the first pass.
var extraAfterWords atomic.Uint64

// pruning is the plan of one pruned search: the essential clauses and, per
// word, the clauses whose scores bound what a note that matches no essential
// clause can score.
type pruning struct {
	// essential are the clauses a note must match one of to be scored in
	// the first pass, as plain term queries: another spelling's clause
	// without its exclusion of paths (see word).
	essential []query.Query
	// bounded are each word's clauses that are not essential (its body),
	// and clauses the number of clauses of its disjunction (its coord's
	// denominator).
	bounded [][]*boundQuery
	clauses []int
	// common are the query's pairs of words (which add to a score without
	// being required: should) that the pass over the words' clauses and the
	// rarer pairs leaves out (commonPairs): when there are some, that pass
	// goes first, and wordsPass is its query. commonBound are their
	// clauses, each kept for its bound.
	common      map[string]bool
	commonBound []*boundQuery
	wordsPass   query.Query
}

func newPruning(words int) *pruning {
	return &pruning{bounded: make([][]*boundQuery, words), clauses: make([]int, words)}
}

// bound wraps q, a clause of word i that is not essential, so that the
// first pass records its searcher.
func (p *pruning) bound(i int, q *query.TermQuery) query.Query {
	b := &boundQuery{q: q}
	p.bounded[i] = append(p.bounded[i], b)
	return b
}

// boundPairs returns the query's pairs as the first passes' should
// clauses, the common ones wrapped so that a pass records their searchers
// for their bounds.
func (p *pruning) boundPairs(pairs []*query.TermQuery) []query.Query {
	out := make([]query.Query, len(pairs))
	for i, q := range pairs {
		out[i] = q
		if p.common[q.Term] {
			b := &boundQuery{q: q}
			p.commonBound = append(p.commonBound, b)
			out[i] = b
		}
	}
	return out
}

// word takes word i's n clauses as plain term queries (see plainOf): those
// not bounded are essential.
func (p *pruning) word(i int, plain []*query.TermQuery, n int) {
	p.clauses[i] = n
	for _, q := range plain {
		if !slices.ContainsFunc(p.bounded[i], func(b *boundQuery) bool { return b.q == q }) {
			p.essential = append(p.essential, q)
		}
	}
}

// plainOf is a word's clauses as plain term queries, for a filter that
// scores nothing (candidatesQuery): each clause's term query, which for
// another spelling's clause leaves out its exclusion of paths. Plain term
// queries make the filter one of Bleve's bitmap operations, where a clause of
// another kind makes Bleve walk the postings; they match a few notes more
// than the clauses, which a search that requires the clauses too then
// drops, or scores as the whole search would.
func plainOf(clauses []*query.TermQuery) query.Query {
	qs := make([]query.Query, len(clauses))
	for i, q := range clauses {
		qs[i] = q
	}
	return query.NewDisjunctionQuery(qs)
}

// firstPassFilter is what a note must match to be scored in the first pass
// of a search for every word: each word's plain disjunction (plain) and an
// essential clause. For one word whose essential clauses are all its own
// (wordsOnly: no pair of words among them) that is the essential clauses
// alone: each is a clause of the word's plain disjunction, so they match no
// note it does not, and it need not be made (its body's postings are most
// of the filter's work).
func firstPassFilter(plain []query.Query, essential query.Query, wordsOnly bool) query.Query {
	if len(plain) == 1 && wordsOnly {
		return essential
	}
	return query.NewConjunctionQuery(append(slices.Clip(plain), essential))
}

// limit is the most a note matching no essential clause can score: for
// each word the sum of its bounded clauses' bounds times the coord of
// matching all of them and nothing else, summed over the words (a
// conjunction sums its parts; a disjunction of the words sums those that
// match, times a coord of at most 1). +Inf when some bound is unknown.
func (p *pruning) limit() float64 {
	return p.bodies() * (1 + pruneMargin)
}

// limitWithPairs is the most a note matching none of the words' own
// essential clauses and none of the rarer pairs can score: limit's bodies
// and the common pairs, which the pass over the other clauses (wordsPass)
// does not require. The pairs' disjunction sums the pairs a note has times
// the share of them it has, so at most the sum of the common pairs' bounds.
func (p *pruning) limitWithPairs() float64 {
	return (p.bodies() + sumOfBounds(p.commonBound)) * (1 + pruneMargin)
}

// wordsPassClauses are the essential clauses the pass over the words'
// clauses keeps: the words' own (the first ofWords) and the pairs that are
// not common.
func (p *pruning) wordsPassClauses(ofWords int) []query.Query {
	kept := slices.Clip(p.essential[:ofWords])
	for _, q := range p.essential[ofWords:] {
		if tq, ok := q.(*query.TermQuery); !ok || !p.common[tq.Term] {
			kept = append(kept, q)
		}
	}
	return kept
}

// bodies is limit without its margin.
func (p *pruning) bodies() float64 {
	c, ok := p.bodyBounds()
	if !ok {
		return math.Inf(1)
	}
	total := 0.0
	for _, x := range c {
		total += x
	}
	return total
}

// bodyBounds is, for each word, the most its bounded clauses can score in a
// note that matches nothing else: their bounds summed times the coord of
// matching them alone. ok is false when a word's clauses are not known.
func (p *pruning) bodyBounds() (c []float64, ok bool) {
	c = make([]float64, len(p.bounded))
	for i, bs := range p.bounded {
		if p.clauses[i] < len(bs) || p.clauses[i] < 1 {
			return nil, false
		}
		c[i] = sumOfBounds(bs) * float64(len(bs)) / float64(p.clauses[i])
	}
	return c, true
}

// fewestWords is, for a search for any of the words whose first pass found a
// full page of lowest score low, how many of the words a note that matches
// no essential clause must have in its body to score low or more: with m of
// them it scores at most the m highest of the words' body bounds (each
// times its coord, as in bodies) times m/k, k the number of words, for the
// disjunction of the words multiplies the sum of those a note has by the
// share of them it has. 0 when some bound is unknown.
func (p *pruning) fewestWords(low float64) int {
	c, ok := p.bodyBounds()
	if !ok || slices.ContainsFunc(c, func(x float64) bool { return math.IsInf(x, 1) }) {
		return 0
	}
	k := len(c)
	slices.SortFunc(c, func(a, b float64) int { return cmp.Compare(b, a) })
	// A note with m of the words cannot reach low while what the best m
	// can score together stays below it.
	m, sum := 0, 0.0
	for m < k {
		next := sum + c[m]
		if next*float64(m+1)/float64(k)*(1+pruneMargin) >= low {
			break
		}
		m, sum = m+1, next
	}
	return m + 1
}

// extraQuery matches the notes a pruned search for any of the words left
// out of its first pass that have at least n of the words in their bodies
// (see fewestWords): those of no essential clause. afterWords, the pass is
// the one over the rarer essential clauses (wordsPass): the notes it left
// out are those of no rarer essential clause, and those with a common pair
// are matched whatever their words. Nil when a clause is not a plain term
// (none is, as Search builds them).
func (p *pruning) extraQuery(n int, afterWords bool) *atLeastQuery {
	q := &atLeastQuery{n: n, words: make([][]fieldTerm, len(p.bounded))}
	for i, bs := range p.bounded {
		for _, b := range bs {
			q.words[i] = append(q.words[i], fieldTerm{b.q.Field(), b.q.Term})
		}
	}
	for _, e := range p.essential {
		tq, ok := e.(*query.TermQuery)
		if !ok {
			return nil
		}
		ft := fieldTerm{tq.Field(), tq.Term}
		if afterWords && p.common[tq.Term] && ft.field == fieldPairs {
			q.also = append(q.also, ft)
			continue
		}
		q.except = append(q.except, ft)
	}
	return q
}

// sumOfBounds is the sum of the bounds of the clauses' searchers, leaving
// out those no note has; +Inf when one has no bound (or none was made).
func sumOfBounds(bs []*boundQuery) float64 {
	sum := 0.0
	for _, b := range bs {
		if b.s != nil && b.s.Count() == 0 {
			continue // no note has it
		}
		s, ok := b.s.(interface{ ScoreBound() float64 })
		if !ok {
			return math.Inf(1)
		}
		sum += s.ScoreBound()
	}
	return sum
}

// boundQuery is a clause that is not essential: its searcher is the term
// query's own, untouched, and is kept for its bound when it scores.
type boundQuery struct {
	q *query.TermQuery
	s bsearch.Searcher
}

var _ query.Query = (*boundQuery)(nil)

func (b *boundQuery) Searcher(ctx context.Context, r bindex.IndexReader, m mapping.IndexMapping, o bsearch.SearcherOptions) (bsearch.Searcher, error) {
	s, err := b.q.Searcher(ctx, r, m, o)
	if err == nil && o.Score != "none" {
		b.s = s
	}
	return s, err
}

// worthPruning says whether the whole search would score enough notes for
// pruning to pay (Search prunes a search for every word, or for any). A
// search for every word scores at least its rarest word's body postings (a
// search for one word, each of them) and the notes that have a word
// elsewhere only, which are few: pruneMinPostings pays. Two words that
// common share many notes, and the first pass's filter is their
// intersection; for one word the first pass scores only the notes with it
// in a title, tags or another spelling, and when they are fewer than a page
// it ends before scoring any (errTooFew). (A word had to have five times as
// many before: at 10,000 notes the whole search of a common word was most
// of a recall.) A search for any of the words (anyWord) scores every note
// with one of them: their body postings together must reach
// pruneMinPostings. Counted in the term dictionaries, which the search
// reads anyway. The count is made on a reader of its own, so it may be a
// change behind the search's; it only chooses the plan, never the results.
func (b *Bleve) worthPruning(ctx context.Context, terms []string, anyWord bool) (bool, postings, error) {
	words, err := b.postings(ctx, fieldBody, terms)
	if err != nil {
		return false, postings{}, err
	}
	if anyWord {
		return words.total() >= pruneMinPostings, words, nil
	}
	return len(words.counts) > 0 && slices.Min(words.counts) >= pruneMinPostings, words, nil
}

// commonPairs chooses the pairs of words a pruned search leaves out of a
// first pass over the notes that match one of the words' own essential
// clauses (a title, tags, another spelling) or one of the other pairs
// (wordsPass), given the postings of the words' bodies (worthPruning's).
// That pass answers when its page scores above the words' bodies and the
// pairs it left out together, so it pays when those pairs bring many notes
// to the first pass and add little to that bound. The most common pairs
// bring the most notes and add the least (a pair's bound falls with its
// postings), so they are taken in that order while their estimated bounds
// (boundEstimate) come to at most pairsBoundRatio times the bodies', and
// kept when together they reach pruneMinPostings (at 100,000 real-shaped
// notes, the first pass of a six-word query scored 8,537 notes, of which
// 1,704 have a word in a title). A rare pair adds much to the bound: on the
// synthetic 10,000 notes, the query "internal/store/db.go Kubernetes
// secret retry" has two pairs of the path found in 1,554 notes each, and
// three rare ones (4 to 18 notes) whose bounds are 12 to 17 times theirs;
// leaving out every pair made a pass that could not answer. The first pass
// scores 2,786 notes; the pass without the path's pairs 1,581, and it
// answers (its page's lowest score 0.124, the bound 0.084), a tenth faster:
// the words' bodies' postings are walked either way. None when no pair is
// worth it. It only chooses the plan, never the results.
func (b *Bleve) commonPairs(ctx context.Context, words postings, pairs []string) (map[string]bool, error) {
	if len(pairs) == 0 {
		return nil, nil // the pass would be the first pass itself
	}
	distinct := slices.Compact(slices.Sorted(slices.Values(pairs)))
	pc, err := b.postings(ctx, fieldPairs, distinct)
	if err != nil {
		return nil, err
	}
	order := make([]int, len(distinct))
	for i := range order {
		order[i] = i
	}
	// Most common first; of pairs as common, the first in order of the
	// words (distinct is sorted), so that the plan is the same every time.
	slices.SortStableFunc(order, func(a, c int) int { return cmp.Compare(pc.counts[c], pc.counts[a]) })
	budget := pairsBoundRatio * words.boundEstimate(1.0/3)
	common := map[string]bool{}
	sum, notes := 0.0, uint64(0)
	for _, i := range order {
		n := pc.counts[i]
		if n == 0 {
			break // no note has it, nor any pair after it
		}
		e := boundEstimateOf(pc.docs, n, phraseBoost)
		if sum+e > budget {
			break
		}
		sum, notes = sum+e, notes+n
		common[distinct[i]] = true
	}
	if notes < pruneMinPostings {
		return nil, nil
	}
	return common, nil
}

// pairsBoundRatio is how many times the words' bodies' bound the pairs
// left out of the pass over the words' clauses may add. (A variable: tests
// make it +Inf to leave out every pair whatever its bound.)
var pairsBoundRatio = 2.0

// postings are the postings of some terms in a field (counts, in the
// terms' order) and the notes of the reader that counted them (docs).
type postings struct {
	counts []uint64
	docs   uint64
}

func (p postings) total() uint64 {
	t := uint64(0)
	for _, n := range p.counts {
		t += n
	}
	return t
}

// boundEstimate is the sum over the terms that notes have of their
// estimated bounds (boundEstimateOf) with weight.
func (p postings) boundEstimate(weight float64) float64 {
	sum := 0.0
	for _, n := range p.counts {
		if n > 0 {
			sum += boundEstimateOf(p.docs, n, weight)
		}
	}
	return sum
}

// boundEstimateOf is the bound of a term found in n of docs notes, with
// weight, in units shared by every clause of a search: Bleve's bound is
// idf·k1·queryWeight, and the query weight is the boost times the idf
// times the query's norm, so it grows with the square of the idf (on the
// synthetic 10,000 notes, a pair of 4 notes has a bound 17 times that of
// one of 1,554, whose idf is a fourth of its). The k1 and the norm every
// clause shares are left out.
func boundEstimateOf(docs, n uint64, weight float64) float64 {
	idf := bm25IDF(docs, n)
	return weight * idf * idf
}

// postings counts the postings of each of terms in field, in the term
// dictionaries, on a reader of its own (see worthPruning).
func (b *Bleve) postings(ctx context.Context, field string, terms []string) (postings, error) {
	adv, err := b.idx.Advanced()
	if err != nil {
		return postings{}, err
	}
	r, err := adv.Reader()
	if err != nil {
		return postings{}, err
	}
	defer r.Close()
	p := postings{counts: make([]uint64, len(terms))}
	if p.docs, err = r.DocCount(); err != nil {
		return postings{}, err
	}
	for i, t := range terms {
		tfr, err := r.TermFieldReader(ctx, []byte(t), field, false, false, false)
		if err != nil {
			return postings{}, err
		}
		p.counts[i] = tfr.Count()
		if err := tfr.Close(); err != nil {
			return postings{}, err
		}
	}
	return p, nil
}
