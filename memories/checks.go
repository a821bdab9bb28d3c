package memories

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/security"
)

// Checks are the safety checks every memory passes before it is written: a scan
// for prompt injection, exfiltration, credentials and deceptive Unicode (text
// saved today is put in front of a model tomorrow), and a comparison with the
// memories already there, which refuses near-duplicates and links related ones.
type Checks struct {
	Scan       bool
	Dedup      bool
	Thresholds dedup.Thresholds
}

// DefaultChecks scans and deduplicates with the SPEC thresholds.
func DefaultChecks() Checks {
	return Checks{Scan: true, Dedup: true, Thresholds: dedup.DefaultThresholds()}
}

// WithChecks sets the safety checks (evaluation turns them off).
func WithChecks(c Checks) Option { return func(s *Service) { s.checks = c } }

const (
	// dedupCandidates is how many memories the index proposes for the exact
	// comparison; the exact score runs only on those.
	dedupCandidates = 20
	// dedupQueryTerms bounds the words of a memory the index is asked about,
	// and dedupRarest how many of them it searches: the rarest in the index.
	// A near-duplicate shares nearly every word, the rare ones included.
	dedupQueryTerms = 32
	dedupRarest     = 10
	// maxRelated is how many related memories a new one links to.
	maxRelated = 3
)

// RejectedError says why a memory was refused: an unsafe text, or a memory that
// already exists.
type RejectedError struct {
	// Finding is the scan rule that fired, for an unsafe text.
	Finding *security.Finding
	// InTitle says the finding is in the title rather than the content.
	InTitle bool
	// Existing is the memory this one duplicates, with its short id and score.
	Existing *Entry
	ShortID  string
	Score    float64
	// InBatch says Existing is an earlier memory of the same batch or import.
	InBatch bool
}

func (e *RejectedError) Error() string {
	if e.Existing != nil {
		return fmt.Sprintf("Memory already exists: [%s] %s", e.ShortID, e.Existing.Title)
	}
	if e.InTitle {
		return fmt.Sprintf("Memory rejected: %s in the title", e.Finding.Rule)
	}
	return "Memory rejected: " + e.Finding.String()
}

// Unwrap makes errors.Is(err, ErrRejected) true.
func (e *RejectedError) Unwrap() error { return ErrRejected }

// screen scans a title and content. A finding refuses the memory; the audit log
// records the rule and a hash of the text, never the text.
func (s *Service) screen(ctx context.Context, title, content string) error {
	rej := s.scan(title, content)
	if rej == nil {
		return nil
	}
	return s.logRefusal(ctx, rej, title, content)
}

// scan is the refusal of an unsafe title or content, nil when both are safe
// (or the scan is off).
func (s *Service) scan(title, content string) *RejectedError {
	if !s.checks.Scan {
		return nil
	}
	// The content first: a title taken from the content holds nothing the
	// content does not, and the finding is then reported where it was typed.
	if f := security.Scan(content); len(f) > 0 {
		return &RejectedError{Finding: &f[0]}
	}
	if f := security.Scan(title); len(f) > 0 {
		return &RejectedError{Finding: &f[0], InTitle: true}
	}
	return nil
}

// logRefusal records an unsafe text's refusal in the audit log: the rule and a
// hash, never the text.
func (s *Service) logRefusal(ctx context.Context, rej *RejectedError, title, content string) error {
	ev := Event{Time: s.now().UTC().Truncate(1e9), Op: OpReject, Rule: rej.Finding.Rule, Hash: textHash(title, content)}
	if err := s.backend.Log(ctx, ev); err != nil {
		return errors.Join(rej, err)
	}
	return rej
}

// textHash identifies a refused text in the audit log without keeping it.
func textHash(title, content string) string {
	sum := sha256.Sum256([]byte(title + "\n" + content))
	return hex.EncodeToString(sum[:8])
}

// scored is a memory with its similarity to the one being saved: score, how
// much of the new memory it already says (dedup.Score), decides a duplicate;
// related, how related the two are (dedup.Related), ranks the links. mem is
// set for a memory of the same batch, which is not in the index yet and whose
// path is known only once the batch is written; seq is its place among the
// memories of its batch or import (from 1), 0 for any other.
type scored struct {
	entry   Entry
	mem     *Memory
	score   float64
	related float64
	seq     int32
}

// idTimeLen is how much of a ULID is its time, to the millisecond.
const idTimeLen = 10

// older orders memories that score the same: the older first, by their ids'
// time; in the same millisecond a stored memory before one of this batch or
// import, stored memories by id, and those of the batch or import in their
// order. Their ids would not do: an import dates its memories from their
// sources, and two memories of one millisecond minted apart have independent
// random parts, so the order of their ids changed from run to run (and the
// earlier candidate a duplicate repeats with it). Ids whose time is the same
// and that were minted one after another still sort as their order, so this
// is the ids' order wherever that did not depend on chance.
func older(a, b scored) int {
	if a.seq == 0 && b.seq == 0 {
		return strings.Compare(a.entry.ID, b.entry.ID)
	}
	ta, tb := a.entry.ID[:min(idTimeLen, len(a.entry.ID))], b.entry.ID[:min(idTimeLen, len(b.entry.ID))]
	if c := strings.Compare(ta, tb); c != 0 {
		return c
	}
	switch {
	case a.seq == 0:
		return -1
	case b.seq == 0:
		return 1
	}
	return cmp.Compare(a.seq, b.seq)
}

// path is the note path of the scored memory.
func (c scored) path() string {
	if c.mem != nil && c.mem != pooledMemory {
		return c.mem.Path
	}
	return c.entry.Path
}

// compare finds the memories of m's project (and general) most like m: the one it
// duplicates, if any, and the related ones to link. except names a memory left
// out (the one a replacement supersedes).
func (s *Service) compare(ctx context.Context, snap Snapshot, m *Memory, except string) (*scored, []scored, error) {
	dup, related, _, err := s.compareFP(ctx, snap, m, nil, except)
	return dup, related, err
}

// compareFP is compare that also gives the fingerprint m was compared by
// (nil when the check is off). made, when not nil, gives that fingerprint,
// made already (fingerprintAside); else it is made here.
func (s *Service) compareFP(ctx context.Context, snap Snapshot, m *Memory, made func() *dedup.Fingerprint, except string) (*scored, []scored, *dedup.Fingerprint, error) {
	if !s.checks.Dedup {
		return nil, nil, nil, nil
	}
	var fp *dedup.Fingerprint
	if made != nil {
		fp = made()
	}
	if fp == nil {
		fp = memoryFingerprint(m.Title, m.Body)
	}
	var all []scored
	var err error
	if wo, ok := snap.(wordOverlapper); ok {
		all, err = s.similarInProjects(ctx, snap, wo, m, fp, except)
	} else {
		all, err = s.similarInIndex(ctx, snap, m, fp, except)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	dup, related := pick(s.checks.Thresholds, all)
	return dup, related, fp, nil
}

// wordKeeper is a Tx that keeps the word sets its wordOverlapper reads
// (memoryWordsAndKeys of a note's title and body): told the word sets and
// keys of memories it has just created, it keeps them for the next save's
// check, which would otherwise read the new notes and make them again. It
// keeps each only while the note as written has its memory's title and
// body.
type wordKeeper interface {
	KeepWords(ctx context.Context, kept []KeptWords)
}

// KeptWords is a memory a transaction created, with the word set and keys
// of its title and body (memoryWordsAndKeys, to the bit).
type KeptWords struct {
	Memory *Memory
	Words  []uint64
	Keys   dedup.Keys
}

// keepWords tells tx, when it keeps word sets, the word set and keys of m,
// created, from fp, its fingerprint (memoryWordsAndKeys of its title and
// body, to the bit).
func keepWords(ctx context.Context, tx Tx, m *Memory, fp *dedup.Fingerprint) {
	if wk, ok := tx.(wordKeeper); ok && fp != nil {
		wk.KeepWords(ctx, []KeptWords{{Memory: m, Words: fp.Words(), Keys: fp.Keys()}})
	}
}

// finder is what the similarity checks read: the memories the index proposes
// and their notes. A Snapshot is one.
type finder interface {
	Search(ctx context.Context, req SearchRequest) ([]Hit, error)
	Load(ctx context.Context, path string) (*Memory, error)
}

// textLoader reads only what a comparison needs of a note, its title and
// body, exactly as Load would give them: a store's snapshot does it without
// decoding the note's properties when the note is as its catalog record says
// (about half of what a save spent comparing candidates went to that).
type textLoader interface {
	LoadText(ctx context.Context, path string) (title, body string, err error)
}

// loadText is the title and body of the note at path, read through snap.
func loadText(ctx context.Context, snap finder, path string) (string, string, error) {
	if tl, ok := snap.(textLoader); ok {
		return tl.LoadText(ctx, path)
	}
	m, err := snap.Load(ctx, path)
	if err != nil {
		return "", "", err
	}
	return m.Title, m.Body, nil
}

// fingerprintLoader gives the fingerprint build makes of a note's title and
// body as textLoader reads them, from what it keeps of the notes compared
// before while their files are unchanged: a long-running process's store
// (the MCP server's) does, sparing a save the reading and fingerprinting of
// the candidates an earlier save compared already.
type fingerprintLoader interface {
	LoadFingerprint(ctx context.Context, path string, build func(title, body string) *dedup.Fingerprint) (*dedup.Fingerprint, error)
}

// conflictLoader is a fingerprintLoader that can tell, before
// fingerprinting a note, that it conflicts with the memory being saved
// (conflicts, of the keys that keys makes of its title and body, says so;
// nil asks nothing): a store's snapshot is one, and keeps the keys.
// It says so only of a note whose text is the one its word set (counted by
// the wordOverlapper) was made from, so that the pair's Words and Related
// are the counted ones and its Score is dedup.ConflictScore of its Words,
// as Compare would give them.
//
// known, when not nil, are the note's keys as the wordOverlapper keeps them
// (WordOverlaps.Keys): the loader uses them in place of keys of the note's
// text only while the note is as they were made from, and may then tell a
// conflict without reading the note.
type conflictLoader interface {
	LoadFingerprintOrConflict(ctx context.Context, path string, build func(title, body string) *dedup.Fingerprint, keys func(title, body string) dedup.Keys, conflicts func(dedup.Keys) bool, known *KnownKeys) (*dedup.Fingerprint, bool, error)
}

// KnownKeys are a note's keys (memoryKeys of its title and body) as a
// wordOverlapper keeps them: made from the note's bytes when they had Hash
// (the hash its store's catalog records of a note's bytes).
type KnownKeys struct {
	Keys dedup.Keys
	Hash uint64
}

// memoryKeys are the keys (dedup.KeysOf) of a memory's fingerprint.
func memoryKeys(title, body string) dedup.Keys {
	return dedup.KeysOf(title + "\n" + body)
}

// fingerprintAside makes the fingerprint of a memory's title and body
// (memoryFingerprint) on its own goroutine, and returns what waits for it
// (any number of times); nil when the duplicate check is off. A save
// starts it before it takes the write lock: the store's work up to the
// comparison (the lock, the catalog, the vault's check) then runs beside
// it, where a long note's fingerprint was a tenth of a save in the MCP
// server.
func (s *Service) fingerprintAside(title, body string) func() *dedup.Fingerprint {
	if !s.checks.Dedup {
		return nil
	}
	done := make(chan struct{})
	var fp *dedup.Fingerprint
	go func() {
		defer close(done)
		fp = memoryFingerprint(title, body)
	}()
	return func() *dedup.Fingerprint {
		<-done
		return fp
	}
}

// memoryFingerprint is the fingerprint a memory is compared by.
func memoryFingerprint(title, body string) *dedup.Fingerprint {
	return dedup.New(title + "\n" + body)
}

// loadFingerprint is the fingerprint of the note at path, read through snap.
func loadFingerprint(ctx context.Context, snap finder, path string) (*dedup.Fingerprint, error) {
	if fl, ok := snap.(fingerprintLoader); ok {
		return fl.LoadFingerprint(ctx, path, memoryFingerprint)
	}
	title, body, err := loadText(ctx, snap, path)
	if err != nil {
		return nil, err
	}
	return memoryFingerprint(title, body), nil
}

// WordOverlap is a memory that has Common of the words of the one being
// saved, out of the Len words of its own set (dedup.Fingerprint.Words of
// its title and body). Ref names it to the wordOverlapper that found it.
type WordOverlap struct {
	Ref, Common, Len int
}

// WordOverlaps are the memories of some projects that share a word with
// the one being saved; Entry gives the entry of one of them, by its Ref.
//
// Keys, when set, gives the keys the wordOverlapper keeps of some of them,
// by Ref (nil for the others): a note's numbers and code tokens are what
// decides a conflict most often, and reading and scanning each note for
// them was most of a save's duplicate check.
type WordOverlaps struct {
	All   []WordOverlap
	Entry func(ref int) (Entry, error)
	Keys  func(ref int) *KnownKeys
}

// wordOverlapper counts, for every memory of some projects that a search
// would find (readable, not superseded) but the one whose id is except,
// how many of words (a sorted word set) its word set holds, from what it
// keeps of the word sets while their notes are unchanged. A store's
// snapshot is one: a new memory is then compared with every memory of its
// project and general, and no duplicate is missed because the index ranked
// it below others (an index search for a memory's rarest words found fewer
// than nine in ten of the duplicates of a varied set of saves). A memory
// sharing no word is neither a duplicate nor related, and need not be
// listed.
type wordOverlapper interface {
	WordOverlaps(ctx context.Context, projects []string, words []uint64, except string, build func(title, body string) ([]uint64, dedup.Keys)) (WordOverlaps, error)
}

// NearWords is what a nearOverlapper must keep: every memory whose Words
// (dedup.OverlapCount) can reach Duplicate, and every memory whose Related
// can be among the Top best above Related, ties included. Keys asks for
// the keys of those that can reach Duplicate (WordOverlaps.Keys): only a
// memory with keys can conflict by them, so only its check asks.
type NearWords struct {
	Duplicate, Related float64
	Top                int
	Keys               bool
}

// nearOverlapper is a wordOverlapper that may also leave out, of the
// memories sharing a word, those it proves can matter to neither the
// duplicate check nor the related links (near says which matter): every
// memory it lists has the count WordOverlaps would give it, to the bit, so
// that similarInProjects keeps what it would keep of them all. A long note
// has hundreds of words, and the lists of its common ones hold most of a
// project: counting every memory in them was most of a save's check.
type nearOverlapper interface {
	NearWordOverlaps(ctx context.Context, projects []string, words []uint64, except string, build func(title, body string) ([]uint64, dedup.Keys), near NearWords) (WordOverlaps, error)
}

// memoryWordsAndKeys is the word set and the keys of a memory's
// fingerprint (dedup.Words, and memoryKeys), made without the rest of it:
// what a wordOverlapper keeps of each memory (build).
func memoryWordsAndKeys(title, body string) ([]uint64, dedup.Keys) {
	text := title + "\n" + body
	return dedup.Words(text), dedup.KeysOf(text)
}

// similarInProjects scores every memory of m's project and general against
// m, whose fingerprint is fp, keeping those that can be m's duplicate or
// related: what Compare gives, to the bit, and what pickable would keep of
// them all. Score is at most Words, so only a memory whose Words reaches the
// duplicate threshold is fingerprinted whole (for the conflicts that cap
// it); any other has Score below it, and matters only when its Related is
// among the maxRelated+1 best above the related threshold, so only those
// (ties included) have their entries looked up.
func (s *Service) similarInProjects(ctx context.Context, snap finder, wo wordOverlapper, m *Memory, fp *dedup.Fingerprint, except string) ([]scored, error) {
	if fp.Empty() {
		return nil, nil
	}
	th := s.checks.Thresholds
	var ov WordOverlaps
	var err error
	if no, ok := wo.(nearOverlapper); ok {
		near := NearWords{Duplicate: th.Duplicate, Related: th.Related, Top: maxRelated + 1, Keys: dedup.HasKeys(fp)}
		ov, err = no.NearWordOverlaps(ctx, withGeneral(m.Project), fp.Words(), except, memoryWordsAndKeys, near)
	} else {
		ov, err = wo.WordOverlaps(ctx, withGeneral(m.Project), fp.Words(), except, memoryWordsAndKeys)
	}
	if err != nil {
		return nil, fmt.Errorf("find similar memories: %w", err)
	}
	type candidate struct {
		o              WordOverlap
		words, related float64
	}
	var dups, rel []candidate
	for _, o := range ov.All {
		words, related := dedup.OverlapCount(fp, o.Common, o.Len)
		switch {
		case words >= th.Duplicate:
			dups = append(dups, candidate{o, words, related})
		case related > th.Related:
			rel = append(rel, candidate{o, words, related})
		}
	}
	// The related value of the (maxRelated+1)th best: a memory below it
	// is not kept by pickable, whatever its id. Found in one pass over the
	// thousands a large project may have above the related threshold
	// (sorting them cost more than counting their words).
	if len(rel) > maxRelated+1 {
		var best [maxRelated + 1]float64 // decreasing
		for i := range best {
			best[i] = -1
		}
		for _, c := range rel {
			if c.related <= best[maxRelated] {
				continue
			}
			i := maxRelated
			for i > 0 && best[i-1] < c.related {
				best[i] = best[i-1]
				i--
			}
			best[i] = c.related
		}
		floor := best[maxRelated]
		rel = slices.DeleteFunc(rel, func(c candidate) bool { return c.related < floor })
	}
	// The possible duplicates, most Words first: Score is Words, or less
	// for a memory that conflicts with m (which only its whole
	// fingerprint tells), so once the best Score found is above the next
	// one's Words (or equal, with a lower id, which pick prefers), no
	// memory left can be the duplicate, and they are not fingerprinted:
	// a short note is contained in many long ones, each a long read and
	// fingerprint. They are kept with their Words as a Score (an upper
	// bound, below the duplicate's in pick's order) and their exact
	// Related, unless they rank among the most related: those are read
	// as before, and left out if their note is gone.
	type possible struct {
		e    Entry
		c    candidate
		sim  *dedup.Similarity // nil until fingerprinted
		gone bool
	}
	ps := make([]possible, len(dups))
	for i, c := range dups {
		e, err := ov.Entry(c.o.Ref)
		if err != nil {
			return nil, fmt.Errorf("find similar memories: %w", err)
		}
		ps[i] = possible{e: e, c: c}
	}
	slices.SortFunc(ps, func(a, b possible) int {
		if a.c.words != b.c.words {
			return cmp.Compare(b.c.words, a.c.words)
		}
		return strings.Compare(a.e.ID, b.e.ID)
	})
	cl, _ := snap.(conflictLoader)
	// KeysConflict of fp, from an older note's keys; nil when fp has no
	// key to miss.
	var conflicts func(dedup.Keys) bool
	if dedup.HasKeys(fp) {
		conflicts = func(k dedup.Keys) bool { return k.Lack(fp) }
	}
	score := func(p *possible) error {
		if cl != nil {
			var known *KnownKeys
			if ov.Keys != nil {
				known = ov.Keys(p.c.o.Ref)
			}
			other, conflict, err := cl.LoadFingerprintOrConflict(ctx, p.e.Path, memoryFingerprint, memoryKeys, conflicts, known)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				p.gone = true
				return nil
			case err != nil:
				return err
			case conflict:
				// The note is as its word set was counted: Compare's Words
				// and Related are the counted ones, and its Score capped.
				p.sim = &dedup.Similarity{Words: p.c.words, Score: dedup.ConflictScore(p.c.words), Related: p.c.related}
				return nil
			}
			sim := dedup.Compare(fp, other)
			p.sim = &sim
			return nil
		}
		other, err := loadFingerprint(ctx, snap, p.e.Path)
		if errors.Is(err, fs.ErrNotExist) {
			p.gone = true
			return nil
		}
		if err != nil {
			return err
		}
		sim := dedup.Compare(fp, other)
		p.sim = &sim
		return nil
	}
	var best *possible
	for i := range ps {
		p := &ps[i]
		if best != nil && p.c.words < best.sim.Score {
			break // sorted: no later one either
		}
		if best != nil && p.c.words == best.sim.Score && p.e.ID > best.e.ID {
			continue
		}
		if err := score(p); err != nil {
			return nil, err
		}
		if !p.gone && p.sim.Score >= th.Duplicate && (best == nil || p.sim.Score > best.sim.Score ||
			p.sim.Score == best.sim.Score && p.e.ID < best.e.ID) {
			best = p
		}
	}
	for {
		kept := pickable{th: th}
		for i := range ps {
			switch p := &ps[i]; {
			case p.gone:
			case p.sim != nil:
				kept.add(scored{entry: p.e, score: p.sim.Score, related: p.sim.Related})
			default:
				kept.add(scored{entry: p.e, score: p.c.words, related: p.c.related})
			}
		}
		for _, c := range rel {
			e, err := ov.Entry(c.o.Ref)
			if err != nil {
				return nil, fmt.Errorf("find similar memories: %w", err)
			}
			kept.add(scored{entry: e, score: c.words, related: c.related})
		}
		// A possible duplicate not read that ranks among the most related
		// is read now; one whose note is gone is left out, and the choice
		// made again without it.
		again := false
		for i := range ps {
			p := &ps[i]
			if p.sim != nil || p.gone || !slices.ContainsFunc(kept.best, func(b scored) bool { return b.entry.ID == p.e.ID }) {
				continue
			}
			if err := score(p); err != nil {
				return nil, err
			}
			again = again || p.gone
		}
		if !again {
			// Read or not, the kept ones' Related are exact and no
			// Score passes the duplicate's.
			return kept.all(), nil
		}
	}
}

// pickable keeps of many scored memories what pick needs to choose among
// them as among all: the possible duplicates (score at the threshold) and
// the maxRelated+1 most related (one may be the duplicate, which is not
// linked). Sorting a thousand candidates was most of what comparing a save
// with a whole project cost.
type pickable struct {
	th         dedup.Thresholds
	dups, best []scored
}

func (p *pickable) add(c scored) {
	if c.score >= p.th.Duplicate {
		p.dups = append(p.dups, c)
	}
	if c.related <= p.th.Related {
		return
	}
	i, _ := slices.BinarySearchFunc(p.best, c, byRelatedThenOlder)
	if i > maxRelated {
		return
	}
	p.best = slices.Insert(p.best, i, c)
	if len(p.best) > maxRelated+1 {
		p.best = p.best[:maxRelated+1]
	}
}

// all is what was kept, each memory once.
func (p *pickable) all() []scored {
	all := p.best
	for _, d := range p.dups {
		if !slices.ContainsFunc(p.best, func(b scored) bool { return b.entry.ID == d.entry.ID }) {
			all = append(all, d)
		}
	}
	return all
}

// byRelatedThenOlder is the order pick links related memories in.
func byRelatedThenOlder(a, b scored) int {
	if a.related != b.related {
		return cmp.Compare(b.related, a.related)
	}
	return older(a, b)
}

// similarInIndex scores the memories the index proposes for m, whose
// fingerprint is fp: the best matches, in m's project and general, for m's
// rarest words.
func (s *Service) similarInIndex(ctx context.Context, snap finder, m *Memory, fp *dedup.Fingerprint, except string) ([]scored, error) {
	terms := dedup.QueryTerms(m.Title, m.Body, dedupQueryTerms)
	if fp.Empty() || len(terms) == 0 {
		return nil, nil
	}
	hits, err := snap.Search(ctx, SearchRequest{
		Text: strings.Join(terms, " "), AnyTerm: true, Rarest: dedupRarest, Projects: withGeneral(m.Project), Size: dedupCandidates,
	})
	if err != nil {
		return nil, fmt.Errorf("find similar memories: %w", err)
	}
	var all []scored
	for _, h := range hits {
		if h.ID == except {
			continue
		}
		other, err := loadFingerprint(ctx, snap, h.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		sim := dedup.Compare(fp, other)
		all = append(all, scored{entry: h.Entry, score: sim.Score, related: sim.Related})
	}
	return all, nil
}

// pick picks the duplicate (the best score, at or above the duplicate
// threshold) and the related ones (the most related above the related
// threshold, up to maxRelated, the duplicate aside).
func pick(th dedup.Thresholds, all []scored) (*scored, []scored) {
	// slices.SortStableFunc, not sort.SliceStable: the same order, without
	// reflection, on every candidate of an import.
	slices.SortStableFunc(all, func(a, b scored) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		return older(a, b)
	})
	var dup *scored
	if len(all) > 0 && all[0].score >= th.Duplicate {
		dup = &all[0]
	}
	// The first maxRelated of all stably sorted by byRelatedThenOlder,
	// above the threshold and the duplicate aside, chosen in one pass
	// rather than by sorting a copy of all: an import picks for every
	// candidate.
	var related []scored
	for _, c := range all {
		if c.related <= th.Related || dup != nil && c.entry.ID == dup.entry.ID {
			continue
		}
		// After every one it does not come before, as a stable sort puts it.
		at := len(related)
		for at > 0 && byRelatedThenOlder(c, related[at-1]) < 0 {
			at--
		}
		switch {
		case at == maxRelated:
			continue
		case related == nil:
			related = make([]scored, 0, maxRelated)
		}
		if len(related) < maxRelated {
			related = append(related, scored{})
		}
		copy(related[at+1:], related[at:])
		related[at] = c
	}
	return dup, related
}

// noteNames are the Obsidian link targets of related memories.
func noteNames(related []scored) []string {
	if len(related) == 0 {
		return nil
	}
	names := make([]string, len(related))
	for i, r := range related {
		names[i] = strings.TrimSuffix(path.Base(r.path()), ".md")
	}
	return names
}

// recorder records audit events: all a refusal writes. A Tx is one.
type recorder interface {
	Record(ev Event)
}

// idShortener abbreviates ids for messages. A Snapshot is one.
type idShortener interface {
	ShortID(id string) string
}

// refuseDuplicate records (when tx is not nil) and returns the refusal of a
// duplicate m, made now: its creation time is the time of the refusal.
func (s *Service) refuseDuplicate(tx recorder, snap idShortener, m *Memory, dup *scored) error {
	return s.refuseDuplicateAt(tx, snap, m, dup, m.Created)
}

// refuseDuplicateAt is refuseDuplicate of a memory dated otherwise (an
// imported one keeps its source's date): the refusal is recorded at at.
func (s *Service) refuseDuplicateAt(tx recorder, snap idShortener, m *Memory, dup *scored, at time.Time) error {
	if tx != nil {
		tx.Record(Event{Time: at, Op: OpReject, Rule: "duplicate", Ref: dup.entry.ID, Hash: textHash(m.Title, m.Body)})
	}
	e := dup.entry
	short := e.ID[:min(MinPrefix, len(e.ID))]
	if dup.mem == nil {
		short = snap.ShortID(e.ID)
	}
	return &RejectedError{Existing: &e, ShortID: short, Score: dup.score, InBatch: dup.mem != nil}
}

// PrepareChecks makes ahead of the first save what the duplicate check
// reads, when the backend can (CheckPreparer) and the check is on: after a
// rebuild the first save would otherwise make every project's word index
// before it answers, seconds at 10,000 notes. A long-running process (the
// MCP server) calls it once when it starts, beside its first calls; a save
// meanwhile waits for it (it holds the store's write lock) rather than
// making the indexes a second time.
func (s *Service) PrepareChecks(ctx context.Context) error {
	p, ok := s.backend.(CheckPreparer)
	if !ok || !s.checks.Dedup {
		return nil
	}
	return p.PrepareWordOverlaps(ctx, memoryWordsAndKeys)
}
