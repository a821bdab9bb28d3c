package transcript

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// Context is the state of one stream (one transcript file) between records:
// what Parse needs to know about the records before the current one. It
// allocates seqs, keeps event ids unique and remembers the current session and
// project; an adapter keeps its own state in it with StateOf.
//
// A Context is serialisable (MarshalJSON / UnmarshalJSON, deterministic bytes),
// so a reader can stop at a record boundary in one process and resume in
// another with the same events a full read gives.
type Context struct {
	source  SourceKind
	file    string
	seq     uint64
	session string
	project Project
	ids     map[string]struct{}
	// next is, per id given twice, the suffix UniqueID tries first: every
	// smaller one is taken (ids are never forgotten), so it only saves
	// trying them again. It is not saved; from 2 the answer is the same.
	next map[string]int

	state any             // the adapter's state (a pointer), once asked for
	saved json.RawMessage // the adapter's state as restored, until asked for
}

// NewContext starts the state of a stream of source read from file (the name
// events carry in their provenance).
func NewContext(source SourceKind, file string) *Context {
	return &Context{source: source, file: file, ids: map[string]struct{}{}}
}

// Source is the stream's tool.
func (c *Context) Source() SourceKind { return c.source }

// File is the stream's file name as events carry it.
func (c *Context) File() string { return c.file }

// Session is the current session id: the last one a record named.
func (c *Context) Session() string { return c.session }

// SetSession makes id the current session; an empty id changes nothing.
func (c *Context) SetSession(id string) {
	if id != "" {
		c.session = id
	}
}

// Project is the current project: the last one records described.
func (c *Context) Project() Project { return c.project }

// SetProject records what a record says about the project: non-empty fields
// replace the current ones.
func (c *Context) SetProject(p Project) {
	if p.Cwd != "" {
		c.project.Cwd = p.Cwd
	}
	if p.RepoRoot != "" {
		c.project.RepoRoot = p.RepoRoot
	}
	if p.Repository != "" {
		c.project.Repository = p.Repository
	}
	if p.GitBranch != "" {
		c.project.GitBranch = p.GitBranch
	}
	if p.GitSHA != "" {
		c.project.GitSHA = p.GitSHA
	}
}

// NextSeq is the seq the next event will get.
func (c *Context) NextSeq() uint64 { return c.seq }

// NewEvent starts an event of kind for rec: schema version, source, the next
// seq, a stream-unique id from id (see UniqueID; a content hash of the record
// when id is empty), the current session and project, and the record's
// provenance. The caller sets the payload and whatever else it knows.
func (c *Context) NewEvent(rec Record, kind Kind, id string) Event {
	if id == "" {
		id = HashID(rec.Data)
	}
	e := Event{
		SchemaVersion: SchemaVersion,
		Source:        c.source,
		SessionID:     c.session,
		Seq:           c.seq,
		EventID:       c.UniqueID(id),
		Project:       c.project,
		Kind:          kind,
		Provenance:    rec.Provenance(),
	}
	if e.Provenance.File == "" {
		e.Provenance.File = c.file
	}
	c.seq++
	return e
}

// UniqueID returns id, or id with "~2", "~3", … appended when the stream has
// already used it, and records the result as used.
func (c *Context) UniqueID(id string) string {
	// One hash of id where a look-up and then an insert would take two.
	n := len(c.ids)
	c.ids[id] = struct{}{}
	if len(c.ids) > n {
		return id
	}
	if c.next == nil {
		c.next = map[string]int{}
	}
	for n := max(2, c.next[id]); ; n++ {
		alt := id + "~" + strconv.Itoa(n)
		if _, ok := c.ids[alt]; !ok {
			c.ids[alt] = struct{}{}
			c.next[id] = n + 1
			return alt
		}
	}
}

// Grow makes room for n more event ids, for an adapter that knows how many
// events a record gives roughly (a whole task in one record): the ids' set
// is then not rebuilt again and again as it grows.
func (c *Context) Grow(n int) {
	// The set is rebuilt only for more ids than it holds, so that it at
	// least doubles: a stream of many small records, each asking for a few,
	// does not copy it at every record.
	if n <= 0 || n <= len(c.ids) {
		return
	}
	ids := make(map[string]struct{}, len(c.ids)+n)
	for id := range c.ids {
		ids[id] = struct{}{}
	}
	c.ids = ids
}

// Used reports whether the stream has given an event the id.
func (c *Context) Used(id string) bool {
	_, ok := c.ids[id]
	return ok
}

// HashID is the content-hash event id of data: "h-" and 16 hex digits of its
// SHA-256. Identical records get the same hash; UniqueID tells them apart.
func HashID(data ...[]byte) string {
	if len(data) == 1 {
		// Most ids hash one record: without a hash.Hash to allocate.
		sum := sha256.Sum256(data[0])
		return "h-" + hex.EncodeToString(sum[:8])
	}
	h := sha256.New()
	for i, d := range data {
		if i > 0 {
			h.Write([]byte{0})
		}
		h.Write(d)
	}
	var sum [sha256.Size]byte
	return "h-" + hex.EncodeToString(h.Sum(sum[:0])[:8])
}

// StateOf returns the adapter's state in c, creating it — from the state a
// resumed Context carried, when there is one — the first time it is asked
// for. T must round-trip through encoding/json; an adapter uses one T.
func StateOf[T any](c *Context) *T {
	if s, ok := c.state.(*T); ok {
		return s
	}
	s := new(T)
	if len(c.saved) > 0 {
		if err := json.Unmarshal(c.saved, s); err != nil {
			s = new(T)
		}
		c.saved = nil
	}
	c.state = s
	return s
}

type contextJSON struct {
	Source  SourceKind      `json:"source"`
	File    string          `json:"file"`
	Seq     uint64          `json:"seq"`
	Session string          `json:"session,omitempty"`
	Project Project         `json:"project,omitzero"`
	IDs     []string        `json:"ids,omitempty"`
	State   json.RawMessage `json:"state,omitempty"`
}

// MarshalJSON encodes the state deterministically (sorted ids, the adapter's
// state as encoding/json writes it: map keys sorted).
func (c *Context) MarshalJSON() ([]byte, error) {
	j := contextJSON{Source: c.source, File: c.file, Seq: c.seq, Session: c.session, Project: c.project}
	j.IDs = make([]string, 0, len(c.ids))
	for id := range c.ids {
		j.IDs = append(j.IDs, id)
	}
	slices.Sort(j.IDs)
	switch {
	case c.state != nil:
		b, err := json.Marshal(c.state)
		if err != nil {
			return nil, fmt.Errorf("encode %s parser state: %w", c.source, err)
		}
		j.State = b
	case len(c.saved) > 0:
		j.State = c.saved
	}
	return json.Marshal(j)
}

// UnmarshalJSON restores a state MarshalJSON wrote.
func (c *Context) UnmarshalJSON(b []byte) error {
	var j contextJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("decode parser state: %w", err)
	}
	*c = Context{source: j.Source, file: j.File, seq: j.Seq, session: j.Session, project: j.Project,
		ids: make(map[string]struct{}, len(j.IDs)), saved: j.State}
	for _, id := range j.IDs {
		c.ids[id] = struct{}{}
	}
	return nil
}

// Clone returns an independent copy of c (through its JSON form, so the
// adapter's state is copied deeply).
func (c *Context) Clone() (*Context, error) {
	b, err := c.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var d Context
	if err := d.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	return &d, nil
}
