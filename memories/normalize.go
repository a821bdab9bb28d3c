package memories

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Normalize (package normalize) turns the events of the capture inbox into
// notes. What of it touches the store is here: the session records it keeps
// (Record), the screening of what an event holds (Screen); its memories go
// through Save and its meeting notes through Mine, each with ids derived from
// the event, so that an event normalized twice — a run killed after its notes
// were written, before the event left the inbox — writes nothing twice.

// OpNormalize is the audit-log operation of a note normalize wrote.
const OpNormalize = "normalize"

// MaxRecordEvents is how many event ids a record keeps in its provenance:
// the latest. Events are normalized in the order they arrived, so the one an
// interrupted run may normalize again is always among them.
const MaxRecordEvents = 20

// Screen runs the safety scan of a save on a title and content: nil when
// they are safe (or the scan is off), else a *RejectedError naming the rule,
// recorded in the audit log by rule and hash only.
func (s *Service) Screen(ctx context.Context, title, content string) error {
	return s.screen(ctx, title, content)
}

// SaveCaptures saves what normalize takes from manual captures, each as Save
// would in turn, in one write of the store: validated, scanned (an unsafe one
// refused, and logged), compared with the memories there and with the
// captures before it in reqs (a duplicate of either refused, naming the
// memory it repeats), written with one flush of the disk. Each request has
// its keyed id (memories.KeyedID): one an earlier pass saved is not checked
// again, its result says Existed, and the captures after it are compared
// with it. The caller must be the only writer of these ids (normalize holds
// the inbox's lock). One request's failure never stops the others; an
// error that is not about a request (the store failing) is returned, and
// nothing is written but whole notes.
func (s *Service) SaveCaptures(ctx context.Context, reqs []SaveRequest) ([]BatchItem, error) {
	known := make([]*Entry, len(reqs))
	existed := make([]*SaveResult, len(reqs))
	err := s.backend.View(ctx, func(snap Snapshot) error {
		for i, req := range reqs {
			if req.ID == "" {
				return fmt.Errorf("save captures: request %d has no id", i)
			}
			res, err := existingResult(snap, req.ID)
			if err != nil || res == nil {
				if err != nil {
					return err
				}
				continue
			}
			e, err := snap.Get(req.ID)
			if err != nil {
				return err
			}
			known[i], existed[i] = &e, res
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	items, err := s.saveBatch(ctx, reqs, batchOptions{known: known})
	if err != nil {
		return nil, err
	}
	saved := map[string]*SaveResult{}
	for i := range items {
		if existed[i] != nil && items[i].Err == nil {
			items[i].Result = existed[i]
		}
		if r := items[i].Result; r != nil {
			saved[r.ID] = r
		}
	}
	// A duplicate of a capture of the same batch names it as a duplicate of
	// a memory saved before names that: by its path and short id.
	for i := range items {
		var rej *RejectedError
		if errors.As(items[i].Err, &rej) && rej.InBatch && rej.Existing != nil {
			if r := saved[rej.Existing.ID]; r != nil {
				e := *rej.Existing
				e.Path = r.Path
				rej.Existing, rej.ShortID, rej.InBatch = &e, r.ShortID, false
			}
		}
	}
	return items, nil
}

// RecordRequest adds one entry — one event — to a record: a note that
// collects what many events said about one thing (a session's ends and
// compactions), found again by its key.
type RecordRequest struct {
	// Key names what the record is of ("claude-code/<session id>"). The
	// record keeps it as its provenance's source_hash, by which the next
	// entry finds it wherever a person moved it.
	Key string
	// EventID is the event the entry records. A record that lists it already
	// (Provenance.EventIDs) has the entry: nothing is written.
	EventID string
	// Note is the record to create when none has the key: ID, Path (relative
	// to the cortex folder), Title, Type, Project, Source, dates, Fields,
	// Provenance and a Body that holds the entry.
	Note *Memory
	// Entry is what is appended to an existing record's body.
	Entry string
	// Fields replace the properties of the same keys of an existing record
	// (the latest transcript, the notes made from it).
	Fields []Field
	// Time is the entry's time: the record's updated date when it is later
	// than the record's.
	Time time.Time
}

// The outcomes of a record request.
const (
	RecordCreated   = "created"
	RecordAppended  = "appended"
	RecordUnchanged = "unchanged" // the record has the entry already
	RecordKept      = "kept"      // a symbolic link a person made: never rewritten
)

// RecordResult is what became of a record.
type RecordResult struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Outcome string `json:"outcome"`
}

// Record adds req's entry to the record of req.Key, creating the record when
// there is none. The entry is appended to the body as it is now: what a
// person wrote into the record is kept.
func (s *Service) Record(ctx context.Context, req RecordRequest) (*RecordResult, error) {
	res, err := s.RecordAll(ctx, []RecordRequest{req})
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// RecordAll is Record for each of reqs, in one write of the store: normalize
// records the sessions of one pass at once. Their keys must differ (an entry
// for a record another request creates or changes waits for the next
// write). An error writes none of them.
func (s *Service) RecordAll(ctx context.Context, reqs []RecordRequest) ([]*RecordResult, error) {
	keys := make(map[string]bool, len(reqs))
	for _, req := range reqs {
		n := req.Note
		switch {
		case req.Key == "" || req.EventID == "":
			return nil, fmt.Errorf("record: a key and an event id are needed")
		case n == nil || n.ID == "" || !strings.HasSuffix(n.Path, ".md"):
			return nil, fmt.Errorf("record %s: the note to create must have an id and a .md path", req.Key)
		case keys[req.Key]:
			return nil, fmt.Errorf("record %s: two entries for one record in one write", req.Key)
		}
		keys[req.Key] = true
	}
	out := make([]*RecordResult, len(reqs))
	err := s.backend.Update(ctx, func(tx Tx) error {
		for i, req := range reqs {
			res, err := s.record(ctx, tx, req)
			if err != nil {
				return err
			}
			out[i] = res
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// record adds req's entry to its record in tx.
func (s *Service) record(ctx context.Context, tx Tx, req RecordRequest) (*RecordResult, error) {
	n := req.Note
	var res *RecordResult
	cur, err := findRecord(ctx, tx, req.Key, n.ID)
	if err != nil {
		return nil, err
	}
	if cur == nil {
		m := n.Clone()
		m.Provenance.SourceHash = req.Key
		m.Provenance.EventIDs = lastIDs(append(m.Provenance.EventIDs, req.EventID))
		if taken, err := s.pathTaken(ctx, tx, m.Path); err != nil {
			return nil, err
		} else if taken {
			if m.Path, err = s.freePath(ctx, tx, m); err != nil {
				return nil, err
			}
		}
		if err := tx.CreateAll(ctx, []*Memory{m}); err != nil {
			return nil, err
		}
		tx.Record(Event{Time: s.eventTime(), Op: OpNormalize, ID: m.ID, Path: m.Path, Title: m.Title})
		res = &RecordResult{ID: m.ID, Path: m.Path, Outcome: RecordCreated}
		return res, nil
	}
	res = &RecordResult{ID: cur.ID, Path: cur.Path, Outcome: RecordUnchanged}
	switch {
	case slices.Contains(cur.Provenance.EventIDs, req.EventID):
		return res, nil
	case cur.Symlink != "":
		res.Outcome = RecordKept
		return res, nil
	}
	m := cur.Clone()
	m.Body = strings.TrimRight(cur.Body, "\n") + "\n" + req.Entry
	if !strings.HasSuffix(m.Body, "\n") {
		m.Body += "\n"
	}
	m.Provenance.EventIDs = lastIDs(append(m.Provenance.EventIDs, req.EventID))
	m.Provenance.SourceHash = req.Key
	if t := req.Time.UTC().Truncate(time.Second); t.After(m.Updated) {
		m.Updated = t
	}
	m.Fields = req.Fields
	keys := []string{"updated", "provenance"}
	for _, f := range req.Fields {
		keys = append(keys, f.Key)
	}
	changed, err := tx.Rewrite(ctx, m, keys...)
	if err != nil {
		return nil, err
	}
	if changed {
		res.Outcome = RecordAppended
		tx.Record(Event{Time: s.eventTime(), Op: OpUpdate, ID: m.ID, Path: m.Path, Title: m.Title})
	}
	return res, nil
}

// findRecord loads the record of key: the note whose provenance keeps it,
// else the note with the id a new record would get (one a person stripped of
// its key); nil when there is neither.
func findRecord(ctx context.Context, tx Tx, key, id string) (*Memory, error) {
	hits, err := tx.Search(ctx, SearchRequest{SourceHashes: []string{key}, IncludeSuperseded: true, Size: 2})
	if err != nil {
		return nil, fmt.Errorf("find the record of %s: %w", key, err)
	}
	path := ""
	if len(hits) > 0 {
		path = hits[0].Path
	} else if e, err := tx.Get(id); err == nil {
		path = e.Path
	} else if !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	if path == "" {
		return nil, nil
	}
	return tx.Load(ctx, path)
}

// lastIDs keeps the latest MaxRecordEvents ids.
func lastIDs(ids []string) []string {
	if len(ids) > MaxRecordEvents {
		ids = ids[len(ids)-MaxRecordEvents:]
	}
	return ids
}
