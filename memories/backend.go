package memories

import (
	"context"
	"time"

	"github.com/cortexmem/cortex/dedup"
)

// Backend is the storage the services work on: the vault, which is the truth,
// and its index, a cache kept consistent with it. The store package implements it.
type Backend interface {
	// View runs fn on a snapshot that reflects the vault as it is now. Changes
	// made in the vault behind cortex's back (in Obsidian, say) are indexed first.
	View(ctx context.Context, fn func(Snapshot) error) error
	// Update runs fn holding the store's write lock, on an up-to-date snapshot.
	// Every write fn makes is durable when it returns; the map of contents and the
	// event log are brought up to date once, after fn.
	Update(ctx context.Context, fn func(Tx) error) error
	// Log adds an event to the audit log without writing anything else (a
	// refusal).
	Log(ctx context.Context, ev Event) error
}

// DeferredIndexer is a Backend that can leave its full-text index behind a
// write: the write is durable in the vault and the index's own log, and the
// next read catches the index up. Its searches still see what is owed, but
// not ranked as the index would rank it, so only a single save, which must
// be quick, uses it; batches (import, normalize) use Update, whose searches
// do not depend on when the index last caught up.
type DeferredIndexer interface {
	UpdateDeferred(ctx context.Context, fn func(Tx) error) error
}

// CheckPreparer is a Backend that can make ahead of the first save what
// its duplicate check reads (PrepareChecks): a store's word indexes, which
// the first save after a rebuild otherwise makes before it answers.
type CheckPreparer interface {
	// PrepareWordOverlaps makes what WordOverlaps reads for every project,
	// build being the word set and keys of a memory (memoryWordsAndKeys).
	PrepareWordOverlaps(ctx context.Context, build func(title, body string) ([]uint64, dedup.Keys)) error
}

// Snapshot reads the store.
type Snapshot interface {
	// Entries lists every indexed memory, superseded ones included, in no
	// particular order. The slice must not be modified.
	Entries() ([]Entry, error)
	// Get returns the entry of the memory with exactly this id.
	Get(id string) (Entry, error)
	// ByPath returns the entry of the readable note at path (relative to
	// cortex's folder), and false when there is none.
	ByPath(path string) (Entry, bool, error)
	// IDsWithPrefix lists, sorted, up to limit ids that start with prefix
	// (every one when limit ≤ 0).
	IDsWithPrefix(prefix string, limit int) ([]string, error)
	// ShortID abbreviates id to its shortest unique prefix of at least
	// MinPrefix characters.
	ShortID(id string) string
	// Search runs a ranked full-text search over the index.
	Search(ctx context.Context, req SearchRequest) ([]Hit, error)
	// Load reads one note from the vault.
	Load(ctx context.Context, path string) (*Memory, error)
}

// Tx reads and writes the store under its write lock.
type Tx interface {
	Snapshot
	// Create writes m as a new note, sets m.Path, and indexes it.
	Create(ctx context.Context, m *Memory) error
	// AssignPaths gives each memory without a Path the note path it will be
	// written at, writing nothing: a batch can then link its memories to each
	// other before they exist.
	AssignPaths(ms []*Memory) error
	// CreateAll writes many new notes, each at its Path (assigned when empty),
	// with one flush of the disk, and indexes them. On an error nothing more
	// is written than the notes that were already whole.
	CreateAll(ctx context.Context, ms []*Memory) error
	// Patch rewrites the named frontmatter keys of an existing note from m,
	// leaving every other key and the body as they are, and re-indexes it.
	Patch(ctx context.Context, m *Memory, keys ...string) error
	// Rewrite is Patch that also replaces the body with m.Body. It writes
	// and re-indexes nothing, and reports false, when the note already
	// reads so.
	Rewrite(ctx context.Context, m *Memory, keys ...string) (bool, error)
	// Record adds an event to the audit log.
	Record(ev Event)
}

// SearchRequest asks the index for candidates.
type SearchRequest struct {
	// Text is searched literally in titles (boosted), bodies and tags. Empty
	// matches every memory that passes the filters, newest first.
	Text string
	// AnyTerm relaxes the match from every term of Text to any of them.
	AnyTerm bool
	// Synonyms gives other spellings of words of Text (lower case): a memory
	// that has one of them matches the word.
	Synonyms map[string][]string
	// Phrases adds to the score of a memory each pair of neighbouring words of
	// Text that it has too.
	Phrases bool
	// Compounds also matches a pair of neighbouring words of Text written as
	// one word in a memory, and a word of Text written as two ("road trip",
	// "roadtrip", "road-trip").
	Compounds bool
	// Rarest, when above 0, narrows Text to that many of its terms: those
	// found in the fewest memories (terms found in none are dropped). A search
	// for texts like a given one needs only its distinctive words.
	Rarest int
	// K1 and B, when K1 is above 0, are BM25's parameters for this search
	// instead of the index's (1.2 and 0.75, the usual ones).
	K1, B float64

	Project string
	// Projects, when set, keeps memories of any of these projects.
	Projects []string
	Area     string
	Type     Type
	// Status, when set, keeps memories of this status only.
	Status Status
	// Tags keeps memories that have every one of these tags.
	Tags []string
	// UpdatedSince, when set, keeps memories updated at or after it.
	UpdatedSince time.Time
	// CreatedIn, when set, keeps memories created in the hours (UTC) these
	// spans touch: every memory created in a span, and maybe some created
	// less than an hour before or after it.
	CreatedIn []TimeSpan
	// SourceHashes, when set, keeps memories imported from a source with one
	// of these fingerprints (Provenance.SourceHash).
	SourceHashes      []string
	IncludeSuperseded bool

	// Size is how many hits to return at most.
	Size int
	// AtLeast, when above 0, lets a search that would find fewer than
	// AtLeast hits return none: a caller that searches again when a search
	// finds too few (for any word instead of every word) needs no more, and
	// the search can stop once it knows there are too few, before it scores
	// anything.
	AtLeast int
}

// TimeSpan is the times from From to To, both included.
type TimeSpan struct{ From, To time.Time }

// Hit is one search result: the catalog entry and its full-text score.
type Hit struct {
	Entry
	// Score is the BM25 score, 0 when the request had no text.
	Score float64
}

// Event is one line of the audit log (events.jsonl).
type Event struct {
	// Time is when the change was made (Service.eventTime), never the date
	// a note carries: an imported or mined note is dated by its source.
	Time   time.Time `json:"ts"`
	Op     string    `json:"op"`
	ID     string    `json:"id"`
	Path   string    `json:"path,omitempty"`
	Title  string    `json:"title,omitempty"`
	Ref    string    `json:"ref,omitempty"` // the other memory: superseded, or duplicated
	Reason string    `json:"reason,omitempty"`
	// Rule and Hash describe a refusal: the rule that fired and a hash of the
	// refused text, which itself is written nowhere.
	Rule string `json:"rule,omitempty"`
	Hash string `json:"hash,omitempty"`
	// Vault is the vault the change was made in: the log is shared by every
	// vault of a state folder. The store fills it in.
	Vault string `json:"vault,omitempty"`
}

// Audit log operations.
const (
	OpSave             = "save"
	OpUpdate           = "update"
	OpSupersede        = "supersede"
	OpDeleteBySupersed = "delete-by-supersede"
	OpImport           = "import"
	OpReject           = "reject"
)
