package normalize

import (
	"context"
	"errors"
	"fmt"

	"github.com/cortexmem/cortex/inbox"
	"github.com/cortexmem/cortex/memories"
)

// manual saves a manual event as a memory, through the save path: validated,
// scanned (an unsafe text is refused into failed/ with the rule, and nothing
// is written) and compared with the memories there (a duplicate is
// processed: it is remembered already). Its project is the event's hint,
// else general.
func (n *Normalizer) manual(ctx context.Context, ev *inbox.Event, er *EventResult) error {
	req := memories.SaveRequest{
		Content: ev.Body, Project: ev.Project, Tags: ev.Tags, Source: memories.SourceCapture,
		Provenance: provenanceOf(ev), Created: ev.Time, ID: memories.KeyedID(ev.Time, "cortex-manual:"+ev.ID),
	}
	res, err := n.Service.Save(ctx, req)
	var rej *memories.RejectedError
	switch {
	case errors.As(err, &rej) && rej.Existing != nil:
		er.Notes = append(er.Notes, Note{ID: rej.Existing.ID, Type: rej.Existing.Type, Title: rej.Existing.Title,
			Path: rej.Existing.Path, Outcome: memories.MineDuplicate})
		er.Detail = fmt.Sprintf("already remembered as [%s] %s", rej.ShortID, rej.Existing.Title)
		return nil
	case errors.Is(err, memories.ErrRejected), errors.Is(err, memories.ErrInvalid):
		return &refusal{msg: err.Error()}
	case err != nil:
		return err
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
