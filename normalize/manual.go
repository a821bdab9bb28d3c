package normalize

import (
	"context"
	"errors"
	"fmt"

	"github.com/cortexmem/cortex/inbox"
	"github.com/cortexmem/cortex/memories"
)

// manuals saves a run of manual events as memories, in one write of the
// store, through the save path: each validated, scanned (an unsafe text is
// refused into failed/ with the rule, and nothing is written) and compared
// with the memories there and the captures before it (a duplicate is
// processed: it is remembered already). Its project is the event's hint,
// else general.
func (n *Normalizer) manuals(ctx context.Context, run []*pending) error {
	reqs := make([]memories.SaveRequest, len(run))
	for i, p := range run {
		ev := p.ev
		reqs[i] = memories.SaveRequest{
			Content: ev.Body, Project: ev.Project, Tags: ev.Tags, Source: memories.SourceCapture,
			Provenance: provenanceOf(ev), Created: ev.Time, ID: memories.KeyedID(ev.Time, "cortex-manual:"+ev.ID),
		}
	}
	items, err := n.Service.SaveCaptures(ctx, reqs)
	if err != nil {
		return err
	}
	for _, it := range items {
		// An error not about the capture (the audit log failing) stops
		// the pass, as the store failing does.
		if it.Err != nil && !errors.Is(it.Err, memories.ErrRejected) && !errors.Is(it.Err, memories.ErrInvalid) {
			return it.Err
		}
	}
	for i, p := range run {
		p.err = manualOutcome(items[i].Result, items[i].Err, p.er)
	}
	return nil
}

// manualOutcome describes the save of a manual event in er; a refusal is
// returned.
func manualOutcome(res *memories.SaveResult, err error, er *EventResult) error {
	var rej *memories.RejectedError
	switch {
	case errors.As(err, &rej) && rej.Existing != nil:
		er.Notes = append(er.Notes, Note{ID: rej.Existing.ID, Type: rej.Existing.Type, Title: rej.Existing.Title,
			Path: rej.Existing.Path, Outcome: memories.MineDuplicate})
		er.Detail = fmt.Sprintf("already remembered as [%s] %s", rej.ShortID, rej.Existing.Title)
		return nil
	case err != nil: // rejected or invalid (manuals returned any other)
		return &refusal{msg: err.Error()}
	}
	outcome, verb := memories.MineCreated, "saved"
	if res.Existed {
		outcome, verb = NoteExisted, "saved by an earlier pass"
	}
	er.Notes = append(er.Notes, Note{ID: res.ID, Type: memories.DefaultType, Title: res.Title, Path: res.Path, Outcome: outcome})
	er.Detail = fmt.Sprintf("memory %s [%s] '%s' in %s", verb, res.ShortID, res.Title, res.Project)
	return nil
}

// provenanceOf is where notes made from ev came from: the event, its session
// and the agent that sent it.
func provenanceOf(ev *inbox.Event) memories.Provenance {
	p := memories.Provenance{EventIDs: []string{ev.ID}, SourceSession: ev.Session}
	switch ev.Origin {
	case inbox.OriginHook:
		p.SourceTool = ev.Client
	case inbox.OriginMCP:
		p.Client = ev.Client
	}
	return p
}
