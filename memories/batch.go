package memories

import (
	"context"
	"golang.org/x/sync/errgroup"
	"runtime"

	"github.com/cortexmem/cortex/dedup"
)

// BatchItem is the outcome of one request of a batch: a result or an error.
type BatchItem struct {
	Result *SaveResult
	Err    error
}

// SaveBatch saves many memories under one write lock, one flush of the disk and
// one index commit: the save path of Save for each (validation, scan, dedup,
// related links), where a memory of the same batch counts as existing too, so
// a batch refuses its own duplicates and links its related memories to each
// other. One request's failure never stops the others; an error that is not
// about a request (the store failing) is returned and nothing more is written.
// Callers keep batches to a few hundred, so that other writers are not held up.
func (s *Service) SaveBatch(ctx context.Context, reqs []SaveRequest) ([]BatchItem, error) {
	return s.saveBatch(ctx, reqs, batchOptions{})
}

type batchOptions struct {
	// dryRun runs every check and writes nothing, not even the audit log.
	dryRun bool
	// pool, when set, holds memories to compare with besides those the index
	// proposes, and what the batch saves is added to it, so that a later
	// batch of the same import sees it even when nothing is written.
	pool *memoryPool
	// poolHasStored says the pool holds the stored memories too (a large
	// import loads them once): the index is not asked.
	poolHasStored bool
	// noShortIDs leaves the results' ShortID empty: an import works them out
	// once at the end rather than per memory.
	noShortIDs bool
	// known, when set, runs beside the requests: a request whose entry is
	// not nil was saved before as that memory. It is neither scanned nor
	// written, only put in the pool in its place in the batch, so that the
	// requests after it are compared with it as when it was saved. Its item
	// stays empty.
	known []*Entry
	// beforeWrite, when set, is called before anything of the batch is
	// written, once the memories to write have their paths (those refused
	// have none, and their error in items); it may change their bodies.
	beforeWrite func(mems []*Memory, items []BatchItem)
	// fps are the fingerprints of the batch's memories, by request, worked
	// out by saveBatch in parallel when dedup is on.
	fps []*dedup.Fingerprint
}

// fingerprint is the fingerprint of request i's memory m.
func (o *batchOptions) fingerprint(i int, m *Memory) *dedup.Fingerprint {
	if i < len(o.fps) && o.fps[i] != nil {
		return o.fps[i]
	}
	return dedup.New(m.Title + "\n" + m.Body)
}

// isKnown says whether request i of the batch was saved before.
func (o *batchOptions) isKnown(i int) bool { return i < len(o.known) && o.known[i] != nil }

// memoryPool is fingerprints of memories to compare new ones with.
type memoryPool struct {
	pool    *dedup.Pool
	targets []scored // score unused
}

func newMemoryPool() *memoryPool { return &memoryPool{pool: dedup.NewPool()} }

func (p *memoryPool) add(target scored, fp *dedup.Fingerprint) {
	p.pool.Add(fp)
	p.targets = append(p.targets, target)
}

// similar scores the pooled memories of m's project and general like fp.
func (p *memoryPool) similar(m *Memory, fp *dedup.Fingerprint) []scored {
	matches := p.pool.Similar(fp, dedupCandidates)
	if len(matches) == 0 {
		return nil
	}
	out := make([]scored, 0, len(matches)) // one allocation: a scored holds a whole entry
	for _, x := range matches {
		t := p.targets[x.Index]
		if t.entry.Project == m.Project || t.entry.Project == DefaultProject {
			t.score, t.related = x.Score, x.Related
			out = append(out, t)
		}
	}
	return out
}

func (s *Service) saveBatch(ctx context.Context, reqs []SaveRequest, o batchOptions) ([]BatchItem, error) {
	items := make([]BatchItem, len(reqs))
	mems := make([]*Memory, len(reqs))
	for i, req := range reqs {
		m, err := s.newMemory("content", req)
		if err != nil {
			items[i].Err = err
			continue
		}
		mems[i] = m
	}
	// The scan and the dedup fingerprints are pure and most of checking an
	// import: they run on every core, leaving only the comparisons, which
	// depend on what was accepted before, in order.
	refusals := make([]*RejectedError, len(reqs))
	if s.checks.Dedup {
		o.fps = make([]*dedup.Fingerprint, len(reqs))
	}
	parallel(len(mems), func(i int) {
		m := mems[i]
		if m == nil {
			return
		}
		if !o.isKnown(i) {
			if refusals[i] = s.scan(m.Title, m.Body); refusals[i] != nil {
				return
			}
		}
		if o.fps != nil {
			o.fps[i] = dedup.New(m.Title + "\n" + m.Body)
		}
	})
	for i, rej := range refusals {
		if rej == nil {
			continue
		}
		m := mems[i]
		mems[i] = nil
		if o.dryRun {
			items[i].Err = rej
			continue
		}
		items[i].Err = s.logRefusal(ctx, rej, m.Title, m.Body)
	}
	run := func(snap Snapshot, tx Tx) error {
		return s.checkAndWrite(ctx, snap, tx, mems, items, o)
	}
	var err error
	if o.dryRun {
		err = s.backend.View(ctx, func(snap Snapshot) error { return run(snap, nil) })
	} else {
		err = s.backend.Update(ctx, func(tx Tx) error { return run(tx, tx) })
	}
	return items, err
}

// batchWriter is what a batch writes with: paths for its notes, the notes,
// their events and the short ids it answers with. A Tx is one.
type batchWriter interface {
	AssignPaths(ms []*Memory) error
	CreateAll(ctx context.Context, ms []*Memory) error
	Record(ev Event)
	ShortID(id string) string
}

// checkAndWrite compares each memory of a batch with what exists and what the
// batch already holds, then writes those that pass (not when tx is nil).
func (s *Service) checkAndWrite(ctx context.Context, snap Snapshot, tx batchWriter, mems []*Memory, items []BatchItem, o batchOptions) error {
	pool := o.pool
	if pool == nil {
		pool = newMemoryPool() // this batch's own memories
	}
	related := map[*Memory][]scored{}
	var accepted []*Memory
	stamp := s.stamper() // an imported memory keeps its source's date, not its events
	index := map[*Memory]int{}
	for i, m := range mems {
		if m == nil {
			continue
		}
		if o.isKnown(i) {
			if s.checks.Dedup {
				pool.add(scored{entry: *o.known[i]}, o.fingerprint(i, m))
			}
			continue
		}
		if s.checks.Dedup {
			fp := o.fingerprint(i, m)
			var all []scored
			if !o.poolHasStored {
				var err error
				if all, err = s.similarInIndex(ctx, snap, m, fp, ""); err != nil {
					return err
				}
			}
			all = bestPerMemory(append(all, pool.similar(m, fp)...))
			dup, rel := pick(s.checks.Thresholds, all)
			if dup != nil {
				items[i].Err = s.refuseDuplicateAt(tx, snap, m, dup, stamp())
				continue
			}
			related[m] = rel
			pool.add(scored{entry: EntryOf(m), mem: m}, fp)
		}
		accepted = append(accepted, m)
		index[m] = i
	}
	if tx == nil {
		for _, m := range accepted {
			items[index[m]].Result = &SaveResult{ID: m.ID, Title: m.Title, Project: m.Project}
		}
		return nil
	}
	if len(accepted) == 0 {
		if o.beforeWrite != nil {
			o.beforeWrite(mems, items)
		}
		return nil
	}
	// Paths first, so that memories of the batch can link to each other.
	if err := tx.AssignPaths(accepted); err != nil {
		return err
	}
	for _, m := range accepted {
		m.Related = noteNames(related[m])
	}
	if o.beforeWrite != nil {
		o.beforeWrite(mems, items)
	}
	if err := tx.CreateAll(ctx, accepted); err != nil {
		return err
	}
	for _, m := range accepted {
		op := OpSave
		switch m.Source {
		case SourceImport:
			op = OpImport
		case SourceCapture:
			op = OpNormalize // as Save: captured memories come only through normalize
		}
		tx.Record(Event{Time: stamp(), Op: op, ID: m.ID, Path: m.Path, Title: m.Title})
		r := &SaveResult{ID: m.ID, Title: m.Title, Project: m.Project, Path: m.Path}
		if !o.noShortIDs {
			r.ShortID = tx.ShortID(m.ID)
		}
		items[index[m]].Result = r
	}
	return nil
}

// bestPerMemory keeps the best score of each memory: the index and the pool
// can both propose a memory saved before.
func bestPerMemory(all []scored) []scored {
	best := map[string]int{} // id → index in out
	out := all[:0]
	for _, c := range all {
		if j, ok := best[c.entry.ID]; ok {
			if c.score > out[j].score {
				out[j] = c
			}
			continue
		}
		best[c.entry.ID] = len(out)
		out = append(out, c)
	}
	return out
}

// parallel calls fn for 0 … n-1 on as many goroutines as there are cores.
func parallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var g errgroup.Group
	g.SetLimit(workers)
	for i := range n {
		g.Go(func() error { fn(i); return nil })
	}
	_ = g.Wait() // fn reports its errors itself
}
