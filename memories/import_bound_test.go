package memories

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scratchImporter is a fakeImporter giving an import an in-memory scratch
// that counts what it holds.
type scratchImporter struct {
	fakeImporter
	st   *countingScratch
	fail error // from Scratch
}

func (s *scratchImporter) Scratch() (ImportScratch, error) {
	if s.fail != nil {
		return nil, s.fail
	}
	s.st = &countingScratch{}
	return s.st, nil
}

type countingScratch struct {
	encs   [][]byte
	gets   int
	closed bool
}

func (c *countingScratch) Put(i int, enc []byte) error {
	if i != len(c.encs) {
		return fmt.Errorf("put %d after %d", i, len(c.encs))
	}
	c.encs = append(c.encs, append([]byte(nil), enc...))
	return nil
}

func (c *countingScratch) Get(i int, b []byte) ([]byte, error) {
	c.gets++
	return append(b, c.encs[i]...), nil
}

func (c *countingScratch) Close() error { c.closed = true; return nil }

// boundCandidates are n candidates of one project with near-duplicates,
// paraphrases, conflicts (other numbers, opposites) and unrelated notes, some
// repeating an earlier one's fingerprint.
func boundCandidates(n int) []ImportCandidate {
	var out []ImportCandidate
	for i := range n {
		k := i / 4
		var text string
		switch i % 4 {
		case 0:
			text = fmt.Sprintf("The ingest worker %d reads queue%d and retries failed jobs %d times before parking them.", k, k*3, 3+k%4)
		case 1: // a paraphrase of the one before: a duplicate
			text = fmt.Sprintf("Ingest worker %d reads queue%d, and it retries failed jobs %d times before it parks them!", k, k*3, 3+k%4)
		case 2: // another number: related, kept
			text = fmt.Sprintf("The ingest worker %d reads queue%d and retries failed jobs %d times before parking them.", k, k*3, 9+k%4)
		default: // unrelated
			text = fmt.Sprintf("Note %d: the %s team meets on day %d to review dashboards%d and alerts%d.", k, []string{"billing", "search", "infra"}[k%3], k%28, k*7, k*13)
		}
		hash := fmt.Sprintf("h%d", i)
		if i%37 == 36 { // the same source text again
			hash = fmt.Sprintf("h%d", i-36)
			text = out[i-36].Request.Content
		}
		out = append(out, cand(fmt.Sprintf("n%04d.md", i), text, hash, inProject("web")))
	}
	return out
}

// TestImportHoldsNoDecidedTexts: once a batch is decided, an import holds
// neither the texts of its candidates nor their memories, and a large import
// given a scratch keeps the fingerprints it compares with there, not in
// memory: what it holds does not grow with the texts it has decided.
func TestImportHoldsNoDecidedTexts(t *testing.T) {
	holdInPool(t, 0) // as a large import, past what it holds
	cands := boundCandidates(preloadAbove + 200)
	im := &scratchImporter{fakeImporter: fakeImporter{set: &ImportSet{Candidates: cands}}}
	svc, _ := newTestService(newFake(t), WithImporter(im))
	batches := 0
	importBatchDone = func(cs []ImportCandidate, pool *memoryPool) {
		batches++
		decided := batches * 50
		for i, c := range cs[:min(decided, len(cs))] {
			if c.Request.Content != "" {
				t.Fatalf("after batch %d: candidate %d (decided) still holds its text", batches, i)
			}
		}
		for i, target := range pool.targets {
			if target.mem != nil && target.mem != pooledMemory {
				t.Fatalf("after batch %d: the pool holds the memory of target %d", batches, i)
			}
		}
		if pool.pool.Len() != len(im.st.encs) {
			t.Fatalf("after batch %d: %d fingerprints pooled, %d in the scratch", batches, pool.pool.Len(), len(im.st.encs))
		}
	}
	defer func() { importBatchDone = nil }()
	res, err := svc.Import(context.Background(), ImportRequest{Path: "x", DryRun: true, batch: 50})
	if err != nil {
		t.Fatal(err)
	}
	if batches < 5 || res.Duplicates == 0 || res.Imported == 0 || im.st.gets == 0 || !im.st.closed {
		t.Errorf("%d batches, %d duplicates, %d imported, %d fingerprints read back, scratch closed %v: the test did not test",
			batches, res.Duplicates, res.Imported, im.st.gets, im.st.closed)
	}
}

// TestImportScratchSameDecisions: an import keeping its fingerprints in a
// scratch, in batches prepared ahead, decides every candidate as one keeping
// them in memory in one batch does, and says the same.
func TestImportScratchSameDecisions(t *testing.T) {
	cands := boundCandidates(preloadAbove + 200)
	stored := []*Memory{
		mem(numbered(1), "Stored", "The ingest worker 3 reads queue9 and retries failed jobs 6 times before parking them."),
		mem(numbered(2), "Stored", "Note 2: the infra team meets on day 2 to review dashboards14 and alerts26."),
	}
	run := func(im Importer, batch int) *ImportResult {
		t.Helper()
		svc, _ := newTestService(newFake(t, stored...), WithImporter(im))
		res, err := svc.Import(context.Background(), ImportRequest{Path: "x", DryRun: true, batch: batch})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	plain := run(&fakeImporter{set: &ImportSet{Candidates: cands}}, len(cands))
	if plain.Duplicates < 50 || plain.Imported < 100 || !strings.Contains(fmt.Sprint(plain.Rejected), "earlier in this import") {
		t.Fatalf("the candidates test little: %s", plain.Message())
	}
	// Every fingerprint in the scratch, and the first 20 KB of them held in
	// memory with the others in the scratch.
	for _, hold := range []int{0, 20 << 10} {
		holdInPool(t, hold)
		scratched := &scratchImporter{fakeImporter: fakeImporter{set: &ImportSet{Candidates: cands}}}
		got := run(scratched, 30)
		if scratched.st == nil || len(scratched.st.encs) == 0 || scratched.st.gets == 0 {
			t.Fatalf("holding %d bytes: the import used no scratch", hold)
		}
		if n := len(scratched.st.encs); hold > 0 && n >= plain.Imported {
			t.Fatalf("holding %d bytes: %d fingerprints in the scratch, of %d memories and those they repeat: none held", hold, n, plain.Imported)
		}
		if diff := cmp.Diff(plain, got); diff != "" {
			t.Errorf("in memory, one batch (-) and with a scratch holding %d bytes, batches of 30 (+):\n%s", hold, diff)
		}
	}
	// No scratch to be had: the import warns and keeps them in memory.
	var warned []string
	svc, _ := newTestService(newFake(t, stored...), WithWarn(func(s string) { warned = append(warned, s) }),
		WithImporter(&scratchImporter{fakeImporter: fakeImporter{set: &ImportSet{Candidates: cands}}, fail: errors.New("read-only file system")}))
	noScratch, err := svc.Import(context.Background(), ImportRequest{Path: "x", DryRun: true, batch: 30})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plain, noScratch); diff != "" {
		t.Errorf("with a scratch that cannot be made (+):\n%s", diff)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "read-only file system") {
		t.Errorf("warned %q, want the scratch's error", warned)
	}
}

// holdInPool sets importPoolHold for a test.
func holdInPool(t *testing.T, n int) {
	t.Helper()
	was := importPoolHold
	importPoolHold = n
	t.Cleanup(func() { importPoolHold = was })
}

// TestImportPoolHoldsASmallImport: an import whose fingerprints fit in
// importPoolHold keeps them all in memory, its scratch given none (storing
// them was a tenth of a real-shaped dry run's CPU), and decides as without
// a scratch.
func TestImportPoolHoldsASmallImport(t *testing.T) {
	cands := boundCandidates(preloadAbove + 200)
	plainSvc, _ := newTestService(newFake(t), WithImporter(&fakeImporter{set: &ImportSet{Candidates: cands}}))
	plain, err := plainSvc.Import(context.Background(), ImportRequest{Path: "x", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	im := &scratchImporter{fakeImporter: fakeImporter{set: &ImportSet{Candidates: cands}}}
	svc, _ := newTestService(newFake(t), WithImporter(im))
	got, err := svc.Import(context.Background(), ImportRequest{Path: "x", DryRun: true, batch: 50})
	if err != nil {
		t.Fatal(err)
	}
	if im.st == nil || !im.st.closed {
		t.Fatal("no scratch given, or not closed: the test did not test")
	}
	if n := len(im.st.encs); n > 0 || im.st.gets > 0 {
		t.Errorf("%d fingerprints put in the scratch and %d read back, want none held elsewhere than in memory", n, im.st.gets)
	}
	if diff := cmp.Diff(plain, got); diff != "" {
		t.Errorf("without a scratch (-) and with one (+):\n%s", diff)
	}
}

// TestImportTextReadError: a candidate whose text cannot be read back stops
// the import with an error naming it, before anything is written.
func TestImportTextReadError(t *testing.T) {
	cands := boundCandidates(8)
	broken := errors.New("scratch file gone")
	cands[5].Request.Content = ""
	cands[5].Text = func() (string, error) { return "", broken }
	for i := range cands {
		if i != 5 {
			text := cands[i].Request.Content
			cands[i].Request.Content = ""
			cands[i].Text = func() (string, error) { return text, nil }
		}
	}
	f := newFake(t)
	svc, _ := newTestService(f, WithImporter(&fakeImporter{set: &ImportSet{Candidates: cands}}))
	_, err := svc.Import(context.Background(), ImportRequest{Path: "x"})
	if !errors.Is(err, broken) || !strings.Contains(err.Error(), "n0005.md") {
		t.Fatalf("Import = %v, want the read error naming n0005.md", err)
	}
	if n := len(f.mems); n != 0 {
		t.Errorf("%d memories written", n)
	}
}

// TestDryRunBatches: a dry run compares in batches of dryRunBatch, an import
// that writes in batches of importBatch (more than these candidates), and
// both decide the same.
func TestDryRunBatches(t *testing.T) {
	cands := boundCandidates(2*dryRunBatch + 10)
	decisions := map[bool][]string{}
	for _, dry := range []bool{true, false} {
		svc, _ := newTestService(newFake(t), WithImporter(&fakeImporter{set: &ImportSet{Candidates: slices.Clone(cands)}}))
		batches := 0
		importBatchDone = func([]ImportCandidate, *memoryPool) { batches++ }
		res, err := svc.Import(context.Background(), ImportRequest{Path: "x", DryRun: dry})
		importBatchDone = nil
		if err != nil {
			t.Fatal(err)
		}
		// Some candidates repeat another's text exactly and are dropped
		// before the batches.
		if dry && batches < 2 || !dry && batches != 1 {
			t.Errorf("dry run %v: %d batches of %d candidates", dry, batches, len(cands))
		}
		for _, r := range res.Rejected {
			decisions[dry] = append(decisions[dry], r.Source+": "+r.Reason)
		}
		if res.Duplicates == 0 || res.Imported == 0 {
			t.Errorf("dry run %v: %d duplicates, %d imported: the test did not test", dry, res.Duplicates, res.Imported)
		}
	}
	if diff := cmp.Diff(decisions[false], decisions[true]); diff != "" {
		t.Errorf("rejections (-import +dry run):\n%s", diff)
	}
}
