package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/inbox"
	"github.com/cortexmem/cortex/memories"
	norm "github.com/cortexmem/cortex/normalize"
)

type normalizeOptions struct {
	wait time.Duration
}

func newNormalizeCmd(a *app) *cobra.Command {
	var o normalizeOptions
	cmd := &cobra.Command{
		Use:   "normalize",
		Short: "Turn the events waiting in the inbox into notes",
		Long: `Normalize is the one consumer of the inbox the hooks, cortex capture and the MCP
capture tool write to. It takes every pending event, oldest first:

  stop, pre_compact  the transcript the event names (or, when it names none —
                     Codex may not — the one of its session discovery finds)
                     goes through the pipeline into session, decision and
                     episode notes, as cortex scribe run --to-vault does, reading
                     only what is new since the last read; and the session's
                     record (sessions/<tool>/captured/) gets a line for the
                     event. A transcript that cannot be read is a warning: the
                     record is written all the same.
  meeting            a meeting note (meetings/), a note per action item
                     ("- [ ] …", with its due date) and per decision (under a
                     "Decisions" heading, or "Decision: …"), linked to it;
                     recall --scope meeting:<id> finds them together
  manual             a memory, through the save path (scan, dedup), in the
                     event's project, else general

Then the event moves to processed/ (kept inbox.keep_processed, 14 days by
default), or to failed/ with <id>.error beside it saying why: unsafe or
invalid content (nothing of it is written), a file that does not parse. Fix
the event and move it back to pending/ to try again.

Only one normalize runs at a time: a second one waits --wait for the first,
then leaves the events to it and exits with 0. A normalize killed at any
moment loses and doubles nothing: the next one finds the notes already
written. Hooks never run normalize (they must return at once): run it
yourself, from cron, or after a session.`,
		Example: `  cortex normalize
  cortex normalize --json | jq '.events[] | {id, type, outcome, detail}'`,
		Args: args(0, 0, "takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runNormalize(cmd.Context(), a, o)
		},
	}
	cmd.Flags().DurationVar(&o.wait, "wait", norm.DefaultWait, "how long to wait for another normalize to finish")
	return cmd
}

// normalizeJSON is the JSON of a pass, or of a pass another run holds.
type normalizeJSON struct {
	*norm.Result
	Busy    bool   `json:"busy,omitempty"`
	Message string `json:"message,omitempty"`
}

func runNormalize(ctx context.Context, a *app, o normalizeOptions) error {
	if o.wait < 0 || o.wait > 10*time.Minute {
		return &memories.ArgError{Arg: "--wait", Rule: fmt.Sprintf("%s is not a duration from 0s to 10m", o.wait)}
	}
	n, err := a.normalizer(o.wait)
	if err != nil {
		return err
	}
	res, err := n.Run(ctx)
	var busy *norm.BusyError
	if errors.As(err, &busy) {
		if a.asJSON {
			return a.printJSON(normalizeJSON{Result: &norm.Result{Events: []norm.EventResult{}}, Busy: true, Message: busy.Error()})
		}
		fmt.Fprintf(a.stdout, "Nothing done: %s.\n", busy.Error())
		return nil
	}
	if res != nil {
		if a.asJSON {
			if perr := a.printJSON(normalizeJSON{Result: res}); err == nil {
				err = perr
			}
		} else {
			printNormalize(a.stdout, res, n.Inbox)
		}
	}
	return err
}

// normalizer is the normalizer of the vault's inbox: its transcripts are
// read by the runner of scribe run --to-vault, offsets and all.
func (a *app) normalizer(wait time.Duration) (*norm.Normalizer, error) {
	svc, err := a.open()
	if err != nil {
		return nil, err
	}
	runner, err := a.scribeRunner(scribeRunOptions{toVault: true})
	if err != nil {
		return nil, err
	}
	return &norm.Normalizer{
		Inbox: a.inbox, Service: svc, Transcripts: runner, Env: a.scribeEnv(), Wait: wait,
		KeepProcessed: a.settings.KeepProcessed,
	}, nil
}

// printNormalize says what a pass did, an event a line.
func printNormalize(w io.Writer, res *norm.Result, in *inbox.Inbox) {
	switch {
	case len(res.Events) == 0 && res.Pending == 0:
		fmt.Fprintln(w, "Nothing to normalize: the inbox is empty.")
	default:
		failed := res.Count(norm.Failed)
		fmt.Fprintf(w, "Normalized %d %s: %d processed, %d failed.\n", len(res.Events), scribePlural(len(res.Events), "event", "events"),
			res.Count(norm.Processed), failed)
	}
	for _, e := range res.Events {
		who := string(e.Type)
		var about []string
		if e.Client != "" {
			about = append(about, e.Client)
		}
		if e.Session != "" {
			s := e.Session
			if len(s) > 8 {
				s = s[:8]
			}
			about = append(about, "session "+s)
		}
		if len(about) > 0 {
			who += " (" + strings.Join(about, ", ") + ")"
		}
		fmt.Fprintf(w, "  %s %s: %s\n", e.ID, who, e.Detail)
		if e.Outcome == norm.Failed {
			fmt.Fprintf(w, "    the event is in %s; why: %s\n", in.Failed(), filepath.Join(in.Failed(), e.ID+inbox.ErrorSuffix))
		}
		for _, wmsg := range e.Warnings {
			fmt.Fprintf(w, "    warning: %s\n", wmsg)
		}
		for _, nt := range e.Notes {
			if nt.Outcome == memories.MineCreated || nt.Outcome == memories.MineUpdated || nt.Outcome == memories.RecordAppended {
				fmt.Fprintf(w, "    %s %s\n", nt.Outcome, nt.Path)
			}
		}
	}
	if res.Pending > 0 {
		fmt.Fprintf(w, "%d %s left pending: the pass stopped on an error.\n", res.Pending, scribePlural(res.Pending, "event", "events"))
	}
	if res.Pruned > 0 {
		fmt.Fprintf(w, "Removed %d processed %s past inbox.keep_processed.\n", res.Pruned, scribePlural(res.Pruned, "event", "events"))
	}
}
