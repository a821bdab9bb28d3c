package memories

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

// countingTx is a snapshot that is a TermCounter: its terms are the
// lower-case words of a text, and a term's frequency is how many memories'
// bodies have it.
type countingTx struct{ fakeTx }

var _ TermCounter = (*countingTx)(nil)

func (x *countingTx) Terms(text string) ([]string, error) {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), nil
}

func (x *countingTx) DocFreqs(_ context.Context, terms []string) (uint64, []uint64, error) {
	x.f.docFreqCalls++
	dfs := make([]uint64, len(terms))
	for _, m := range x.f.mems {
		words, _ := x.Terms(m.Body)
		for i, t := range terms {
			if containsString(words, t) {
				dfs[i]++
			}
		}
	}
	return uint64(len(x.f.mems)), dfs, nil
}

// filler is n words no query has.
func filler(from, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = fmt.Sprintf("word%03d", from+i)
	}
	return strings.Join(ws, " ")
}

func TestRecallPassages(t *testing.T) {
	// Both long memories have both words of the query, and the fake index
	// scores them alike; the scattered one is newer, so recency puts it
	// first unless passages count.
	scattered := mem(numbered(1), "Session one", "zucchini "+filler(0, 300)+" harvest", updated(0))
	together := mem(numbered(2), "Session two", filler(400, 150)+" zucchini harvest "+filler(600, 150), updated(48*time.Hour))
	// Shorter than one passage, the first says "zucchini" three times, which
	// its passage would score higher; the fake index scores them alike, and
	// the newer one wins: scores are left alone.
	shortMany := mem(numbered(3), "Note one", "zucchini zucchini zucchini harvest "+filler(0, 60), updated(48*time.Hour))
	shortOnce := mem(numbered(4), "Note two", filler(200, 30)+" zucchini harvest "+filler(300, 30), updated(0))
	tests := []struct {
		name string
		ms   []*Memory
		off  Features
		// vanished is a note whose file is gone since it was indexed.
		vanished string
		want     []string
	}{
		{name: "words together outrank the same words scattered", ms: []*Memory{scattered, together},
			want: []string{numbered(2), numbered(1)}},
		{name: "without passages recency decides the tie", ms: []*Memory{scattered, together}, off: FeaturePassages,
			want: []string{numbered(1), numbered(2)}},
		{name: "a memory of one passage keeps its score", ms: []*Memory{shortMany, shortOnce},
			want: []string{numbered(4), numbered(3)}},
		{name: "a vanished note is passed over", ms: []*Memory{scattered, together}, vanished: fakePath(together),
			want: []string{numbered(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, tt.ms...)
			f.counts = true
			if tt.vanished != "" {
				f.loadErr[tt.vanished] = fs.ErrNotExist
			}
			r := DefaultRanking()
			r.Off = FeatureNeighbours | tt.off
			svc, _ := newTestService(f, WithRanking(r))
			res, err := svc.Recall(context.Background(), RecallRequest{Query: "zucchini harvest", Project: "web"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(recalledIDs(res), tt.want); diff != "" {
				t.Errorf("ids (-got +want):\n%s", diff)
			}
		})
	}
}

// TestPassagesScoredOnlyWhenOneIsLong: when no candidate is longer than a
// passage, no score can change, and the passages are not scored (the
// frequencies of the query's terms are not even asked for); the results are
// those of a recall without passages. Candidates the index gives out of
// order are scored as ever.
func TestPassagesScoredOnlyWhenOneIsLong(t *testing.T) {
	shortMany := mem(numbered(3), "Note one", "zucchini zucchini zucchini harvest "+filler(0, 60), updated(48*time.Hour))
	shortOnce := mem(numbered(4), "Note two", filler(200, 30)+" zucchini harvest "+filler(300, 30), updated(0))
	long := mem(numbered(1), "Session one", "zucchini "+filler(0, 300)+" harvest", updated(0))
	// The word in its title makes the index score it higher.
	titled := mem(numbered(5), "Zucchini", "The harvest "+filler(0, 20), updated(0))
	tests := []struct {
		name    string
		ms      []*Memory
		reverse bool
		want    int // DocFreqs calls
	}{
		{name: "short notes", ms: []*Memory{shortMany, shortOnce}, want: 0},
		{name: "a long note among them", ms: []*Memory{shortMany, shortOnce, long}, want: 1},
		{name: "short notes out of order", ms: []*Memory{shortMany, titled}, reverse: true, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recall := func(off Features) (*fakeBackend, []string) {
				f := newFake(t, tt.ms...)
				f.counts, f.reverse = true, tt.reverse
				r := DefaultRanking()
				r.Off = FeatureNeighbours | off
				svc, _ := newTestService(f, WithRanking(r))
				res, err := svc.Recall(context.Background(), RecallRequest{Query: "zucchini harvest", Project: "web"})
				if err != nil {
					t.Fatal(err)
				}
				return f, recalledIDs(res)
			}
			f, got := recall(0)
			if f.docFreqCalls != tt.want {
				t.Errorf("DocFreqs called %d times, want %d", f.docFreqCalls, tt.want)
			}
			if tt.want == 0 {
				if _, without := recall(FeaturePassages); !cmp.Equal(got, without) {
					t.Errorf("ids %v, without passages %v", got, without)
				}
			}
		})
	}
}

func TestRecallPassagesLoadError(t *testing.T) {
	long := mem(numbered(1), "Session one", "zucchini "+filler(0, 300)+" harvest")
	f := newFake(t, long)
	f.counts = true
	boom := errors.New("disk on fire")
	f.loadErr[fakePath(long)] = boom
	svc, _ := newTestService(f)
	if _, err := svc.Recall(context.Background(), RecallRequest{Query: "zucchini harvest", Project: "web"}); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the load error", err)
	}
}

// wordTerms analyses a text into its lower-case runs of letters and digits,
// making "happy" "happi" as a stemmer would.
type wordTerms struct{}

func (wordTerms) Terms(text string) ([]string, error) {
	ts := strings.FieldsFunc(strings.ToLower(text), notAlnum)
	for i, t := range ts {
		if t == "happy" {
			ts[i] = "happi"
		}
	}
	return ts, nil
}

func (wordTerms) DocFreqs(context.Context, []string) (uint64, []uint64, error) {
	return 0, nil, errors.New("not counted")
}

func TestPassageBest(t *testing.T) {
	one := func(tf float64) float64 { return tf * (passageK1 + 1) / (tf + passageK1) }
	gap := strings.Repeat("x ", 250)
	tests := []struct {
		name         string
		text, shared string
		want         float64
	}{
		{"both in a short text", "a x b", "", 1*one(1) + 2*one(1)},
		{"one of two: half the score", "x b x", "", 2 * one(1) / 2},
		{"counts saturate", "a A x", "", one(2) / 2},
		{"a window, not the whole text", "a " + gap + "b", "", 2 * one(1) / 2},
		{"the title in every window", gap + "b", "a", 1*one(1) + 2*one(1)},
		{"punctuation and case", "(A), x/B's", "", 1*one(1) + 2*one(1)},
		{"a word stemmed otherwise than it starts", "Happy days", "", 1 * one(1) / 2},
		{"none", "x y", "", 0},
	}
	for _, tt := range tests {
		q := &passageQuery{tc: wordTerms{}, terms: []string{"a", "b"}, idf: []float64{1, 2}, memo: map[string][]int{}}
		if strings.Contains(tt.text, "appy") {
			q.terms = []string{"happi", "sad"}
		}
		words, found, err := q.scan(tt.text)
		if err != nil {
			t.Fatal(err)
		}
		shared, err := q.termsOf(tt.shared)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.best(words, found, shared); fmt.Sprintf("%.9f", got) != fmt.Sprintf("%.9f", tt.want) {
			t.Errorf("%s: best = %g, want %g", tt.name, got, tt.want)
		}
	}
}
