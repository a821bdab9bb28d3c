// Package normalize is the single consumer of the capture inbox: it turns
// the events hooks, `cortex capture` and the MCP capture tool leave in
// pending/ into notes, in the order they arrived (SPEC §4.8), holding the
// inbox's lock for the whole pass:
//
//   - stop and pre_compact: the transcript the event names (or, when it names
//     none, the one discovery finds for its session) goes through the
//     transcript pipeline into session, decision and episode notes — the
//     runner of `cortex scribe run --to-vault`, its read offsets included, so
//     that only what is new is read — and the session's record, one note per
//     session, gets a line for the event;
//   - meeting: a meeting note, one note per action item and one per decision
//     (ParseMeeting), linked to the meeting;
//   - manual: a memory, through the save path (scan, dedup); the manual
//     captures that follow each other in the inbox are saved in one write of
//     the store, each compared with those before it.
//
// Then the event moves to processed/, or to failed/ with the reason beside it
// when it cannot be used (it does not parse; its content is unsafe or
// invalid). An error that is not the event's (the store failing) stops the
// pass and leaves the event pending, for the next pass.
//
// A pass killed at any moment loses and doubles nothing: every note's id is
// derived from the event's (memories.KeyedID), so a pass run again after the
// notes were written finds them and writes nothing, and an event leaves
// pending/ only after its notes are durable.
package normalize

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/cortexmem/cortex/filelock"
	"github.com/cortexmem/cortex/inbox"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

// Service is what normalize writes notes with: memories.Service.
type Service interface {
	SaveCaptures(ctx context.Context, reqs []memories.SaveRequest) ([]memories.BatchItem, error)
	Mine(ctx context.Context, req memories.MineRequest) (*memories.MineResult, error)
	RecordAll(ctx context.Context, reqs []memories.RecordRequest) ([]*memories.RecordResult, error)
	Screen(ctx context.Context, title, content string) error
}

// TranscriptRunner reads transcripts into notes: scribe.Runner, as `cortex
// scribe run --to-vault` makes it.
type TranscriptRunner interface {
	Run(ctx context.Context, files []scribe.File) (*scribe.RunResult, error)
}

var (
	_ Service          = (*memories.Service)(nil)
	_ TranscriptRunner = (*scribe.Runner)(nil)
)

// DefaultWait is how long `cortex normalize` waits for another run's pass
// to end.
const DefaultWait = 2 * time.Second

// Normalizer consumes one vault's capture inbox.
type Normalizer struct {
	Inbox   *inbox.Inbox
	Service Service
	// Transcripts reads stop and pre_compact events' transcripts; without
	// it only their sessions' records are written.
	Transcripts TranscriptRunner
	// Env is where discovery looks for the transcript of an event that
	// names a session but no transcript (Codex may give none).
	Env transcript.Env
	// Wait bounds the wait for another run's pass (the CLI's default is
	// DefaultWait); 0 does not wait.
	Wait time.Duration
	// KeepProcessed is how long consumed events stay in processed/: those
	// captured longer ago are removed at the end of each pass. 0 removes
	// them all; negative keeps them.
	KeepProcessed time.Duration
	// Now is the clock (for KeepProcessed); time.Now when nil.
	Now func() time.Time
}

// The outcomes of an event.
const (
	Processed = "processed"
	Failed    = "failed"
)

// Result is what a pass did.
type Result struct {
	Events []EventResult `json:"events"`
	// Pending is how many events were left in pending/: those an error
	// stopped the pass before.
	Pending int `json:"pending"`
	// Pruned is how many processed events were removed (KeepProcessed).
	Pruned int `json:"pruned"`
}

// Count is how many events had the outcome.
func (r *Result) Count(outcome string) int {
	n := 0
	for _, e := range r.Events {
		if e.Outcome == outcome {
			n++
		}
	}
	return n
}

// EventResult is what became of one event.
type EventResult struct {
	ID      string     `json:"id"`
	Type    inbox.Type `json:"type"`
	Client  string     `json:"client,omitempty"`
	Session string     `json:"session,omitempty"`
	// Outcome is Processed or Failed.
	Outcome string `json:"outcome"`
	// Detail says in a line what the event became.
	Detail string `json:"detail"`
	// Error is why a failed event could not be used (also in
	// failed/<id>.error).
	Error string `json:"error,omitempty"`
	// Notes are the notes the event made or found, in the order written.
	Notes []Note `json:"notes"`
	// Warnings are problems that did not fail the event (a transcript that
	// could not be read).
	Warnings []string `json:"warnings,omitempty"`
}

// NoteExisted is the outcome of a note an earlier pass wrote for the same
// event (a pass interrupted before it moved the event on).
const NoteExisted = "existed"

// Note is one note an event made or found.
type Note struct {
	ID    string        `json:"id"`
	Type  memories.Type `json:"type"`
	Title string        `json:"title"`
	Path  string        `json:"path,omitempty"`
	// Outcome is what was done: created, updated, unchanged, appended,
	// existed (written by an earlier pass), kept (a person's edit), duplicate
	// (what a memory already holds).
	Outcome string `json:"outcome"`
}

// BusyError says another run holds the inbox: its pass takes the events.
type BusyError struct {
	Lock string
	Wait time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("another normalize is running (it has held %s for more than %s); its pass takes the pending events", e.Lock, e.Wait)
}

// Unwrap makes errors.Is(err, memories.ErrBusy) true.
func (e *BusyError) Unwrap() error { return memories.ErrBusy }

// refusal is an event that cannot be used: it goes to failed/ with msg.
type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

func refuse(format string, a ...any) error { return &refusal{msg: fmt.Sprintf(format, a...)} }

// Run takes the inbox's lock and normalizes every event pending when it
// starts, oldest first; events captured meanwhile wait for the next pass.
// Another run's pass is a *BusyError. An error that is not an event's own
// stops the pass: the result says what was done before it, and the event
// stays pending.
func (n *Normalizer) Run(ctx context.Context) (*Result, error) {
	wait := max(n.Wait, 0)
	lock, err := n.Inbox.Lock(ctx, wait)
	if err != nil {
		var le *filelock.LockError
		if errors.As(err, &le) && le.Context == nil {
			return nil, &BusyError{Lock: n.Inbox.LockPath(), Wait: wait}
		}
		return nil, err
	}
	defer lock.Release()
	// A pass killed while it wrote a failed event's reason leaves a
	// temporary file behind; so does a capture killed mid-write.
	if _, err := n.Inbox.SweepTemps(n.now()); err != nil {
		return nil, err
	}
	names, err := n.Inbox.PendingEvents()
	if err != nil {
		return nil, err
	}
	res := &Result{Events: []EventResult{}}
	for i := 0; i < len(names); {
		if err := ctx.Err(); err != nil {
			res.Pending = len(names) - i
			return res, err
		}
		// A run of manual captures is saved in one write of the store, the
		// records of a run of session ends (of different sessions) in
		// another; any other event alone.
		run := []*pending{n.read(names[i])}
		keys := map[string]bool{}
		if run[0].isSession() {
			keys[recordKey(run[0].ev)] = true
		}
		for j := i + 1; j < len(names) && len(run) < maxCaptureBatch && (run[0].isManual() || run[0].isSession()); j++ {
			p := n.read(names[j])
			if run[0].isManual() && !p.isManual() || run[0].isSession() && (!p.isSession() || keys[recordKey(p.ev)]) {
				// The event is read again as the first of the next run.
				break
			}
			if p.isSession() {
				keys[recordKey(p.ev)] = true
			}
			run = append(run, p)
		}
		var err error
		switch {
		case run[0].isManual():
			err = n.manuals(ctx, run)
		case run[0].isSession():
			// The events before one whose transcript the store failed to
			// take are recorded, and settled below.
			var done int
			done, err = n.sessions(ctx, run)
			run = run[:done]
		default:
			err = n.handle(ctx, run[0])
		}
		if err != nil && len(run) == 0 || err != nil && !run[0].isSession() {
			res.Pending = len(names) - i
			return res, fmt.Errorf("normalize event %s: %w", inbox.IDOf(names[i]), err)
		}
		for _, p := range run {
			if err := n.settle(p); err != nil {
				res.Pending = len(names) - i
				return res, fmt.Errorf("normalize event %s: %w", inbox.IDOf(p.name), err)
			}
			i++
			if !p.gone {
				res.Events = append(res.Events, *p.er)
			}
		}
		if err != nil {
			res.Pending = len(names) - i
			return res, fmt.Errorf("normalize event %s: %w", inbox.IDOf(names[i]), err)
		}
	}
	if n.KeepProcessed >= 0 {
		res.Pruned, err = n.Inbox.PruneProcessed(n.now().Add(-n.KeepProcessed))
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// maxCaptureBatch bounds the manual captures saved in one write: the store's
// write lock is not held up for long.
const maxCaptureBatch = 100

// pending is one event of a pass: read, then handled, then moved on.
type pending struct {
	name string
	ev   *inbox.Event
	er   *EventResult
	// err is what became of the event: nil, a *refusal (to failed/), or
	// set while it is read.
	err error
	// gone says the event file was removed (a person did).
	gone bool
}

func (p *pending) isManual() bool { return p.err == nil && !p.gone && p.ev.Type == inbox.TypeManual }

// isSession says the event ends or compacts a session: its transcript is
// read and its session's record written.
func (p *pending) isSession() bool {
	return p.err == nil && !p.gone && (p.ev.Type == inbox.TypeStop || p.ev.Type == inbox.TypePreCompact)
}

// read reads and parses the pending event name.
func (n *Normalizer) read(name string) *pending {
	p := &pending{name: name, er: &EventResult{ID: inbox.IDOf(name), Notes: []Note{}}}
	data, err := n.Inbox.ReadPending(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.gone = true
		return p
	case err != nil:
		p.err = refuse("cannot read the event file: %v", err)
		return p
	}
	ev, err := inbox.Parse(data)
	if err != nil {
		p.err = &refusal{msg: err.Error()}
		return p
	}
	p.ev = ev
	p.er.ID, p.er.Type, p.er.Client, p.er.Session = ev.ID, ev.Type, ev.Client, ev.Session
	return p
}

// handle turns one event other than a manual capture into notes. An error
// that is not the event's own is returned; the event's own (a refusal) is
// kept in p.err.
func (n *Normalizer) handle(ctx context.Context, p *pending) error {
	if p.err != nil || p.gone {
		return nil
	}
	var err error
	switch p.ev.Type {
	case inbox.TypeStop, inbox.TypePreCompact:
		_, err = n.sessions(ctx, []*pending{p})
	case inbox.TypeMeeting:
		err = n.meeting(ctx, p.ev, p.er)
	default:
		err = refuse("type %q has no handler", p.ev.Type)
	}
	var ref *refusal
	if errors.As(err, &ref) {
		p.err = ref
		return nil
	}
	return err
}

// settle moves a handled event on: to failed/ with its refusal, else to
// processed/, once its notes are durable.
func (n *Normalizer) settle(p *pending) error {
	if p.gone {
		return nil
	}
	var ref *refusal
	if errors.As(p.err, &ref) {
		p.er.Outcome, p.er.Error, p.er.Detail = Failed, ref.msg, "failed: "+ref.msg
		p.er.Notes = []Note{}
		return n.Inbox.MarkFailed(p.name, ref.msg)
	}
	if err := n.Inbox.MarkProcessed(p.name); err != nil {
		return err
	}
	p.er.Outcome = Processed
	return nil
}

func (n *Normalizer) now() time.Time {
	if n.Now != nil {
		return n.Now()
	}
	return time.Now()
}
