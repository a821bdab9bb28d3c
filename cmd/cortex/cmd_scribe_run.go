package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/scribe"
)

type scribeRunOptions struct {
	paths                []string
	all, toVault, dryRun bool
	as, since            string
}

func newScribeRunCmd(a *app) *cobra.Command {
	var o scribeRunOptions
	cmd := &cobra.Command{
		Use:   "run [FILE…] [--all]",
		Short: "Turn transcripts into session, decision and code-edit notes (or nodes as NDJSON)",
		Long: `run reads transcripts — the files named, or with --all every one 'cortex
scribe sources' finds — groups each session's files (its main transcript,
its subagents', a resumed copy), runs the pipeline over them and prints the
nodes as NDJSON.

With --to-vault it writes them into the vault instead: a note per session
(sessions/<tool>/), per decision (decisions/<project>/: a memory, type
decision, source mined, checked like a save and against existing memories)
and per code edit (episodes/<project>/), linked to each other. It keeps each
file's read offset in the state folder, so the next run reads only sessions
that changed; a note already saying what the transcript says is not written
again, and a note you edited is never overwritten. Credentials are redacted.`,
		Example: `  cortex scribe run --all --to-vault
  cortex scribe run --all --since 7d --to-vault --dry-run
  cortex scribe run ~/.codex/sessions/2026/11/20/rollout-….jsonl | jq -c .kind`,
		Args: args(0, -1, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.paths = args
			return runScribeRun(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.all, "all", false, "read every transcript discovery finds")
	f.StringVar(&o.as, "as", "", "the tool that wrote the files named (default: recognised from each file's content)")
	f.StringVar(&o.since, "since", "", "only transcripts written since then: 7d, 12h, 2w, 90m or a date")
	f.BoolVar(&o.toVault, "to-vault", false, "write notes into the vault instead of printing nodes")
	f.BoolVar(&o.dryRun, "dry-run", false, "with --to-vault: say what would be written, write nothing")
	return cmd
}

type runJSON struct {
	*scribe.RunResult
	Nodes int `json:"nodes"`
}

func runScribeRun(ctx context.Context, a *app, o scribeRunOptions) error {
	sel, err := o.selection(a)
	if err != nil {
		return err
	}
	files, _, err := scribe.Select(sel)
	if err != nil {
		return err
	}
	r, err := a.scribeRunner(o)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		if a.asJSON {
			return a.printJSON(runJSON{RunResult: &scribe.RunResult{Read: []string{}, Unchanged: []string{}}})
		}
		if o.toVault {
			fmt.Fprintln(a.stdout, "No transcripts to read (see cortex scribe sources).")
		}
		return nil
	}
	res, err := r.Run(ctx, files)
	if err != nil {
		return err
	}
	if !o.toVault {
		return writeNodes(a.stdout, res.Nodes)
	}
	if a.asJSON {
		return a.printJSON(runJSON{RunResult: res, Nodes: len(res.Nodes)})
	}
	printRun(a.stdout, res, o.dryRun)
	return nil
}

// selection checks the flags and turns them into what to read.
func (o scribeRunOptions) selection(a *app) (scribe.Selection, error) {
	sel := scribe.Selection{All: o.all, Paths: o.paths, As: o.as, Env: a.scribeEnv()}
	if !o.all && len(o.paths) == 0 {
		return sel, &usageError{msg: "scribe run: name transcript files, or give --all", hint: "cortex scribe run"}
	}
	if err := sel.Check(); err != nil {
		return sel, err
	}
	if o.dryRun && !o.toVault {
		return sel, &memories.ArgError{Arg: "--dry-run", Rule: "goes with --to-vault"}
	}
	if o.since != "" {
		t, err := memories.ParseSince(o.since, time.Now())
		if err != nil {
			return sel, &memories.ArgError{Arg: "--since", Rule: strings.TrimPrefix(err.Error(), "since: ")}
		}
		sel.Since = t
	}
	return sel, nil
}

// scribeRunner is the runner of the config's pipeline; with --to-vault it
// writes into the vault and keeps its offsets in the state folder.
func (a *app) scribeRunner(o scribeRunOptions) (*scribe.Runner, error) {
	p, err := a.scribePipeline()
	if err != nil {
		return nil, err
	}
	r := &scribe.Runner{Pipeline: p}
	if !o.toVault {
		return r, nil
	}
	svc, err := a.open()
	if err != nil {
		return nil, err
	}
	r.Service, r.DryRun = svc, o.dryRun
	r.State, r.LockTimeout = a.settings.State(), a.settings.LockTimeout
	r.StateKey = filepath.Join(a.settings.Vault, a.settings.VaultFolder)
	return r, nil
}

// printRun says what a run read and wrote.
func printRun(w io.Writer, res *scribe.RunResult, dryRun bool) {
	fmt.Fprintf(w, "Read %d %s (%d unchanged since the last run): %d events, %d %s, %d nodes.\n",
		len(res.Read), scribePlural(len(res.Read), "transcript", "transcripts"), len(res.Unchanged),
		res.Events, res.Sessions, scribePlural(res.Sessions, "session", "sessions"), len(res.Nodes))
	if res.Mine == nil {
		return
	}
	verb := ""
	if dryRun {
		verb = "would be "
	}
	type row struct {
		outcome, label string
	}
	for _, typ := range []memories.Type{memories.TypeSession, memories.TypeDecision, memories.TypeEpisode} {
		counts := map[string]int{}
		for _, it := range res.Mine.Items {
			if it.Type == typ {
				counts[it.Outcome]++
			}
		}
		var parts []string
		for _, r := range []row{{memories.MineCreated, verb + "created"}, {memories.MineUpdated, verb + "updated"},
			{memories.MineUnchanged, "unchanged"}, {memories.MineKept, "edited by you, kept"},
			{memories.MineDuplicate, "already remembered"}, {memories.MineRejected, "refused"}} {
			if n := counts[r.outcome]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, r.label))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "%s notes: %s.\n", strings.ToUpper(string(typ[:1]))+string(typ[1:]), strings.Join(parts, ", "))
		}
	}
	for _, it := range res.Mine.Items {
		switch it.Outcome {
		case memories.MineCreated, memories.MineUpdated:
			fmt.Fprintf(w, "  %s%s %s\n", verb, it.Outcome, it.Path)
		case memories.MineRejected:
			fmt.Fprintf(w, "  refused %q: %s\n", it.Title, it.Reason)
		case memories.MineKept:
			fmt.Fprintf(w, "  kept %s: edited since cortex wrote it\n", it.Path)
		}
	}
}
