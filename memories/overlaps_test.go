package memories

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/dedup"
)

// fakeOverlaps is a wordOverlapper and finder over memories held as texts:
// it counts shared words by merging every set, as a brute-force reference
// would, and counts the entries similarInProjects asks for.
type fakeOverlaps struct {
	ids     []string
	texts   map[string]string // path → text
	asked   int
	entries []Entry
	// gone are notes whose files are gone; loads counts the notes read.
	gone  map[string]bool
	loads int
}

func (f *fakeOverlaps) WordOverlaps(_ context.Context, _ []string, words []uint64, except string, build func(title, body string) ([]uint64, dedup.Keys)) (WordOverlaps, error) {
	var out WordOverlaps
	for i, id := range f.ids {
		if id == except {
			continue
		}
		ws, _ := build(id, f.texts[id])
		common := 0
		for _, w := range ws {
			for _, x := range words {
				if x == w {
					common++
				}
			}
		}
		if common > 0 {
			out.All = append(out.All, WordOverlap{Ref: i, Common: common, Len: len(ws)})
		}
	}
	out.Entry = func(ref int) (Entry, error) {
		f.asked++
		return f.entries[ref], nil
	}
	return out, nil
}

func (f *fakeOverlaps) Search(context.Context, SearchRequest) ([]Hit, error) { return nil, nil }

func (f *fakeOverlaps) Load(_ context.Context, path string) (*Memory, error) {
	f.loads++
	if f.gone[path] {
		return nil, fs.ErrNotExist
	}
	return &Memory{Title: path, Body: f.texts[path]}, nil
}

// randomText gives texts of n words drawn by r from a vocabulary small
// enough that relatedness ties are common.
func randomText(r *rand.Rand) func(n int) string {
	vocab := strings.Fields("cache lock retry queue token deploy schema index shard replica backup " +
		"cron webhook tenant quota session cookie header proxy timeout worker batch stream")
	return func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[r.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
}

// TestSimilarInProjectsAsComparedWithAll: what similarInProjects keeps of a
// project's memories, looking up the entries of only the possible
// duplicates and of the most related (ties included), makes pick choose
// the same duplicate and related memories as every memory scored one by
// one with Compare: over 300 random projects of up to 400 memories drawn
// from a small vocabulary, so that ties of relatedness are common, with an
// excluded memory. And it looks up far fewer entries than there are
// memories sharing a word.
func TestSimilarInProjectsAsComparedWithAll(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	text := randomText(r)
	s := NewService(nil)
	th := s.checks.Thresholds
	asked, shared := 0, 0
	for trial := 0; trial < 300; trial++ {
		f := &fakeOverlaps{texts: map[string]string{}}
		n := 1 + r.IntN(400)
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("m%04d", r.IntN(10000)*10+i%10)
			f.ids = append(f.ids, id)
			f.texts[id] = text(1 + r.IntN(8))
			f.entries = append(f.entries, Entry{ID: id, Path: id})
		}
		except := f.ids[r.IntN(n)]
		m := &Memory{Title: "new", Body: text(1 + r.IntN(8))}
		fp := memoryFingerprint(m.Title, m.Body)
		got, err := s.similarInProjects(context.Background(), f, f, m, fp, except)
		if err != nil {
			t.Fatal(err)
		}
		var all []scored
		for i, id := range f.ids {
			if id == except {
				continue
			}
			sim := dedup.Compare(fp, memoryFingerprint(id, f.texts[id]))
			if sim.Score >= th.Duplicate || sim.Related > th.Related {
				all = append(all, scored{entry: f.entries[i], score: sim.Score, related: sim.Related})
				shared++
			}
		}
		wantDup, wantRel := pick(th, all)
		gotDup, gotRel := pick(th, got)
		if diff := cmp.Diff(choiceIDs(wantDup, wantRel), choiceIDs(gotDup, gotRel)); diff != "" {
			t.Fatalf("trial %d, %d memories: similarInProjects's choice differs from every memory compared (-all +kept):\n%s", trial, n, diff)
		}
		asked += f.asked
	}
	if asked*4 > shared {
		t.Errorf("%d entries looked up for %d memories scored above a threshold, want fewer than a quarter", asked, shared)
	}
}

// TestSimilarInProjectsReadsOnlyTheBestDuplicates: when a short note is
// contained in many long ones (each a possible duplicate by its shared
// words, some conflicting with it, some whose notes are gone),
// similarInProjects reads only those that can be the duplicate or rank
// among the related, and pick chooses as over every memory compared.
func TestSimilarInProjectsReadsOnlyTheBestDuplicates(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	text := randomText(r)
	s := NewService(nil)
	th := s.checks.Thresholds
	loads, possible := 0, 0
	for trial := 0; trial < 200; trial++ {
		// Some notes are the opposite of the new note's "enable".
		f := randomProject(r, text, "disable ", "enable ", "", "")
		except := f.ids[r.IntN(len(f.ids))]
		m := &Memory{Title: "new", Body: "enable " + text(3+r.IntN(5))}
		fp := memoryFingerprint(m.Title, m.Body)
		got, err := s.similarInProjects(context.Background(), f, f, m, fp, except)
		if err != nil {
			t.Fatal(err)
		}
		_, n := checkPickAsCompare(t, trial, th, f, except, fp, got)
		possible += n
		loads += f.loads
	}
	t.Logf("%d notes read for %d possible duplicates", loads, possible)
	if possible < 2000 || loads*4 > possible {
		t.Errorf("%d notes read for %d possible duplicates, want fewer than a quarter", loads, possible)
	}
}

// keyedOverlaps is fakeOverlaps that is also a conflictLoader, as a store's
// snapshot is: every note is as its word set was counted. With known, its
// WordOverlaps gives every memory's keys (WordOverlaps.Keys) and its loader
// tells conflicts from the keys it is given, as a store's word index does.
type keyedOverlaps struct {
	*fakeOverlaps
	known bool
	// conflicts counts the notes not fingerprinted for their keys, and
	// given those told from the keys given.
	conflicts, given int
}

func (f *keyedOverlaps) WordOverlaps(ctx context.Context, projects []string, words []uint64, except string, build func(title, body string) ([]uint64, dedup.Keys)) (WordOverlaps, error) {
	out, err := f.fakeOverlaps.WordOverlaps(ctx, projects, words, except, build)
	if f.known {
		out.Keys = func(ref int) *KnownKeys {
			_, k := build(f.entries[ref].ID, f.texts[f.entries[ref].ID])
			return &KnownKeys{Keys: k}
		}
	}
	return out, err
}

func (f *keyedOverlaps) LoadFingerprintOrConflict(ctx context.Context, path string, build func(title, body string) *dedup.Fingerprint, keys func(title, body string) dedup.Keys, conflicts func(dedup.Keys) bool, known *KnownKeys) (*dedup.Fingerprint, bool, error) {
	m, err := f.Load(ctx, path)
	if err != nil {
		return nil, false, err
	}
	k := keys(m.Title, m.Body)
	if known != nil {
		k = known.Keys
	}
	if conflicts != nil && conflicts(k) {
		f.conflicts++
		if known != nil {
			f.given++
		}
		return nil, true, nil
	}
	return build(m.Title, m.Body), false, nil
}

// TestSimilarInProjectsScoresKeyConflictsAsCompare: possible duplicates that
// differ from the new memory by a number or a code token are scored from
// their counts (conflictLoader), and pick chooses, and scores the
// duplicate, as with every memory compared whole: over 200 random projects
// of long notes that hold the new memory's words with its port, another
// port, its file name or another, some of them gone.
func TestSimilarInProjectsScoresKeyConflictsAsCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	text := randomText(r)
	s := NewService(nil)
	th := s.checks.Thresholds
	keyed, given := 0, 0
	for trial := 0; trial < 200; trial++ {
		f := &keyedOverlaps{fakeOverlaps: randomProject(r, text,
			"port 8080 ", "port 9090 ", "port 8080 `app.yaml` ", "port 8080 `other.yaml` ", ""), known: trial%2 == 1}
		except := f.ids[r.IntN(len(f.ids))]
		m := &Memory{Title: "new", Body: "port 8080 `app.yaml` " + text(3+r.IntN(5))}
		fp := memoryFingerprint(m.Title, m.Body)
		got, err := s.similarInProjects(context.Background(), f, f, m, fp, except)
		if err != nil {
			t.Fatal(err)
		}
		all, _ := checkPickAsCompare(t, trial, th, f.fakeOverlaps, except, fp, got)
		for _, c := range got {
			if i := slices.IndexFunc(all, func(a scored) bool { return a.entry.ID == c.entry.ID }); i >= 0 && all[i].related != c.related {
				t.Fatalf("trial %d: %s related %v, want %v", trial, c.entry.ID, c.related, all[i].related)
			}
		}
		keyed += f.conflicts
		given += f.given
	}
	// Half the trials told them from the keys the overlapper gave.
	if given < 50 {
		t.Errorf("%d notes scored from the keys given, want at least 50", given)
	}
	// Not vacuous: many possible duplicates were told apart by their keys.
	if keyed < 100 {
		t.Errorf("%d notes scored from their keys, want at least 100", keyed)
	}
	t.Logf("%d notes scored from their keys", keyed)
}

// randomProject is a project of 20 to 219 notes of random words, each
// starting with one of prefixes picked at random, one in twenty of them gone.
func randomProject(r *rand.Rand, text func(n int) string, prefixes ...string) *fakeOverlaps {
	f := &fakeOverlaps{texts: map[string]string{}, gone: map[string]bool{}}
	n := 20 + r.IntN(200)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("m%04d", r.IntN(10000)*10+i%10)
		body := text(20 + r.IntN(60))
		body = prefixes[r.IntN(len(prefixes))] + body
		if r.IntN(20) == 0 {
			f.gone[id] = true
		}
		f.ids = append(f.ids, id)
		f.texts[id] = body
		f.entries = append(f.entries, Entry{ID: id, Path: id})
	}
	return f
}

// checkPickAsCompare compares the new memory (fp) with every note of f but
// except, whole, and checks that pick chooses over got, and scores the
// duplicate, as over those. A possible duplicate (by its words) whose note
// is gone is read and left out; the others are judged by their words. It
// returns what every note compared gives and how many possible duplicates
// were left in.
func checkPickAsCompare(t *testing.T, trial int, th dedup.Thresholds, f *fakeOverlaps, except string, fp *dedup.Fingerprint, got []scored) (all []scored, possible int) {
	t.Helper()
	for i, id := range f.ids {
		if id == except {
			continue
		}
		sim := dedup.Compare(fp, memoryFingerprint(id, f.texts[id]))
		if sim.Words >= th.Duplicate {
			if f.gone[id] {
				continue
			}
			possible++
		}
		if sim.Score >= th.Duplicate || sim.Related > th.Related {
			all = append(all, scored{entry: f.entries[i], score: sim.Score, related: sim.Related})
		}
	}
	wantDup, wantRel := pick(th, all)
	gotDup, gotRel := pick(th, got)
	if diff := cmp.Diff(choiceIDs(wantDup, wantRel), choiceIDs(gotDup, gotRel)); diff != "" {
		t.Fatalf("trial %d, %d memories: similarInProjects's choice differs from every memory compared (-all +kept):\n%s", trial, len(f.ids), diff)
	}
	if wantDup != nil && gotDup.score != wantDup.score {
		t.Fatalf("trial %d: duplicate scored %v, want %v", trial, gotDup.score, wantDup.score)
	}
	return all, possible
}
