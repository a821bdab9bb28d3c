package memories

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cortexmem/cortex/dedup"
)

// Mining writes the notes the transcript pipeline renders — one per session,
// decision and code-edit episode — into the vault. Their ids are a function
// of the transcript, so running the pipeline again finds each note it wrote
// before and changes nothing unless the transcript did. A note a person has
// edited since cortex wrote it is never overwritten: its provenance keeps a
// hash of what cortex wrote (source_hash: the body, title, type, project and
// tags), and a note that no longer matches it is theirs. Properties a person
// adds are kept on every rewrite, as on any note.

// MinedNote is one rendered note: the memory to write — ID, Path (relative
// to the cortex folder), Title, Type, Project, Source (mined), dates, Fields
// and Body set — and, for a decision, Compare: the text that says what was
// decided (the rest of the body is the rendering around it), which dedup
// compares with existing memories.
type MinedNote struct {
	Memory  *Memory
	Compare string
}

// MineRequest is a batch of rendered notes to write. They link to each other
// by note name ("[[name]]" or "[[name|…]]").
type MineRequest struct {
	Notes []MinedNote
	// DryRun decides every outcome and writes nothing.
	DryRun bool
	// Op is the audit-log operation of the notes created: OpMine when
	// empty (normalize gives OpNormalize).
	Op string
}

// The outcomes of a mined note.
const (
	MineCreated   = "created"   // a new note
	MineUpdated   = "updated"   // the transcript says more than the note did
	MineUnchanged = "unchanged" // the note already says what the transcript does
	MineKept      = "kept"      // edited by a person since cortex wrote it: left alone
	MineDuplicate = "duplicate" // a decision a memory already holds (Ref)
	MineRejected  = "rejected"  // a decision the safety scan refused (Reason)
)

// OpMine is the audit-log operation of a mined note written.
const OpMine = "mine"

// MineItem is what became of one note.
type MineItem struct {
	ID      string `json:"id"`
	Type    Type   `json:"type"`
	Title   string `json:"title"`
	Path    string `json:"path,omitempty"`
	Outcome string `json:"outcome"`
	// Ref is the memory a duplicate repeats; Related the memories a new
	// decision is linked to (note names).
	Ref     string   `json:"ref,omitempty"`
	Related []string `json:"related,omitempty"`
	// Reason is the rule that refused a rejected decision.
	Reason string `json:"reason,omitempty"`
}

// MineResult lists the outcome of every note, in request order.
type MineResult struct {
	Items []MineItem `json:"items"`
}

// Count is how many notes had the outcome.
func (r *MineResult) Count(outcome string) int {
	n := 0
	for _, it := range r.Items {
		if it.Outcome == outcome {
			n++
		}
	}
	return n
}

// MinedHash is the fingerprint a mined note keeps in its provenance
// (source_hash) of what cortex wrote: the body, and the properties a person
// edits in Obsidian's properties panel — title, type, project and tags. A
// note whose content no longer has it was edited by a person, and is theirs.
func MinedHash(m *Memory) string {
	h := sha256.New()
	h.Write([]byte(strings.TrimSpace(m.Body)))
	for _, v := range []string{m.Title, string(m.Type), m.Project, strings.Join(m.Tags, ",")} {
		h.Write([]byte{0})
		h.Write([]byte(v))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// bodyHash is what source_hash held before it covered the properties: a
// hash of the body alone. A note that still has it is cortex's as long as
// its body is.
func bodyHash(body string) string {
	sum := sha256.Sum256([]byte(strings.TrimSpace(body)))
	return hex.EncodeToString(sum[:8])
}

// EditedByPerson reports whether a mined note read from the vault differs
// from what cortex wrote into it: then its body is the person's, and cortex
// never rewrites it.
func EditedByPerson(cur *Memory) bool { return editedByPerson(cur) }

// editedByPerson reports whether a mined note read from the vault differs
// from what cortex wrote into it.
func editedByPerson(cur *Memory) bool {
	h := cur.Provenance.SourceHash
	return h != MinedHash(cur) && h != bodyHash(cur.Body)
}

// mineKeys are the frontmatter keys a mined note's update rewrites; the
// fields are added to them. created, status, importance, related and the
// supersede chain stay as they are: they are the person's, or earlier
// decisions of cortex's.
var mineKeys = []string{"title", "type", "project", "tags", "source", "updated", "provenance"}

// Mine writes rendered notes: new ones are created, ones written before are
// updated when the transcript says more and no person has edited them. A new
// mined decision is scanned like a save (a refusal skips it) and compared
// with the memories of its project and general — sessions and episodes,
// which quote it, aside — and with the batch's other decisions: one scoring
// above the mined skip threshold is a duplicate and not written, one scoring
// from the mined related threshold up is linked as related. Links of the
// batch to a note that is not written go to the memory it duplicates, and
// links to a note a person renamed go to its new name.
func (s *Service) Mine(ctx context.Context, req MineRequest) (*MineResult, error) {
	res := &MineResult{Items: make([]MineItem, len(req.Notes))}
	ids := map[string]bool{}
	for i, n := range req.Notes {
		m := n.Memory
		if m == nil || m.ID == "" || m.Path == "" || !strings.HasSuffix(m.Path, ".md") {
			return nil, fmt.Errorf("mine: note %d: must have an id and a .md path", i)
		}
		if ids[m.ID] {
			return nil, fmt.Errorf("mine: note %d: id %s is given twice", i, m.ID)
		}
		ids[m.ID] = true
		res.Items[i] = MineItem{ID: m.ID, Type: m.Type, Title: m.Title, Path: m.Path}
	}
	notes := make([]*Memory, len(req.Notes))
	compare := make([]string, len(req.Notes))
	for i, n := range req.Notes {
		notes[i] = n.Memory.Clone()
		compare[i] = n.Compare
		if compare[i] == "" {
			compare[i] = n.Memory.Body
		}
	}
	op := req.Op
	if op == "" {
		op = OpMine
	}
	write := func(snap Snapshot, tx Tx) error {
		return s.mine(ctx, snap, tx, notes, compare, op, res)
	}
	var err error
	if req.DryRun {
		err = s.backend.View(ctx, func(snap Snapshot) error { return write(snap, nil) })
	} else {
		err = s.backend.Update(ctx, func(tx Tx) error { return write(tx, tx) })
	}
	if err != nil {
		return nil, err
	}
	for i, it := range res.Items {
		if it.Outcome == MineRejected && !req.DryRun {
			m := notes[i]
			ev := Event{Time: s.now().UTC().Truncate(1e9), Op: OpReject, ID: m.ID, Rule: it.Reason, Hash: textHash(m.Title, m.Body)}
			if err := s.backend.Log(ctx, ev); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// mineWriter is what mining writes with: new notes, rewrites of the ones it
// wrote before, and their events. A Tx is one.
type mineWriter interface {
	CreateAll(ctx context.Context, ms []*Memory) error
	Rewrite(ctx context.Context, m *Memory, keys ...string) (bool, error)
	Record(ev Event)
}

func (s *Service) mine(ctx context.Context, snap Snapshot, tx mineWriter, notes []*Memory, compare []string, op string, res *MineResult) error {
	stamp := s.stamper()           // a mined note is dated by its transcript, not its events
	renames := map[string]string{} // note name → the name links go to instead
	current := make([]*Memory, len(notes))
	pool := newMemoryPool()
	var created []*Memory
	for i, m := range notes {
		it := &res.Items[i]
		e, err := snap.Get(m.ID)
		switch {
		case err == nil:
			cur, err := snap.Load(ctx, e.Path)
			if err != nil {
				return err
			}
			if name := noteName(e.Path); name != noteName(m.Path) {
				renames[noteName(m.Path)] = name
			}
			m.Path, it.Path = e.Path, e.Path
			current[i] = cur
			continue
		case !errors.Is(err, ErrNotFound):
			return err
		}
		if m.Type == TypeDecision {
			if rej := s.scan(m.Title, m.Body); rej != nil {
				it.Outcome, it.Reason, it.Path = MineRejected, rej.Finding.Rule, ""
				continue
			}
			if s.checks.Dedup {
				fp := dedup.New(m.Title + "\n" + compare[i])
				all, err := s.similarMemories(ctx, snap, m, fp, compare[i])
				if err != nil {
					return err
				}
				all = append(all, pool.scoring(m, fp, s.checks.Thresholds.MinedRelated)...)
				dup, related := pickMined(s.checks.Thresholds, all)
				if dup != nil {
					it.Outcome, it.Ref, it.Path = MineDuplicate, dup.entry.ID, ""
					renames[noteName(m.Path)] = noteName(dup.path())
					continue
				}
				m.Related = noteNames(related)
				it.Related = m.Related
				pool.add(scored{entry: EntryOf(m), mem: m}, fp)
			}
		}
		if taken, err := s.pathTaken(ctx, snap, m.Path); err != nil {
			return err
		} else if taken {
			p, err := s.freePath(ctx, snap, m)
			if err != nil {
				return err
			}
			renames[noteName(m.Path)] = noteName(p)
			m.Path, it.Path = p, p
		}
		created = append(created, m)
	}
	for i, m := range notes {
		if o := res.Items[i].Outcome; o == MineDuplicate || o == MineRejected {
			continue
		}
		relink(m, renames)
		m.Provenance.SourceHash = MinedHash(m)
		cur := current[i]
		switch {
		case cur == nil:
			res.Items[i].Outcome = MineCreated
			continue
		case editedByPerson(cur):
			// Theirs now, whatever the transcript says: nothing of it is
			// written, not even the properties.
			res.Items[i].Outcome = MineKept
			continue
		case cur.Provenance.SourceHash == m.Provenance.SourceHash:
			res.Items[i].Outcome = MineUnchanged
		default:
			res.Items[i].Outcome = MineUpdated
		}
		// What the hash does not cover (the links and options of Fields,
		// the provenance) can change with the transcript alone: rewritten
		// while the note is cortex's.
		if tx == nil {
			continue
		}
		m.Created, m.Related, m.Status = cur.Created, cur.Related, cur.Status
		keys := append([]string(nil), mineKeys...)
		for _, f := range m.Fields {
			keys = append(keys, f.Key)
		}
		changed, err := tx.Rewrite(ctx, m, keys...)
		if err != nil {
			return err
		}
		if changed {
			res.Items[i].Outcome = MineUpdated
			tx.Record(Event{Time: stamp(), Op: OpUpdate, ID: m.ID, Path: m.Path, Title: m.Title})
		} else {
			res.Items[i].Outcome = MineUnchanged
		}
	}
	if tx == nil || len(created) == 0 {
		return nil
	}
	if err := tx.CreateAll(ctx, created); err != nil {
		return err
	}
	for _, m := range created {
		tx.Record(Event{Time: stamp(), Op: op, ID: m.ID, Path: m.Path, Title: m.Title})
	}
	return nil
}

// quotes says whether notes of type t quote the decisions they hold —
// sessions, episodes and meetings — and so are never the memory a decision
// repeats: a meeting's decision is not its own meeting note again.
func quotes(t Type) bool { return t == TypeSession || t == TypeEpisode || t == TypeMeeting }

// similarMemories scores the memories of m's project and general that the
// index proposes as like m, leaving out the notes that quote decisions
// (quotes).
func (s *Service) similarMemories(ctx context.Context, snap finder, m *Memory, fp *dedup.Fingerprint, text string) ([]scored, error) {
	terms := dedup.QueryTerms(m.Title, text, dedupQueryTerms)
	if fp.Empty() || len(terms) == 0 {
		return nil, nil
	}
	hits, err := snap.Search(ctx, SearchRequest{
		Text: strings.Join(terms, " "), AnyTerm: true, Rarest: dedupRarest, Projects: withGeneral(m.Project), Size: 2 * dedupCandidates,
	})
	if err != nil {
		return nil, fmt.Errorf("find similar memories: %w", err)
	}
	var all []scored
	for _, h := range hits {
		if quotes(h.Type) || len(all) == dedupCandidates {
			continue
		}
		other, err := snap.Load(ctx, h.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		// Links name other notes — a mined decision's name its session,
		// whose title may be this very decision — and are no content.
		all = append(all, scored{entry: h.Entry, score: dedup.Score(fp, dedup.New(other.Title+"\n"+withoutLinks(other.Body)))})
	}
	return all, nil
}

// wikiLink is an Obsidian link with its alias.
var wikiLink = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[\[[^\[\]]*\]\]`) })

// withoutLinks is text with its wiki links taken out.
func withoutLinks(text string) string {
	if !strings.Contains(text, "[[") {
		return text
	}
	return wikiLink().ReplaceAllString(text, "")
}

// pickMined applies the mined thresholds: the best memory scoring above
// MinedSkip is the duplicate; the others from MinedRelated up are related (up
// to maxRelated).
func pickMined(th dedup.Thresholds, all []scored) (*scored, []scored) {
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return all[i].entry.ID < all[j].entry.ID
	})
	if len(all) > 0 && all[0].score > th.MinedSkip {
		return &all[0], nil
	}
	var related []scored
	for _, c := range all {
		if len(related) == maxRelated || c.score < th.MinedRelated {
			break
		}
		related = append(related, c)
	}
	return nil, related
}

// pathFinder finds the note at a path. A Snapshot is one.
type pathFinder interface {
	ByPath(path string) (Entry, bool, error)
}

// pathTaken reports whether a file is at path.
func (s *Service) pathTaken(_ context.Context, snap pathFinder, p string) (bool, error) {
	_, ok, err := snap.ByPath(p)
	return ok, err
}

// freePath is m's path with more of its id in the name, when the short one
// is taken: "<name>-<8 chars>.md" becomes "<name>-<12 chars>.md", then the
// whole id.
func (s *Service) freePath(ctx context.Context, snap pathFinder, m *Memory) (string, error) {
	dir, base := path.Split(m.Path)
	short := m.ID[:min(MinPrefix, len(m.ID))]
	stem, ok := strings.CutSuffix(base, "-"+short+".md")
	if ok {
		for _, k := range []int{12, len(m.ID)} {
			p := dir + stem + "-" + m.ID[:min(k, len(m.ID))] + ".md"
			taken, err := s.pathTaken(ctx, snap, p)
			if err != nil {
				return "", err
			}
			if !taken {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("mine: %s: a note is already there", m.Path)
}

// noteName is how Obsidian links a note: its file name without ".md".
func noteName(p string) string { return strings.TrimSuffix(path.Base(p), ".md") }

// linkPattern finds wiki links: [[name]] and [[name|alias]].
var linkPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[\[([^\[\]|]+)([|\]])`) })

// relink points m's links (in its body and fields) at the names renames
// gives.
func relink(m *Memory, renames map[string]string) {
	if len(renames) == 0 {
		return
	}
	fix := func(s string) string {
		if !strings.Contains(s, "[[") {
			return s
		}
		return linkPattern().ReplaceAllStringFunc(s, func(l string) string {
			sub := linkPattern().FindStringSubmatch(l)
			if to, ok := renames[sub[1]]; ok {
				return "[[" + to + sub[2]
			}
			return l
		})
	}
	m.Body = fix(m.Body)
	for i := range m.Fields {
		f := &m.Fields[i]
		f.Value = fix(f.Value)
		// Two links that now go to one note are one link.
		var list []string
		seen := map[string]bool{}
		for _, v := range f.List {
			if v = fix(v); !seen[v] {
				seen[v] = true
				list = append(list, v)
			}
		}
		if f.List != nil {
			f.List = append([]string{}, list...)
		}
	}
}
