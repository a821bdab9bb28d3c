package memories

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/cortexmem/cortex/dedup"
)

// ImportCandidate is one memory an import source holds.
type ImportCandidate struct {
	// Request is what to save. Its Provenance names the source (SourcePath,
	// SourceTool) and fingerprints it (SourceHash); an empty Project leaves it
	// to the import's project, or general.
	Request SaveRequest
	// Source says where the candidate came from, for people.
	Source string
	// Links, when set, are the candidate's links to others of the same
	// import: the content is written with them pointing at the notes the
	// memories holding those got.
	Links *ImportLinks
	// Text, when set, reads the content, which Request.Content then leaves
	// out: an importer keeps the texts of a large import out of memory
	// until they are checked.
	Text func() (string, error)
}

// content is the candidate's content, read when it was set aside.
func (c *ImportCandidate) content() (string, error) {
	if c.Text == nil || c.Request.Content != "" {
		return c.Request.Content, nil
	}
	s, err := c.Text()
	if err != nil {
		return "", fmt.Errorf("read the text of %s: %w", c.Source, err)
	}
	return s, nil
}

// ImportLinks are a candidate's links to other candidates of its import.
type ImportLinks struct {
	// Targets are the candidates the links point at (indexes in the
	// ImportSet's Candidates).
	Targets []int
	// Render is the content with each link to a target pointing at the note
	// name(target) — the note of the memory that holds the target's text:
	// the one imported from it, or the one it repeats — and the other links
	// rendered as the importer sees fit (as text, say). name gives "" for a
	// target that has no note.
	Render func(name func(target int) string) string
}

// ImportSkip is a part of a source that was not read, and why.
type ImportSkip struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
	// Kind groups skips of one kind in the summary ("hidden folder", "data
	// file"; its plural adds an "s"); "" for the others.
	Kind string `json:"kind,omitempty"`
}

// ImportSet is what a source holds.
type ImportSet struct {
	Candidates []ImportCandidate
	Skips      []ImportSkip
	// Files is how many files were read.
	Files int
	// Close, when set, lets go of what the candidates' Text read from, once
	// the import is over.
	Close func() error
}

// Importer reads a path (a file or a folder) into candidates. The importer
// package implements it; the domain does no I/O.
type Importer interface {
	Read(ctx context.Context, path string, progress func(done, total int)) (*ImportSet, error)
}

// ImportScratch keeps the fingerprints a large import compares its
// candidates with out of memory (in a temporary file, say), once those it
// holds take importPoolHold bytes, so that what an import holds does not
// grow with every candidate it has seen. Close lets go of it.
type ImportScratch interface {
	dedup.PoolStore
	Close() error
}

// ScratchImporter is an Importer that also gives an import its scratch
// space. Without one, a large import keeps its fingerprints in memory.
type ScratchImporter interface {
	Importer
	Scratch() (ImportScratch, error)
}

// WithImporter sets what Import reads sources with.
func WithImporter(im Importer) Option { return func(s *Service) { s.importer = im } }

// ImportRequest asks to import a path.
type ImportRequest struct {
	Path string
	// Project, when set, is the project of every memory imported; otherwise a
	// memory takes the project its source names, else general.
	Project string
	// DryRun runs everything but the writing.
	DryRun bool
	// Client is the MCP client that asked for the import, recorded in each
	// memory's provenance (the source stays import).
	Client string
	// Progress, when set, is told how far each stage is: "reading" the files,
	// "saving" the memories.
	Progress func(stage string, done, total int)

	// batch is how many memories are saved per lock and commit; 0 is
	// importBatch (tests make it small).
	batch int
	// serial compares each batch only once the one before is written
	// (tests compare it with the pipelined import).
	serial bool
}

// ImportedMemory is a memory an import saved (or, in a dry run, would save).
type ImportedMemory struct {
	ID      string `json:"id,omitempty"`
	ShortID string `json:"short_id,omitempty"`
	Title   string `json:"title"`
	Project string `json:"project"`
	Path    string `json:"path,omitempty"`
	Source  string `json:"source"`
}

// ImportRejection is a candidate that was refused, and why.
type ImportRejection struct {
	Source string `json:"source"`
	Title  string `json:"title"`
	// Reason is the message a save would give.
	Reason string `json:"reason"`
	// Kind is "duplicate" or "unsafe".
	Kind string `json:"kind"`
	Rule string `json:"rule,omitempty"`
	// Existing is the id of the memory a duplicate repeats ("" when it
	// repeats an earlier candidate of the same import).
	Existing string `json:"existing,omitempty"`
}

// ImportResult says what an import did.
type ImportResult struct {
	Path       string            `json:"path"`
	DryRun     bool              `json:"dry_run"`
	Files      int               `json:"files"`
	Candidates int               `json:"candidates"`
	Imported   int               `json:"imported"`
	Duplicates int               `json:"duplicates"`
	Unsafe     int               `json:"unsafe"`
	Skipped    int               `json:"skipped"`
	Memories   []ImportedMemory  `json:"memories"`
	Rejected   []ImportRejection `json:"rejected"`
	Skips      []ImportSkip      `json:"skips"`
}

// Message is the one-line summary the CLI prints and the MCP tool returns.
func (r *ImportResult) Message() string {
	verb := "Imported"
	if r.DryRun {
		verb = "Would import"
	}
	return fmt.Sprintf("%s %d memories from %d candidates (rejected %d duplicates, %d unsafe, %d skipped%s)",
		verb, r.Imported, r.Candidates, r.Duplicates, r.Unsafe, r.Skipped, skipKinds(r.Skips))
}

// skipKinds counts the skips by kind, most first, for the summary: ": 12
// hidden folders, 3 data files, 1 for another reason". Without kinds it says
// nothing more: the skips list their reasons.
func skipKinds(skips []ImportSkip) string {
	counts := map[string]int{}
	for _, s := range skips {
		counts[s.Kind]++
	}
	if len(counts) == 0 || len(counts) == 1 && counts[""] > 0 {
		return ""
	}
	other := counts[""]
	delete(counts, "")
	kinds := slices.Collect(maps.Keys(counts))
	slices.SortFunc(kinds, func(a, b string) int {
		return cmp.Or(counts[b]-counts[a], strings.Compare(a, b))
	})
	parts := make([]string, 0, len(kinds)+1)
	for _, k := range kinds {
		n, name := counts[k], k
		if n > 1 {
			name += "s"
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, name))
	}
	if other > 0 {
		parts = append(parts, fmt.Sprintf("%d for other reasons", other))
	}
	return ": " + strings.Join(parts, ", ")
}

const (
	// importBatch is how many memories are saved per lock and commit.
	importBatch = 2000
	// dryRunBatch is how many a dry run, which writes nothing, compares per
	// batch: the comparisons of the last batch run alone on one core once
	// every batch is prepared, and the first wait for its preparing, so
	// smaller batches leave less of the import to one core (see
	// prepareAhead).
	dryRunBatch = 250
	// preloadAbove is how many candidates make it cheaper to fingerprint
	// every stored memory once than to ask the index about each candidate.
	preloadAbove = 200
)

// Import reads a source and saves what it holds: every candidate goes through
// the save path (validation, the security scan, dedup against the stored
// memories and the earlier candidates, related links), in batches. A source
// imported before adds nothing: candidates whose fingerprint (provenance
// source_hash) a stored memory has, superseded or not, count as duplicates,
// and the others are compared with those memories as the first import
// compared them (see dropImported). One bad candidate never stops the others.
func (s *Service) Import(ctx context.Context, req ImportRequest) (*ImportResult, error) {
	if strings.TrimSpace(req.Path) == "" {
		return nil, invalid("path", "give a file or folder to import")
	}
	project, err := NormalizeScope("project", req.Project)
	if err != nil {
		return nil, err
	}
	if s.importer == nil {
		return nil, errors.New("import: no importer configured")
	}
	progress := func(stage string) func(int, int) {
		return func(done, total int) {
			if req.Progress != nil {
				req.Progress(stage, done, total)
			}
		}
	}
	set, err := s.importer.Read(ctx, req.Path, progress("reading"))
	if err != nil {
		return nil, err
	}
	if closeSet := set.Close; closeSet != nil {
		// What it holds is thrown away: failing to close it loses nothing.
		// (Not set.Close in the deferred call: that would keep every
		// candidate of the set to the end.)
		defer func() { _ = closeSet() }()
	}
	res := &ImportResult{Path: req.Path, DryRun: req.DryRun, Files: set.Files, Candidates: len(set.Candidates),
		Memories: []ImportedMemory{}, Rejected: []ImportRejection{}, Skips: append([]ImportSkip{}, set.Skips...)}
	cands := make([]ImportCandidate, len(set.Candidates))
	for i, c := range set.Candidates {
		c.Request.Source = SourceImport
		c.Request.Provenance.Client = req.Client
		switch {
		case project != "":
			c.Request.Project = project
		case c.Request.Project == "":
			c.Request.Project = DefaultProject
		}
		cands[i] = c
	}
	work, err := s.dropImported(ctx, cands, res)
	if err != nil {
		return nil, err
	}
	pool := newMemoryPool()
	if sc, ok := s.importer.(ScratchImporter); ok && s.checks.Dedup && work.distinct >= preloadAbove {
		// Without a scratch the fingerprints stay in memory: the import
		// decides the same, holding more.
		if st, err := sc.Scratch(); err != nil {
			s.warn(fmt.Sprintf("import: fingerprints kept in memory: %v", err))
		} else {
			// What the scratch holds is thrown away: failing to close it
			// loses nothing of the import.
			defer func() { _ = st.Close() }()
			pool = newStoredMemoryPool(st)
		}
	}
	preloaded := false
	if s.checks.Dedup && len(work.save) > 0 && work.distinct >= preloadAbove {
		if err := s.preload(ctx, pool, cands, work.knownIDs()); err != nil {
			return nil, err
		}
		preloaded = true
	}
	save := progress("saving")
	items := work.items
	if !s.checks.Dedup {
		items = work.save
	}
	batch := req.batch
	if batch <= 0 {
		batch = importBatch
		if req.DryRun {
			batch = dryRunBatch
		}
	}
	lk := newImportLinker(cands, work)
	// Only the candidates to compare need their text from here on.
	needed := make([]bool, len(cands))
	for _, it := range items {
		needed[it.index] = true
	}
	for i := range cands {
		if !needed[i] {
			cands[i].Request.Content = ""
		}
	}
	// The batches are made, scanned and fingerprinted ahead, on every core,
	// while the batch before is compared and written: only the comparisons
	// run in order, as each depends on what was accepted before.
	chunks := make([][]importItem, 0, len(items)/batch+1)
	for start := 0; start < len(items); start += batch {
		chunks = append(chunks, items[start:min(start+batch, len(items))])
	}
	// As many batches are prepared ahead as make one importBatch: what an
	// import holds stays the same, and the preparing runs ahead while the
	// comparisons, which grow with the pool, fall behind.
	prepared := s.prepareAhead(ctx, cands, chunks, max(1, importBatch/batch))
	defer prepared.stop()
	// An import that writes, and whose decisions depend on the pool alone
	// (it holds the stored memories, or there is no dedup), compares each
	// batch while the one before is written: the index commit of a batch
	// was half of a real-shaped import, with one core idle.
	pipelined := !req.DryRun && !req.serial && (preloaded || !s.checks.Dedup)
	saved := 0
	// done records the outcome of a batch once it is written, or checked in
	// a dry run: the memories put in the pool up to poolEnd have their paths.
	done := func(chunk []importItem, p *preparedBatch, out []BatchItem, poolEnd int) {
		for i, it := range chunk {
			if it.known == nil {
				c := cands[it.index]
				c.Request.Content = p.reqs[i].Content // read back, when set aside
				res.add(c, out[i])
				saved++
			}
			// What is decided needs its text no more: the pool keeps its
			// fingerprint, and a link to render holds its own.
			cands[it.index].Request.Content = ""
		}
		pool.written(poolEnd)
		if importBatchDone != nil {
			importBatchDone(cands, pool)
		}
		save(saved, len(work.save))
	}
	// writing is the batch being written, when pipelined.
	type writing struct {
		chunk   []importItem
		p       *preparedBatch
		poolEnd int
		out     []BatchItem
		err     error
		end     chan struct{}
	}
	var pending *writing
	wait := func() error {
		w := pending
		if w == nil {
			return nil
		}
		pending = nil
		<-w.end
		if w.err != nil {
			return w.err
		}
		done(w.chunk, w.p, w.out, w.poolEnd)
		return nil
	}
	// Nothing is written once Import returns.
	defer func() {
		if pending != nil {
			<-pending.end
		}
	}()
	for _, chunk := range chunks {
		p, ok := prepared.next()
		if !ok {
			return nil, ctx.Err()
		}
		if p.err != nil {
			return nil, p.err
		}
		known := make([]*Entry, len(chunk))
		for i, it := range chunk {
			known[i] = it.known
		}
		o := batchOptions{dryRun: req.DryRun, pool: pool, poolHasStored: preloaded, noShortIDs: true, known: known}
		if lk != nil {
			o.beforeWrite = func(mems []*Memory, out []BatchItem) { lk.decide(chunk, mems, out) }
		}
		if !pipelined {
			out, err := s.commitBatch(ctx, p, o)
			if err != nil {
				return nil, err
			}
			done(chunk, p, out, len(pool.targets))
			continue
		}
		d, err := s.decideBatch(ctx, p, o)
		if err != nil {
			return nil, err
		}
		if err := wait(); err != nil {
			return nil, err
		}
		w := &writing{chunk: chunk, p: p, poolEnd: len(pool.targets), end: make(chan struct{})}
		pending = w
		go func() {
			defer close(w.end)
			w.out, w.err = s.writeDecided(ctx, p, o, d)
		}()
	}
	if err := wait(); err != nil {
		return nil, err
	}
	if lk != nil && !req.DryRun {
		if err := s.linkLater(ctx, lk); err != nil {
			return nil, err
		}
	}
	res.Skipped = len(res.Skips)
	if !req.DryRun && res.Imported > 0 {
		// Short ids, from every id at once.
		err := s.backend.View(ctx, func(snap Snapshot) error {
			entries, err := snap.Entries()
			if err != nil {
				return err
			}
			sh := newShortener(entries)
			for i := range res.Memories {
				res.Memories[i].ShortID = sh.short(res.Memories[i].ID)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}

// add records one candidate's outcome.
func (r *ImportResult) add(c ImportCandidate, it BatchItem) {
	if it.Err == nil {
		m := ImportedMemory{Title: it.Result.Title, Project: it.Result.Project, Source: c.Source}
		if !r.DryRun {
			m.ID, m.ShortID, m.Path = it.Result.ID, it.Result.ShortID, it.Result.Path
		}
		r.Memories = append(r.Memories, m)
		r.Imported++
		return
	}
	title := c.Request.Title
	if title == "" {
		title = TitleFrom(c.Request.Content)
	}
	var rej *RejectedError
	var ae *ArgError
	switch {
	case errors.As(it.Err, &rej) && rej.Existing != nil:
		x := ImportRejection{Source: c.Source, Title: title, Reason: it.Err.Error(), Kind: "duplicate", Existing: rej.Existing.ID}
		if rej.InBatch {
			x.Existing = ""
			x.Reason = fmt.Sprintf("repeats %q, earlier in this import", rej.Existing.Title)
		}
		r.Rejected = append(r.Rejected, x)
		r.Duplicates++
	case errors.As(it.Err, &rej) && rej.Finding != nil:
		r.Rejected = append(r.Rejected, ImportRejection{Source: c.Source, Title: title, Reason: it.Err.Error(), Kind: "unsafe", Rule: rej.Finding.Rule})
		r.Unsafe++
	case errors.As(it.Err, &ae):
		r.Skips = append(r.Skips, ImportSkip{Source: c.Source, Reason: it.Err.Error()})
	default:
		r.Skips = append(r.Skips, ImportSkip{Source: c.Source, Reason: it.Err.Error()})
	}
}

// importWork is what an import has left to do once the candidates already
// imported are known.
type importWork struct {
	// items are the candidates in import order, each imported repeat of an
	// earlier one's fingerprint left out: those to save, and before the last
	// of them those already imported, to replay into the dedup pool.
	items []importItem
	// save are the items to save.
	save []importItem
	// distinct is how many candidates are not imported repeats: as many as
	// the first import of the same source had to save.
	distinct int
	// known are the memories imported before, by candidate, and sameAs the
	// earlier candidate each imported repeat of a fingerprint repeats.
	known  map[int]Entry
	sameAs map[int]int
}

// importItem is a candidate to save, or one already imported.
type importItem struct {
	index int    // in the import's candidates
	known *Entry // the memory imported from it before, nil for one to save
}

// knownIDs are the ids of the memories the items were imported as before.
func (w *importWork) knownIDs() map[string]bool {
	ids := map[string]bool{}
	for _, it := range w.items {
		if it.known != nil {
			ids[it.known.ID] = true
		}
	}
	return ids
}

// dropImported takes out the candidates a stored memory was imported from (by
// source fingerprint) and those that repeat an earlier candidate's, recording
// them as duplicates.
//
// The candidates already imported stay in the work, before the last one to
// save, so that the others are compared with them as the first import
// compared them: in order, through the same pool. A second run then refuses
// every candidate the first refused as a near-duplicate of an earlier one —
// what the index proposes for a candidate changes once the first run's
// memories are in it, and the pool finds candidates by the words rarest in
// it, so neither alone repeats the first run's decision.
func (s *Service) dropImported(ctx context.Context, cands []ImportCandidate, res *ImportResult) (*importWork, error) {
	type stored struct {
		entry Entry
		short string
	}
	known := map[string]stored{}
	err := s.backend.View(ctx, func(snap Snapshot) error {
		for start := 0; start < len(cands); start += importBatch {
			chunk := cands[start:min(start+importBatch, len(cands))]
			var hashes []string
			for _, c := range chunk {
				if h := c.Request.Provenance.SourceHash; h != "" {
					hashes = append(hashes, h)
				}
			}
			if len(hashes) == 0 {
				continue
			}
			hits, err := snap.Search(ctx, SearchRequest{SourceHashes: hashes, IncludeSuperseded: true, Size: 2 * len(hashes)})
			if err != nil {
				return fmt.Errorf("find imported memories: %w", err)
			}
			for _, h := range hits {
				m, err := snap.Load(ctx, h.Path)
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				if err != nil {
					return err
				}
				if hash := m.Provenance.SourceHash; hash != "" {
					if _, ok := known[hash]; !ok {
						e := h.Entry
						e.Title = m.Title
						known[hash] = stored{entry: e, short: snap.ShortID(e.ID)}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	w := &importWork{known: map[int]Entry{}, sameAs: map[int]int{}}
	seen := map[string]string{} // hash → title of the first candidate
	first := map[string]int{}   // hash → the first candidate
	for i, c := range cands {
		h := c.Request.Provenance.SourceHash
		title := c.Request.Title
		if title == "" {
			content, err := c.content()
			if err != nil {
				return nil, err
			}
			title = TitleFrom(cleanContent(content))
		}
		if k, ok := known[h]; ok && h != "" {
			res.Rejected = append(res.Rejected, ImportRejection{Source: c.Source, Title: title, Kind: "duplicate", Existing: k.entry.ID,
				Reason: fmt.Sprintf("already imported: [%s] %s", k.short, k.entry.Title)})
			res.Duplicates++
			if f, ok := first[h]; ok {
				w.sameAs[i] = f
				continue
			}
			seen[h], first[h] = title, i
			e := k.entry
			w.known[i] = e
			w.items = append(w.items, importItem{index: i, known: &e})
			continue
		}
		if t, ok := seen[h]; ok && h != "" {
			res.Rejected = append(res.Rejected, ImportRejection{Source: c.Source, Title: title, Kind: "duplicate",
				Reason: fmt.Sprintf("repeats %q, earlier in this import", t)})
			res.Duplicates++
			w.sameAs[i] = first[h]
			continue
		}
		seen[h], first[h] = title, i
		it := importItem{index: i}
		w.items = append(w.items, it)
		w.save = append(w.save, it)
	}
	// Those already imported after the last one to save change nothing.
	w.distinct = len(w.items)
	last := len(w.items)
	for last > 0 && w.items[last-1].known != nil {
		last--
	}
	w.items = w.items[:last]
	return w, nil
}

// importBatchDone, when set (by tests), is called after each batch of an
// import with the candidates and the pool, to count what they still hold.
var importBatchDone func(cands []ImportCandidate, pool *memoryPool)

// preparer makes, scans and fingerprints the batches of an import ahead of
// their comparisons, a given number of batches ahead at most, so that only
// those and the one being made are held besides the one being compared.
type preparer struct {
	out  chan *preparedBatch
	done chan struct{}
}

// prepareAhead starts preparing chunks, in order.
func (s *Service) prepareAhead(ctx context.Context, cands []ImportCandidate, chunks [][]importItem, ahead int) *preparer {
	p := &preparer{out: make(chan *preparedBatch, ahead), done: make(chan struct{})}
	go func() {
		defer close(p.out)
		for _, chunk := range chunks {
			reqs := make([]SaveRequest, len(chunk))
			known := make([]*Entry, len(chunk))
			var err error
			for i, it := range chunk {
				c := &cands[it.index]
				reqs[i] = c.Request
				if reqs[i].Content, err = c.content(); err != nil {
					break
				}
				known[i] = it.known
			}
			b := &preparedBatch{err: err}
			if err == nil {
				b = s.prepareBatch(reqs, known)
				b.reqs = reqs
			}
			select {
			case p.out <- b:
			case <-p.done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return p
}

// next is the next prepared batch; false when the context ended first.
func (p *preparer) next() (*preparedBatch, bool) {
	b, ok := <-p.out
	return b, ok
}

// stop ends the preparing early (an import that failed) and waits for it.
func (p *preparer) stop() {
	close(p.done)
	for range p.out {
	}
}

// preload puts in the pool every live memory of the candidates' projects and
// general but those of except, so that the candidates are compared with them
// without an index search each.
func (s *Service) preload(ctx context.Context, pool *memoryPool, cands []ImportCandidate, except map[string]bool) error {
	projects := map[string]bool{DefaultProject: true}
	for _, c := range cands {
		projects[c.Request.Project] = true
	}
	return s.backend.View(ctx, func(snap Snapshot) error {
		entries, err := snap.Entries()
		if err != nil {
			return err
		}
		var keep []Entry
		for _, e := range entries {
			if e.Live() && projects[e.Project] && !except[e.ID] {
				keep = append(keep, e)
			}
		}
		fps := make([]*dedup.Fingerprint, len(keep))
		errs := make([]error, len(keep))
		parallel(len(keep), func(i int) {
			m, err := snap.Load(ctx, keep[i].Path)
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					errs[i] = err
				}
				return
			}
			fps[i] = dedup.New(m.Title + "\n" + m.Body)
		})
		for i, e := range keep {
			if errs[i] != nil {
				return errs[i]
			}
			if fps[i] != nil {
				pool.add(scored{entry: e}, fps[i])
			}
		}
		return pool.err()
	})
}

// importLinker points the links of the memories an import writes at the
// notes of the memories holding what they link to. Those are known batch by
// batch: a link to a candidate of a later batch is rendered again, and its
// note rewritten, once the import is over.
type importLinker struct {
	cands  []ImportCandidate
	sameAs map[int]int
	// names are the notes of the memories holding each candidate's text:
	// the one imported from it, or the one it repeats; "" for none.
	names   []string
	decided []bool
	byID    map[string]string // note names of the memories written or repeated, by id
	later   []laterLinks
}

// laterLinks is a memory written with a link to a candidate not yet decided.
type laterLinks struct {
	m       *Memory
	links   *ImportLinks
	written string // the body written
}

// newImportLinker is nil when no candidate has links.
func newImportLinker(cands []ImportCandidate, w *importWork) *importLinker {
	linked := false
	for _, c := range cands {
		linked = linked || c.Links != nil
	}
	if !linked {
		return nil
	}
	lk := &importLinker{cands: cands, sameAs: w.sameAs, names: make([]string, len(cands)), decided: make([]bool, len(cands)), byID: map[string]string{}}
	for i, e := range w.known {
		lk.names[i], lk.decided[i] = noteName(e.Path), true
		lk.byID[e.ID] = lk.names[i]
	}
	return lk
}

// name is the note of target's memory, and whether it is known yet.
func (lk *importLinker) name(target int) (string, bool) {
	if f, ok := lk.sameAs[target]; ok {
		target = f
	}
	if target < 0 || target >= len(lk.names) {
		return "", true
	}
	return lk.names[target], lk.decided[target]
}

// decide records what became of a batch's candidates, once the memories to
// write have their paths, and renders the links of those memories.
func (lk *importLinker) decide(chunk []importItem, mems []*Memory, out []BatchItem) {
	for i, it := range chunk {
		if it.known != nil {
			continue
		}
		c := it.index
		lk.decided[c] = true
		var rej *RejectedError
		switch m := mems[i]; {
		case m != nil && out[i].Err == nil && m.Path != "":
			lk.names[c] = noteName(m.Path)
			lk.byID[m.ID] = lk.names[c]
		case errors.As(out[i].Err, &rej) && rej.Existing != nil:
			if n, ok := lk.byID[rej.Existing.ID]; ok {
				lk.names[c] = n
			} else if rej.Existing.Path != "" {
				lk.names[c] = noteName(rej.Existing.Path)
			}
		}
	}
	for i, it := range chunk {
		m, links := mems[i], lk.cands[it.index].Links
		if it.known != nil || links == nil || m == nil || out[i].Err != nil || m.Path == "" {
			continue
		}
		if lk.render(m, links) {
			lk.later = append(lk.later, laterLinks{m: m, links: links, written: m.Body})
		}
	}
}

// render sets m's body from its links, and says whether a target was not
// decided yet.
func (lk *importLinker) render(m *Memory, links *ImportLinks) (pending bool) {
	body := cleanContent(links.Render(func(target int) string {
		n, ok := lk.name(target)
		pending = pending || !ok
		return n
	}))
	if strings.TrimSpace(body) != "" {
		m.Body = body
	}
	return pending
}

// linkLater rewrites the notes written with a link to a candidate of a later
// batch, now that every candidate is decided; a note edited meanwhile is the
// person's and is left as it is.
func (s *Service) linkLater(ctx context.Context, lk *importLinker) error {
	var changed []laterLinks
	for _, l := range lk.later {
		lk.render(l.m, l.links)
		if l.m.Body != l.written {
			changed = append(changed, l)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	return s.backend.Update(ctx, func(tx Tx) error {
		for _, l := range changed {
			now, err := tx.Load(ctx, l.m.Path)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			if strings.TrimSpace(now.Body) != strings.TrimSpace(l.written) {
				continue
			}
			if _, err := tx.Rewrite(ctx, l.m); err != nil {
				return fmt.Errorf("link %s: %w", l.m.Path, err)
			}
		}
		return nil
	})
}
