package memories

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// downIDs mints ids of one millisecond whose random parts fall: the order of
// the ids is the opposite of the order they were minted in, as it may be for
// two ids of one millisecond minted apart, whose random parts are independent.
type downIDs struct{ n int }

func (g *downIDs) NewID(time.Time) string {
	g.n++
	return fmt.Sprintf("01jq000000%016d", 1_000_000_000_000_000-g.n)
}

// distinctWords are the distinct syllable words, in order (syllableWord
// gives some word twice).
var distinctWords = func() []string {
	var ws []string
	seen := map[string]bool{}
	for k := 0; len(ws) < 400; k++ {
		if w := syllableWord(k); !seen[w] {
			seen[w] = true
			ws = append(ws, w)
		}
	}
	return ws
}()

// words is distinct words from..to-1, as a note's text.
func words(from, to int) string {
	return strings.Join(distinctWords[from:to], " ") + "."
}

// tiedImportSet is four notes that each hold the words of a short one and
// twenty of their own, the short one (every one of its words in each of the
// four: a duplicate of each, equally), and one related to the four equally.
func tiedImportSet() []ImportCandidate {
	var cands []ImportCandidate
	for i := range 4 {
		c := cand(fmt.Sprintf("a%d.md", i+1), words(0, 10)+" "+words(100+20*i, 120+20*i), fmt.Sprintf("ha%d", i+1))
		c.Request.Title = fmt.Sprintf("Note %d", i+1) // the same words in each
		cands = append(cands, c)
	}
	short := cand("short.md", words(0, 10), "hs")
	short.Request.Title = "Short"
	related := cand("related.md", words(0, 10)+" "+words(300, 310), "hr")
	related.Request.Title = "Related"
	return append(cands, short, related)
}

// TestImportBreaksTiesByCandidateOrder: of earlier candidates an import's
// candidate repeats equally, it names the first; of those it is equally
// related to, it links the first ones, in their order. Ids do not decide:
// theirs here fall as the candidates go (the old tie-break named the last).
func TestImportBreaksTiesByCandidateOrder(t *testing.T) {
	for _, batch := range []int{0, 2} {
		f := newFake(t)
		svc := NewService(f, WithClock(func() time.Time { return testNow }), WithIDGen(&downIDs{}),
			WithImporter(&fakeImporter{set: &ImportSet{Candidates: tiedImportSet()}}))
		res, err := svc.Import(context.Background(), ImportRequest{Path: "x", batch: batch})
		if err != nil {
			t.Fatal(err)
		}
		// In batches of two, Note 1 is written when the short one is
		// compared: it names it as a stored memory.
		want := `repeats "Note 1", earlier in this import`
		if batch == 2 {
			want = "Memory already exists: [01jq0000000999999999999999] Note 1"
		}
		if len(res.Rejected) != 1 || res.Rejected[0].Reason != want {
			t.Fatalf("batch %d: rejected %+v, want short.md: %s", batch, res.Rejected, want)
		}
		related := map[string][]string{}
		names := map[string]string{}
		for _, m := range f.creates {
			names[noteName(m.Path)] = m.Title
		}
		for _, m := range f.creates {
			for _, r := range m.Related {
				related[m.Title] = append(related[m.Title], names[r])
			}
		}
		if diff := cmp.Diff([]string{"Note 1", "Note 2", "Note 3"}, related["Related"]); diff != "" {
			t.Errorf("batch %d: Related links (-want +got):\n%s", batch, diff)
		}
	}
}

// TestImportDryRunRepeats: a dry run's JSON is the same on every run, with
// ids random in their millisecond (read whole from crypto/rand: the system's
// generator would count them, in the order they are minted) and candidates
// dated two ways in turn, on a set with many duplicates and ties.
func TestImportDryRunRepeats(t *testing.T) {
	cands := exactImportSet(7)
	cands = append(cands, tiedImportSet()...)
	for i := range cands {
		cands[i].Request.Created = testNow.Add(time.Duration(i%2) * time.Hour)
	}
	var first []byte
	for run := range 6 {
		svc := NewService(newFake(t), WithClock(func() time.Time { return testNow }), WithIDGen(NewULIDGen(rand.Reader)),
			WithImporter(&fakeImporter{set: &ImportSet{Candidates: cands}}))
		res, err := svc.Import(context.Background(), ImportRequest{Path: "x", DryRun: true, batch: 50})
		if err != nil {
			t.Fatal(err)
		}
		if res.Duplicates < 20 {
			t.Fatalf("only %d duplicates", res.Duplicates)
		}
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if run == 0 {
			first = b
			continue
		}
		if diff := cmp.Diff(string(first), string(b)); diff != "" {
			t.Fatalf("run %d differs from the first (-first +now):\n%s", run, diff)
		}
	}
}
