package memories

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxReasonChars bounds a supersede reason.
const MaxReasonChars = 500

// SupersedeRequest retires a memory, optionally replacing it. With no replacement
// it is how a memory is deleted; with a near-copy it is how one is updated.
type SupersedeRequest struct {
	ID string
	// Replacement is the content of the new memory; empty retires the old one
	// without a successor.
	Replacement string
	// Title of the replacement; empty derives it from the replacement, whose
	// first line says what is true now (the old title may not).
	Title  string
	Reason string
	// Source and Client are the replacement's source (empty: SourceUser)
	// and the MCP client that asked for it (Provenance.Client).
	Source Source
	Client string
}

// SupersedeResult reports the status change and the replacement, if any.
type SupersedeResult struct {
	OldID      string      `json:"old_id"`
	OldShortID string      `json:"old_short_id"`
	OldTitle   string      `json:"old_title"`
	Status     Status      `json:"status"`
	New        *SaveResult `json:"new,omitempty"`
}

// Message is the confirmation the CLI prints and the MCP tool returns.
func (r *SupersedeResult) Message() string {
	if r.New == nil {
		return fmt.Sprintf("Memory retired: %s '%s' is now %s (no replacement)", r.OldShortID, r.OldTitle, r.Status)
	}
	return fmt.Sprintf("Memory superseded: %s '%s' → %s '%s'", r.OldShortID, r.OldTitle, r.New.ShortID, r.New.Title)
}

// Supersede marks a memory superseded and, given a replacement, saves the new
// memory that takes its place. The old note stays in the vault.
func (s *Service) Supersede(ctx context.Context, req SupersedeRequest) (*SupersedeResult, error) {
	reason := strings.TrimSpace(req.Reason)
	if !utf8.ValidString(reason) || strings.ContainsAny(reason, "\r\n") {
		return nil, invalid("reason", "must be one line of UTF-8 text")
	}
	if n := utf8.RuneCountInString(reason); n > MaxReasonChars {
		return nil, invalid("reason", "is %d characters; the maximum is %d", n, MaxReasonChars)
	}
	var res *SupersedeResult
	err := s.backend.Update(ctx, func(tx Tx) error {
		id, err := ResolveID(tx, req.ID)
		if err != nil {
			return err
		}
		entry, err := tx.Get(id)
		if err != nil {
			return err
		}
		if !entry.Live() {
			by := ""
			if entry.SupersededBy != "" {
				by = " by " + entry.SupersededBy
			}
			return fmt.Errorf("%w: memory %s is already superseded%s", ErrRejected, entry.ID, by)
		}
		old, err := tx.Load(ctx, entry.Path)
		if err != nil {
			return err
		}
		// The index's id is the memory's identity: a copied note carries its
		// original's id in its file but is known by another.
		old.ID = entry.ID
		if old.Symlink != "" {
			// Checked before anything is written: marking the note would
			// replace the person's link with a file, which the vault refuses.
			return fmt.Errorf("%w: memory %s is the note %s, a symbolic link to %s: cortex never rewrites a link you made "+
				"(edit the note it leads to, or replace the link with the note)", ErrRejected, old.ID, old.Path, old.Symlink)
		}
		now := s.now().UTC().Truncate(1e9)
		var repl *Memory
		if strings.TrimSpace(req.Replacement) != "" {
			repl, err = s.newMemory("replacement", SaveRequest{
				Content: req.Replacement, Title: req.Title, Tags: old.Tags, Project: old.Project,
				Area: old.Area, Type: knownType(old.Type), Importance: old.Importance,
				Source: req.Source, Provenance: Provenance{DerivedFrom: old.ID, Client: req.Client},
			})
			if err != nil {
				return err
			}
			if err := s.screen(ctx, repl.Title, repl.Body); err != nil {
				return err
			}
			// A replacement may be a near-copy of what it replaces (that is
			// how a memory is updated), never of another memory.
			dup, related, err := s.compare(ctx, tx, repl, old.ID)
			if err != nil {
				return err
			}
			if dup != nil {
				return s.refuseDuplicate(tx, tx, repl, dup)
			}
			repl.Related = noteNames(related)
			repl.Supersedes, repl.SupersedesNote = old.ID, old.Path
			if err := tx.Create(ctx, repl); err != nil {
				return err
			}
			tx.Record(Event{Time: now, Op: OpSave, ID: repl.ID, Path: repl.Path, Title: repl.Title, Ref: old.ID})
		}
		// updated moves too: the map of contents lists superseded memories
		// most recently changed first, so this one goes to the top.
		old.Status = StatusSuperseded
		old.Updated = now
		old.SupersededAt = now
		old.SupersedeReason = reason
		keys := []string{"status", "updated", "superseded_at", "supersede_reason"}
		op := OpDeleteBySupersed
		if repl != nil {
			old.SupersededBy, old.SupersededByNote = repl.ID, repl.Path
			keys = append(keys, "superseded_by")
			op = OpSupersede
		}
		if err := tx.Patch(ctx, old, keys...); err != nil {
			return err
		}
		tx.Record(Event{Time: now, Op: op, ID: old.ID, Path: old.Path, Title: old.Title, Ref: old.SupersededBy, Reason: reason})
		res = &SupersedeResult{OldID: old.ID, OldShortID: tx.ShortID(old.ID), OldTitle: old.Title, Status: old.Status}
		if repl != nil {
			res.New = &SaveResult{ID: repl.ID, ShortID: tx.ShortID(repl.ID), Title: repl.Title, Project: repl.Project, Path: repl.Path}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// knownType is t when it is a memory type, else the default: a note made by hand
// may carry a type cortex does not know, which its replacement should not fail on.
func knownType(t Type) string {
	if _, err := ParseType(string(t)); err != nil {
		return string(DefaultType)
	}
	return string(t)
}
