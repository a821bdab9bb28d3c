package memories

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

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
	// kept is how many targets have had their memory let go by written.
	kept int
	// groups numbers the projects, the pool's groups.
	groups map[string]int32
}

// pooledMemory stands for a memory of this batch or import that written let
// go: a target whose mem is set is one of the same batch or import, and its
// path is its entry's once its note has one.
var pooledMemory = &Memory{}

func newMemoryPool() *memoryPool {
	return &memoryPool{pool: dedup.NewPool(), groups: map[string]int32{}}
}

// newStoredMemoryPool is a pool whose fingerprints are in st, not in memory,
// but for the first importPoolHold bytes of them.
func newStoredMemoryPool(st dedup.PoolStore) *memoryPool {
	p := dedup.NewStoredPool(st)
	p.HoldInMemory(importPoolHold)
	return &memoryPool{pool: p, groups: map[string]int32{}}
}

// importPoolHold is how many bytes of fingerprints an import's pool keeps in
// memory before it puts them in the import's scratch: those of 10,000
// real-shaped notes take about 20 MB, and storing them was a tenth of a dry
// run's CPU. A larger import holds this much more than it did, still
// bounded (see ImportScratch).
var importPoolHold = 32 << 20

// err is the first error of the pool's store: from then on it finds
// nothing, so the check that used it must fail.
func (p *memoryPool) err() error {
	if err := p.pool.Err(); err != nil {
		return fmt.Errorf("compare with earlier memories: %w", err)
	}
	return nil
}

// group is project's group in the pool.
func (p *memoryPool) group(project string) int32 {
	g, ok := p.groups[project]
	if !ok {
		g = int32(len(p.groups))
		p.groups[project] = g
	}
	return g
}

// add puts target in the pool: one whose mem is set (a memory of this batch or
// import) gets its place in the pool as its seq, which orders it after those
// added before it when they score the same (see older).
func (p *memoryPool) add(target scored, fp *dedup.Fingerprint) {
	if target.mem != nil {
		target.seq = int32(len(p.targets) + 1)
	}
	p.pool.Add(fp, p.group(target.entry.Project))
	p.targets = append(p.targets, target)
}

// written lets go of the memories put in the pool since the last call and
// before the upTo-th, whose notes now have their paths (or, in a dry run,
// never will): a large import keeps their fingerprints, not their texts.
// Each stays marked as a memory of the import.
func (p *memoryPool) written(upTo int) {
	for i := p.kept; i < upTo; i++ {
		t := &p.targets[i]
		if t.mem == nil || t.mem == pooledMemory {
			continue
		}
		t.entry.Path = t.mem.Path
		t.mem = pooledMemory
	}
	p.kept = upTo
}

// similar is what pick needs of the pooled memories of m's project and
// general, whose fingerprint is fp, to choose as among all of them: those
// that may be m's duplicate and the most related, scored as a save scores
// them (see dedup.Pool.Near).
//
// Of the possible duplicates only those that can score best are scored (see
// dedup.Pool.NearBest): the others keep their Words, less than the best
// score, which is all pick looks at of them.
func (p *memoryPool) similar(m *Memory, fp *dedup.Fingerprint, th dedup.Thresholds) []scored {
	return p.near(m, fp, th, p.pool.NearBest)
}

// near is similar, the pooled texts found by find.
func (p *memoryPool) near(m *Memory, fp *dedup.Fingerprint, th dedup.Thresholds, find func(*dedup.Fingerprint, []int32, dedup.Thresholds, int) []dedup.Match) []scored {
	groups := []int32{p.group(m.Project)}
	if m.Project != DefaultProject {
		groups = append(groups, p.group(DefaultProject))
	}
	k := maxRelated + 1
	if th.Related >= 1 {
		k = 0 // none is related
	}
	matches := find(fp, groups, th, k)
	if len(matches) == 0 {
		return nil
	}
	out := make([]scored, 0, len(matches)) // one allocation: a scored holds a whole entry
	for _, x := range matches {
		t := p.targets[x.Index]
		t.score, t.related = x.Score, x.Related
		out = append(out, t)
	}
	return out
}

// scoring is every pooled memory of m's project and general whose Words
// against fp reaches least (none below it can score least), scored as
// dedup.Compare scores them: what choosing by score needs.
func (p *memoryPool) scoring(m *Memory, fp *dedup.Fingerprint, least float64) []scored {
	return p.near(m, fp, dedup.Thresholds{Duplicate: least, Related: 1}, p.pool.Near)
}

func (s *Service) saveBatch(ctx context.Context, reqs []SaveRequest, o batchOptions) ([]BatchItem, error) {
	return s.commitBatch(ctx, s.prepareBatch(reqs, o.known), o)
}

// preparedBatch is a batch whose pure work is done: its memories made,
// scanned and fingerprinted, ready for the comparisons and the writing.
type preparedBatch struct {
	reqs     []SaveRequest // set by an import: the requests, their texts read back
	err      error         // reading the batch failed
	items    []BatchItem
	mems     []*Memory
	refusals []*RejectedError
	fps      []*dedup.Fingerprint // nil when dedup is off
	unsafe   []*Memory            // the memories the scan refused, by request
}

// prepareBatch makes the memories of a batch (in request order, so that their
// ids are made in that order), then scans and fingerprints them on every core:
// the pure part of checking a batch, which depends on nothing accepted before.
// A request known to be saved before (known[i] not nil) is not scanned.
// Import runs it for the next batch while the last one is compared.
func (s *Service) prepareBatch(reqs []SaveRequest, known []*Entry) *preparedBatch {
	p := &preparedBatch{items: make([]BatchItem, len(reqs)), mems: make([]*Memory, len(reqs)), refusals: make([]*RejectedError, len(reqs))}
	for i, req := range reqs {
		m, err := s.newMemory("content", req)
		if err != nil {
			p.items[i].Err = err
			continue
		}
		p.mems[i] = m
	}
	// The scan and the dedup fingerprints are pure and most of checking an
	// import: they run on every core, leaving only the comparisons, which
	// depend on what was accepted before, in order.
	if s.checks.Dedup {
		p.fps = make([]*dedup.Fingerprint, len(reqs))
	}
	parallel(len(p.mems), func(i int) {
		m := p.mems[i]
		if m == nil {
			return
		}
		if i >= len(known) || known[i] == nil {
			if p.refusals[i] = s.scan(m.Title, m.Body); p.refusals[i] != nil {
				return
			}
		}
		if p.fps != nil {
			p.fps[i] = dedup.New(m.Title + "\n" + m.Body)
		}
	})
	return p
}

// commitBatch compares the memories of a prepared batch with what exists and
// writes those that pass (nothing in a dry run).
func (s *Service) commitBatch(ctx context.Context, p *preparedBatch, o batchOptions) ([]BatchItem, error) {
	p.refuseUnsafe()
	if o.dryRun {
		err := s.backend.View(ctx, func(snap Snapshot) error {
			return s.checkAndWrite(ctx, snap, nil, p.mems, p.items, withFingerprints(o, p))
		})
		return p.items, err
	}
	s.logUnsafe(ctx, p)
	err := s.backend.Update(ctx, func(tx Tx) error {
		return s.checkAndWrite(ctx, tx, tx, p.mems, p.items, withFingerprints(o, p))
	})
	return p.items, err
}

// withFingerprints is o with the fingerprints of p.
func withFingerprints(o batchOptions, p *preparedBatch) batchOptions {
	o.fps = p.fps
	return o
}

// refuseUnsafe takes the memories the scan refused out of the batch, their
// refusals their items' errors.
func (p *preparedBatch) refuseUnsafe() {
	p.unsafe = make([]*Memory, len(p.mems))
	for i, rej := range p.refusals {
		if rej == nil {
			continue
		}
		p.unsafe[i], p.mems[i] = p.mems[i], nil
		p.items[i].Err = rej
	}
}

// logUnsafe records in the audit log the refusals of refuseUnsafe.
func (s *Service) logUnsafe(ctx context.Context, p *preparedBatch) {
	for i, rej := range p.refusals {
		if m := p.unsafe[i]; rej != nil && m != nil {
			p.items[i].Err = s.logRefusal(ctx, rej, m.Title, m.Body)
		}
	}
}

// decideBatch compares the memories of a prepared batch with the pool only,
// without a snapshot, as commitBatch would: for an import whose pool holds
// the stored memories (or that does not check for duplicates), where what is
// decided depends on no write. writeDecided writes it.
func (s *Service) decideBatch(ctx context.Context, p *preparedBatch, o batchOptions) (*decision, error) {
	if s.checks.Dedup && !o.poolHasStored {
		return nil, errors.New("decide a batch: the pool does not hold the stored memories")
	}
	p.refuseUnsafe()
	return s.decide(ctx, nil, p.mems, withFingerprints(o, p))
}

// writeDecided writes a batch decideBatch decided, as commitBatch writes it.
func (s *Service) writeDecided(ctx context.Context, p *preparedBatch, o batchOptions, d *decision) ([]BatchItem, error) {
	s.logUnsafe(ctx, p)
	err := s.backend.Update(ctx, func(tx Tx) error {
		return s.write(ctx, tx, tx, p.mems, p.items, withFingerprints(o, p), d)
	})
	return p.items, err
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
	d, err := s.decide(ctx, snap, mems, o)
	if err != nil {
		return err
	}
	return s.write(ctx, snap, tx, mems, items, o, d)
}

// decision is what the comparisons of a batch decided.
type decision struct {
	accepted []*Memory
	index    map[*Memory]int // of the accepted memories in the batch
	related  map[*Memory][]scored
	// dups are the memories the refused ones repeat, by request.
	dups []*scored
}

// decide compares each memory of a batch with what exists and what the batch
// (and the pool) already holds, and puts those that pass in the pool. snap
// is not looked at when the pool holds the stored memories (it may be nil).
func (s *Service) decide(ctx context.Context, snap Snapshot, mems []*Memory, o batchOptions) (*decision, error) {
	pool := o.pool
	if pool == nil {
		pool = newMemoryPool() // this batch's own memories
	}
	// The stored memories, when the pool does not hold them: each memory
	// is compared with every one of its project and general, as a save
	// is, when the snapshot keeps their word sets; else with those the
	// index proposes.
	var stored wordOverlapper
	if wo, ok := snap.(wordOverlapper); ok && !o.poolHasStored {
		stored = wo
	}
	d := &decision{index: map[*Memory]int{}, related: map[*Memory][]scored{}, dups: make([]*scored, len(mems))}
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
			var err error
			switch {
			case stored != nil:
				all, err = s.similarInProjects(ctx, snap, stored, m, fp, "")
			case !o.poolHasStored:
				all, err = s.similarInIndex(ctx, snap, m, fp, "")
			}
			if err != nil {
				return nil, err
			}
			all = bestPerMemory(joinScored(all, pool.similar(m, fp, s.checks.Thresholds)))
			if err := pool.err(); err != nil {
				return nil, err
			}
			dup, rel := pick(s.checks.Thresholds, all)
			if dup != nil {
				d.dups[i] = dup
				continue
			}
			d.related[m] = rel
			pool.add(scored{entry: EntryOf(m), mem: m}, fp)
		}
		d.accepted = append(d.accepted, m)
		d.index[m] = i
	}
	return d, nil
}

// write refuses the duplicates of a decided batch and writes the memories
// that passed (not when tx is nil).
func (s *Service) write(ctx context.Context, snap idShortener, tx batchWriter, mems []*Memory, items []BatchItem, o batchOptions, d *decision) error {
	stamp := s.stamper() // an imported memory keeps its source's date, not its events
	for i, dup := range d.dups {
		if dup == nil {
			continue
		}
		if dup.mem != nil && dup.mem != pooledMemory {
			// A memory of an earlier batch of an import decided before
			// that batch was written: its note has its path now (as
			// memoryPool.written would have set).
			dup.entry.Path = dup.mem.Path
		}
		items[i].Err = s.refuseDuplicateAt(tx, snap, mems[i], dup, stamp())
	}
	accepted, index, related := d.accepted, d.index, d.related
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
	// The texts the fingerprints were made of: beforeWrite may change a
	// body (an import's links), and a memory whose text changed has no
	// word set to keep.
	var texts []fingerprinted
	if len(o.fps) > 0 {
		texts = make([]fingerprinted, len(accepted))
		for k, m := range accepted {
			texts[k] = fingerprinted{m.Title, m.Body}
		}
	}
	if o.beforeWrite != nil {
		o.beforeWrite(mems, items)
	}
	if err := tx.CreateAll(ctx, accepted); err != nil {
		return err
	}
	keepBatchWords(ctx, tx, accepted, texts, index, o)
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

// fingerprinted is the title and body a memory's fingerprint was made of.
type fingerprinted struct{ title, body string }

// keepBatchWords tells tx, when it keeps word sets, those of the accepted
// memories a batch created (dedup on), so that the first save after an
// import of thousands of notes has none of them to read: a memory's from
// the fingerprint the batch compared when it was made of the title and
// body the memory was created with (texts, by accepted memory), else (its
// body changed since: an import pointed its links at other notes) made
// again, on every core. index is each accepted memory's request.
func keepBatchWords(ctx context.Context, tx batchWriter, accepted []*Memory, texts []fingerprinted, index map[*Memory]int, o batchOptions) {
	wk, ok := tx.(wordKeeper)
	if !ok || len(o.fps) == 0 {
		return
	}
	kept := make([]KeptWords, 0, len(accepted))
	var again []int // in kept
	for k, m := range accepted {
		i, ok := index[m]
		if !ok || i >= len(o.fps) || o.fps[i] == nil {
			continue
		}
		if m.Title != texts[k].title || m.Body != texts[k].body {
			again = append(again, len(kept))
			kept = append(kept, KeptWords{Memory: m})
			continue
		}
		kept = append(kept, KeptWords{Memory: m, Words: o.fps[i].Words(), Keys: o.fps[i].Keys()})
	}
	parallel(len(again), func(j int) {
		k := &kept[again[j]]
		k.Words, k.Keys = memoryWordsAndKeys(k.Memory.Title, k.Memory.Body)
	})
	if len(kept) > 0 {
		wk.KeepWords(ctx, kept)
	}
}

// joinScored is a followed by b: b itself when a is empty (an import whose
// pool holds the stored memories asks nothing else), not a copy of it.
func joinScored(a, b []scored) []scored {
	if len(a) == 0 {
		return b
	}
	return append(a, b...)
}

// bestPerMemory keeps the best score of each memory: the index and the pool
// can both propose a memory saved before.
func bestPerMemory(all []scored) []scored {
	out := all[:0]
	var best map[string]int // id → index in out, for long lists only
	if len(all) > 32 {
		best = make(map[string]int, len(all))
	}
	for _, c := range all {
		j := -1
		if best != nil {
			if k, ok := best[c.entry.ID]; ok {
				j = k
			}
		} else {
			// A lookup's twenty-odd candidates: a scan costs less than a map.
			for k := range out {
				if out[k].entry.ID == c.entry.ID {
					j = k
					break
				}
			}
		}
		if j >= 0 {
			// A memory of this import the index holds already (an earlier
			// batch's) keeps its place in the import.
			seq := max(out[j].seq, c.seq)
			if c.score > out[j].score {
				out[j] = c
			}
			out[j].seq = seq
			continue
		}
		if best != nil {
			best[c.entry.ID] = len(out)
		}
		out = append(out, c)
	}
	return out
}

// parallel calls fn for 0 … n-1 on as many goroutines as there are cores.
// Each goroutine takes the next i until none is left: a goroutine per i
// would grow a new stack for each (the scan's and the fingerprint's run deep),
// a few percent of an import's CPU in stack copies.
func parallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i) // fn reports its errors itself
			}
		})
	}
	wg.Wait()
}
